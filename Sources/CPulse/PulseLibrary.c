#include "CPulse.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct pws_pulse library;
static const struct pws_pulse *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : "libpulse.so.0: cannot be loaded");
        return;
    }
#define PWS_RESOLVE(name)                                                                   \
    if (!(library.name = (__typeof__(library.name))dlsym(handle, #name))) {                \
        snprintf(failure, sizeof failure, "libpulse.so.0 has no %s (too old?)", #name);     \
        dlclose(handle);                                                                    \
        return;                                                                             \
    }
    PWS_PULSE_FUNCTIONS(PWS_RESOLVE)
#undef PWS_RESOLVE
    loaded = &library;
}

const struct pws_pulse *pws_pulse_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *pws_pulse_load_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}
