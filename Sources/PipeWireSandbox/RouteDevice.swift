import Foundation

/// A device with two output routes ("analog-output-speaker", "analog-output-headphones") and
/// two input routes ("analog-input-internal-mic", "analog-input-headset-mic"), exported into the
/// sandbox by a real client process, the way a session manager exports ALSA cards. Plugging and
/// unplugging a headset flips its headphones' and its microphone's `available` and toggles the
/// param SERIAL bits, exactly what a jack does; subscriptions do not push such changes
/// (pitfall 2), so this is how route handling is exercised without audio hardware.
///
/// Like an ALSA card, it also has a sink node, `<name>-output` (``sinkName``), and a source node,
/// `<name>-input` (``sourceName``), whose `device.id` is this device and whose
/// `card.profile.device` is 0 and 1: the device's `Route` params for devices 0 and 1 are their
/// active routes. A client selects the input route with `SetParam Route { index, device: 1 }`
/// (as a mixer's input switch does); the headset mic is active while plugged in unless the
/// internal one was selected. When the headphone jack changes, the device itself
/// switches that `Route` (headphones while they are available, else the speaker), which is what
/// WirePlumber's default-routes does for a real card; the sink node stays the same node, so a
/// session manager sees the change only in the device's routes (as on real hardware). The sink is
/// a `support.null-audio-sink` adapter created by the helper and owned by its connection: it
/// goes away with the helper.
///
/// Started with profiles (``PrivatePipeWire/startRouteDevice(name:description:withHDMIProfile:)``),
/// it is a card as ALSA's are: profiles `off`, analog duplex (the routes and nodes above) and
/// HDMI (an `hdmi-output-0` route and a sink, ``hdmiSinkName``), each route naming its profile,
/// only the active profile's nodes there; `SetParam Profile { index, save }` switches
/// (``profileChanges``).
///
/// The client is a small C program (spa_device methods and hook emission are C macros), built
/// once with `cc` and pkg-config and cached by content hash.
public final class RouteDevice: @unchecked Sendable {
    public let name: String
    public let process: ManagedProcess
    /// The device's registry id.
    public let globalID: UInt32
    /// `node.name` of the device's sink node.
    public var sinkName: String { "\(name)-output" }
    /// `node.name` of the device's source node.
    public var sourceName: String { "\(name)-input" }
    /// `node.name` of the HDMI profile's sink (a card with profiles only).
    public var hdmiSinkName: String { "\(name)-hdmi-output" }
    /// A card with profiles: its `EnumProfile` indices, as ALSA's cards number theirs.
    public enum ProfileIndex: Int, Sendable { case off = 0, analog, hdmi }

