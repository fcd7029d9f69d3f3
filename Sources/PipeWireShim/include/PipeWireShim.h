#pragma once
/*
 * PipeWireShim: thin C wrappers for what Swift cannot import from libpipewire 0.3 —
 * the method macros (pw_node_set_param, pw_registry_bind, ...), variadic pod builders
 * and pod parsers, and loop source helpers. No policy and no state lives here: every
 * function does one libpipewire call or one pod translation.
 */
#include <stdbool.h>
#include <stdint.h>
#include <pipewire/pipewire.h>
#include <pipewire/extensions/metadata.h>
#include <pipewire/extensions/profiler.h>
#include <pipewire/stream.h>
#include <spa/param/param.h>

#define PWS_MAX_CHANNELS 64
#define PWS_CHANNEL_NAME_LEN 16

/* ---- loop sources ------------------------------------------------------------------ */
/* An eventfd source: signal it from any thread, `callback` runs on the loop thread. */
struct spa_source *pws_loop_add_event(struct pw_loop *loop, spa_source_event_func_t callback, void *data);
int pws_loop_signal_event(struct pw_loop *loop, struct spa_source *source);
/* A one-shot timer source; arm it with pws_loop_arm_timer. */
struct spa_source *pws_loop_add_timer(struct pw_loop *loop, spa_source_timer_func_t callback, void *data);
int pws_loop_arm_timer(struct pw_loop *loop, struct spa_source *source, uint64_t nanoseconds);
int pws_loop_disarm_timer(struct pw_loop *loop, struct spa_source *source);
void pws_loop_destroy_source(struct pw_loop *loop, struct spa_source *source);

/* An empty property set (pw_properties_new is variadic). */
struct pw_properties *pws_properties_new_empty(void);

/* ---- core / registry --------------------------------------------------------------- */
int pws_core_add_listener(struct pw_core *core, struct spa_hook *hook,
                          const struct pw_core_events *events, void *data);
int pws_core_sync(struct pw_core *core);
struct pw_registry *pws_core_get_registry(struct pw_core *core);
int pws_registry_add_listener(struct pw_registry *registry, struct spa_hook *hook,
                              const struct pw_registry_events *events, void *data);
struct pw_proxy *pws_registry_bind(struct pw_registry *registry, uint32_t id, const char *type,
                                   uint32_t version);
int pws_registry_destroy(struct pw_registry *registry, uint32_t id);
/* Creates a link between two ports, owned by this connection (no object.linger). */
struct pw_proxy *pws_core_create_link(struct pw_core *core, uint32_t output_node, uint32_t output_port,
                                      uint32_t input_node, uint32_t input_port);

/* ---- bound object listeners ----------------------------------------------------------- */
int pws_client_add_listener(struct pw_proxy *client, struct spa_hook *hook,
                            const struct pw_client_events *events, void *data);
int pws_node_add_listener(struct pw_proxy *node, struct spa_hook *hook,
                          const struct pw_node_events *events, void *data);
int pws_link_add_listener(struct pw_proxy *link, struct spa_hook *hook,
                          const struct pw_link_events *events, void *data);
int pws_device_add_listener(struct pw_proxy *device, struct spa_hook *hook,
                            const struct pw_device_events *events, void *data);
int pws_metadata_add_listener(struct pw_proxy *metadata, struct spa_hook *hook,
                              const struct pw_metadata_events *events, void *data);

/* ---- node methods ------------------------------------------------------------------- */
int pws_node_subscribe_param(struct pw_proxy *node, uint32_t param_id);
int pws_node_enum_params(struct pw_proxy *node, int seq, uint32_t param_id);
/* Sets Props. NULL / 0 leaves that property untouched. */
int pws_node_set_props(struct pw_proxy *node, const float *volume, const bool *mute,
                       const float *channel_volumes, uint32_t n_channel_volumes);

/* Sets a converter's soft volumes and soft mute together: what the converter applies instead of
 * channelVolumes and mute until someone writes those again. */
