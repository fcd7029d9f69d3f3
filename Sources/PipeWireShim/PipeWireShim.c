/* PipeWireShim: one libpipewire call or one pod translation per function (see the header). */
#include <math.h>
#include <stdatomic.h>
#include "PipeWireShim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pipewire/impl-metadata.h>
#include <spa/debug/types.h>
#include <spa/node/command.h>
#include <spa/param/audio/format-utils.h>
#include <spa/param/audio/raw-types.h>
#include <spa/param/profile.h>
#include <spa/param/profiler.h>
#include <spa/param/props.h>
#include <spa/param/route.h>
#include <spa/pod/builder.h>
#include <spa/pod/iter.h>

const char *const pws_type_client = PW_TYPE_INTERFACE_Client;
const char *const pws_type_node = PW_TYPE_INTERFACE_Node;
const char *const pws_type_port = PW_TYPE_INTERFACE_Port;
const char *const pws_type_link = PW_TYPE_INTERFACE_Link;
const char *const pws_type_device = PW_TYPE_INTERFACE_Device;
const char *const pws_type_metadata = PW_TYPE_INTERFACE_Metadata;
const char *const pws_type_profiler = PW_TYPE_INTERFACE_Profiler;
const uint32_t pws_version_client = PW_VERSION_CLIENT;
const uint32_t pws_version_node = PW_VERSION_NODE;
const uint32_t pws_version_link = PW_VERSION_LINK;
const uint32_t pws_version_device = PW_VERSION_DEVICE;
const uint32_t pws_version_metadata = PW_VERSION_METADATA;
const uint32_t pws_version_profiler = PW_VERSION_PROFILER;

/* ---- loop sources ------------------------------------------------------------------ */

struct spa_source *pws_loop_add_event(struct pw_loop *loop, spa_source_event_func_t callback, void *data) {
    return pw_loop_add_event(loop, callback, data);
}

int pws_loop_signal_event(struct pw_loop *loop, struct spa_source *source) {
    return pw_loop_signal_event(loop, source);
}

struct spa_source *pws_loop_add_timer(struct pw_loop *loop, spa_source_timer_func_t callback, void *data) {
    return pw_loop_add_timer(loop, callback, data);
}

int pws_loop_arm_timer(struct pw_loop *loop, struct spa_source *source, uint64_t nanoseconds) {
    struct timespec value = {
        .tv_sec = (time_t)(nanoseconds / SPA_NSEC_PER_SEC),
        .tv_nsec = (long)(nanoseconds % SPA_NSEC_PER_SEC),
    };
    if (value.tv_sec == 0 && value.tv_nsec == 0) value.tv_nsec = 1; /* 0 would disarm */
    return pw_loop_update_timer(loop, source, &value, NULL, false);
}

int pws_loop_disarm_timer(struct pw_loop *loop, struct spa_source *source) {
    struct timespec value = { 0 };
    return pw_loop_update_timer(loop, source, &value, NULL, false);
}

void pws_loop_destroy_source(struct pw_loop *loop, struct spa_source *source) {
    pw_loop_destroy_source(loop, source);
}

struct pw_properties *pws_properties_new_empty(void) { return pw_properties_new(NULL, NULL); }

/* ---- core / registry --------------------------------------------------------------- */

int pws_core_add_listener(struct pw_core *core, struct spa_hook *hook,
                          const struct pw_core_events *events, void *data) {
    return pw_core_add_listener(core, hook, events, data);
}

int pws_core_sync(struct pw_core *core) { return pw_core_sync(core, PW_ID_CORE, 0); }

struct pw_registry *pws_core_get_registry(struct pw_core *core) {
    return pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
}

int pws_registry_add_listener(struct pw_registry *registry, struct spa_hook *hook,
                              const struct pw_registry_events *events, void *data) {
    return pw_registry_add_listener(registry, hook, events, data);
}

struct pw_proxy *pws_registry_bind(struct pw_registry *registry, uint32_t id, const char *type,
                                   uint32_t version) {
    return pw_registry_bind(registry, id, type, version, 0);
}

int pws_registry_destroy(struct pw_registry *registry, uint32_t id) {
    return pw_registry_destroy(registry, id);
}

