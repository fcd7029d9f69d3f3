import Foundation

/// A Bluetooth headset as PipeWire's bluez5 device presents it to a session manager, exported
/// into the sandbox by a real client process the way WirePlumber exports a real one. These
/// machines have no Bluetooth, and mocks of BlueZ create no media transports: this is how
/// profile switching is exercised.
///
/// It has the profiles `off`, `a2dp-sink` and `headset-head-unit` (and the codec variants
/// bluez5 lists beside them), the routes of every profile in `EnumRoute` (each with the
/// `profiles` it belongs to), and only the active profile's nodes: `a2dp-sink` has one stereo
/// 48 kHz `Audio/Sink` (``sinkName``); `headset-head-unit` (mSBC) a mono 16 kHz `Audio/Sink`
/// of the same `node.name` and a mono 16 kHz `Audio/Source` (``sourceName``), 8 kHz in the
/// CVSD variant; `off` none. A switch
/// destroys the old profile's nodes, then creates the new ones, and toggles the param SERIAL
/// bits, as bluez5 does; the device itself stays. The nodes are adapters created by the helper
/// (`device.id` = this device, `object.linger = false`): they go away with it. Sinks are null
/// sinks; sources are test sources playing a quiet tone, with output ports as a microphone's (a
/// null sink typed as a source has none once WirePlumber 0.5 configures it as one).
///
/// A client switches with `SetParam Profile { index, save }` (``profileRequests`` lists what
/// it asked); ``switchProfile(to:)`` makes the device switch by itself, with no request, as a
/// headset button or a reconnection does. The param shapes (indices, names, descriptions,
/// priorities) are those of the bluez5 device of the PipeWire release under test: see
/// ``Shapes``.
///
/// With a stand-in (``standInName``), it also has the source WirePlumber 0.5 keeps for a
/// headset in every profile (`bluez5.loopback = true`), and its HFP source is the internal one
/// WirePlumber hides behind it (`Audio/Source/Internal`). Only the shapes are there: no audio
/// flows from the internal source to the stand-in.
///
/// The client is a small C program (spa_device methods and hook emission are C macros), built
/// once with `cc` and pkg-config and cached by content hash, like ``RouteDevice``'s.
public final class BluetoothHeadset: @unchecked Sendable {
    /// A profile, by the name bluez5 gives the one a client picks by default.
    public enum Profile: String, CaseIterable, Sendable {
        case off
        case a2dpSink = "a2dp-sink"
        case headsetHeadUnit = "headset-head-unit"

        /// Whether `name`, the name of an active `Profile`, is this profile: PipeWire 0.3.65
        /// reports the negotiated codec's variant (`a2dp-sink-sbc`, `headset-head-unit-msbc`).
        public func matches(_ name: String) -> Bool {
            self == .off ? name == "off" : name == rawValue || name.hasPrefix(rawValue + "-")
        }

        /// The signal that makes the helper switch to it by itself.
        var signal: Int32 {
            switch self {
            case .off: SIGHUP
            case .a2dpSink: SIGUSR2
            case .headsetHeadUnit: SIGUSR1
            }
        }
    }

    /// Whose bluez5 device the param shapes are modelled on. The releases number their profiles
    /// differently: 0.3.65 lists codec-less profiles (`a2dp-sink` = 2, `headset-head-unit` = 3)
    /// that resolve, once active, to the codec's (`a2dp-sink-sbc` = 5,
    /// `headset-head-unit-msbc` = 261); 1.x numbers them `profile << 16 | codec` and names the
    /// best codec's plainly (`a2dp-sink` = 131073, `headset-head-unit` = 196865). 1.6 changes
    /// priorities and route descriptions.
    public enum Shapes: String, Sendable {
        case pipeWire0_3 = "0.3"
        case pipeWire1_4 = "1.4"
        case pipeWire1_6 = "1.6"

        /// The shapes of the server that reports `version` (its core's `version`).
        public init(serverVersion version: String) {
            let parts = version.split(separator: ".").compactMap { Int($0) }
            switch (parts.first ?? 0, parts.dropFirst().first ?? 0) {
            case (0, _): self = .pipeWire0_3
            case (1, ..<6): self = .pipeWire1_4
            default: self = .pipeWire1_6
            }
        }

        /// The `EnumProfile` index a client sets to pick `profile`.
        public func index(of profile: Profile) -> Int {
            switch (self, profile) {
            case (_, .off): 0
            case (.pipeWire0_3, .a2dpSink): 2
            case (.pipeWire0_3, .headsetHeadUnit): 3
            case (_, .a2dpSink): 0x20001
            case (_, .headsetHeadUnit): 0x30101
            }
        }
    }

    /// A client's `SetParam Profile`, as the device received it.
    public struct ProfileRequest: Sendable, Equatable {
        public let index: Int
        public let save: Bool

        public init(index: Int, save: Bool) {
            self.index = index
            self.save = save
        }
    }

    /// `api.bluez5.address`.
    public let address: String
    public let description: String
    public let shapes: Shapes
    public let process: ManagedProcess
    /// The device's registry id.
    public let globalID: UInt32
    /// It has WirePlumber 0.5's stand-in source.
    public let hasStandIn: Bool

    /// `device.name`.
    public var deviceName: String { "bluez_card.\(Self.nameForm(of: address))" }
    /// `node.name` of the sink, the A2DP one and the HFP one alike (card profile device 1).
    public var sinkName: String { Self.sinkName(address: address) }
    /// `node.name` of the HFP source (card profile device 0); behind a stand-in, the internal one.
    public var sourceName: String { Self.sourceName(address: address, isInternal: hasStandIn) }
    /// `node.name` of WirePlumber 0.5's stand-in source (its colons are kept), if it has one.
    public var standInName: String? { hasStandIn ? Self.standInName(address: address) : nil }

    /// The address as node names carry it (WirePlumber replaces its colons).
    private static func nameForm(of address: String) -> String { address.replacingOccurrences(of: ":", with: "_") }
    private static func sinkName(address: String) -> String { "bluez_output.\(nameForm(of: address)).1" }
    private static func sourceName(address: String, isInternal: Bool) -> String {
        let prefix = isInternal ? "bluez_input_internal" : "bluez_input"
        return "\(prefix).\(nameForm(of: address)).0"
    }
    private static func standInName(address: String) -> String { "bluez_input.\(address)" }

