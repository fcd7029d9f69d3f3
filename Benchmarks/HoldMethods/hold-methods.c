/* hold-methods: how fast, and how cleanly, can a third client "hold" (interrupt) playing
 * PipeWire streams of other clients, and give them back?
 *
 *   hold-methods farm PREFIX COUNT AMPLITUDE [PREFIX COUNT AMPLITUDE ...]
 *       COUNT playback streams named PREFIX-i, each playing a constant (DC) AMPLITUDE on FL and
 *       FR, on one connection. Not linked by anyone but the bench (there is no session manager).
 *       Logs to stderr, with CLOCK_MONOTONIC ns: every stream state change
 *       ("STATE t name old new"), every gap in its processing longer than 3 quanta
 *       ("GAP name from to": the app was not asked for audio: its position stood still), and at
 *       exit, streams whose processing had stopped ("STOPPED name since"). On SIGUSR1 the app
 *       pauses and plays again itself: every stream pw_stream_set_active(false), 50 ms later
 *       (true), as an app's pause/play or pipewire-pulse's cork/uncork does ("TOGGLE t ...").
 *
 *   hold-methods bench [options]
 *       The hold client (it also plays session manager: it gives the nodes DSP ports and links
 *       them, as audiosessiond does) and, on a second connection, the observer: a capture
 *       stream on the sink's monitor ports. Every victim plays DC a = 2^-10, the witness
 *       (another app on the same sink, never held) DC w = 0.25, so each graph cycle's monitor
 *       value is w + k*a, k = the number of victims whose audio reached the sink in that cycle.
 *       Times are from just before the hold (give-back) requests are issued to the start
 *       (clock.nsec of spa_io_position, CLOCK_MONOTONIC, the driver's wake-up) of the first
 *       graph cycle in which the capture sees the monitor without the first / every victim
 *       (with the first / every victim back). Resolution: one quantum; the monitor shows the
 *       sink's mix one cycle late (the sink is the driver, mixed last), the same for every
 *       method. A cycle without the witness or a skipped cycle (a position jump) is a glitch
 *       for the others; a cycle whose k varies or is not an integer is counted as "odd".
 *       One CSV line per trial on stdout:
 *         stack,n,method,trial, ack_ms (pw_core_sync reply after the hold requests), first_ms,
 *         all_ms (first / every victim gone from the mix, -1: not within 2 s), undone_ms (a victim
 *         audible again after the graph-change probe: the bystander linked to the sink for 80 ms,
 *         then unlinked), escaped_ms (audible again after the app toggled its own streams, with
 *         --toggle-pid), back_ack_ms, back_first_ms, back_all_ms (the give-back), restored (every
 *         victim back without a repair), repaired, timed_out, glitch_hold, glitch_probe,
 *         glitch_back (cycles without the witness or skipped, per step), cycles (observed during
 *         the trial), odd (cycles with a varying or non-integer k), hold_state (the first
 *         victim's node state on the server while held), links_after, running_after (victims
 *         with both links / running after the give-back), t0, t1 (CLOCK_MONOTONIC ns)
 *       Each hold: requests; wait until every victim is gone from the mix (2 s at most); link
 *       the bystander (a graph change on the same driver), 80 ms, unlink it, 80 ms (+ HOLD_MS);
 *       with --toggle-pid, SIGUSR1 to that farm, 250 ms; give back (1.5 s at most, then a repair
 *       of everything: mute false, Start, missing links); 150 ms of settling.
 *
 *       options: --label S --n N --trials T --warmup W --methods m1,m2,... --prefix P
 *                --quantum Q --hold-ms MS --sink-portconfig --seed S --stay --toggle-pid PID
 *       methods: link    pw_registry_destroy of each victim's 2 links to the sink; back:
 *                        re-create them (link-factory); all requests of a step in one batch
 *                pause   pw_node_send_command(Pause) to each victim node; back: Start
 *                suspend pw_node_send_command(Suspend) to each victim node; back: Start
 *                mute    Props { mute: true } on each victim node (a reference, not a hold:
 *                        the app keeps playing into silence); back: mute false
 *
 * Everything is event driven: registry, node info, the capture's cycles, timers.
 */
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pipewire/pipewire.h>
#include <spa/node/command.h>
#include <spa/node/io.h>
#include <spa/param/audio/format-utils.h>
#include <spa/param/param.h>
#include <spa/param/props.h>
#include <spa/pod/builder.h>
#include <spa/utils/result.h>

#define MAX_IDS 65536
#define MAX_VICTIMS 1024
#define RATE 48000
#define CHANNELS 2
#define VICTIM_AMP (1.0f / 1024.0f)
#define WITNESS_AMP 0.25f

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int quantum = 512;

/* ==================================================================================== */
/* farm                                                                                 */

struct farm_stream {
    struct pw_stream *stream;
    struct spa_hook listener;
    char name[64];
    float amplitude;
    uint64_t last_process;   /* data thread only */
    uint64_t gap_ns;
};

/* A stereo F32 stream at the bench's rate and quantum, connected (autoconnect): a victim of
 * the farm or the bench's capture of the sink's monitor. */
static int connect_stream(struct pw_core *core, struct pw_stream **stream, struct spa_hook *listener,
                          const struct pw_stream_events *events, void *data, enum pw_direction direction,
                          const char *name, const char *role, const char *app) {
    char latency[32];
    snprintf(latency, sizeof(latency), "%d/%d", quantum, RATE);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, direction == PW_DIRECTION_OUTPUT ? "Playback" : "Capture",
        PW_KEY_MEDIA_ROLE, role, PW_KEY_NODE_NAME, name, PW_KEY_NODE_LATENCY, latency, PW_KEY_APP_NAME, app, NULL);
    *stream = pw_stream_new(core, name, props);
    pw_stream_add_listener(*stream, listener, events, data);
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    params[0] = spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat,
        &SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .channels = CHANNELS, .rate = RATE,
                                 .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR }));
    return pw_stream_connect(*stream, direction, PW_ID_ANY,
                             PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
}