struct pw_proxy *pws_core_create_link(struct pw_core *core, uint32_t output_node, uint32_t output_port,
                                      uint32_t input_node, uint32_t input_port) {
    struct pw_properties *props = pw_properties_new(NULL, NULL);
    if (props == NULL) return NULL;
    pw_properties_setf(props, PW_KEY_LINK_OUTPUT_NODE, "%u", output_node);
    pw_properties_setf(props, PW_KEY_LINK_OUTPUT_PORT, "%u", output_port);
    pw_properties_setf(props, PW_KEY_LINK_INPUT_NODE, "%u", input_node);
    pw_properties_setf(props, PW_KEY_LINK_INPUT_PORT, "%u", input_port);
    struct pw_proxy *proxy = pw_core_create_object(core, "link-factory", PW_TYPE_INTERFACE_Link,
                                                   PW_VERSION_LINK, &props->dict, 0);
    pw_properties_free(props); /* marshalled by the call */
    return proxy;
}

/* ---- bound object listeners ----------------------------------------------------------- */

int pws_client_add_listener(struct pw_proxy *client, struct spa_hook *hook,
                            const struct pw_client_events *events, void *data) {
    return pw_client_add_listener((struct pw_client *)client, hook, events, data);
}
int pws_node_add_listener(struct pw_proxy *node, struct spa_hook *hook,
                          const struct pw_node_events *events, void *data) {
    return pw_node_add_listener((struct pw_node *)node, hook, events, data);
}
int pws_link_add_listener(struct pw_proxy *link, struct spa_hook *hook,
                          const struct pw_link_events *events, void *data) {
    return pw_link_add_listener((struct pw_link *)link, hook, events, data);
}
int pws_device_add_listener(struct pw_proxy *device, struct spa_hook *hook,
                            const struct pw_device_events *events, void *data) {
    return pw_device_add_listener((struct pw_device *)device, hook, events, data);
}
int pws_metadata_add_listener(struct pw_proxy *metadata, struct spa_hook *hook,
                              const struct pw_metadata_events *events, void *data) {
    return pw_metadata_add_listener((struct pw_metadata *)metadata, hook, events, data);
}

/* ---- node methods ------------------------------------------------------------------- */

int pws_node_subscribe_param(struct pw_proxy *node, uint32_t param_id) {
    uint32_t ids[1] = { param_id };
    return pw_node_subscribe_params((struct pw_node *)node, ids, 1);
}

int pws_node_enum_params(struct pw_proxy *node, int seq, uint32_t param_id) {
    return pw_node_enum_params((struct pw_node *)node, seq, param_id, 0, UINT32_MAX, NULL);
}

int pws_node_set_props(struct pw_proxy *node, const float *volume, const bool *mute,
                       const float *channel_volumes, uint32_t n_channel_volumes) {
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_pod_frame f;
    if (n_channel_volumes > PWS_MAX_CHANNELS) return -EINVAL;
    spa_pod_builder_push_object(&b, &f, SPA_TYPE_OBJECT_Props, SPA_PARAM_Props);
    if (volume != NULL) {
        spa_pod_builder_prop(&b, SPA_PROP_volume, 0);
        spa_pod_builder_float(&b, *volume);
    }
    if (mute != NULL) {
        spa_pod_builder_prop(&b, SPA_PROP_mute, 0);
        spa_pod_builder_bool(&b, *mute);
    }
    if (channel_volumes != NULL && n_channel_volumes > 0) {
        spa_pod_builder_prop(&b, SPA_PROP_channelVolumes, 0);
        spa_pod_builder_array(&b, sizeof(float), SPA_TYPE_Float, n_channel_volumes, channel_volumes);
    }
    struct spa_pod *pod = spa_pod_builder_pop(&b, &f);
    if (pod == NULL) return -ENOSPC;
    return pw_node_set_param((struct pw_node *)node, SPA_PARAM_Props, 0, pod);
}