int pws_node_set_soft_props(struct pw_proxy *node, const float *soft_volumes, uint32_t n_soft_volumes, bool soft_mute);
/* PortConfig in dsp mode with an F32 planar format of the given channel positions. */
int pws_node_set_port_config_dsp(struct pw_proxy *node, enum spa_direction direction, bool monitor,
                                 uint32_t rate, uint32_t channels, const uint32_t *positions);
int pws_node_send_command(struct pw_proxy *node, uint32_t command_id);

/* ---- capture streams (level meters) ---------------------------------------------------- */
/* A level meter's real-time side, on a capture stream of one F32 channel (any rate, mapped
 * buffers, never linked by anyone but us, not reconnected when its target goes). Its process
 * callback runs in the data thread, in the graph cycle that made the audio: a stream processed
 * on the main loop is async, and PipeWire 1.6 gives an async link a quantum of latency, so the
 * meter would hear every sound one cycle late. It takes each buffer's peak |sample| and, only
 * when the peak crosses `threshold` (audible / silent), signals an event on `loop`, where
 * `changed` is called with the new state. Nothing else is shared with the data thread. */
struct pws_meter;
struct pws_meter *pws_meter_new(struct pw_loop *loop, struct pw_stream *stream, float threshold,
                                void (*changed)(void *data, bool audible), void *data);
/* Connects the meter's stream (real-time processing). */
int pws_meter_connect(struct pws_meter *meter);
/* Disconnects the stream (after which its process callback no longer runs), removes the
 * listener and the event, and frees the meter; the caller destroys the stream afterwards. */
void pws_meter_free(struct pws_meter *meter);

/* ---- device methods ----------------------------------------------------------------- */
int pws_device_enum_params(struct pw_proxy *device, int seq, uint32_t param_id);
/* Makes route `index` (an EnumRoute index) the active one of card profile device `device`, not
 * saved by the session manager (`save: false`): what a mixer's port switch sends. */
int pws_device_set_route(struct pw_proxy *device, int32_t index, int32_t profile_device);
/* Makes profile `index` (an EnumProfile index) the device's active one, not saved as its
 * user's choice (`save = false`). */
int pws_device_set_profile(struct pw_proxy *device, int32_t index);

/* ---- metadata ----------------------------------------------------------------------- */
int pws_metadata_set_property(struct pw_proxy *metadata, uint32_t subject, const char *key,
                              const char *type, const char *value);
/* A metadata object implemented in this process and exported on `core` (use a core that does
 * not also bind it back: pitfall 1). Returns the export proxy; *out_impl gets the object. */
struct pw_proxy *pws_export_metadata(struct pw_context *context, struct pw_core *core, const char *name,
                                     void **out_impl);
void pws_exported_metadata_destroy(void *impl);
/* Calls `watch->property` for every change of a metadata this process implements, whoever
 * made it: PipeWire 0.3.65 does not always forward another client's change of an exported
 * metadata to this process's own bound proxy. `watch` must outlive the listener (remove its
 * hook with spa_hook_remove before freeing it, or destroy the metadata first). */
typedef void (*pws_metadata_property_fn)(void *data, uint32_t subject, const char *key, const char *type,
                                         const char *value);
struct pws_metadata_watch {
    struct spa_hook hook;
    pws_metadata_property_fn property;
    void *data;
};
void pws_exported_metadata_listen(void *impl, struct pws_metadata_watch *watch);

/* ---- profiler (libpipewire-module-profiler, what pw-top reads) ------------------------ */
int pws_profiler_add_listener(struct pw_proxy *profiler, struct spa_hook *hook,
                              const struct pw_profiler_events *events, void *data);
/* Makes this context understand the Profiler interface (its protocol marshalling lives in the
 * module, as for pw-top). Returns false when the module cannot be loaded. */
bool pws_context_load_profiler(struct pw_context *context);

/* One driver cycle of a profile: the leading fields every release since 0.3.65 sends (later
 * releases append more to each block). */