static void farm_process(void *data) {
    struct farm_stream *s = data;
    uint64_t t = now_ns();
    if (s->last_process && t - s->last_process > s->gap_ns)
        fprintf(stderr, "GAP %s %" PRIu64 " %" PRIu64 "\n", s->name, s->last_process, t);
    s->last_process = t;
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (b == NULL) return;
    struct spa_buffer *buf = b->buffer;
    if (buf->datas[0].data != NULL) {
        uint32_t stride = sizeof(float) * CHANNELS;
        uint32_t frames = buf->datas[0].maxsize / stride;
        if (b->requested && b->requested < frames) frames = (uint32_t)b->requested;
        float *samples = buf->datas[0].data;
        for (uint32_t i = 0; i < frames * CHANNELS; i++) samples[i] = s->amplitude;
        buf->datas[0].chunk->offset = 0;
        buf->datas[0].chunk->stride = (int32_t)stride;
        buf->datas[0].chunk->size = frames * stride;
    }
    pw_stream_queue_buffer(s->stream, b);
}

static void farm_state(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    struct farm_stream *s = data;
    fprintf(stderr, "STATE %" PRIu64 " %s %s %s%s%s\n", now_ns(), s->name, pw_stream_state_as_string(old),
            pw_stream_state_as_string(state), error ? " error=" : "", error ? error : "");
}

static const struct pw_stream_events farm_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = farm_state,
    .process = farm_process,
};

struct quit_ctx { struct pw_main_loop *loop; };

struct farm {
    struct farm_stream *streams;
    int count;
    struct pw_loop *loop;
    struct spa_source *timer;
};

static void farm_reactivate(void *data, uint64_t expirations) {
    struct farm *f = data;
    (void)expirations;
    fprintf(stderr, "TOGGLE %" PRIu64 " active\n", now_ns());
    for (int i = 0; i < f->count; i++) pw_stream_set_active(f->streams[i].stream, true);
}

/* SIGUSR1: the app pauses and resumes itself, every stream inactive and 50 ms later active */
static void farm_toggle(void *data, int signal_number) {
    struct farm *f = data;
    (void)signal_number;
    fprintf(stderr, "TOGGLE %" PRIu64 " inactive\n", now_ns());
    for (int i = 0; i < f->count; i++) pw_stream_set_active(f->streams[i].stream, false);
    struct timespec value = { 0, 50000000 };
    pw_loop_update_timer(f->loop, f->timer, &value, NULL, false);
}
static void on_quit_signal(void *data, int signal_number) {
    (void)signal_number;
    pw_main_loop_quit(((struct quit_ctx *)data)->loop);
}

static int run_farm(int argc, char **argv) {
    struct pw_main_loop *loop = pw_main_loop_new(NULL);
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(loop), NULL, 0);
    struct pw_core *core = pw_context_connect(context, NULL, 0);
    if (core == NULL) { fprintf(stderr, "hold-methods farm: cannot connect: %s\n", strerror(errno)); return 1; }
    struct quit_ctx q = { loop };
    pw_loop_add_signal(pw_main_loop_get_loop(loop), SIGINT, on_quit_signal, &q);
    pw_loop_add_signal(pw_main_loop_get_loop(loop), SIGTERM, on_quit_signal, &q);
    int total = 0;
    for (int a = 0; a + 2 < argc; a += 3) total += atoi(argv[a + 1]);
    struct farm_stream *streams = calloc((size_t)total, sizeof(*streams));
    int n = 0;
    for (int a = 0; a + 2 < argc; a += 3) {
        int count = atoi(argv[a + 1]);
        float amplitude = (float)atof(argv[a + 2]);
        for (int i = 0; i < count; i++, n++) {
            struct farm_stream *s = &streams[n];
            snprintf(s->name, sizeof(s->name), "%s-%d", argv[a], i);
            s->amplitude = amplitude;
            s->gap_ns = 3ull * (uint64_t)quantum * 1000000000ull / RATE;
            int res = connect_stream(core, &s->stream, &s->listener, &farm_events, s, PW_DIRECTION_OUTPUT, s->name,
                                     "Music", "hold-methods-farm");
            if (res < 0) { fprintf(stderr, "hold-methods farm: connect: %s\n", spa_strerror(res)); return 1; }
        }
    }
    struct farm f = { streams, total, pw_main_loop_get_loop(loop), NULL };
    f.timer = pw_loop_add_timer(f.loop, farm_reactivate, &f);
    pw_loop_add_signal(f.loop, SIGUSR1, farm_toggle, &f);
    fprintf(stderr, "hold-methods farm: %d streams\n", total);
    pw_main_loop_run(loop);
    uint64_t t = now_ns();
    for (int i = 0; i < total; i++)
        if (streams[i].last_process && t - streams[i].last_process > streams[i].gap_ns)
            fprintf(stderr, "STOPPED %s %" PRIu64 "\n", streams[i].name, streams[i].last_process);
    for (int i = 0; i < total; i++) pw_stream_destroy(streams[i].stream);
    pw_core_disconnect(core);
    pw_context_destroy(context);
    pw_main_loop_destroy(loop);
    free(streams);
    return 0;
}

/* ==================================================================================== */
/* bench                                                                                */

enum kind { K_OTHER, K_SINK, K_VICTIM, K_WITNESS, K_BYSTANDER, K_CAPTURE };
enum method { M_LINK, M_PAUSE, M_SUSPEND, M_MUTE, M_COUNT };
static const char *method_names[M_COUNT] = { "link", "pause", "suspend", "mute" };

struct node {
    bool present;
    enum kind kind;
    char name[96];
    struct pw_proxy *proxy;
    struct spa_hook listener, proxy_listener;
    enum pw_node_state state;
    bool configured;
    uint32_t out_port[CHANNELS], in_port[CHANNELS], mon_port[CHANNELS];
    int links_to_sink;
    int state_changes;
};

struct port { bool present; uint32_t node; bool out, monitor; int channel; };
struct link { bool present; uint32_t out_node, out_port, in_node, in_port; };

/* one graph cycle as the capture saw it (filled in the data thread) */
struct cycle {
    uint64_t nsec, position, duration, seen;
    int kmin, kmax;       /* victims audible, rounded, min/max over the cycle's samples */
    bool witness, odd;    /* witness present in every sample; a non-integer or varying k */
};

#define RING 8192
enum phase { P_SETUP, P_BASELINE, P_GAP, P_HOLD, P_PROBE_LINKED, P_PROBE_UNLINKED, P_PROBE_APP, P_RESTORE, P_SETTLE, P_DONE,
             P_STAY };