    /// Every `SetParam Profile` it took, in order: the profile and its `save`.
    public var profileChanges: [(profile: ProfileIndex, save: Bool)] {
        process.output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "profile", let index = Int(fields[1]).flatMap(ProfileIndex.init) else { return nil }
            return (index, fields[3] == "1")
        }
    }
    /// The routes' indices in the device's `EnumRoute`.
    public enum RouteIndex: Int32, Sendable { case speaker = 0, headphones, internalMic, headsetMic }

    init(name: String, process: ManagedProcess) throws {
        self.name = name
        self.process = process
        var id: UInt32?
        try waitUntil(timeout: .seconds(10), "route device \(name) is exported") {
            guard process.isRunning else {
                throw SandboxError.notRunning("route-device exited: \(process.errorOutput)")
            }
            id = process.output.split(separator: "\n").lazy.compactMap { line -> UInt32? in
                line.hasPrefix("bound ") ? UInt32(line.dropFirst(6)) : nil
            }.first
            return id != nil && process.output.contains("sink created") && process.output.contains("source created")
        }
        globalID = id!
    }

    /// The input routes a client selected, in order (from the helper's output).
    public var selectedInputRoutes: [RouteIndex] {
        process.output.split(separator: "\n").compactMap { line in
            line.hasPrefix("input route ") ? Int32(line.dropFirst(12)).flatMap(RouteIndex.init(rawValue:)) : nil
        }
    }

    /// A headset plugged in: its headphones' and its microphone's routes become available and
    /// active.
    public func plugHeadphones() throws { try setHeadphones(available: true) }

    /// The headset pulled out: its routes become unavailable; the speaker and the internal
    /// microphone are active.
    public func unplugHeadphones() throws { try setHeadphones(available: false) }

    /// When the helper last flipped the headphones to `available` (CLOCK_MONOTONIC, seconds),
    /// taken right after it announced the change: the start of a reaction-time measurement.
    public func lastFlip(available: Bool) -> Double? {
        let prefix = "headphones \(available ? "yes" : "no") at "
        return process.output.split(separator: "\n").last { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    private func setHeadphones(available: Bool) throws {
        let line = "headphones \(available ? "yes" : "no")"
        let before = process.output.components(separatedBy: line).count
        kill(process.pid, available ? SIGUSR1 : SIGUSR2)
        try waitUntil(timeout: .seconds(5), "route device reports '\(line)'") {
            process.output.components(separatedBy: line).count > before
        }
    }

    /// Builds the helper (once per source version) and returns its path.
    static func executable(environment: [String: String], logDirectory: URL) throws -> String {
        try HelperProgram.executable(named: "route-device", source: source, environment: environment, logDirectory: logDirectory)
    }

    static let source = #"""
/* A device with two output routes (speaker, headphones), exported by a real client the way
 * ALSA devices are exported by a session manager, and its sink node (device.id = the device).
 * SIGUSR1 plugs the headphones in, SIGUSR2 pulls them out: the route's `available` flips, the
 * active Route follows, and the param SERIAL bits toggle.
 * With `hdmi`, it is a card with profiles as ALSA's are: off (0), analog duplex (1: the routes
 * above, its sink and source) and HDMI (2: an hdmi-output-0 route and a sink NAME-hdmi-output).
 * SetParam Profile { index, save } switches: the old profile's nodes are destroyed, the new
 * one's created, and it prints "profile I save S".
 * Usage: route-device NAME DESCRIPTION [hdmi] */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <pipewire/pipewire.h>
#include <spa/monitor/device.h>
#include <spa/monitor/utils.h>
#include <spa/param/param.h>
#include <spa/param/props.h>
#include <spa/param/route.h>
#include <spa/pod/builder.h>
#include <spa/pod/parser.h>
#include <spa/utils/result.h>

struct route { const char *name, *description; enum spa_direction direction; int priority; bool available; };

/* Routes 0-1 are the outputs (card profile device 0), 2-3 the inputs (device 1), of the analog
 * profile; 4 is the HDMI profile's output (device 2: ALSA numbers a card's profile devices
 * across all its profiles). */
#define N_ROUTES 5
enum { PROFILE_OFF, PROFILE_ANALOG, PROFILE_HDMI, N_PROFILES };
static const struct { const char *name, *description; int priority; } profiles[N_PROFILES] = {
    { "off", "Off", 0 },
    { "output:analog-stereo+input:analog-stereo", "Analog Stereo Duplex", 6565 },
    { "output:hdmi-stereo", "Digital Stereo (HDMI) Output", 5900 },
};
static uint32_t profile_of_route(uint32_t route) { return route == 4 ? PROFILE_HDMI : PROFILE_ANALOG; }

struct impl {
    struct pw_main_loop *loop;
    struct pw_core *core;
    struct spa_device device;
    struct spa_hook_list hooks;
    struct spa_device_info info;
    struct spa_param_info params[4];
    uint32_t n_params;
    /* A card with profiles: the active one and its `save`; without, always analog. */
    bool has_profiles;
    uint32_t profile;
    bool save_profile;
    uint32_t device_id;
    struct spa_dict_item items[4];
    struct spa_dict dict;
    struct route routes[N_ROUTES];
    /* The input route a client selected with SetParam Route (-1: none, the best available). */
    int selected_input;
    struct pw_proxy *proxy;
    struct spa_hook proxy_listener;
    struct pw_proxy *sink;
    struct spa_hook sink_listener;
    struct pw_proxy *source;
    struct spa_hook source_listener;
    struct pw_proxy *hdmi;
    struct spa_hook hdmi_listener;
    const char *name;
};

/* The output route: headphones while they are plugged in, else the speaker. */
static uint32_t active_output(struct impl *d) { return d->routes[1].available ? 1 : 0; }

/* The input route: the one selected while it is available, else the headset mic while the
 * headset is plugged in, else the internal mic. */
static uint32_t active_input(struct impl *d) {
    if (d->selected_input >= 2 && d->routes[d->selected_input].available) return (uint32_t)d->selected_input;
    return d->routes[3].available ? 3 : 2;
}

static struct spa_pod *build_route(struct spa_pod_builder *b, uint32_t param_id, uint32_t i, struct impl *d) {
    struct route *r = &d->routes[i];
    struct spa_pod_frame f;
    spa_pod_builder_push_object(b, &f, SPA_TYPE_OBJECT_ParamRoute, param_id);
    spa_pod_builder_add(b,
        SPA_PARAM_ROUTE_index, SPA_POD_Int(i),
        SPA_PARAM_ROUTE_direction, SPA_POD_Id(r->direction),
        SPA_PARAM_ROUTE_name, SPA_POD_String(r->name),
        SPA_PARAM_ROUTE_description, SPA_POD_String(r->description),
        SPA_PARAM_ROUTE_priority, SPA_POD_Int(r->priority),
        SPA_PARAM_ROUTE_available, SPA_POD_Id(r->available ? SPA_PARAM_AVAILABILITY_yes : SPA_PARAM_AVAILABILITY_no),
        0);
    uint32_t device = i == 4 ? 2 : r->direction == SPA_DIRECTION_OUTPUT ? 0 : 1;
    if (param_id == SPA_PARAM_Route) {
        spa_pod_builder_add(b, SPA_PARAM_ROUTE_device, SPA_POD_Int(device), 0);
        spa_pod_builder_prop(b, SPA_PARAM_ROUTE_props, 0);
        spa_pod_builder_add_object(b, SPA_TYPE_OBJECT_Props, SPA_PARAM_Route,
            SPA_PROP_volume, SPA_POD_Float(i == 1 ? 0.5f : 1.0f),
            SPA_PROP_mute, SPA_POD_Bool(false));
    }
    if (d->has_profiles) {
        /* As ALSA's cards list them: the profiles a route belongs to, and its profile devices. */
        int32_t profile = (int32_t)profile_of_route(i), devices = (int32_t)device;
        spa_pod_builder_add(b,
            SPA_PARAM_ROUTE_profiles, SPA_POD_Array(sizeof(int32_t), SPA_TYPE_Int, 1, &profile),
            SPA_PARAM_ROUTE_devices, SPA_POD_Array(sizeof(int32_t), SPA_TYPE_Int, 1, &devices),
            0);
        if (param_id == SPA_PARAM_Route) spa_pod_builder_add(b, SPA_PARAM_ROUTE_profile, SPA_POD_Int(profile), 0);
    }
    return spa_pod_builder_pop(b, &f);
}

static struct spa_pod *build_profile(struct spa_pod_builder *b, uint32_t param_id, uint32_t i, struct impl *d) {
    struct spa_pod_frame f;
    spa_pod_builder_push_object(b, &f, SPA_TYPE_OBJECT_ParamProfile, param_id);
    spa_pod_builder_add(b,
        SPA_PARAM_PROFILE_index, SPA_POD_Int(i),
        SPA_PARAM_PROFILE_name, SPA_POD_String(profiles[i].name),
        SPA_PARAM_PROFILE_description, SPA_POD_String(profiles[i].description),
        SPA_PARAM_PROFILE_available, SPA_POD_Id(SPA_PARAM_AVAILABILITY_yes),
        SPA_PARAM_PROFILE_priority, SPA_POD_Int(profiles[i].priority),
        0);
    if (param_id == SPA_PARAM_Profile) spa_pod_builder_add(b, SPA_PARAM_PROFILE_save, SPA_POD_Bool(d->save_profile), 0);
    return spa_pod_builder_pop(b, &f);
}

/* The active routes, one per profile device of the active profile. */
static uint32_t active_routes(struct impl *d, uint32_t out[2]) {
    switch (d->profile) {
    case PROFILE_ANALOG: out[0] = active_output(d); out[1] = active_input(d); return 2;
    case PROFILE_HDMI: out[0] = 4; return 1;
    default: return 0;
    }
}

static void emit_info(struct impl *d, bool full) {
    d->info.change_mask = full ? SPA_DEVICE_CHANGE_MASK_PROPS | SPA_DEVICE_CHANGE_MASK_PARAMS
                               : SPA_DEVICE_CHANGE_MASK_PARAMS;
    spa_device_emit_info(&d->hooks, &d->info);
    d->info.change_mask = 0;
}

static int impl_add_listener(void *object, struct spa_hook *listener,
                             const struct spa_device_events *events, void *data) {
    struct impl *d = object;
    struct spa_hook_list save;
    spa_hook_list_isolate(&d->hooks, &save, listener, events, data);
    emit_info(d, true);
    spa_hook_list_join(&d->hooks, &save);
    return 0;
}

static int impl_sync(void *object, int seq) {
    struct impl *d = object;
    spa_device_emit_result(&d->hooks, seq, 0, 0, NULL);
    return 0;
}

static int impl_enum_params(void *object, int seq, uint32_t id, uint32_t start, uint32_t num,
                            const struct spa_pod *filter) {
    struct impl *d = object;
    uint8_t buffer[4096];
    uint32_t count = 0;
    (void)filter;
    uint32_t routes = d->has_profiles ? N_ROUTES : N_ROUTES - 1;
    uint32_t active[2];
    uint32_t n_active = active_routes(d, active);
    for (uint32_t index = start; count < num; index++) {
        struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
        struct spa_result_device_params result = { .id = id, .index = index, .next = index + 1 };
        if (id == SPA_PARAM_EnumRoute) {
            if (index >= routes) break;
            result.param = build_route(&b, id, index, d);
        } else if (id == SPA_PARAM_Route) {
            if (index >= n_active) break;
            result.param = build_route(&b, id, active[index], d);
        } else if (id == SPA_PARAM_EnumProfile && d->has_profiles) {
            if (index >= N_PROFILES) break;
            result.param = build_profile(&b, id, index, d);
        } else if (id == SPA_PARAM_Profile && d->has_profiles) {
            if (index > 0) break;
            result.param = build_profile(&b, id, d->profile, d);
        } else {
            return -ENOENT;
        }
        spa_device_emit_result(&d->hooks, seq, 0, SPA_RESULT_TYPE_DEVICE_PARAMS, &result);
        count++;
    }
    return 0;
}

static void changed(struct impl *d) {
    for (uint32_t i = 0; i < d->n_params; i++) d->params[i].flags ^= SPA_PARAM_INFO_SERIAL;
    emit_info(d, false);
}

static void create_nodes(struct impl *d);
static void destroy_nodes(struct impl *d);

/* SetParam Profile { index, save }, as ALSA's card does it: `save` is kept even when the
 * profile stays; a new profile's nodes replace the old one's. */
static int set_profile(struct impl *d, const struct spa_pod *param) {
    int32_t index = -1;
    bool save = false;
    if (param == NULL || spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamProfile, NULL,
            SPA_PARAM_PROFILE_index, SPA_POD_Int(&index),
            SPA_PARAM_PROFILE_save, SPA_POD_OPT_Bool(&save)) < 0)
        return -EINVAL;
    if (index < 0 || index >= N_PROFILES) return -EINVAL;
    d->save_profile = save;
    if ((uint32_t)index != d->profile) {
        destroy_nodes(d);
        d->profile = (uint32_t)index;
        create_nodes(d);
    }
    changed(d);
    printf("profile %d save %d\n", index, save ? 1 : 0);
    fflush(stdout);
    return 0;
}

/* SetParam Route { index, device }: selects an input route, as a card's mixer switch does (an
 * output route only follows the jack here). Prints "input route N" once it is active. */
static int impl_set_param(void *object, uint32_t id, uint32_t flags, const struct spa_pod *param) {
    struct impl *d = object;
    int32_t index = -1, device = -1;
    (void)flags;
    if (id == SPA_PARAM_Profile && d->has_profiles) return set_profile(d, param);
    if (id != SPA_PARAM_Route || param == NULL) return -ENOTSUP;
    if (spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamRoute, NULL,
            SPA_PARAM_ROUTE_index, SPA_POD_Int(&index),
            SPA_PARAM_ROUTE_device, SPA_POD_Int(&device)) < 0)
        return -EINVAL;
    if (device != 1 || index < 2 || index > 3 || d->profile != PROFILE_ANALOG || !d->routes[index].available) return -EINVAL;
    d->selected_input = index;
    changed(d);
    printf("input route %d\n", index);
    fflush(stdout);
    return 0;
}