    init(
        address: String, description: String, shapes: Shapes, initial: Profile, standIn: Bool, process: ManagedProcess
    ) throws {
        self.address = address
        self.description = description
        self.shapes = shapes
        self.hasStandIn = standIn
        self.process = process
        let names = Self.nodeNames(of: initial, address: address, standIn: standIn)
            + (standIn ? [Self.standInName(address: address)] : [])
        var id: UInt32?
        try waitUntil(
            timeout: .seconds(10),
            "the Bluetooth headset \(address) is exported with its nodes \(names) (it said: \(process.errorOutput))"
        ) {
            guard process.isRunning else {
                throw SandboxError.notRunning("bluetooth-headset exited: \(process.errorOutput)")
            }
            let output = process.output
            id = Self.values(after: "bound ", in: output).first.flatMap { UInt32($0) }
            return id != nil && Self.hasCreatedNodes(names, of: initial, in: output)
        }
        globalID = id!
    }

    // MARK: - What the helper reports

    /// The values of the helper's output lines that start with `prefix`, in order.
    private static func values(after prefix: String, in output: String) -> [Substring] {
        output.split(separator: "\n").compactMap { $0.hasPrefix(prefix) ? $0.dropFirst(prefix.count) : nil }
    }

    /// Every profile it switched to, by the name it reports, in order; the first is the one it
    /// started in.
    public var profileChanges: [String] {
        Self.values(after: "profile ", in: process.output).map { String($0.prefix { $0 != " " }) }
    }

    /// The active profile's name, as `Profile` reports it.
    public var activeProfile: String? { profileChanges.last }

    /// Every `SetParam Profile` a client sent, in order (a switch ``switchProfile(to:)`` asked
    /// for is none).
    public var profileRequests: [ProfileRequest] {
        Self.values(after: "save ", in: process.output).compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "index", let save = Int(fields[0]), let index = Int(fields[2]) else { return nil }
            return ProfileRequest(index: index, save: save == 1)
        }
    }

    /// When it last switched to `profile` (CLOCK_MONOTONIC, seconds), taken right after it
    /// destroyed the old nodes and asked for the new ones: the start of a reaction-time
    /// measurement.
    public func lastSwitch(to profile: Profile) -> Double? {
        Self.values(after: "profile ", in: process.output).last { profile.matches(String($0.prefix { $0 != " " })) }
            .flatMap { $0.components(separatedBy: " at ").last.flatMap(Double.init) }
    }

    /// The `node.name`s of `profile`'s nodes, in the order bluez5 creates them (a stand-in,
    /// in every profile, is none of them).
    public func nodeNames(of profile: Profile) -> [String] {
        Self.nodeNames(of: profile, address: address, standIn: hasStandIn)
    }

    private static func nodeNames(of profile: Profile, address: String, standIn: Bool) -> [String] {
        switch profile {
        case .off: []
        case .a2dpSink: [sinkName(address: address)]
        case .headsetHeadUnit: [sourceName(address: address, isInternal: standIn), sinkName(address: address)]
        }
    }

    /// Whether the helper's `output` says `profile` is active and each of `names` was created
    /// since it switched there (a stand-in is created as the device starts, after its first
    /// switch line).
    private static func hasCreatedNodes(_ names: [String], of profile: Profile, in output: String) -> Bool {
        let lines = output.split(separator: "\n")
        guard let switched = lines.lastIndex(where: { $0.hasPrefix("profile ") }),
            profile.matches(String(lines[switched].dropFirst(8).prefix { $0 != " " }))
        else { return false }
        let created = Set(lines[switched...].compactMap { line -> String? in
            line.hasPrefix("node created ") ? line.dropFirst(13).split(separator: " ").first.map(String.init) : nil
        })
        return Set(names).isSubset(of: created)
    }

    // MARK: - Switching

    /// The headset switches to `profile` by itself (no client request; `save` is false), as
    /// a headset button or a reconnection does; returns once the new nodes exist. Nothing
    /// happens when `profile` is already active.
    public func switchProfile(to profile: Profile) throws {
        if let active = activeProfile, profile.matches(active) { return }
        kill(process.pid, profile.signal)
        try waitUntil(
            timeout: .seconds(5),
            "the Bluetooth headset switches to \(profile.rawValue) and creates its nodes (it said: \(process.errorOutput))"
        ) {
            guard process.isRunning else {
                throw SandboxError.notRunning("bluetooth-headset exited: \(process.errorOutput)")
            }
            return Self.hasCreatedNodes(nodeNames(of: profile), of: profile, in: process.output)
        }
    }

    // MARK: - The helper

    /// Builds the helper (once per source version) and returns its path.
    static func executable(environment: [String: String], logDirectory: URL) throws -> String {
        try HelperProgram.executable(named: "bluetooth-headset", source: source, environment: environment, logDirectory: logDirectory)
    }

    static let source = #"""
/* A Bluetooth headset as PipeWire's bluez5 device presents it to a session manager: one
 * device with the profiles off, a2dp-sink and headset-head-unit, the routes of every profile,
 * and the nodes of the active profile only. It is exported by this client, as WirePlumber
 * exports a real one, and it creates its nodes itself (null-audio-sink adapters that go away
 * with it). Switching the profile destroys the old profile's nodes, then creates the new ones.
 *
 * The param shapes (profile indices, names, descriptions, priorities, route names) follow the
 * bluez5 device of one PipeWire release: SHAPES is 0.3 (0.3.65), 1.4 (1.4.2) or 1.6 (1.6.x).
 * The headset supports SBC for A2DP, and mSBC (negotiated) and CVSD for HFP.
 *
 * A client switches with SetParam Profile { index, save }; SIGUSR1, SIGUSR2 and SIGHUP make the
 * device itself switch to headset-head-unit, a2dp-sink and off (as a headset button or a
 * reconnection does). Standard output says what happened, one line each:
 *   bound ID / save 0|1 index I / profile NAME at SECONDS / node created NAME ID /
 *   node destroyed NAME / route I device D save 0|1
 * With `stand-in`, it also has WirePlumber 0.5's stand-in source, `bluez_input.ADDRESS`
 * (bluez5.loopback = true), in every profile, and its HFP source is the internal one WirePlumber
 * hides behind it (bluez_input_internal.ADDRESS.0, Audio/Source/Internal). No audio flows from one to
 * the other: only the shapes a session manager sees are there.
 * Usage: bluetooth-headset ADDRESS DESCRIPTION PROFILE SHAPES [configure-ports] [stand-in] */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <pipewire/pipewire.h>
#include <spa/monitor/device.h>
#include <spa/monitor/utils.h>
#include <spa/param/audio/format-utils.h>
#include <spa/param/param.h>
#include <spa/param/port-config.h>
#include <spa/param/profile.h>
#include <spa/param/props.h>
#include <spa/param/route.h>
#include <spa/pod/builder.h>
#include <spa/pod/filter.h>
#include <spa/pod/parser.h>