struct trial {
    enum method method;
    uint64_t t0, t1, ack0, ack1;
    int64_t first, all, undone, escaped, back_first, back_all;
    int glitch[3];   /* glitch cycles (witness missing or skipped) while holding, during the probes, giving back */
    int cycles, odd;
    bool restored, repaired, timed_out;
    char hold_state[16];
    int links_after, running_after;
};

struct bench {
    struct pw_main_loop *main_loop;
    struct pw_loop *loop;
    struct pw_context *context;
    struct pw_core *core;      /* the hold client */
    struct pw_core *core_obs;  /* the observer's capture stream */
    struct spa_hook core_listener;
    struct pw_registry *registry;
    struct spa_hook registry_listener;
    struct node *nodes;
    struct port *ports;
    struct link *links;
    uint32_t sink, witness, bystander, capture;
    uint32_t victims[MAX_VICTIMS];
    int victim_count;
    /* options */
    const char *label, *prefix;
    int n, trials, warmup, hold_ms;
    bool methods[M_COUNT];
    bool sink_portconfig, stay;
    int toggle_pid;  /* a farm to send SIGUSR1 during each hold: its streams go inactive and active again */
    /* capture */
    struct pw_stream *cap;
    struct spa_hook cap_listener;
    struct spa_io_position *position;
    struct cycle ring[RING];
    atomic_uint head, tail;
    struct spa_source *ring_event;
    struct spa_source *timer;
    uint64_t last_position, last_duration;
    /* trial loop */
    enum phase phase;
    uint64_t deadline, phase_start, hold_at;
    int stable_cycles;
    struct trial *results;
    int trial_count, trial_index;
    enum method *order;
    int pending_sync, sync_for;  /* which step the pending sync belongs to (0 hold, 1 give-back) */
    int bystander_links[2];
    int exit_code;
    uint64_t setup_deadline;
    long base_cycles, base_glitch;
};

static struct bench *B;

static void arm(struct bench *b, uint64_t at) {
    struct timespec ts = { (time_t)(at / 1000000000ull), (long)(at % 1000000000ull) };
    pw_loop_update_timer(b->loop, b->timer, &ts, NULL, true);
}

/* --- capture (data thread) ---------------------------------------------------------- */

static void cap_io_changed(void *data, uint32_t id, void *area, uint32_t size) {
    struct bench *b = data;
    (void)size;
    if (id == SPA_IO_Position) b->position = area;
}

static void cap_process(void *data) {
    struct bench *b = data;
    struct pw_buffer *buf = pw_stream_dequeue_buffer(b->cap);
    if (buf == NULL) return;
    struct cycle c = { 0 };
    c.seen = now_ns();
    if (b->position) {
        c.nsec = b->position->clock.nsec;
        c.position = b->position->clock.position;
        c.duration = b->position->clock.duration;
    }
    struct spa_data *d = &buf->buffer->datas[0];
    c.kmin = 1 << 30;
    c.kmax = -1;
    c.witness = true;
    if (d->data && d->chunk->size > 0) {
        const float *s = SPA_PTROFF(d->data, d->chunk->offset, const float);
        uint32_t frames = d->chunk->size / (sizeof(float) * CHANNELS);
        for (uint32_t i = 0; i < frames; i++) {
            float v = s[i * CHANNELS];
            if (v < WITNESS_AMP - VICTIM_AMP * 0.5f) c.witness = false;
            else v -= WITNESS_AMP;
            float kf = v / VICTIM_AMP;
            int k = (int)lrintf(kf);
            if (fabsf(kf - (float)k) > 0.25f) c.odd = true;
            if (k < c.kmin) c.kmin = k;
            if (k > c.kmax) c.kmax = k;
        }
        if (c.kmin != c.kmax) c.odd = true;
    } else {
        c.kmin = c.kmax = 0;
        c.witness = false;
    }
    pw_stream_queue_buffer(b->cap, buf);
    unsigned h = atomic_load_explicit(&b->head, memory_order_relaxed);
    if (h - atomic_load_explicit(&b->tail, memory_order_acquire) < RING) {
        b->ring[h % RING] = c;
        atomic_store_explicit(&b->head, h + 1, memory_order_release);
    }
    pw_loop_signal_event(b->loop, b->ring_event);
}

static const struct pw_stream_events cap_events = {
    PW_VERSION_STREAM_EVENTS,
    .io_changed = cap_io_changed,
    .process = cap_process,
};

static void create_capture(struct bench *b) {
    connect_stream(b->core_obs, &b->cap, &b->cap_listener, &cap_events, b, PW_DIRECTION_INPUT, "hold-capture",
                   "Production", "hold-methods-observer");
}

/* --- requests ----------------------------------------------------------------------- */

static void set_port_config(struct node *n, bool input, bool monitor) {
    uint8_t fb[1024], pb[2048];
    struct spa_pod_builder f = SPA_POD_BUILDER_INIT(fb, sizeof(fb));
    struct spa_pod_builder p = SPA_POD_BUILDER_INIT(pb, sizeof(pb));
    struct spa_audio_info_raw info = SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32P, .channels = CHANNELS,
        .rate = RATE, .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR });
    struct spa_pod *format = spa_format_audio_raw_build(&f, SPA_PARAM_Format, &info);
    struct spa_pod *pod = spa_pod_builder_add_object(&p,
        SPA_TYPE_OBJECT_ParamPortConfig, SPA_PARAM_PortConfig,
        SPA_PARAM_PORT_CONFIG_direction, SPA_POD_Id(input ? SPA_DIRECTION_INPUT : SPA_DIRECTION_OUTPUT),
        SPA_PARAM_PORT_CONFIG_mode, SPA_POD_Id(SPA_PARAM_PORT_CONFIG_MODE_dsp),
        SPA_PARAM_PORT_CONFIG_monitor, SPA_POD_Bool(monitor),
        SPA_PARAM_PORT_CONFIG_format, SPA_POD_Pod(format));
    pw_node_set_param((struct pw_node *)n->proxy, SPA_PARAM_PortConfig, 0, pod);
}