static const struct spa_device_methods methods = {
    SPA_VERSION_DEVICE_METHODS,
    .add_listener = impl_add_listener,
    .sync = impl_sync,
    .enum_params = impl_enum_params,
    .set_param = impl_set_param,
};

static void set_headphones(struct impl *d, bool available) {
    if (d->routes[1].available == available) return;
    /* A headset: its microphone comes and goes with its headphones. */
    d->routes[1].available = available;
    d->routes[3].available = available;
    changed(d);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    printf("headphones %s at %lld.%09ld\n", available ? "yes" : "no", (long long)now.tv_sec, now.tv_nsec);
    fflush(stdout);
}

static void on_plug(void *data, int signal) { (void)signal; set_headphones(data, true); }
static void on_unplug(void *data, int signal) { (void)signal; set_headphones(data, false); }
static void on_quit(void *data, int signal) { (void)signal; struct impl *d = data; pw_main_loop_quit(d->loop); }

static void on_sink_bound(void *data, uint32_t global_id) {
    (void)data;
    printf("sink created %u\n", global_id);
    fflush(stdout);
}

static void on_source_bound(void *data, uint32_t global_id) {
    (void)data;
    printf("source created %u\n", global_id);
    fflush(stdout);
}

static void on_hdmi_bound(void *data, uint32_t global_id) {
    (void)data;
    printf("hdmi sink created %u\n", global_id);
    fflush(stdout);
}