/* bluez5's own profile numbers, which a Route's `profile` field carries. */
enum kind { KIND_OFF = 0, KIND_A2DP = 2, KIND_HFP = 3 };
#define KIND_BIT(k) (1u << (k))

/* The card profile devices: the source node serves 0, the sink node 1. */
enum { DEVICE_SOURCE = 0, DEVICE_SINK = 1, N_DEVICES = 2 };

struct profile {
    uint32_t index;
    const char *name, *description;
    int priority;
    enum kind kind;
    const char *codec;
    uint32_t rate;
    /* The entry Profile reports once this one is active: 0.3.65 lists codec-less profiles
     * that resolve to the negotiated codec's. */
    uint32_t resolves_to;
};

struct route {
    uint32_t index;
    enum spa_direction direction;
    const char *name, *description, *icon;
    uint32_t device;
    uint32_t listed_for;  /* kinds whose profiles it lists */
    uint32_t active_in;   /* kinds in which it is an active Route */
};

struct shapes {
    const char *name;
    const struct profile *profiles;
    uint32_t n_profiles;
    const struct route *routes;
    uint32_t n_routes;
    /* 1.x writes a Route's `profile` before its `devices`, 0.3 after. */
    bool profile_before_devices;
};

static const struct profile profiles_0_3[] = {
    { 0, "off", "Off", 0, KIND_OFF, NULL, 0, 0 },
    { 2, "a2dp-sink", "High Fidelity Playback (A2DP Sink)", 16, KIND_A2DP, "sbc", 48000, 5 },
    { 3, "headset-head-unit", "Headset Head Unit (HSP/HFP)", 1, KIND_HFP, "msbc", 16000, 261 },
    { 5, "a2dp-sink-sbc", "High Fidelity Playback (A2DP Sink, codec SBC)", 17, KIND_A2DP, "sbc", 48000, 5 },
    { 260, "headset-head-unit-cvsd", "Headset Head Unit (HSP/HFP, codec CVSD)", 2, KIND_HFP, "cvsd", 8000, 260 },
    { 261, "headset-head-unit-msbc", "Headset Head Unit (HSP/HFP, codec mSBC)", 3, KIND_HFP, "msbc", 16000, 261 },
};
static const struct route routes_0_3[] = {
    { 1, SPA_DIRECTION_OUTPUT, "headset-output", "Headset", NULL, DEVICE_SINK, KIND_BIT(KIND_A2DP), KIND_BIT(KIND_A2DP) },
    { 2, SPA_DIRECTION_INPUT, "headset-hf-input", "Handsfree", NULL, DEVICE_SOURCE, KIND_BIT(KIND_HFP), KIND_BIT(KIND_HFP) },
    { 3, SPA_DIRECTION_OUTPUT, "headset-hf-output", "Handsfree", NULL, DEVICE_SINK, KIND_BIT(KIND_HFP), KIND_BIT(KIND_HFP) },
};

/* 1.x: index = profile << 16 | codec; the best codec's profile has the plain name. */
static const struct profile profiles_1_4[] = {
    { 0, "off", "Off", 0, KIND_OFF, NULL, 0, 0 },
    { 0x20001, "a2dp-sink", "High Fidelity Playback (A2DP Sink, codec SBC)", 17, KIND_A2DP, "sbc", 48000, 0x20001 },
    { 0x30100, "headset-head-unit-cvsd", "Headset Head Unit (HSP/HFP, codec CVSD)", 2, KIND_HFP, "cvsd", 8000, 0x30100 },
    { 0x30101, "headset-head-unit", "Headset Head Unit (HSP/HFP, codec mSBC)", 3, KIND_HFP, "msbc", 16000, 0x30101 },
};
/* The input route is active in A2DP too: 1.x keeps the HFP microphone's volume there. */
static const struct route routes_1_4[] = {
    { 0, SPA_DIRECTION_INPUT, "headset-input", "Handsfree", NULL, DEVICE_SOURCE, KIND_BIT(KIND_HFP),
      KIND_BIT(KIND_A2DP) | KIND_BIT(KIND_HFP) },
    { 1, SPA_DIRECTION_OUTPUT, "headset-output", "Headset", NULL, DEVICE_SINK, KIND_BIT(KIND_A2DP), KIND_BIT(KIND_A2DP) },
    { 2, SPA_DIRECTION_OUTPUT, "headset-hf-output", "Handsfree", NULL, DEVICE_SINK, KIND_BIT(KIND_HFP), KIND_BIT(KIND_HFP) },
};

static const struct profile profiles_1_6[] = {
    { 0, "off", "Off", 0, KIND_OFF, NULL, 0, 0 },
    { 0x20001, "a2dp-sink", "High Fidelity Playback (A2DP Sink, codec SBC)", 131, KIND_A2DP, "sbc", 48000, 0x20001 },
    { 0x30100, "headset-head-unit-cvsd", "Headset Head Unit (HSP/HFP, codec CVSD)", 3, KIND_HFP, "cvsd", 8000, 0x30100 },
    { 0x30101, "headset-head-unit", "Headset Head Unit (HSP/HFP, codec MSBC)", 4, KIND_HFP, "msbc", 16000, 0x30101 },
};
static const struct route routes_1_6[] = {
    { 0, SPA_DIRECTION_INPUT, "headset-input", "Handsfree", NULL, DEVICE_SOURCE, KIND_BIT(KIND_HFP),
      KIND_BIT(KIND_A2DP) | KIND_BIT(KIND_HFP) },
    { 1, SPA_DIRECTION_OUTPUT, "headset-output", "Headphones", "audio-headphones-bluetooth", DEVICE_SINK,
      KIND_BIT(KIND_A2DP), KIND_BIT(KIND_A2DP) },
    { 2, SPA_DIRECTION_OUTPUT, "headset-hf-output", "Handsfree", "audio-headset-bluetooth", DEVICE_SINK,
      KIND_BIT(KIND_HFP), KIND_BIT(KIND_HFP) },
};

#define SHAPES(n, p, r, before) { n, p, SPA_N_ELEMENTS(p), r, SPA_N_ELEMENTS(r), before }
static const struct shapes all_shapes[] = {
    SHAPES("0.3", profiles_0_3, routes_0_3, false),
    SHAPES("1.4", profiles_1_4, routes_1_4, true),
    SHAPES("1.6", profiles_1_6, routes_1_6, true),
};

/* What a card profile device's route remembers across profiles, as the real device does. */
struct device_state { bool mute; float volumes[2]; bool save; };