static void set_mute(struct node *n, bool mute) {
    uint8_t pb[256];
    struct spa_pod_builder p = SPA_POD_BUILDER_INIT(pb, sizeof(pb));
    struct spa_pod *pod = spa_pod_builder_add_object(&p, SPA_TYPE_OBJECT_Props, SPA_PARAM_Props,
                                                     SPA_PROP_mute, SPA_POD_Bool(mute));
    pw_node_set_param((struct pw_node *)n->proxy, SPA_PARAM_Props, 0, pod);
}

static void send_command(struct node *n, uint32_t id) {
    struct spa_command command = SPA_NODE_COMMAND_INIT(id);
    pw_node_send_command((struct pw_node *)n->proxy, &command);
}

struct linkref { struct pw_proxy *proxy; struct spa_hook listener; };

static void link_proxy_removed(void *data) { pw_proxy_destroy(((struct linkref *)data)->proxy); }
static void link_proxy_error(void *data, int seq, int res, const char *message) {
    (void)data; (void)seq;
    fprintf(stderr, "hold-methods: link error %s: %s\n", spa_strerror(res), message);
}
static void link_proxy_destroy(void *data) { spa_hook_remove(&((struct linkref *)data)->listener); }
static const struct pw_proxy_events link_proxy_events = {
    PW_VERSION_PROXY_EVENTS,
    .removed = link_proxy_removed,
    .destroy = link_proxy_destroy,
    .error = link_proxy_error,
};

static void create_link(struct bench *b, uint32_t out_node, uint32_t out_port, uint32_t in_node, uint32_t in_port) {
    struct pw_properties *props = pw_properties_new(NULL, NULL);
    pw_properties_setf(props, PW_KEY_LINK_OUTPUT_NODE, "%u", out_node);
    pw_properties_setf(props, PW_KEY_LINK_OUTPUT_PORT, "%u", out_port);
    pw_properties_setf(props, PW_KEY_LINK_INPUT_NODE, "%u", in_node);
    pw_properties_setf(props, PW_KEY_LINK_INPUT_PORT, "%u", in_port);
    struct pw_proxy *proxy = pw_core_create_object(b->core, "link-factory", PW_TYPE_INTERFACE_Link, PW_VERSION_LINK,
                                                   &props->dict, sizeof(struct linkref));
    pw_properties_free(props);
    struct linkref *ref = pw_proxy_get_user_data(proxy);
    ref->proxy = proxy;
    pw_proxy_add_listener(proxy, &ref->listener, &link_proxy_events, ref);
}

static bool linked(struct bench *b, uint32_t out_port, uint32_t in_port) {
    for (uint32_t i = 0; i < MAX_IDS; i++)
        if (b->links[i].present && b->links[i].out_port == out_port && b->links[i].in_port == in_port) return true;
    return false;
}

/* links node -> sink (or sink monitor -> capture), channel by channel, where missing */
static void link_node(struct bench *b, uint32_t out_node, const uint32_t *out_ports, uint32_t in_node, const uint32_t *in_ports) {
    for (int c = 0; c < CHANNELS; c++)
        if (out_ports[c] && in_ports[c] && !linked(b, out_ports[c], in_ports[c]))
            create_link(b, out_node, out_ports[c], in_node, in_ports[c]);
}

static void unlink_node_from_sink(struct bench *b, uint32_t node) {
    for (uint32_t i = 0; i < MAX_IDS; i++)
        if (b->links[i].present && b->links[i].out_node == node && b->links[i].in_node == b->sink)
            pw_registry_destroy(b->registry, i);
}

static void hold(struct bench *b, enum method m) {
    for (int i = 0; i < b->victim_count; i++) {
        struct node *v = &b->nodes[b->victims[i]];
        switch (m) {
        case M_LINK: unlink_node_from_sink(b, b->victims[i]); break;
        case M_PAUSE: send_command(v, SPA_NODE_COMMAND_Pause); break;
        case M_SUSPEND: send_command(v, SPA_NODE_COMMAND_Suspend); break;
        case M_MUTE: set_mute(v, true); break;
        default: break;
        }
    }
}

static void give_back(struct bench *b, enum method m) {
    struct node *s = &b->nodes[b->sink];
    for (int i = 0; i < b->victim_count; i++) {
        struct node *v = &b->nodes[b->victims[i]];
        switch (m) {
        case M_LINK: link_node(b, b->victims[i], v->out_port, b->sink, s->in_port); break;
        case M_PAUSE:
        case M_SUSPEND: send_command(v, SPA_NODE_COMMAND_Start); break;
        case M_MUTE: set_mute(v, false); break;
        default: break;
        }
    }
}

/* after a give-back that did not bring every victim back: everything any method could
 * have left behind, undone */
static void repair(struct bench *b) {
    struct node *s = &b->nodes[b->sink];
    for (int i = 0; i < b->victim_count; i++) {
        struct node *v = &b->nodes[b->victims[i]];
        set_mute(v, false);
        send_command(v, SPA_NODE_COMMAND_Start);
        link_node(b, b->victims[i], v->out_port, b->sink, s->in_port);
    }
}

/* --- trial loop ----------------------------------------------------------------------- */

static const char *state_name(enum pw_node_state s) { return pw_node_state_as_string(s); }

static int victims_with_links(struct bench *b, int *running) {
    int ok = 0;
    *running = 0;
    for (int i = 0; i < b->victim_count; i++) {
        struct node *v = &b->nodes[b->victims[i]];
        if (v->links_to_sink == CHANNELS) ok++;
        if (v->state == PW_NODE_STATE_RUNNING) (*running)++;
    }
    return ok;
}

static void print_trial(struct bench *b, struct trial *t, int index) {
    printf("%s,%d,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%d,%" PRIu64 ",%" PRIu64 "\n",
           b->label, b->n, method_names[t->method], index,
           t->ack0 ? (t->ack0 - t->t0) / 1e6 : -1.0, t->first >= 0 ? t->first / 1e6 : -1.0,
           t->all >= 0 ? t->all / 1e6 : -1.0, t->undone >= 0 ? t->undone / 1e6 : -1.0,
           t->escaped >= 0 ? t->escaped / 1e6 : -1.0,
           t->ack1 ? (t->ack1 - t->t1) / 1e6 : -1.0, t->back_first >= 0 ? t->back_first / 1e6 : -1.0,
           t->back_all >= 0 ? t->back_all / 1e6 : -1.0, t->restored, t->repaired, t->timed_out,
           t->glitch[0], t->glitch[1], t->glitch[2], t->cycles, t->odd, t->hold_state, t->links_after, t->running_after, t->t0, t->t1);
    fflush(stdout);
}

