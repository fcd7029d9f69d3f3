/* CSystemd: the sd-bus (libsystemd) headers Swift imports directly. What Swift cannot import
 * (the vtable macros) is built by the SessionBusShim target. */
#include <systemd/sd-bus.h>
#include <systemd/sd-bus-vtable.h>