struct node_slot {
    struct impl *impl;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    char name[128];
};

enum { IDX_EnumProfile, IDX_Profile, IDX_EnumRoute, IDX_Route, N_PARAMS };

struct impl {
    struct pw_main_loop *loop;
    struct pw_core *core;
    struct spa_device device;
    struct spa_hook_list hooks;
    struct spa_device_info info;
    struct spa_param_info params[N_PARAMS];
    struct pw_properties *props;
    struct pw_proxy *proxy;
    struct spa_hook proxy_listener;
    const struct shapes *shapes;
    const struct profile *active;
    bool save_profile;
    uint32_t device_id;
    bool configure_ports;
    const char *address, *description;
    char address_name[64];
    struct device_state devices[N_DEVICES];
    struct node_slot nodes[N_DEVICES];
    bool has_stand_in;
    struct node_slot stand_in;
};

static void say(const char *format, ...) SPA_PRINTF_FUNC(1, 2);
static void say(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

static const struct profile *profile_at(struct impl *d, uint32_t index) {
    for (uint32_t i = 0; i < d->shapes->n_profiles; i++)
        if (d->shapes->profiles[i].index == index) return &d->shapes->profiles[i];
    return NULL;
}

static const struct profile *profile_named(struct impl *d, const char *name) {
    for (uint32_t i = 0; i < d->shapes->n_profiles; i++)
        if (strcmp(d->shapes->profiles[i].name, name) == 0) return &d->shapes->profiles[i];
    return NULL;
}

static uint32_t channels_of(enum kind kind) { return kind == KIND_A2DP ? 2 : 1; }

/* --- Params ----------------------------------------------------------------------------- */

static void add_class(struct spa_pod_builder *b, const char *media_class, uint32_t device) {
    spa_pod_builder_add_struct(b,
        SPA_POD_String(media_class), SPA_POD_Int(1),
        SPA_POD_String("card.profile.devices"), SPA_POD_Array(sizeof(uint32_t), SPA_TYPE_Int, 1, &device));
}

static struct spa_pod *build_profile(struct impl *d, struct spa_pod_builder *b, uint32_t id, const struct profile *p) {
    struct spa_pod_frame f[2];
    spa_pod_builder_push_object(b, &f[0], SPA_TYPE_OBJECT_ParamProfile, id);
    spa_pod_builder_add(b,
        SPA_PARAM_PROFILE_index, SPA_POD_Int(p->index),
        SPA_PARAM_PROFILE_name, SPA_POD_String(p->name),
        SPA_PARAM_PROFILE_description, SPA_POD_String(p->description),
        SPA_PARAM_PROFILE_available, SPA_POD_Id(SPA_PARAM_AVAILABILITY_yes),
        SPA_PARAM_PROFILE_priority, SPA_POD_Int(p->priority),
        0);
    /* bluez5 writes its classes without the leading count ALSA cards have. */
    if (p->kind != KIND_OFF) {
        spa_pod_builder_prop(b, SPA_PARAM_PROFILE_classes, 0);
        spa_pod_builder_push_struct(b, &f[1]);
        if (p->kind == KIND_HFP) add_class(b, "Audio/Source", DEVICE_SOURCE);
        add_class(b, "Audio/Sink", DEVICE_SINK);
        spa_pod_builder_pop(b, &f[1]);
    }
    if (id == SPA_PARAM_Profile) spa_pod_builder_add(b, SPA_PARAM_PROFILE_save, SPA_POD_Bool(d->save_profile), 0);
    return spa_pod_builder_pop(b, &f[0]);
}

static void add_route_props(struct impl *d, struct spa_pod_builder *b, const struct route *r) {
    struct spa_pod_frame f;
    struct device_state *state = &d->devices[r->device];
    /* The sink has the active profile's channels; the microphone is always mono. */
    uint32_t n = r->device == DEVICE_SINK ? channels_of(d->active->kind) : 1;
    uint32_t map[2] = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR };
    if (n == 1) map[0] = SPA_AUDIO_CHANNEL_MONO;
    spa_pod_builder_prop(b, SPA_PARAM_ROUTE_props, 0);
    spa_pod_builder_push_object(b, &f, SPA_TYPE_OBJECT_Props, SPA_PARAM_Route);
    spa_pod_builder_add(b,
        SPA_PROP_mute, SPA_POD_Bool(state->mute),
        SPA_PROP_channelVolumes, SPA_POD_Array(sizeof(float), SPA_TYPE_Float, n, state->volumes),
        SPA_PROP_channelMap, SPA_POD_Array(sizeof(uint32_t), SPA_TYPE_Id, n, map),
        0);
    if (d->active->kind == KIND_A2DP && r->device == DEVICE_SINK)
        spa_pod_builder_add(b, SPA_PROP_latencyOffsetNsec, SPA_POD_Long(0), 0);
    spa_pod_builder_pop(b, &f);
}

static void add_route_profile(struct impl *d, struct spa_pod_builder *b, uint32_t id) {
    if (id == SPA_PARAM_Route) spa_pod_builder_add(b, SPA_PARAM_ROUTE_profile, SPA_POD_Int(d->active->kind), 0);
}

static struct spa_pod *build_route(struct impl *d, struct spa_pod_builder *b, uint32_t id, const struct route *r) {
    struct spa_pod_frame f[2];
    spa_pod_builder_push_object(b, &f[0], SPA_TYPE_OBJECT_ParamRoute, id);
    spa_pod_builder_add(b,
        SPA_PARAM_ROUTE_index, SPA_POD_Int(r->index),
        SPA_PARAM_ROUTE_direction, SPA_POD_Id(r->direction),
        SPA_PARAM_ROUTE_name, SPA_POD_String(r->name),
        SPA_PARAM_ROUTE_description, SPA_POD_String(r->description),
        SPA_PARAM_ROUTE_priority, SPA_POD_Int(0),
        SPA_PARAM_ROUTE_available, SPA_POD_Id(SPA_PARAM_AVAILABILITY_yes),
        0);
    spa_pod_builder_prop(b, SPA_PARAM_ROUTE_info, 0);
    spa_pod_builder_push_struct(b, &f[1]);
    spa_pod_builder_int(b, r->icon ? 2 : 1);
    spa_pod_builder_add(b, SPA_POD_String("port.type"), SPA_POD_String("headset"), NULL);
    if (r->icon) spa_pod_builder_add(b, SPA_POD_String("device.icon-name"), SPA_POD_String(r->icon), NULL);
    spa_pod_builder_pop(b, &f[1]);
    spa_pod_builder_prop(b, SPA_PARAM_ROUTE_profiles, 0);
    spa_pod_builder_push_array(b, &f[1]);
    for (uint32_t i = 0; i < d->shapes->n_profiles; i++)
        if (r->listed_for & KIND_BIT(d->shapes->profiles[i].kind)) spa_pod_builder_int(b, d->shapes->profiles[i].index);
    spa_pod_builder_pop(b, &f[1]);
    if (id == SPA_PARAM_Route) {
        spa_pod_builder_add(b, SPA_PARAM_ROUTE_device, SPA_POD_Int(r->device), 0);
        add_route_props(d, b, r);
        spa_pod_builder_add(b, SPA_PARAM_ROUTE_save, SPA_POD_Bool(d->devices[r->device].save), 0);
    }
    if (d->shapes->profile_before_devices) add_route_profile(d, b, id);
    spa_pod_builder_prop(b, SPA_PARAM_ROUTE_devices, 0);
    spa_pod_builder_push_array(b, &f[1]);
    spa_pod_builder_int(b, r->device);
    spa_pod_builder_pop(b, &f[1]);
    if (!d->shapes->profile_before_devices) add_route_profile(d, b, id);
    return spa_pod_builder_pop(b, &f[0]);
}