static void start_gap(struct bench *b, uint64_t t) {
    b->phase = P_GAP;
    b->phase_start = t;
    b->stable_cycles = 0;
    b->deadline = t + 100000000ull; /* at least 100 ms between trials */
    arm(b, b->deadline);
}

static void begin_hold(struct bench *b) {
    struct trial *t = &b->results[b->trial_index];
    memset(t, 0, sizeof(*t));
    t->method = b->order[b->trial_index];
    t->first = t->all = t->undone = t->escaped = t->back_first = t->back_all = -1;
    snprintf(t->hold_state, sizeof(t->hold_state), "-");
    b->phase = P_HOLD;
    t->t0 = now_ns();
    hold(b, t->method);
    b->pending_sync = pw_core_sync(b->core, PW_ID_CORE, 0);
    b->sync_for = 0;
    b->deadline = t->t0 + 2000000000ull;
    arm(b, b->deadline);
}

static void probe_graph_change(struct bench *b) {
    /* a graph change on the same driver while the victims are held: link the (silent)
     * bystander to the sink, then unlink it. Would the server undo the hold? */
    struct node *by = &b->nodes[b->bystander], *s = &b->nodes[b->sink];
    struct trial *t = &b->results[b->trial_index];
    snprintf(t->hold_state, sizeof(t->hold_state), "%s", state_name(b->nodes[b->victims[0]].state));
    link_node(b, b->bystander, by->out_port, b->sink, s->in_port);
    b->phase = P_PROBE_LINKED;
    b->deadline = now_ns() + 80000000ull;
    arm(b, b->deadline);
}

static void begin_restore(struct bench *b) {
    struct trial *t = &b->results[b->trial_index];
    b->phase = P_RESTORE;
    t->t1 = now_ns();
    give_back(b, t->method);
    b->pending_sync = pw_core_sync(b->core, PW_ID_CORE, 0);
    b->sync_for = 1;
    b->deadline = t->t1 + (t->repaired ? 3000000000ull : 1500000000ull);
    arm(b, b->deadline);
}

static void end_trial(struct bench *b) {
    struct trial *t = &b->results[b->trial_index];
    t->links_after = victims_with_links(b, &t->running_after);
    if (b->trial_index >= b->warmup) print_trial(b, t, b->trial_index - b->warmup);
    b->trial_index++;
    if (b->trial_index >= b->trial_count) {
        fprintf(stderr, "hold-methods: %d trials done\n", b->trial_count);
        if (b->stay) { b->phase = P_STAY; return; } /* keep the links (they are ours) until killed */
        b->phase = P_DONE;
        pw_main_loop_quit(b->main_loop);
        return;
    }
    start_gap(b, now_ns());
}

static bool setup_ready(struct bench *b) {
    if (!b->sink || !b->witness || !b->bystander || !b->capture || b->victim_count < b->n) return false;
    struct node *s = &b->nodes[b->sink];
    for (int c = 0; c < CHANNELS; c++)
        if (!s->in_port[c] || !s->mon_port[c] || !b->nodes[b->capture].in_port[c] || !b->nodes[b->witness].out_port[c]
            || !b->nodes[b->bystander].out_port[c])
            return false;
    for (int i = 0; i < b->victim_count; i++)
        for (int c = 0; c < CHANNELS; c++)
            if (!b->nodes[b->victims[i]].out_port[c]) return false;
    return true;
}

static int glitch_slot(enum phase p) {
    return p == P_HOLD ? 0 : (p == P_RESTORE || p == P_SETTLE) ? 2 : 1;
}

