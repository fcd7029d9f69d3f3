/* The libpulse headers Swift imports directly: the asynchronous API, its threaded main
 * loop, and the stream-restore extension (which pulseaudio.h does not include). */
#include <pulse/pulseaudio.h>
#include <pulse/ext-stream-restore.h>