int pws_node_set_soft_props(struct pw_proxy *node, const float *soft_volumes, uint32_t n_soft_volumes, bool soft_mute) {
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_pod_frame f;
    if (soft_volumes == NULL || n_soft_volumes == 0 || n_soft_volumes > PWS_MAX_CHANNELS) return -EINVAL;
    spa_pod_builder_push_object(&b, &f, SPA_TYPE_OBJECT_Props, SPA_PARAM_Props);
    spa_pod_builder_prop(&b, SPA_PROP_softMute, 0);
    spa_pod_builder_bool(&b, soft_mute);
    spa_pod_builder_prop(&b, SPA_PROP_softVolumes, 0);
    spa_pod_builder_array(&b, sizeof(float), SPA_TYPE_Float, n_soft_volumes, soft_volumes);
    struct spa_pod *pod = spa_pod_builder_pop(&b, &f);
    if (pod == NULL) return -ENOSPC;
    return pw_node_set_param((struct pw_node *)node, SPA_PARAM_Props, 0, pod);
}

int pws_node_set_port_config_dsp(struct pw_proxy *node, enum spa_direction direction, bool monitor,
                                 uint32_t rate, uint32_t channels, const uint32_t *positions) {
    uint8_t format_buffer[1024], buffer[2048];
    struct spa_pod_builder fb = SPA_POD_BUILDER_INIT(format_buffer, sizeof(format_buffer));
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    if (channels == 0 || channels > PWS_MAX_CHANNELS) return -EINVAL;

    struct spa_audio_info_raw info;
    spa_zero(info);
    info.format = SPA_AUDIO_FORMAT_F32P;
    info.rate = rate;
    info.channels = channels;
    for (uint32_t i = 0; i < channels; i++) info.position[i] = positions[i];
    struct spa_pod *format = spa_format_audio_raw_build(&fb, SPA_PARAM_Format, &info);
    if (format == NULL) return -ENOSPC;

    struct spa_pod *pod = spa_pod_builder_add_object(&b,
        SPA_TYPE_OBJECT_ParamPortConfig, SPA_PARAM_PortConfig,
        SPA_PARAM_PORT_CONFIG_direction, SPA_POD_Id(direction),
        SPA_PARAM_PORT_CONFIG_mode, SPA_POD_Id(SPA_PARAM_PORT_CONFIG_MODE_dsp),
        SPA_PARAM_PORT_CONFIG_monitor, SPA_POD_Bool(monitor),
        SPA_PARAM_PORT_CONFIG_format, SPA_POD_Pod(format));
    if (pod == NULL) return -ENOSPC;
    return pw_node_set_param((struct pw_node *)node, SPA_PARAM_PortConfig, 0, pod);
}

int pws_node_send_command(struct pw_proxy *node, uint32_t command_id) {
    struct spa_command command = SPA_NODE_COMMAND_INIT(command_id);
    return pw_node_send_command((struct pw_node *)node, &command);
}

/* ---- device methods ----------------------------------------------------------------- */

int pws_device_enum_params(struct pw_proxy *device, int seq, uint32_t param_id) {
    return pw_device_enum_params((struct pw_device *)device, seq, param_id, 0, UINT32_MAX, NULL);
}

int pws_device_set_route(struct pw_proxy *device, int32_t index, int32_t profile_device) {
    uint8_t buffer[256];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_pod *pod = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamRoute, SPA_PARAM_Route,
        SPA_PARAM_ROUTE_index, SPA_POD_Int(index),
        SPA_PARAM_ROUTE_device, SPA_POD_Int(profile_device),
        SPA_PARAM_ROUTE_save, SPA_POD_Bool(false));
    if (pod == NULL) return -ENOSPC;
    return pw_device_set_param((struct pw_device *)device, SPA_PARAM_Route, 0, pod);
}

int pws_device_set_profile(struct pw_proxy *device, int32_t index) {
    uint8_t buffer[128];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_pod *pod = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamProfile, SPA_PARAM_Profile,
        SPA_PARAM_PROFILE_index, SPA_POD_Int(index),
        SPA_PARAM_PROFILE_save, SPA_POD_Bool(false));
    if (pod == NULL) return -ENOSPC;
    return pw_device_set_param((struct pw_device *)device, SPA_PARAM_Profile, 0, pod);
}

/* ---- metadata ----------------------------------------------------------------------- */