/* one captured cycle (or none: a timer) moves the trial loop on */
static void advance(struct bench *b, const struct cycle *c) {
    uint64_t t = now_ns();
    struct trial *tr = b->trial_index < b->trial_count ? &b->results[b->trial_index] : NULL;
    if (c && tr && b->phase >= P_HOLD && b->phase <= P_SETTLE) {
        if (!c->witness) tr->glitch[glitch_slot(b->phase)]++;
        if (c->odd) tr->odd++;
        tr->cycles++;
    }
    if (c && b->phase == P_GAP) {
        /* the same counts between trials: the machine's own glitch rate */
        b->base_cycles++;
        if (!c->witness) b->base_glitch++;
    }
    switch (b->phase) {
    case P_SETUP:
        if (setup_ready(b)) {
            struct node *s = &b->nodes[b->sink];
            for (int i = 0; i < b->victim_count; i++) link_node(b, b->victims[i], b->nodes[b->victims[i]].out_port, b->sink, s->in_port);
            link_node(b, b->witness, b->nodes[b->witness].out_port, b->sink, s->in_port);
            link_node(b, b->sink, s->mon_port, b->capture, b->nodes[b->capture].in_port);
            b->phase = P_BASELINE;
            b->stable_cycles = 0;
            b->deadline = t + 30000000000ull;
            arm(b, b->deadline);
            fprintf(stderr, "hold-methods: %d victims, witness, bystander, capture: linking\n", b->victim_count);
        } else if (t > b->setup_deadline) {
            fprintf(stderr, "hold-methods: setup timed out (sink %u witness %u bystander %u capture %u victims %d/%d)\n",
                    b->sink, b->witness, b->bystander, b->capture, b->victim_count, b->n);
            b->exit_code = 3;
            pw_main_loop_quit(b->main_loop);
        }
        break;
    case P_BASELINE:
        if (c && c->witness && c->kmin == b->n && c->kmax == b->n) {
            if (++b->stable_cycles >= 20) {
                int running;
                int ok = victims_with_links(b, &running);
                fprintf(stderr, "hold-methods: baseline: %d victims linked, %d running, all audible\n", ok, running);
                start_gap(b, t);
            }
        } else if (c) b->stable_cycles = 0;
        if (t > b->deadline) {
            fprintf(stderr, "hold-methods: no baseline (last cycle k %d..%d witness %d)\n", c ? c->kmin : -1,
                    c ? c->kmax : -1, c ? c->witness : -1);
            b->exit_code = 3;
            pw_main_loop_quit(b->main_loop);
        }
        break;
    case P_GAP:
        if (c) {
            if (c->witness && c->kmin == b->n && c->kmax == b->n) b->stable_cycles++;
            else b->stable_cycles = 0;
        }
        if (b->hold_at && t >= b->hold_at) { b->hold_at = 0; begin_hold(b); }
        else if (b->hold_at) break;
        else if (t >= b->deadline && b->stable_cycles >= 3) {
            /* a random phase against the graph cycle, so that the wait for the next cycle
             * is uniform (0..1 quantum) for every method */
            b->hold_at = t + (uint64_t)(rand() % 1000) * (uint64_t)quantum * 1000000ull / RATE;
            arm(b, b->hold_at);
        } else if (t >= b->phase_start + 5000000000ull) {
            fprintf(stderr, "hold-methods: not back to baseline before trial %d: stopping\n", b->trial_index);
            b->exit_code = 2;
            b->phase = P_DONE;
            pw_main_loop_quit(b->main_loop);
        } else if (t >= b->deadline) arm(b, t + 20000000ull);
        break;
    case P_HOLD:
        /* only whole cycles with the witness count: a cycle without it is a glitch, not a hold */
        if (c && c->nsec > tr->t0 && c->witness) {
            if (c->kmax < b->n && tr->first < 0) tr->first = (int64_t)(c->nsec - tr->t0);
            if (c->kmax == 0 && tr->all < 0) tr->all = (int64_t)(c->nsec - tr->t0);
        }
        if (tr->all >= 0) probe_graph_change(b);
        else if (t >= b->deadline) { tr->timed_out = true; probe_graph_change(b); }
        break;
    case P_PROBE_LINKED:
    case P_PROBE_UNLINKED:
    case P_PROBE_APP:
        if (c && c->witness && c->kmax > 0 && tr->all >= 0) {
            if (b->phase == P_PROBE_APP) { if (tr->escaped < 0 && tr->undone < 0) tr->escaped = (int64_t)(c->nsec - tr->t0); }
            else if (tr->undone < 0) tr->undone = (int64_t)(c->nsec - tr->t0);
        }
        if (t >= b->deadline) {
            if (b->phase == P_PROBE_UNLINKED && b->toggle_pid > 0) {
                /* the app pauses and plays again itself (pw_stream_set_active false, true, as
                 * pipewire-pulse does on a cork and uncork): does it escape the hold? */
                kill(b->toggle_pid, SIGUSR1);
                b->phase = P_PROBE_APP;
                b->deadline = t + 250000000ull;
                arm(b, b->deadline);
            } else if (b->phase == P_PROBE_LINKED) {
                unlink_node_from_sink(b, b->bystander);
                b->phase = P_PROBE_UNLINKED;
                /* the give-back at a random phase against the graph cycle, too */
                b->deadline = t + 80000000ull + (uint64_t)b->hold_ms * 1000000ull
                              + (uint64_t)(rand() % 1000) * (uint64_t)quantum * 1000000ull / RATE;
                arm(b, b->deadline);
            } else begin_restore(b);
        }
        break;
    case P_RESTORE:
        if (c && c->nsec > tr->t1 && c->witness) {
            if (c->kmax > 0 && tr->back_first < 0) tr->back_first = (int64_t)(c->nsec - tr->t1);
            if (c->kmin == b->n && tr->back_all < 0) tr->back_all = (int64_t)(c->nsec - tr->t1);
        }
        if (tr->back_all >= 0) {
            tr->restored = !tr->repaired;
            b->phase = P_SETTLE;
            b->deadline = t + 150000000ull;
            arm(b, b->deadline);
        } else if (t >= b->deadline) {
            if (!tr->repaired) {
                fprintf(stderr, "hold-methods: %s: not every victim back after 1.5 s (k %d..%d): repairing\n",
                        method_names[tr->method], c ? c->kmin : -1, c ? c->kmax : -1);
                tr->repaired = true;
                repair(b);
                b->deadline = t + 3000000000ull;
                arm(b, b->deadline);
            } else {
                fprintf(stderr, "hold-methods: %s: victims not back even after repair: stopping\n", method_names[tr->method]);
                tr->links_after = victims_with_links(b, &tr->running_after);
                print_trial(b, tr, b->trial_index - b->warmup);
                b->exit_code = 2;
                b->phase = P_DONE;
                pw_main_loop_quit(b->main_loop);
            }
        }
        break;
    case P_SETTLE:
        if (t >= b->deadline) end_trial(b);
        break;
    case P_DONE:
    case P_STAY:
        break;
    }
}

static void on_ring(void *data, uint64_t count) {
    struct bench *b = data;
    (void)count;
    unsigned tail = atomic_load_explicit(&b->tail, memory_order_relaxed);
    unsigned head = atomic_load_explicit(&b->head, memory_order_acquire);
    while (tail != head) {
        struct cycle c = b->ring[tail % RING];
        tail++;
        atomic_store_explicit(&b->tail, tail, memory_order_release);
        if (b->last_duration && c.position > b->last_position + b->last_duration && b->trial_index < b->trial_count) {
            int skipped = (int)((c.position - b->last_position) / b->last_duration) - 1;
            if (b->phase >= P_HOLD && b->phase <= P_SETTLE) b->results[b->trial_index].glitch[glitch_slot(b->phase)] += skipped;
            else if (b->phase == P_GAP) b->base_glitch += skipped;
        }
        b->last_position = c.position;
        b->last_duration = c.duration;
        advance(b, &c);
    }
}

static void on_timer(void *data, uint64_t expirations) {
    (void)expirations;
    advance(data, NULL);
}

static void on_core_done(void *data, uint32_t id, int seq) {
    struct bench *b = data;
    if (id != PW_ID_CORE || seq != b->pending_sync || b->trial_index >= b->trial_count) return;
    struct trial *t = &b->results[b->trial_index];
    if (b->sync_for == 0 && !t->ack0) t->ack0 = now_ns();
    if (b->sync_for == 1 && !t->ack1) t->ack1 = now_ns();
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)data;
    fprintf(stderr, "hold-methods: error id %u seq %d: %s: %s\n", id, seq, spa_strerror(res), message);
}

static const struct pw_core_events core_events = {
    PW_VERSION_CORE_EVENTS,
    .done = on_core_done,
    .error = on_core_error,
};

/* --- registry --------------------------------------------------------------------------- */

struct node_ref { struct bench *b; uint32_t id; };