static bool route_is_active(struct impl *d, const struct route *r) {
    return (r->active_in & KIND_BIT(d->active->kind)) != 0;
}

/* The param at enumeration position `position`, with the index a client sees (a profile's or
 * route's own, as bluez5 gives them), or NULL past the end. */
static struct spa_pod *param_at(struct impl *d, struct spa_pod_builder *b, uint32_t id, uint32_t position, uint32_t *index) {
    switch (id) {
    case SPA_PARAM_EnumProfile:
        if (position >= d->shapes->n_profiles) return NULL;
        *index = d->shapes->profiles[position].index;
        return build_profile(d, b, id, &d->shapes->profiles[position]);
    case SPA_PARAM_Profile:
        if (position > 0) return NULL;
        *index = 0;
        return build_profile(d, b, id, d->active);
    case SPA_PARAM_EnumRoute:
        if (position >= d->shapes->n_routes) return NULL;
        *index = d->shapes->routes[position].index;
        return build_route(d, b, id, &d->shapes->routes[position]);
    case SPA_PARAM_Route:
        for (uint32_t i = 0, n = 0; i < d->shapes->n_routes; i++) {
            if (!route_is_active(d, &d->shapes->routes[i])) continue;
            if (n++ == position) {
                *index = position;
                return build_route(d, b, id, &d->shapes->routes[i]);
            }
        }
        return NULL;
    }
    return NULL;
}

static int impl_enum_params(void *object, int seq, uint32_t id, uint32_t start, uint32_t num,
                            const struct spa_pod *filter) {
    struct impl *d = object;
    uint32_t count = 0;
    if (id != SPA_PARAM_EnumProfile && id != SPA_PARAM_Profile && id != SPA_PARAM_EnumRoute && id != SPA_PARAM_Route)
        return -ENOENT;
    for (uint32_t position = start; count < num; position++) {
        uint8_t buffer[4096], filtered[4096];
        struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
        struct spa_pod_builder fb = SPA_POD_BUILDER_INIT(filtered, sizeof(filtered));
        struct spa_result_device_params result = { .id = id, .next = position + 1 };
        struct spa_pod *param = param_at(d, &b, id, position, &result.index);
        if (param == NULL) break;
        if (spa_pod_filter(&fb, &result.param, param, filter) < 0) continue;
        spa_device_emit_result(&d->hooks, seq, 0, SPA_RESULT_TYPE_DEVICE_PARAMS, &result);
        count++;
    }
    return 0;
}

static void emit_info(struct impl *d, bool full) {
    d->info.change_mask = full ? SPA_DEVICE_CHANGE_MASK_PROPS | SPA_DEVICE_CHANGE_MASK_PARAMS
                               : SPA_DEVICE_CHANGE_MASK_PARAMS;
    spa_device_emit_info(&d->hooks, &d->info);
    d->info.change_mask = 0;
}

static void changed(struct impl *d, bool profile) {
    if (profile) {
        d->params[IDX_Profile].flags ^= SPA_PARAM_INFO_SERIAL;
        d->params[IDX_EnumRoute].flags ^= SPA_PARAM_INFO_SERIAL;
    }
    d->params[IDX_Route].flags ^= SPA_PARAM_INFO_SERIAL;
    emit_info(d, false);
}

/* --- Nodes ------------------------------------------------------------------------------ */

static void on_node_bound(void *data, uint32_t global_id) {
    struct node_slot *slot = data;
    say("node created %s %u", slot->name, global_id);
}

static void on_node_error(void *data, int seq, int res, const char *message) {
    struct node_slot *slot = data;
    (void)seq;
    fprintf(stderr, "%s: %s (%d)\n", slot->name, message, res);
}

static const struct pw_proxy_events node_events = {
    PW_VERSION_PROXY_EVENTS, .bound = on_node_bound, .error = on_node_error };

/* DSP ports, as a session manager gives a device node; PipeWire 1.x does not do it by itself
 * from adapter.auto-port-config. Then unity volumes: 1.4's first volume write is dropped. */
static void configure_ports(struct pw_proxy *node, uint32_t rate, uint32_t channels, bool sink) {
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_audio_info_raw info = { .format = SPA_AUDIO_FORMAT_F32P, .rate = rate, .channels = channels };
    float unity[2] = { 1.0f, 1.0f };
    if (channels == 2) { info.position[0] = SPA_AUDIO_CHANNEL_FL; info.position[1] = SPA_AUDIO_CHANNEL_FR; }
    else info.position[0] = SPA_AUDIO_CHANNEL_MONO;
    struct spa_pod *format = spa_format_audio_raw_build(&b, SPA_PARAM_Format, &info);
    uint8_t config_buffer[1024];
    struct spa_pod_builder cb = SPA_POD_BUILDER_INIT(config_buffer, sizeof(config_buffer));
    struct spa_pod *config = spa_pod_builder_add_object(&cb, SPA_TYPE_OBJECT_ParamPortConfig, SPA_PARAM_PortConfig,
        SPA_PARAM_PORT_CONFIG_direction, SPA_POD_Id(sink ? SPA_DIRECTION_INPUT : SPA_DIRECTION_OUTPUT),
        SPA_PARAM_PORT_CONFIG_mode, SPA_POD_Id(SPA_PARAM_PORT_CONFIG_MODE_dsp),
        SPA_PARAM_PORT_CONFIG_monitor, SPA_POD_Bool(sink),
        SPA_PARAM_PORT_CONFIG_format, SPA_POD_Pod(format));
    pw_node_set_param((struct pw_node *)node, SPA_PARAM_PortConfig, 0, config);
    struct spa_pod_builder vb = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_pod *volumes = spa_pod_builder_add_object(&vb, SPA_TYPE_OBJECT_Props, SPA_PARAM_Props,
        SPA_PROP_channelVolumes, SPA_POD_Array(sizeof(float), SPA_TYPE_Float, channels, unity));
    pw_node_set_param((struct pw_node *)node, SPA_PARAM_Props, 0, volumes);
}