int pws_metadata_set_property(struct pw_proxy *metadata, uint32_t subject, const char *key,
                              const char *type, const char *value) {
    return pw_metadata_set_property((struct pw_metadata *)metadata, subject, key, type, value);
}

struct pw_proxy *pws_export_metadata(struct pw_context *context, struct pw_core *core, const char *name,
                                     void **out_impl) {
    struct pw_properties *props = pw_properties_new(PW_KEY_METADATA_NAME, name, NULL);
    if (props == NULL) return NULL;
    struct pw_impl_metadata *impl = pw_context_create_metadata(context, name, props, 0);
    if (impl == NULL) return NULL;
    struct spa_dict_item items[] = { SPA_DICT_ITEM_INIT(PW_KEY_METADATA_NAME, name) };
    struct spa_dict dict = SPA_DICT_INIT_ARRAY(items);
    struct pw_proxy *proxy = pw_core_export(core, PW_TYPE_INTERFACE_Metadata, &dict,
                                            pw_impl_metadata_get_implementation(impl), 0);
    if (proxy == NULL) {
        pw_impl_metadata_destroy(impl);
        return NULL;
    }
    *out_impl = impl;
    return proxy;
}

void pws_exported_metadata_destroy(void *impl) {
    pw_impl_metadata_destroy((struct pw_impl_metadata *)impl);
}

static int pws_on_impl_property(void *data, uint32_t subject, const char *key, const char *type,
                                const char *value) {
    struct pws_metadata_watch *watch = data;
    watch->property(watch->data, subject, key, type, value);
    return 0;
}

static const struct pw_impl_metadata_events pws_impl_metadata_events = {
    PW_VERSION_IMPL_METADATA_EVENTS,
    .property = pws_on_impl_property,
};

void pws_exported_metadata_listen(void *impl, struct pws_metadata_watch *watch) {
    pw_impl_metadata_add_listener((struct pw_impl_metadata *)impl, &watch->hook, &pws_impl_metadata_events, watch);
}

/* ---- pod translation ---------------------------------------------------------------- */

bool pws_parse_props(const struct spa_pod *pod, struct pws_props *out) {
    memset(out, 0, sizeof(*out));
    if (pod == NULL || !spa_pod_is_object_type(pod, SPA_TYPE_OBJECT_Props)) return false;
    const struct spa_pod_object *object = (const struct spa_pod_object *)pod;
    const struct spa_pod_prop *prop;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        switch (prop->key) {
        case SPA_PROP_volume:
            out->has_volume = spa_pod_get_float(&prop->value, &out->volume) == 0;
            break;
        case SPA_PROP_mute:
            out->has_mute = spa_pod_get_bool(&prop->value, &out->mute) == 0;
            break;
        case SPA_PROP_channelVolumes:
            out->n_channel_volumes = spa_pod_copy_array(&prop->value, SPA_TYPE_Float,
                                                        out->channel_volumes, PWS_MAX_CHANNELS);
            out->has_channel_volumes = true;
            break;
        case SPA_PROP_channelMap:
            out->n_channel_map = spa_pod_copy_array(&prop->value, SPA_TYPE_Id,
                                                    out->channel_map, PWS_MAX_CHANNELS);
            out->has_channel_map = true;
            break;
        case SPA_PROP_softMute:
            out->has_soft_mute = spa_pod_get_bool(&prop->value, &out->soft_mute) == 0;
            break;
        case SPA_PROP_softVolumes:
            out->n_soft_volumes = spa_pod_copy_array(&prop->value, SPA_TYPE_Float,
                                                     out->soft_volumes, PWS_MAX_CHANNELS);
            out->has_soft_volumes = true;
            break;
        default:
            break;
        }
    }
    return true;
}

