/* The libpipewire / libspa headers Swift imports directly. Macros and variadic
 * builders that Swift cannot import live in the PipeWireShim target. */
#include <pipewire/pipewire.h>
#include <pipewire/extensions/metadata.h>
#include <pipewire/extensions/profiler.h>
#include <spa/param/props.h>
#include <spa/param/route.h>
#include <spa/param/audio/raw.h>
#include <spa/node/command.h>
#include <spa/pod/builder.h>
#include <spa/utils/json.h>