/* An adapter named slot->name, with what every node of the headset has: `device.id` names
 * this device, and it lingers not (it goes with this client). A sink is a null sink; a source
 * is a test source (a tone), with output ports as a real microphone's: a null sink typed as a
 * source has only input ports once a session manager configures it as a source. */
static void create_adapter(struct impl *d, struct node_slot *slot, struct pw_properties *props,
                           uint32_t card_device, uint32_t rate, uint32_t channels) {
    /* WirePlumber's internal HFP source stays a null sink: only its class matters (a test source
     * would give itself Audio/Source), and nothing links it but WirePlumber's stand-in. */
    const char *class = pw_properties_get(props, PW_KEY_MEDIA_CLASS);
    bool sink = card_device == DEVICE_SINK || (class != NULL && strcmp(class, "Audio/Source/Internal") == 0);
    pw_properties_set(props, PW_KEY_FACTORY_NAME, sink ? "support.null-audio-sink" : "audiotestsrc");
    pw_properties_set(props, PW_KEY_NODE_NAME, slot->name);
    pw_properties_set(props, PW_KEY_NODE_DESCRIPTION, d->description);
    pw_properties_set(props, PW_KEY_OBJECT_LINGER, "false");
    pw_properties_set(props, "node.pause-on-idle", "false");
    pw_properties_set(props, "audio.position", channels == 2 ? "[ FL FR ]" : "[ MONO ]");
    /* A test source's own format is stereo: it is given its mono ports below instead. */
    if (sink) pw_properties_set(props, "adapter.auto-port-config", "{ mode = dsp monitor = true position = preserve }");
    if (!sink) pw_properties_set(props, "node.param.Props", "{ live = true volume = 0.1 }");
    pw_properties_setf(props, PW_KEY_DEVICE_ID, "%u", d->device_id);
    pw_properties_setf(props, "card.profile.device", "%u", card_device);
    pw_properties_setf(props, "audio.rate", "%u", rate);
    pw_properties_setf(props, "audio.channels", "%u", channels);
    int priority = card_device == DEVICE_SINK ? 1010 : 2010;
    pw_properties_setf(props, PW_KEY_PRIORITY_DRIVER, "%d", priority);
    pw_properties_setf(props, PW_KEY_PRIORITY_SESSION, "%d", priority);
    slot->impl = d;
    slot->proxy = pw_core_create_object(d->core, "adapter", PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, &props->dict, 0);
    pw_properties_free(props);
    if (slot->proxy == NULL) {
        fprintf(stderr, "cannot create %s: %m\n", slot->name);
        return;
    }
    pw_proxy_add_listener(slot->proxy, &slot->listener, &node_events, slot);
    if (d->configure_ports || !sink) configure_ports(slot->proxy, rate, channels, sink);
}

/* A node of the active profile, with the properties WirePlumber's bluez monitor and the
 * bluez5 device give a real one. Behind a stand-in, the HFP source is the internal one. */
static void create_node(struct impl *d, uint32_t device) {
    const struct profile *p = d->active;
    struct node_slot *slot = &d->nodes[device];
    bool sink = device == DEVICE_SINK;
    bool internal = !sink && d->has_stand_in;
    snprintf(slot->name, sizeof(slot->name), "%s.%s.%u",
        sink ? "bluez_output" : internal ? "bluez_input_internal" : "bluez_input", d->address_name, device);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_CLASS, sink ? "Audio/Sink" : internal ? "Audio/Source/Internal" : "Audio/Source",
        PW_KEY_DEVICE_API, "bluez5",
        "api.bluez5.profile", p->kind == KIND_A2DP ? "a2dp-sink" : "headset-head-unit",
        "api.bluez5.codec", p->codec,
        "api.bluez5.address", d->address,
        "device.routes", "1",
        "bluez5.loopback", "false",
        NULL);
    pw_properties_setf(props, "spa.object.id", "%u", device);
    if (p->kind == KIND_HFP) pw_properties_set(props, "device.intended-roles", "Communication");
    if (internal) {
        pw_properties_set(props, "bluez5.loopback-target", "true");
        pw_properties_set(props, "api.bluez5.internal", "true");
    }
    create_adapter(d, slot, props, device, p->rate, sink ? channels_of(p->kind) : 1);
}

/* WirePlumber 0.5's stand-in source: the source apps see in every profile (its name keeps the
 * address's colons), which WirePlumber feeds from the internal HFP source. */
static void create_stand_in(struct impl *d) {
    snprintf(d->stand_in.name, sizeof(d->stand_in.name), "bluez_input.%s", d->address);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_CLASS, "Audio/Source",
        "bluez5.loopback", "true",
        "filter.smart", "true",
        NULL);
    create_adapter(d, &d->stand_in, props, DEVICE_SOURCE, 48000, 1);
}

/* The active profile's nodes, as bluez5 emits them: the source (if any), then the sink. */
static void create_nodes(struct impl *d) {
    if (d->device_id == SPA_ID_INVALID) return;
    if (d->active->kind == KIND_HFP) create_node(d, DEVICE_SOURCE);
    if (d->active->kind != KIND_OFF) create_node(d, DEVICE_SINK);
}

/* Destroying the proxy destroys the server's node: nothing else keeps it. */
static void destroy_nodes(struct impl *d) {
    for (uint32_t i = 0; i < N_DEVICES; i++) {
        struct node_slot *slot = &d->nodes[i];
        if (slot->proxy == NULL) continue;
        spa_hook_remove(&slot->listener);
        pw_proxy_destroy(slot->proxy);
        slot->proxy = NULL;
        say("node destroyed %s", slot->name);
    }
}

/* --- Switching -------------------------------------------------------------------------- */

static void announce_profile(struct impl *d) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    say("profile %s at %lld.%09ld", d->active->name, (long long)now.tv_sec, now.tv_nsec);
}

/* As bluez5's set_profile: `save` is kept even when nothing changes; the profile that is
 * already active (same entry, same codec) is left alone, without a word to subscribers. */