bool pws_parse_route(const struct spa_pod *pod, struct pws_route *out) {
    memset(out, 0, sizeof(*out));
    out->index = -1;
    out->device = -1;
    out->available = SPA_PARAM_AVAILABILITY_unknown;
    if (pod == NULL || !spa_pod_is_object_type(pod, SPA_TYPE_OBJECT_ParamRoute)) return false;
    const struct spa_pod_object *object = (const struct spa_pod_object *)pod;
    const struct spa_pod_prop *prop;
    uint32_t id;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        switch (prop->key) {
        case SPA_PARAM_ROUTE_index: spa_pod_get_int(&prop->value, &out->index); break;
        case SPA_PARAM_ROUTE_device: spa_pod_get_int(&prop->value, &out->device); break;
        case SPA_PARAM_ROUTE_priority: spa_pod_get_int(&prop->value, &out->priority); break;
        case SPA_PARAM_ROUTE_direction:
            if (spa_pod_get_id(&prop->value, &id) == 0) out->direction = (int32_t)id;
            break;
        case SPA_PARAM_ROUTE_available:
            if (spa_pod_get_id(&prop->value, &id) == 0) out->available = id;
            break;
        case SPA_PARAM_ROUTE_name: spa_pod_get_string(&prop->value, &out->name); break;
        case SPA_PARAM_ROUTE_description: spa_pod_get_string(&prop->value, &out->description); break;
        case SPA_PARAM_ROUTE_props:
            if (spa_pod_is_object(&prop->value)) out->props = &prop->value;
            break;
        case SPA_PARAM_ROUTE_profiles:
            out->n_profiles = spa_pod_copy_array(&prop->value, SPA_TYPE_Int, out->profiles, PWS_MAX_ROUTE_PROFILES);
            break;
        case SPA_PARAM_ROUTE_devices:
            out->n_devices = spa_pod_copy_array(&prop->value, SPA_TYPE_Int, out->devices, PWS_MAX_ROUTE_PROFILES);
            break;
        default:
            break;
        }
    }
    return true;
}

bool pws_parse_device_profile(const struct spa_pod *pod, struct pws_device_profile *out) {
    memset(out, 0, sizeof(*out));
    out->index = -1;
    out->available = SPA_PARAM_AVAILABILITY_unknown;
    if (pod == NULL || !spa_pod_is_object_type(pod, SPA_TYPE_OBJECT_ParamProfile)) return false;
    const struct spa_pod_object *object = (const struct spa_pod_object *)pod;
    const struct spa_pod_prop *prop;
    uint32_t id;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        switch (prop->key) {
        case SPA_PARAM_PROFILE_index: spa_pod_get_int(&prop->value, &out->index); break;
        case SPA_PARAM_PROFILE_priority: spa_pod_get_int(&prop->value, &out->priority); break;
        case SPA_PARAM_PROFILE_available:
            if (spa_pod_get_id(&prop->value, &id) == 0) out->available = id;
            break;
        case SPA_PARAM_PROFILE_save: spa_pod_get_bool(&prop->value, &out->save); break;
        case SPA_PARAM_PROFILE_name: spa_pod_get_string(&prop->value, &out->name); break;
        case SPA_PARAM_PROFILE_description: spa_pod_get_string(&prop->value, &out->description); break;
        default:
            break;
        }
    }
    return true;
}

/* ---- profiler ------------------------------------------------------------------------ */

int pws_profiler_add_listener(struct pw_proxy *profiler, struct spa_hook *hook,
                              const struct pw_profiler_events *events, void *data) {
    return pw_profiler_add_listener((struct pw_profiler *)profiler, hook, events, data);
}

bool pws_context_load_profiler(struct pw_context *context) {
    return pw_context_load_module(context, PW_EXTENSION_MODULE_PROFILER, NULL, NULL) != NULL;
}

/* Clock: (Int flags, Int id, String name, Long nsec, Fraction rate, Long position, Long duration, ...). */
static bool parse_profiler_clock(const struct spa_pod *pod, struct pws_driver_cycle *out) {
    int32_t flags, id;
    const char *name;
    int64_t position;
    struct spa_fraction rate;
    if (spa_pod_parse_struct(pod, SPA_POD_Int(&flags), SPA_POD_Int(&id), SPA_POD_String(&name),
                             SPA_POD_Long(&out->nsec), SPA_POD_Fraction(&rate), SPA_POD_Long(&position),
                             SPA_POD_Long(&out->duration)) < 0)
        return false;
    out->rate_num = rate.num;
    out->rate_denom = rate.denom;
    return true;
}