static const struct pw_proxy_events sink_events = { PW_VERSION_PROXY_EVENTS, .bound = on_sink_bound };
static const struct pw_proxy_events source_events = { PW_VERSION_PROXY_EVENTS, .bound = on_source_bound };
static const struct pw_proxy_events hdmi_events = { PW_VERSION_PROXY_EVENTS, .bound = on_hdmi_bound };

/* One of the card's nodes: a null-audio-sink adapter that names this device as its device and
 * serves a card profile device, whose active Route is one of the device's routes. The source
 * always processes, as a microphone in use does: PipeWire 1.4 applies Props (a volume) to a
 * running null device only. It gets its format with it (a client-created node that always
 * processes starts before its ports are configured, and without a format it stays in error). */
static struct pw_proxy *create_node(struct impl *d, uint32_t device_id, bool output, bool hdmi) {
    char node_name[256], device_ref[16];
    snprintf(node_name, sizeof(node_name), "%s-%s", d->name, hdmi ? "hdmi-output" : output ? "output" : "input");
    snprintf(device_ref, sizeof(device_ref), "%u", device_id);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_FACTORY_NAME, "support.null-audio-sink",
        PW_KEY_NODE_NAME, node_name,
        PW_KEY_MEDIA_CLASS, output ? "Audio/Sink" : "Audio/Source",
        PW_KEY_DEVICE_ID, device_ref,
        "card.profile.device", hdmi ? "2" : output ? "0" : "1",
        PW_KEY_DEVICE_API, "audiosession-test",
        "audio.position", "[ FL FR ]",
        "adapter.auto-port-config", "{ mode = dsp monitor = true position = preserve }",
        NULL);
    if (d->has_profiles) pw_properties_set(props, "device.profile.name", hdmi ? "hdmi-stereo" : "analog-stereo");
    if (!output) {
        pw_properties_set(props, "node.always-process", "true");
        pw_properties_set(props, "audio.format", "F32");
        pw_properties_set(props, "audio.rate", "48000");
        pw_properties_set(props, "audio.channels", "2");
    }
    pw_properties_setf(props, PW_KEY_NODE_DESCRIPTION, "%s %s", d->name, hdmi ? "HDMI Output" : output ? "Output" : "Input");
    struct pw_proxy *node = pw_core_create_object(d->core, "adapter", PW_TYPE_INTERFACE_Node, PW_VERSION_NODE,
                                                  &props->dict, 0);
    pw_properties_free(props);
    if (node == NULL) fprintf(stderr, "cannot create the %s: %m\n", output ? "sink" : "source");
    return node;
}