static void set_profile(struct impl *d, const struct profile *requested, bool save) {
    d->save_profile = save;
    if (requested->index == d->active->index) return;
    destroy_nodes(d);
    d->active = profile_at(d, requested->resolves_to);
    create_nodes(d);
    changed(d, true);
    announce_profile(d);
}

static int set_profile_param(struct impl *d, const struct spa_pod *param) {
    int32_t index = -1;
    bool save = false;
    if (param == NULL || spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamProfile, NULL,
            SPA_PARAM_PROFILE_index, SPA_POD_Int(&index),
            SPA_PARAM_PROFILE_save, SPA_POD_OPT_Bool(&save)) < 0)
        return -EINVAL;
    say("save %d index %d", save ? 1 : 0, index);
    const struct profile *requested = profile_at(d, (uint32_t)index);
    if (requested == NULL) return -EINVAL;
    set_profile(d, requested, save);
    return 0;
}

/* SetParam Route { index, device, props { mute, channelVolumes }, save }: a route's volume. */
static int set_route_param(struct impl *d, const struct spa_pod *param) {
    int32_t index = -1, device = -1;
    bool save = false;
    struct spa_pod *props = NULL;
    if (param == NULL || spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamRoute, NULL,
            SPA_PARAM_ROUTE_index, SPA_POD_Int(&index),
            SPA_PARAM_ROUTE_device, SPA_POD_Int(&device),
            SPA_PARAM_ROUTE_props, SPA_POD_OPT_Pod(&props),
            SPA_PARAM_ROUTE_save, SPA_POD_OPT_Bool(&save)) < 0)
        return -EINVAL;
    const struct route *route = NULL;
    for (uint32_t i = 0; i < d->shapes->n_routes; i++)
        if (d->shapes->routes[i].index == (uint32_t)index && route_is_active(d, &d->shapes->routes[i]))
            route = &d->shapes->routes[i];
    if (route == NULL || route->device != (uint32_t)device) return -EINVAL;
    struct device_state *state = &d->devices[device];
    state->save = save;
    if (props != NULL) {
        struct spa_pod *volumes = NULL;
        spa_pod_parse_object(props, SPA_TYPE_OBJECT_Props, NULL,
            SPA_PROP_mute, SPA_POD_OPT_Bool(&state->mute),
            SPA_PROP_channelVolumes, SPA_POD_OPT_Pod(&volumes));
        float values[2];
        uint32_t n = volumes ? spa_pod_copy_array(volumes, SPA_TYPE_Float, values, 2) : 0;
        /* A mono volume spreads to both channels, as bluez5 does going back to A2DP. */
        for (uint32_t i = 0; n > 0 && i < 2; i++) state->volumes[i] = values[i < n ? i : 0];
    }
    changed(d, false);
    say("route %d device %d save %d", index, device, save ? 1 : 0);
    return 0;
}