static void on_node_info(void *data, const struct pw_node_info *info) {
    struct node_ref *ref = data;
    struct node *n = &ref->b->nodes[ref->id];
    if (info->change_mask & PW_NODE_CHANGE_MASK_STATE) {
        if (n->state != info->state) n->state_changes++;
        n->state = info->state;
    }
}

static const struct pw_node_events node_events = {
    PW_VERSION_NODE_EVENTS,
    .info = on_node_info,
};

static void on_node_proxy_removed(void *data) {
    struct node_ref *ref = data;
    pw_proxy_destroy(ref->b->nodes[ref->id].proxy);
}

static void on_node_proxy_destroy(void *data) {
    struct node_ref *ref = data;
    struct node *n = &ref->b->nodes[ref->id];
    spa_hook_remove(&n->listener);
    spa_hook_remove(&n->proxy_listener);
    n->proxy = NULL;
}

static const struct pw_proxy_events node_proxy_events = {
    PW_VERSION_PROXY_EVENTS,
    .removed = on_node_proxy_removed,
    .destroy = on_node_proxy_destroy,
};

static uint32_t prop_u32(const struct spa_dict *props, const char *key) {
    const char *s = props ? spa_dict_lookup(props, key) : NULL;
    return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props) {
    struct bench *b = data;
    (void)permissions; (void)version;
    if (id >= MAX_IDS) return;
    if (strcmp(type, PW_TYPE_INTERFACE_Node) == 0) {
        const char *name = props ? spa_dict_lookup(props, PW_KEY_NODE_NAME) : NULL;
        if (name == NULL) return;
        struct node *n = &b->nodes[id];
        memset(n, 0, sizeof(*n));
        n->present = true;
        n->state = PW_NODE_STATE_CREATING;
        snprintf(n->name, sizeof(n->name), "%s", name);
        size_t pl = strlen(b->prefix);
        if (strcmp(name, "hold-sink") == 0) { n->kind = K_SINK; b->sink = id; }
        else if (strcmp(name, "witness-0") == 0) { n->kind = K_WITNESS; b->witness = id; }
        else if (strcmp(name, "bystander-0") == 0) { n->kind = K_BYSTANDER; b->bystander = id; }
        else if (strcmp(name, "hold-capture") == 0) { n->kind = K_CAPTURE; b->capture = id; }
        else if (strncmp(name, b->prefix, pl) == 0 && name[pl] == '-' && b->victim_count < MAX_VICTIMS) {
            n->kind = K_VICTIM;
            b->victims[b->victim_count++] = id;
        } else return;
        n->proxy = pw_registry_bind(b->registry, id, type, PW_VERSION_NODE, sizeof(struct node_ref));
        struct node_ref *ref = pw_proxy_get_user_data(n->proxy);
        ref->b = b;
        ref->id = id;
        pw_proxy_add_object_listener(n->proxy, &n->listener, &node_events, ref);
        pw_proxy_add_listener(n->proxy, &n->proxy_listener, &node_proxy_events, ref);
        /* what a session manager does first: DSP ports (the sink of 0.3.65 has them from its
         * adapter.auto-port-config; 1.4.2 needs them set) */
        if (n->kind == K_SINK) { if (b->sink_portconfig) set_port_config(n, true, true); }
        else set_port_config(n, n->kind == K_CAPTURE, false);
    } else if (strcmp(type, PW_TYPE_INTERFACE_Port) == 0) {
        uint32_t node = prop_u32(props, PW_KEY_NODE_ID);
        const char *dir = spa_dict_lookup(props, PW_KEY_PORT_DIRECTION);
        const char *ch = spa_dict_lookup(props, PW_KEY_AUDIO_CHANNEL);
        const char *mon = spa_dict_lookup(props, PW_KEY_PORT_MONITOR);
        if (node >= MAX_IDS || dir == NULL || ch == NULL) return;
        int c = strcmp(ch, "FL") == 0 ? 0 : strcmp(ch, "FR") == 0 ? 1 : -1;
        if (c < 0) return;
        struct port *p = &b->ports[id];
        p->present = true;
        p->node = node;
        p->out = strcmp(dir, "out") == 0;
        p->monitor = mon && strcmp(mon, "true") == 0;
        p->channel = c;
        struct node *n = &b->nodes[node];
        if (p->monitor) n->mon_port[c] = id;
        else if (p->out) n->out_port[c] = id;
        else n->in_port[c] = id;
        advance(b, NULL);
    } else if (strcmp(type, PW_TYPE_INTERFACE_Link) == 0) {
        struct link *l = &b->links[id];
        l->present = true;
        l->out_node = prop_u32(props, PW_KEY_LINK_OUTPUT_NODE);
        l->out_port = prop_u32(props, PW_KEY_LINK_OUTPUT_PORT);
        l->in_node = prop_u32(props, PW_KEY_LINK_INPUT_NODE);
        l->in_port = prop_u32(props, PW_KEY_LINK_INPUT_PORT);
        if (l->out_node < MAX_IDS && l->in_node == b->sink) b->nodes[l->out_node].links_to_sink++;
    }
}

static void on_global_remove(void *data, uint32_t id) {
    struct bench *b = data;
    if (id >= MAX_IDS) return;
    if (b->links[id].present) {
        struct link *l = &b->links[id];
        l->present = false;
        if (l->out_node < MAX_IDS && l->in_node == b->sink && b->nodes[l->out_node].links_to_sink > 0)
            b->nodes[l->out_node].links_to_sink--;
    } else if (b->ports[id].present) {
        struct port *p = &b->ports[id];
        struct node *n = &b->nodes[p->node];
        p->present = false;
        if (n->mon_port[p->channel] == id) n->mon_port[p->channel] = 0;
        if (n->out_port[p->channel] == id) n->out_port[p->channel] = 0;
        if (n->in_port[p->channel] == id) n->in_port[p->channel] = 0;
    } else if (b->nodes[id].present) {
        struct node *n = &b->nodes[id];
        n->present = false;
        if (n->kind == K_VICTIM && b->phase != P_DONE) {
            fprintf(stderr, "hold-methods: victim %s went away\n", n->name);
            for (int i = 0; i < b->victim_count; i++)
                if (b->victims[i] == id) { b->victims[i] = b->victims[--b->victim_count]; break; }
        }
    }
}