/* The active profile's nodes. */
static void create_nodes(struct impl *d) {
    if (d->profile == PROFILE_ANALOG) {
        d->sink = create_node(d, d->device_id, true, false);
        if (d->sink != NULL) pw_proxy_add_listener(d->sink, &d->sink_listener, &sink_events, d);
        d->source = create_node(d, d->device_id, false, false);
        if (d->source != NULL) pw_proxy_add_listener(d->source, &d->source_listener, &source_events, d);
    } else if (d->profile == PROFILE_HDMI) {
        d->hdmi = create_node(d, d->device_id, true, true);
        if (d->hdmi != NULL) pw_proxy_add_listener(d->hdmi, &d->hdmi_listener, &hdmi_events, d);
    }
}

/* Destroying a proxy destroys the server's node: nothing else keeps it. */
static void destroy_nodes(struct impl *d) {
    struct pw_proxy **nodes[] = { &d->sink, &d->source, &d->hdmi };
    for (size_t i = 0; i < SPA_N_ELEMENTS(nodes); i++) {
        if (*nodes[i] == NULL) continue;
        pw_proxy_destroy(*nodes[i]);
        *nodes[i] = NULL;
    }
}

static void on_bound(void *data, uint32_t global_id) {
    struct impl *d = data;
    printf("bound %u\n", global_id);
    fflush(stdout);
    if (d->device_id != SPA_ID_INVALID) return;
    d->device_id = global_id;
    create_nodes(d);
}