/* Driver and follower blocks both begin with (Int id, String name, ...). */
static bool parse_profiler_block(const struct spa_pod *pod, uint32_t *id, const char **name) {
    int32_t value;
    if (spa_pod_parse_struct(pod, SPA_POD_Int(&value), SPA_POD_String(name)) < 0) return false;
    *id = (uint32_t)value;
    return true;
}

/* One Profiler object: its clock, its driver and the followers it drove. */
static bool parse_driver_cycle(const struct spa_pod_object *object, uint32_t *followers, uint32_t max_followers,
                               struct pws_driver_cycle *out) {
    const struct spa_pod_prop *prop;
    bool has_clock = false, has_driver = false;
    const char *name;
    uint32_t id;
    memset(out, 0, sizeof(*out));
    out->followers = followers;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        switch (prop->key) {
        case SPA_PROFILER_clock: has_clock = parse_profiler_clock(&prop->value, out); break;
        case SPA_PROFILER_driverBlock:
            has_driver = parse_profiler_block(&prop->value, &out->driver_id, &out->driver_name);
            break;
        case SPA_PROFILER_followerBlock:
            if (out->n_followers < max_followers && parse_profiler_block(&prop->value, &id, &name))
                followers[out->n_followers++] = id;
            break;
        default:
            break;
        }
    }
    return has_clock && has_driver;
}

static uint32_t count_followers(const struct spa_pod_object *object) {
    const struct spa_pod_prop *prop;
    uint32_t count = 0;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        if (prop->key == SPA_PROFILER_followerBlock) count++;
    }
    return count;
}

int pws_parse_profile(const struct spa_pod *pod, pws_driver_cycle_fn each, void *data) {
    if (pod == NULL || !spa_pod_is_struct(pod)) return -EINVAL;
    const struct spa_pod *item;
    int count = 0;
    SPA_POD_STRUCT_FOREACH(pod, item) {
        if (!spa_pod_is_object_type(item, SPA_TYPE_OBJECT_Profiler)) continue;
        const struct spa_pod_object *object = (const struct spa_pod_object *)item;
        uint32_t n_followers = count_followers(object);
        uint32_t *followers = n_followers > 0 ? calloc(n_followers, sizeof(uint32_t)) : NULL;
        if (n_followers > 0 && followers == NULL) return -ENOMEM;
        struct pws_driver_cycle cycle;
        if (parse_driver_cycle(object, followers, n_followers, &cycle)) {
            each(data, &cycle);
            count++;
        }
        free(followers);
    }
    return count;
}

static bool default_int(const struct spa_pod *value, uint32_t *out) {
    uint32_t n_values, choice;
    const struct spa_pod *v = spa_pod_get_values(value, &n_values, &choice);
    int32_t i;
    if (n_values < 1 || spa_pod_get_int(v, &i) != 0 || i < 0) return false;
    *out = (uint32_t)i;
    return true;
}

bool pws_parse_audio_format(const struct spa_pod *pod, uint32_t *rate, uint32_t *channels,
                            uint32_t positions[PWS_MAX_CHANNELS]) {
    *rate = 0;
    *channels = 0;
    if (pod == NULL || !spa_pod_is_object_type(pod, SPA_TYPE_OBJECT_Format)) return false;
    const struct spa_pod_object *object = (const struct spa_pod_object *)pod;
    const struct spa_pod_prop *prop;
    uint32_t n_positions = 0;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        switch (prop->key) {
        case SPA_FORMAT_AUDIO_rate: default_int(&prop->value, rate); break;
        case SPA_FORMAT_AUDIO_channels: default_int(&prop->value, channels); break;
        case SPA_FORMAT_AUDIO_position:
            n_positions = spa_pod_copy_array(&prop->value, SPA_TYPE_Id, positions, PWS_MAX_CHANNELS);
            break;
        default:
            break;
        }
    }
    if (*channels == 0) *channels = n_positions;
    if (*channels > PWS_MAX_CHANNELS) *channels = PWS_MAX_CHANNELS;
    for (uint32_t i = n_positions; i < *channels; i++) positions[i] = SPA_AUDIO_CHANNEL_UNKNOWN;
    return *channels > 0;
}

const char *pws_channel_name(uint32_t channel) {
    return spa_debug_type_find_short_name(spa_type_audio_channel, channel);
}