static const struct pw_registry_events registry_events = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = on_global,
    .global_remove = on_global_remove,
};

static int run_bench(int argc, char **argv) {
    struct bench *b = calloc(1, sizeof(*b));
    B = b;
    b->label = "pw";
    b->prefix = "victim";
    b->n = 1;
    b->trials = 20;
    b->warmup = 2;
    b->hold_ms = 0;
    unsigned seed = (unsigned)now_ns();
    const char *methods = "link,pause,suspend,mute";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--label") == 0 && v) { b->label = v; i++; }
        else if (strcmp(a, "--n") == 0 && v) { b->n = atoi(v); i++; }
        else if (strcmp(a, "--trials") == 0 && v) { b->trials = atoi(v); i++; }
        else if (strcmp(a, "--warmup") == 0 && v) { b->warmup = atoi(v); i++; }
        else if (strcmp(a, "--methods") == 0 && v) { methods = v; i++; }
        else if (strcmp(a, "--prefix") == 0 && v) { b->prefix = v; i++; }
        else if (strcmp(a, "--quantum") == 0 && v) { quantum = atoi(v); i++; }
        else if (strcmp(a, "--hold-ms") == 0 && v) { b->hold_ms = atoi(v); i++; }
        else if (strcmp(a, "--seed") == 0 && v) { seed = (unsigned)atoi(v); i++; }
        else if (strcmp(a, "--sink-portconfig") == 0) b->sink_portconfig = true;
        else if (strcmp(a, "--stay") == 0) b->stay = true;
        else if (strcmp(a, "--toggle-pid") == 0 && v) { b->toggle_pid = atoi(v); i++; }
        else { fprintf(stderr, "hold-methods bench: unknown option %s\n", a); return 64; }
    }
    int method_count = 0;
    enum method list[M_COUNT];
    for (int m = 0; m < M_COUNT; m++) {
        const char *p = strstr(methods, method_names[m]);
        size_t l = strlen(method_names[m]);
        if (p && (p == methods || p[-1] == ',') && (p[l] == 0 || p[l] == ',')) { b->methods[m] = true; list[method_count++] = m; }
    }
    if (method_count == 0 || b->n < 1 || b->n > MAX_VICTIMS) { fprintf(stderr, "hold-methods bench: bad options\n"); return 64; }
    /* interleaved: every round runs each method once, in a fresh random order */
    srand(seed);
    b->trial_count = (b->trials + b->warmup) * method_count;
    b->results = calloc((size_t)b->trial_count, sizeof(struct trial));
    b->order = calloc((size_t)b->trial_count, sizeof(enum method));
    for (int r = 0; r < b->trials + b->warmup; r++) {
        enum method round[M_COUNT];
        memcpy(round, list, sizeof(round));
        for (int i = method_count - 1; i > 0; i--) {
            int j = rand() % (i + 1);
            enum method x = round[i]; round[i] = round[j]; round[j] = x;
        }
        for (int i = 0; i < method_count; i++) b->order[r * method_count + i] = round[i];
    }
    b->warmup *= method_count;

    b->nodes = calloc(MAX_IDS, sizeof(struct node));
    b->ports = calloc(MAX_IDS, sizeof(struct port));
    b->links = calloc(MAX_IDS, sizeof(struct link));
    b->main_loop = pw_main_loop_new(NULL);
    b->loop = pw_main_loop_get_loop(b->main_loop);
    b->context = pw_context_new(b->loop, NULL, 0);
    b->core = pw_context_connect(b->context, NULL, 0);
    b->core_obs = pw_context_connect(b->context, NULL, 0);
    if (b->core == NULL || b->core_obs == NULL) { fprintf(stderr, "hold-methods: cannot connect: %s\n", strerror(errno)); return 1; }
    struct quit_ctx q = { b->main_loop };
    pw_loop_add_signal(b->loop, SIGINT, on_quit_signal, &q);
    pw_loop_add_signal(b->loop, SIGTERM, on_quit_signal, &q);
    pw_core_add_listener(b->core, &b->core_listener, &core_events, b);
    b->timer = pw_loop_add_timer(b->loop, on_timer, b);
    b->ring_event = pw_loop_add_event(b->loop, on_ring, b);
    b->registry = pw_core_get_registry(b->core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(b->registry, &b->registry_listener, &registry_events, b);
    create_capture(b);
    b->phase = P_SETUP;
    b->setup_deadline = now_ns() + 30000000000ull;
    arm(b, now_ns() + 1000000000ull);
    pw_main_loop_run(b->main_loop);
    if (b->phase != P_DONE && b->phase != P_STAY && b->exit_code == 0) b->exit_code = 1;
    /* what is left at the end, for the log */
    int running;
    int ok = victims_with_links(b, &running);
    fprintf(stderr, "hold-methods: end: %d/%d victims with both links, %d running; victim node state changes:", ok,
            b->victim_count, running);
    int changes = 0;
    for (int i = 0; i < b->victim_count; i++) changes += b->nodes[b->victims[i]].state_changes;
    fprintf(stderr, " %d\n", changes);
    fprintf(stderr, "BETWEEN-TRIALS cycles %ld glitch %ld\n", b->base_cycles, b->base_glitch);
    pw_stream_destroy(b->cap);
    pw_core_disconnect(b->core_obs);
    pw_core_disconnect(b->core);
    pw_context_destroy(b->context);
    pw_main_loop_destroy(b->main_loop);
    return b->exit_code;
}

int main(int argc, char *argv[]) {
    /* SIGUSR1 is taken by the loop's signalfd (farm): blocked before any thread starts, so
     * that no data thread gets its default action */
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    pw_init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IOLBF, 0);
    const char *q = getenv("HOLD_QUANTUM");
    if (q) quantum = atoi(q);
    if (argc >= 5 && strcmp(argv[1], "farm") == 0) return run_farm(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "bench") == 0) return run_bench(argc - 2, argv + 2);
    fprintf(stderr, "usage: hold-methods farm PREFIX COUNT AMPLITUDE [...]\n"
                    "       hold-methods bench [--label S] [--n N] [--trials T] [--warmup W] [--methods m,...]\n"
                    "                          [--prefix P] [--quantum Q] [--hold-ms MS] [--sink-portconfig] [--seed S]\n");
    return 64;
}