static int impl_set_param(void *object, uint32_t id, uint32_t flags, const struct spa_pod *param) {
    (void)flags;
    switch (id) {
    case SPA_PARAM_Profile: return set_profile_param(object, param);
    case SPA_PARAM_Route: return set_route_param(object, param);
    default: return -ENOTSUP;
    }
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

static const struct spa_device_methods methods = {
    SPA_VERSION_DEVICE_METHODS,
    .add_listener = impl_add_listener,
    .sync = impl_sync,
    .enum_params = impl_enum_params,
    .set_param = impl_set_param,
};

/* --- The device itself switching (signals) ---------------------------------------------- */

static void switch_by_signal(struct impl *d, const char *name) {
    const struct profile *p = profile_named(d, name);
    if (p != NULL) set_profile(d, p, false);
}

static void on_usr1(void *data, int signal) { (void)signal; switch_by_signal(data, "headset-head-unit"); }
static void on_usr2(void *data, int signal) { (void)signal; switch_by_signal(data, "a2dp-sink"); }
static void on_hup(void *data, int signal) { (void)signal; switch_by_signal(data, "off"); }
static void on_quit(void *data, int signal) { (void)signal; struct impl *d = data; pw_main_loop_quit(d->loop); }

static void on_bound(void *data, uint32_t global_id) {
    struct impl *d = data;
    say("bound %u", global_id);
    if (d->device_id != SPA_ID_INVALID) return;
    d->device_id = global_id;
    if (d->has_stand_in) create_stand_in(d);
    create_nodes(d);
    announce_profile(d);
}

static const struct pw_proxy_events proxy_events = { PW_VERSION_PROXY_EVENTS, .bound = on_bound };

/* The properties a session manager sees on a real headset: bluez5's monitor's and
 * WirePlumber's (device.name with the address's colons replaced, the icon). */
static struct pw_properties *device_properties(struct impl *d) {
    struct pw_properties *props = pw_properties_new(
        PW_KEY_DEVICE_API, "bluez5",
        PW_KEY_DEVICE_BUS, "bluetooth",
        PW_KEY_MEDIA_CLASS, "Audio/Device",
        PW_KEY_DEVICE_DESCRIPTION, d->description,
        "device.alias", d->description,
        PW_KEY_DEVICE_FORM_FACTOR, "headset",
        "device.string", d->address,
        PW_KEY_DEVICE_ICON_NAME, "audio-headset-bluetooth",
        "api.bluez5.address", d->address,
        "api.bluez5.icon", "audio-headset",
        "api.bluez5.class", "0x240404",
        "api.bluez5.connection", "connected",
        NULL);
    pw_properties_setf(props, PW_KEY_DEVICE_NAME, "bluez_card.%s", d->address_name);
    pw_properties_setf(props, "api.bluez5.path", "/org/bluez/hci0/dev_%s", d->address_name);
    return props;
}

int main(int argc, char *argv[]) {
    static struct impl d;
    if (argc < 5) {
        fprintf(stderr, "usage: %s ADDRESS DESCRIPTION PROFILE SHAPES [configure-ports] [stand-in]\n", argv[0]);
        return 2;
    }
    d.address = argv[1];
    d.description = argv[2];
    for (uint32_t i = 0; i < SPA_N_ELEMENTS(all_shapes); i++)
        if (strcmp(all_shapes[i].name, argv[4]) == 0) d.shapes = &all_shapes[i];
    if (d.shapes == NULL) { fprintf(stderr, "unknown shapes %s\n", argv[4]); return 2; }
    const struct profile *initial = profile_named(&d, argv[3]);
    if (initial == NULL) { fprintf(stderr, "unknown profile %s\n", argv[3]); return 2; }
    d.active = profile_at(&d, initial->resolves_to);
    for (int i = 5; i < argc; i++) {
        if (strcmp(argv[i], "configure-ports") == 0) d.configure_ports = true;
        else if (strcmp(argv[i], "stand-in") == 0) d.has_stand_in = true;
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
    }
    snprintf(d.address_name, sizeof(d.address_name), "%s", d.address);
    for (char *c = d.address_name; *c; c++) if (*c == ':') *c = '_';
    d.device_id = SPA_ID_INVALID;
    for (uint32_t i = 0; i < N_DEVICES; i++) d.devices[i] = (struct device_state){ false, { 1.0f, 1.0f }, false };

    /* Block the control signals before libpipewire starts threads: signalfd delivers them. */
    sigset_t mask;
    sigemptyset(&mask);
    int signals[] = { SIGUSR1, SIGUSR2, SIGHUP, SIGTERM, SIGINT };
    for (size_t i = 0; i < SPA_N_ELEMENTS(signals); i++) sigaddset(&mask, signals[i]);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    pw_init(&argc, &argv);
    d.loop = pw_main_loop_new(NULL);
    struct pw_loop *loop = pw_main_loop_get_loop(d.loop);
    struct pw_context *context = pw_context_new(loop, NULL, 0);
    d.core = pw_context_connect(context, NULL, 0);
    if (d.core == NULL) { fprintf(stderr, "cannot connect: %m\n"); return 1; }

    spa_hook_list_init(&d.hooks);
    d.device.iface = SPA_INTERFACE_INIT(SPA_TYPE_INTERFACE_Device, SPA_VERSION_DEVICE, &methods, &d);
    d.props = device_properties(&d);
    d.params[IDX_EnumProfile] = SPA_PARAM_INFO(SPA_PARAM_EnumProfile, SPA_PARAM_INFO_READ);
    d.params[IDX_Profile] = SPA_PARAM_INFO(SPA_PARAM_Profile, SPA_PARAM_INFO_READWRITE);
    d.params[IDX_EnumRoute] = SPA_PARAM_INFO(SPA_PARAM_EnumRoute, SPA_PARAM_INFO_READ);
    d.params[IDX_Route] = SPA_PARAM_INFO(SPA_PARAM_Route, SPA_PARAM_INFO_READWRITE);
    d.info = SPA_DEVICE_INFO_INIT();
    d.info.props = &d.props->dict;
    d.info.params = d.params;
    d.info.n_params = N_PARAMS;

    d.proxy = pw_core_export(d.core, SPA_TYPE_INTERFACE_Device, &d.props->dict, &d.device, 0);
    if (d.proxy == NULL) { fprintf(stderr, "cannot export: %m\n"); return 1; }
    pw_proxy_add_listener(d.proxy, &d.proxy_listener, &proxy_events, &d);

    pw_loop_add_signal(loop, SIGUSR1, on_usr1, &d);
    pw_loop_add_signal(loop, SIGUSR2, on_usr2, &d);
    pw_loop_add_signal(loop, SIGHUP, on_hup, &d);
    pw_loop_add_signal(loop, SIGTERM, on_quit, &d);
    pw_loop_add_signal(loop, SIGINT, on_quit, &d);
    pw_main_loop_run(d.loop);

    destroy_nodes(&d);
    if (d.stand_in.proxy != NULL) pw_proxy_destroy(d.stand_in.proxy);
    pw_proxy_destroy(d.proxy);
    pw_core_disconnect(d.core);
    pw_context_destroy(context);
    pw_main_loop_destroy(d.loop);
    pw_properties_free(d.props);
    pw_deinit();
    return 0;
}
"""#
}

extension PrivatePipeWire {
    /// Starts a Bluetooth headset client in `profile`, with the param shapes of this sandbox's
    /// PipeWire unless `shapes` says otherwise, and WirePlumber 0.5's stand-in source with
    /// `standIn`; it stops with the sandbox. Returns once its nodes exist, with their DSP ports
    /// where the sandbox gives device nodes theirs (the helper gives them to the nodes of every
    /// later profile too; its sources, test sources, always have theirs).
    public func startBluetoothHeadset(
        address: String = "00:11:22:33:44:55", description: String = "Test Headset",
        profile: BluetoothHeadset.Profile = .a2dpSink, shapes: BluetoothHeadset.Shapes? = nil, standIn: Bool = false
    ) throws -> BluetoothHeadset {
        let shapes = try shapes ?? BluetoothHeadset.Shapes(serverVersion: serverVersion())
        let binary = try BluetoothHeadset.executable(environment: environment, logDirectory: logDirectory)
        // PipeWire 1.x gives a client's null-audio-sink no ports by itself; 0.3.65 does.
        let configuresPorts = installation != nil && configuresDevicePorts
        let arguments = [address, description, profile.rawValue, shapes.rawValue]
            + (configuresPorts ? ["configure-ports"] : []) + (standIn ? ["stand-in"] : [])
        let headset = try BluetoothHeadset(
            address: address, description: description, shapes: shapes, initial: profile, standIn: standIn,
            process: spawn(binary, arguments))
        if installation == nil || configuresPorts {
            try waitUntilHeadsetNodesHavePorts(headset.nodeNames(of: profile) + [headset.standInName].compactMap { $0 })
        }
        return headset
    }

    /// The `version` the server's core reports.
    func serverVersion() throws -> String {
        guard let core = try dump().objects.first(where: { $0.type == "PipeWire:Interface:Core" }),
            let version = core.info["version"] as? String
        else { throw SandboxError.commandFailed("pw-dump shows no core version") }
        return version
    }

    private func portSummary(_ names: [String]) -> String {
        guard let dump = try? dump() else { return "no dump" }
        return names.map { name in
            guard let node = dump.node(named: name) else { return "\(name): none" }
            return "\(name) \(node.mediaClass ?? "?"): \(dump.ports(ofNode: node.id).count) ports"
        }.joined(separator: ", ")
    }

    /// Each node has its DSP ports: a sink an input and a monitor output per channel, a source an
    /// output per channel.
    private func waitUntilHeadsetNodesHavePorts(_ names: [String]) throws {
        try waitUntil(timeout: .seconds(5), "the Bluetooth headset's nodes \(names) have their DSP ports (now \(portSummary(names)))") {
            let dump = try dump()
            return names.allSatisfy { name in
                guard let node = dump.node(named: name), let channels = node.property("audio.channels").flatMap(Int.init)
                else { return false }
                let sink = node.mediaClass == "Audio/Sink" || node.mediaClass == "Audio/Source/Internal"
                return dump.ports(ofNode: node.id).count == (sink ? 2 * channels : channels)
            }
        }
    }
}