static const struct pw_proxy_events proxy_events = { PW_VERSION_PROXY_EVENTS, .bound = on_bound };

int main(int argc, char *argv[]) {
    static struct impl d;
    const char *name = argc > 1 ? argv[1] : "test-card";
    const char *description = argc > 2 ? argv[2] : "Test Card";
    d.name = name;
    d.has_profiles = argc > 3 && strcmp(argv[3], "hdmi") == 0;
    d.profile = PROFILE_ANALOG;
    d.device_id = SPA_ID_INVALID;
    /* Block the control signals before libpipewire starts threads: signalfd delivers them. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGUSR2);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    pw_init(&argc, &argv);
    d.loop = pw_main_loop_new(NULL);
    struct pw_loop *loop = pw_main_loop_get_loop(d.loop);
    struct pw_context *context = pw_context_new(loop, NULL, 0);
    d.core = pw_context_connect(context, NULL, 0);
    if (d.core == NULL) { fprintf(stderr, "cannot connect: %m\n"); return 1; }

    d.routes[0] = (struct route){ "analog-output-speaker", "Speakers", SPA_DIRECTION_OUTPUT, 100, true };
    d.routes[1] = (struct route){ "analog-output-headphones", "Headphones", SPA_DIRECTION_OUTPUT, 200, false };
    d.routes[2] = (struct route){ "analog-input-internal-mic", "Internal Microphone", SPA_DIRECTION_INPUT, 100, true };
    d.routes[3] = (struct route){ "analog-input-headset-mic", "Headset Microphone", SPA_DIRECTION_INPUT, 200, false };
    d.routes[4] = (struct route){ "hdmi-output-0", "HDMI / DisplayPort", SPA_DIRECTION_OUTPUT, 5900, true };
    d.selected_input = -1;
    spa_hook_list_init(&d.hooks);
    d.device.iface = SPA_INTERFACE_INIT(SPA_TYPE_INTERFACE_Device, SPA_VERSION_DEVICE, &methods, &d);
    d.items[0] = SPA_DICT_ITEM_INIT(PW_KEY_DEVICE_NAME, name);
    d.items[1] = SPA_DICT_ITEM_INIT(PW_KEY_DEVICE_DESCRIPTION, description);
    d.items[2] = SPA_DICT_ITEM_INIT(PW_KEY_MEDIA_CLASS, "Audio/Device");
    d.items[3] = SPA_DICT_ITEM_INIT(PW_KEY_DEVICE_API, "audiosession-test");
    d.dict = SPA_DICT_INIT(d.items, 4);
    d.params[0] = SPA_PARAM_INFO(SPA_PARAM_EnumRoute, SPA_PARAM_INFO_READ);
    d.params[1] = SPA_PARAM_INFO(SPA_PARAM_Route, SPA_PARAM_INFO_READWRITE);
    d.params[2] = SPA_PARAM_INFO(SPA_PARAM_EnumProfile, SPA_PARAM_INFO_READ);
    d.params[3] = SPA_PARAM_INFO(SPA_PARAM_Profile, SPA_PARAM_INFO_READWRITE);
    d.n_params = d.has_profiles ? 4 : 2;
    d.info = SPA_DEVICE_INFO_INIT();
    d.info.props = &d.dict;
    d.info.params = d.params;
    d.info.n_params = d.n_params;

    d.proxy = pw_core_export(d.core, SPA_TYPE_INTERFACE_Device, &d.dict, &d.device, 0);
    if (d.proxy == NULL) { fprintf(stderr, "cannot export: %m\n"); return 1; }
    pw_proxy_add_listener(d.proxy, &d.proxy_listener, &proxy_events, &d);

    pw_loop_add_signal(loop, SIGUSR1, on_plug, &d);
    pw_loop_add_signal(loop, SIGUSR2, on_unplug, &d);
    pw_loop_add_signal(loop, SIGTERM, on_quit, &d);
    pw_loop_add_signal(loop, SIGINT, on_quit, &d);
    pw_main_loop_run(d.loop);

    destroy_nodes(&d);
    pw_proxy_destroy(d.proxy);
    pw_core_disconnect(d.core);
    pw_context_destroy(context);
    pw_main_loop_destroy(d.loop);
    pw_deinit();
    return 0;
}
"""#
}

extension PrivatePipeWire {
    /// Starts a route-bearing device client named `name`, a card with an HDMI profile beside its
    /// analog one with `withHDMIProfile`; it stops with the sandbox.
    public func startRouteDevice(
        name: String = "test-card", description: String = "Test Card", withHDMIProfile: Bool = false
    ) throws -> RouteDevice {
        let binary = try RouteDevice.executable(environment: environment, logDirectory: logDirectory)
        let device = try RouteDevice(name: name, process: spawn(binary, [name, description] + (withHDMIProfile ? ["hdmi"] : [])))
        // Its sink is a null-audio-sink like the virtual devices: 1.4.2 leaves it unconfigured.
        try configureDevicePorts(named: "\(name)-output", positions: ["FL", "FR"])
        try configureDevicePorts(named: "\(name)-input", positions: ["FL", "FR"])
        return device
    }
}

/// FNV-1a, for a stable cache key across runs (Swift's Hasher is seeded per process).
struct Hasher32 {
    private(set) var value: UInt32 = 2_166_136_261

    mutating func combine(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt32(byte)
            value = value &* 16_777_619
        }
    }
}
