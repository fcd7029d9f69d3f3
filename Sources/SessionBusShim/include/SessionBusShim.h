#pragma once
/*
 * SessionBusShim: builds sd-bus object vtables at run time. The SD_BUS_METHOD / SD_BUS_PROPERTY /
 * SD_BUS_SIGNAL / SD_BUS_VTABLE_START macros expand to designated initializers of a struct with a
 * bit-field and a union, which Swift cannot write; everything else in sd-bus is imported directly
 * by the SessionBus Swift module. No state beyond the table itself and no policy lives here.
 *
 * Names (argument names for introspection) are passed as one buffer "a\0b\0c\0" of `names_length`
 * bytes: the method's input names followed by its output names, exactly as SD_BUS_PARAM builds them.
 */
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <sys/eventfd.h> /* the bus thread's wake-up; Glibc's Swift overlay does not export it */

typedef struct sbs_vtable sbs_vtable;

/* An empty table (START entry only). Free it with sbs_vtable_free after the object slot is gone. */
sbs_vtable *sbs_vtable_new(void);
void sbs_vtable_free(sbs_vtable *table);

/* Each returns 0, or -ENOMEM. Strings are copied; they live as long as the table. */
int sbs_vtable_add_method(sbs_vtable *table, const char *member, const char *signature, const char *result,
                          const char *names, size_t names_length, sd_bus_message_handler_t handler,
                          uint64_t flags);
int sbs_vtable_add_signal(sbs_vtable *table, const char *member, const char *signature, const char *names,
                          size_t names_length, uint64_t flags);
/* `set` NULL makes a read-only property. */
int sbs_vtable_add_property(sbs_vtable *table, const char *member, const char *signature,
                            sd_bus_property_get_t get, sd_bus_property_set_t set, uint64_t flags);

/* Appends the END entry (once) and returns the table for sd_bus_add_object_vtable; add nothing after. */
const sd_bus_vtable *sbs_vtable_finish(sbs_vtable *table);
