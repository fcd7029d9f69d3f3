/* The page cache dropped before a trial, when the harness asks (REACTION_DROP_CACHES=1): the
 * first reaction after a quiet spell on a desktop whose memory pressure reclaimed the daemon's
 * (and the server's) code. Needs root; a refusal is said once and the trial runs anyway. */
#ifndef REACTION_PAGE_CACHE_H
#define REACTION_PAGE_CACHE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void drop_page_cache_if_asked(void) {
    static bool refused = false;
    const char *asked = getenv("REACTION_DROP_CACHES");
    if (refused || asked == NULL || strcmp(asked, "1") != 0) return;
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "1", 1) != 1) {
        fprintf(stderr, "reaction: cannot drop the page cache (needs root): trials run with it\n");
        refused = true;
    }
    if (fd >= 0) close(fd);
}

#endif