struct pws_driver_cycle {
    uint32_t driver_id;
    const char *driver_name;  /* points into the pod: copy before the callback returns */
    uint32_t rate_num;        /* the clock's rate, a fraction: 1/48000 */
    uint32_t rate_denom;
    int64_t nsec;             /* when the cycle began, on the driver's clock */
    int64_t duration;         /* the cycle's length in samples: the quantum */
    uint32_t n_followers;
    const uint32_t *followers; /* ids of the nodes the driver drove in that cycle */
};
typedef void (*pws_driver_cycle_fn)(void *data, const struct pws_driver_cycle *cycle);
/* Calls `each` for every cycle in a profile (a Struct of Profiler objects, oldest first).
 * Returns how many, or a negative errno when the pod is not a profile. */
int pws_parse_profile(const struct spa_pod *pod, pws_driver_cycle_fn each, void *data);

/* ---- pod translation ---------------------------------------------------------------- */
struct pws_props {
    bool has_volume;
    float volume;
    bool has_mute;
    bool mute;
    bool has_channel_volumes;
    uint32_t n_channel_volumes;
    float channel_volumes[PWS_MAX_CHANNELS];
    bool has_channel_map;
    uint32_t n_channel_map;
    uint32_t channel_map[PWS_MAX_CHANNELS];
    bool has_soft_mute;
    bool soft_mute;
    bool has_soft_volumes;
    uint32_t n_soft_volumes;
    float soft_volumes[PWS_MAX_CHANNELS];
};
/* Reads the fields audiosession cares about from a Props object; false when not Props. */
bool pws_parse_props(const struct spa_pod *pod, struct pws_props *out);

#define PWS_MAX_ROUTE_PROFILES 32
struct pws_route {
    int32_t index;
    int32_t direction;   /* enum spa_direction */
    int32_t device;      /* -1 when absent (EnumRoute) */
    int32_t priority;
    uint32_t available;  /* enum spa_param_availability */
    const char *name;        /* point into the pod: copy before the callback returns */
    const char *description;
    const struct spa_pod *props; /* Route only: the route's Props object, or NULL */
    uint32_t n_profiles;     /* the profiles (EnumProfile indices) the route belongs to */
    int32_t profiles[PWS_MAX_ROUTE_PROFILES];
    uint32_t n_devices;      /* the card profile devices (a node's card.profile.device) it serves */
    int32_t devices[PWS_MAX_ROUTE_PROFILES];
};
/* Reads an EnumRoute / Route object; false when it is neither. */
bool pws_parse_route(const struct spa_pod *pod, struct pws_route *out);

struct pws_device_profile {
    int32_t index;
    int32_t priority;
    uint32_t available;      /* enum spa_param_availability */
    bool save;               /* Profile only: the user's choice, to be restored */
    const char *name;        /* point into the pod: copy before the callback returns */
    const char *description;
};
/* Reads an EnumProfile / Profile object; false when it is neither. */
bool pws_parse_device_profile(const struct spa_pod *pod, struct pws_device_profile *out);

/* Reads channel count, rate and positions from an audio/raw Format / EnumFormat object.
 * Values that are ranges or choices yield their default. */
bool pws_parse_audio_format(const struct spa_pod *pod, uint32_t *rate, uint32_t *channels,
                            uint32_t positions[PWS_MAX_CHANNELS]);

/* SPA_AUDIO_CHANNEL_* <-> short name ("FL", "MONO", ...). */
const char *pws_channel_name(uint32_t channel);
uint32_t pws_channel_from_name(const char *name);

/* Interface type names and versions (string-concatenation macros Swift cannot import). */
extern const char *const pws_type_client;
extern const char *const pws_type_node;
extern const char *const pws_type_port;
extern const char *const pws_type_link;
extern const char *const pws_type_device;
extern const char *const pws_type_metadata;
extern const char *const pws_type_profiler;
extern const uint32_t pws_version_client;
extern const uint32_t pws_version_node;
extern const uint32_t pws_version_link;
extern const uint32_t pws_version_device;
extern const uint32_t pws_version_metadata;
extern const uint32_t pws_version_profiler;
