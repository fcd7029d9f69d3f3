/* SessionBusShim: a growable sd_bus_vtable array built with the sd-bus macros (see the header). */
#include "SessionBusShim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus-vtable.h>

struct sbs_vtable {
    sd_bus_vtable *entries;
    size_t count;
    size_t capacity;
    char **strings; /* every copied string, freed with the table */
    size_t string_count;
    size_t string_capacity;
    int finished;
};

static int reserve_entry(sbs_vtable *t) {
    if (t->count < t->capacity) return 0;
    size_t capacity = t->capacity ? t->capacity * 2 : 16;
    sd_bus_vtable *entries = realloc(t->entries, capacity * sizeof(sd_bus_vtable));
    if (!entries) return -ENOMEM;
    /* Unused union areas must be zero (sd-bus-vtable.h). */
    memset(entries + t->capacity, 0, (capacity - t->capacity) * sizeof(sd_bus_vtable));
    t->entries = entries;
    t->capacity = capacity;
    return 0;
}

/* Copies `length` bytes plus a terminating NUL; `length` may include inner NULs (name lists). */
static const char *keep(sbs_vtable *t, const char *bytes, size_t length) {
    if (t->string_count == t->string_capacity) {
        size_t capacity = t->string_capacity ? t->string_capacity * 2 : 32;
        char **strings = realloc(t->strings, capacity * sizeof(char *));
        if (!strings) return NULL;
        t->strings = strings;
        t->string_capacity = capacity;
    }
    char *copy = malloc(length + 1);
    if (!copy) return NULL;
    if (length) memcpy(copy, bytes, length);
    copy[length] = '\0';
    t->strings[t->string_count++] = copy;
    return copy;
}

static const char *keep_string(sbs_vtable *t, const char *s) { return keep(t, s ? s : "", s ? strlen(s) : 0); }

/* The next (zeroed, reserved) slot with type and flags set. Callers copy only the union member the
 * macro initialized, so the unused union bytes stay zero as sd-bus requires. */
static sd_bus_vtable *next_slot(sbs_vtable *t, const sd_bus_vtable *entry) {
    sd_bus_vtable *slot = &t->entries[t->count++];
    slot->type = entry->type;
    slot->flags = entry->flags;
    return slot;
}

sbs_vtable *sbs_vtable_new(void) {
    sbs_vtable *t = calloc(1, sizeof(sbs_vtable));
    if (!t) return NULL;
    if (reserve_entry(t) < 0) {
        free(t);
        return NULL;
    }
    sd_bus_vtable start = SD_BUS_VTABLE_START(0);
    sd_bus_vtable *slot = next_slot(t, &start);
    slot->x.start = start.x.start;
    return t;
}

void sbs_vtable_free(sbs_vtable *t) {
    if (!t) return;
    for (size_t i = 0; i < t->string_count; i++) free(t->strings[i]);
    free(t->strings);
    free(t->entries);
    free(t);
}

int sbs_vtable_add_method(sbs_vtable *t, const char *member, const char *signature, const char *result,
                          const char *names, size_t names_length, sd_bus_message_handler_t handler,
                          uint64_t flags) {
    if (t->finished) return -EBUSY;
    const char *m = keep_string(t, member), *s = keep_string(t, signature), *r = keep_string(t, result);
    const char *n = keep(t, names ? names : "", names ? names_length : 0);
    if (!m || !s || !r || !n || reserve_entry(t) < 0) return -ENOMEM;
    sd_bus_vtable entry = SD_BUS_METHOD_WITH_NAMES_OFFSET(m, s, n, r, /* out names are in n */, handler, 0, flags);
    sd_bus_vtable *slot = next_slot(t, &entry);
    slot->x.method = entry.x.method;
    return 0;
}

int sbs_vtable_add_signal(sbs_vtable *t, const char *member, const char *signature, const char *names,
                          size_t names_length, uint64_t flags) {
    if (t->finished) return -EBUSY;
    const char *m = keep_string(t, member), *s = keep_string(t, signature);
    const char *n = keep(t, names ? names : "", names ? names_length : 0);
    if (!m || !s || !n || reserve_entry(t) < 0) return -ENOMEM;
    sd_bus_vtable entry = SD_BUS_SIGNAL_WITH_NAMES(m, s, n, flags);
    sd_bus_vtable *slot = next_slot(t, &entry);
    slot->x.signal = entry.x.signal;
    return 0;
}

int sbs_vtable_add_property(sbs_vtable *t, const char *member, const char *signature, sd_bus_property_get_t get,
                            sd_bus_property_set_t set, uint64_t flags) {
    if (t->finished) return -EBUSY;
    const char *m = keep_string(t, member), *s = keep_string(t, signature);
    if (!m || !s || reserve_entry(t) < 0) return -ENOMEM;
    if (set) {
        sd_bus_vtable entry = SD_BUS_WRITABLE_PROPERTY(m, s, get, set, 0, flags);
        sd_bus_vtable *slot = next_slot(t, &entry);
        slot->x.property = entry.x.property;
    } else {
        sd_bus_vtable entry = SD_BUS_PROPERTY(m, s, get, 0, flags);
        sd_bus_vtable *slot = next_slot(t, &entry);
        slot->x.property = entry.x.property;
    }
    return 0;
}

const sd_bus_vtable *sbs_vtable_finish(sbs_vtable *t) {
    if (!t->finished) {
        if (reserve_entry(t) < 0) return NULL;
        sd_bus_vtable end = SD_BUS_VTABLE_END;
        sd_bus_vtable *slot = next_slot(t, &end);
        slot->x.end = end.x.end;
        t->finished = 1;
    }
    return t->entries;
}