uint32_t pws_channel_from_name(const char *name) {
    for (const struct spa_type_info *t = spa_type_audio_channel; t->name != NULL; t++) {
        if (strcmp(name, spa_debug_type_short_name(t->name)) == 0) return t->type;
    }
    return SPA_AUDIO_CHANNEL_UNKNOWN;
}

/* ---- capture streams (level meters) ---------------------------------------------------- */

struct pws_meter {
    struct pw_loop *loop;
    struct pw_stream *stream;
    struct spa_hook listener;
    struct spa_source *event;
    float threshold;
    /* the data thread's last state (-1: nothing heard yet), and what it published */
    int heard;
    atomic_int published;
    void (*changed)(void *data, bool audible);
    void *data;
};

static float peak_f32(struct pw_buffer *buffer) {
    struct spa_buffer *spa = buffer->buffer;
    if (spa == NULL || spa->n_datas < 1) return 0.0f;
    struct spa_data *data = &spa->datas[0];
    if (data->data == NULL || data->chunk == NULL) return 0.0f;
    uint32_t offset = SPA_MIN(data->chunk->offset, data->maxsize);
    uint32_t size = SPA_MIN(data->chunk->size, data->maxsize - offset);
    const float *samples = SPA_PTROFF(data->data, offset, const float);
    float peak = 0.0f;
    for (uint32_t i = 0; i < size / sizeof(float); i++) {
        float value = fabsf(samples[i]);
        if (value > peak) peak = value;
    }
    return peak;
}

/* Data thread. */
static void meter_process(void *data) {
    struct pws_meter *meter = data;
    struct pw_buffer *buffer;
    float peak = 0.0f;
    while ((buffer = pw_stream_dequeue_buffer(meter->stream)) != NULL) {
        peak = SPA_MAX(peak, peak_f32(buffer));
        pw_stream_queue_buffer(meter->stream, buffer);
    }
    int now = peak > meter->threshold ? 1 : 0;
    if (now == meter->heard) return;
    meter->heard = now;
    atomic_store(&meter->published, now);
    pw_loop_signal_event(meter->loop, meter->event);
}

/* Loop thread. */
static void meter_event(void *data, uint64_t count) {
    (void)count;
    struct pws_meter *meter = data;
    meter->changed(meter->data, atomic_load(&meter->published) == 1);
}

static const struct pw_stream_events meter_events = {
    PW_VERSION_STREAM_EVENTS,
    .process = meter_process,
};

struct pws_meter *pws_meter_new(struct pw_loop *loop, struct pw_stream *stream, float threshold,
                                void (*changed)(void *data, bool audible), void *data) {
    struct pws_meter *meter = calloc(1, sizeof(*meter));
    if (meter == NULL) return NULL;
    meter->loop = loop;
    meter->stream = stream;
    meter->threshold = threshold;
    meter->heard = -1;
    atomic_init(&meter->published, -1);
    meter->changed = changed;
    meter->data = data;
    meter->event = pw_loop_add_event(loop, meter_event, meter);
    if (meter->event == NULL) {
        free(meter);
        return NULL;
    }
    pw_stream_add_listener(stream, &meter->listener, &meter_events, meter);
    return meter;
}

int pws_meter_connect(struct pws_meter *meter) {
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_audio_info_raw info;
    spa_zero(info);
    info.format = SPA_AUDIO_FORMAT_F32;
    info.channels = 1;
    info.position[0] = SPA_AUDIO_CHANNEL_MONO;
    const struct spa_pod *params[1];
    params[0] = spa_format_audio_raw_build(&b, SPA_PARAM_EnumFormat, &info);
    if (params[0] == NULL) return -ENOSPC;
    return pw_stream_connect(meter->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                             PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_DONT_RECONNECT | PW_STREAM_FLAG_RT_PROCESS,
                             params, 1);
}

void pws_meter_free(struct pws_meter *meter) {
    if (meter == NULL) return;
    /* Deactivates the node in the data loop (a blocking invoke): no process call after this. */
    pw_stream_disconnect(meter->stream);
    spa_hook_remove(&meter->listener);
    pw_loop_destroy_source(meter->loop, meter->event);
    free(meter);
}
