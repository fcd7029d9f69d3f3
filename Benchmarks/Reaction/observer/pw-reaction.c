/* pw-reaction: the PipeWire side of the side-by-side reaction benchmark.
 *
 * One small C program, three roles, so that every session manager (audiosessiond,
 * WirePlumber) is measured by the same client with the same clock:
 *
 *   pw-reaction farm  COUNT ROLE PREFIX [TARGETS]  COUNT playback streams on one connection
 *   pw-reaction churn RATE ALIVE ROLE PREFIX       keeps ALIVE streams, replaces RATE per second
 *   pw-reaction react SCENARIO TRIALS PREFIX COUNT [SETTLE_MS [HOLD_MS]]
 *                                                   the observer + trigger trial loop
 *   pw-reaction sync  TRIALS                        pw_core_sync round-trips (the floor)
 *
 * `react` opens two connections. The *observer* connection binds every node and watches the
 * registry, node state, links and Props; all timestamps are CLOCK_MONOTONIC taken when its
 * events are dispatched. The *trigger* connection creates the trigger stream (a
 * Communication or Notification pw_stream) and destroys it; it is never used to time
 * anything. Times are measured from the trigger node's `global` event (and for the restore,
 * its `global_remove`) as the observer sees them, to the victims' reaction:
 *
 *   interrupt  a_first / a_all: the first / every victim lost a link (cork = unlink, both
 *              in WirePlumber 0.4 and audiosessiond; node state flickers with graph changes)
 *              c_first / c_all: the first / every victim has all its links back
 *   reflex     an interrupt whose first victim the observer cuts off itself: on the trigger's
 *              `global` it destroys every link of one victim (what silences a stream) through
 *              its own registry, in that same callback, knowing already what to destroy
 *              (chosen before the trial). No
 *              policy peer can act sooner, so a_first is the floor of any out-of-process
 *              policy on this server and graph. The session manager reacts as in `interrupt`;
 *              the trigger stays until it has held every victim, and it gives every link back
 *              when the trigger goes (c_*).
 *   duck       b_first: the first Props change lowering a victim's effective gain (the
 *              victim's own volume times the node it plays into: WirePlumber 0.4 ducks the
 *              endpoint node's monitorVolumes, WirePlumber 0.5 the volume of the role loopback's
 *              playback node, the partner of the sink the victim plays into, audiosessiond the
 *              stream's soft volumes)
 *              (below 0.99: a 25-step ramp to 0.3 starts at 0.972; a write of ~1.0 is no step)
 *              audible: the trigger's first audible buffer queued (its first cycle heard);
 *              b_first - audible is the onset as a listener meets it
 *              b_full: every victim at or below the duck level (+5%)
 *              c_first / c_all: the first gain above the duck level + 0.01 / every victim
 *              back at 1.0
 *
 * One CSV line per trial on stdout; progress and problems on stderr. Nothing here decides
 * policy: it only observes. No fixed sleeps: every wait is an event or a deadline.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pipewire/pipewire.h>
#include "page-cache.h"
#include <spa/param/audio/format-utils.h>
#include <spa/param/props.h>
#include <spa/pod/iter.h>
#include <spa/utils/result.h>

#define MAX_IDS 65536
#define MAX_REFLEX_LINKS 16
#define RATE 48000
#define CHANNELS 2
#define LATENCY "2048/48000"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------ */
/* Playback streams, in the data thread: the farm's and the churn's play silence; the
 * trigger plays a quiet tone (-26 dBFS), because audiosessiond ducks for a notification only
 * once it is heard (a silent stream ducks nobody).                                      */

struct play_stream {
    struct pw_stream *stream;
    struct spa_hook listener;
    float amplitude;
    double phase;
    /* when the first audible buffer was queued (the graph plays it in this cycle or the next):
     * a duck can only follow what is heard, so its onset is also measured from here */
    _Atomic uint64_t first_audible_ns;
};

static void on_play_process(void *data) {
    struct play_stream *s = data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (b == NULL) return;
    struct spa_buffer *buf = b->buffer;
    if (buf->datas[0].data != NULL) {
        uint32_t stride = sizeof(float) * CHANNELS;
        uint32_t frames = buf->datas[0].maxsize / stride;
        if (b->requested && b->requested < frames) frames = b->requested;
        float *samples = buf->datas[0].data;
        for (uint32_t i = 0; i < frames; i++) {
            float value = s->amplitude == 0.0f ? 0.0f : s->amplitude * (float)sin(s->phase);
            s->phase += 2.0 * M_PI * 440.0 / RATE;
            if (s->phase > 2.0 * M_PI) s->phase -= 2.0 * M_PI;
            for (uint32_t c = 0; c < CHANNELS; c++) samples[i * CHANNELS + c] = value;
        }
        buf->datas[0].chunk->offset = 0;
        buf->datas[0].chunk->stride = stride;
        buf->datas[0].chunk->size = frames * stride;
        if (s->amplitude != 0.0f && atomic_load(&s->first_audible_ns) == 0) atomic_store(&s->first_audible_ns, now_ns());
    }
    pw_stream_queue_buffer(s->stream, b);
}

static const struct pw_stream_events play_events = {
    PW_VERSION_STREAM_EVENTS,
    .process = on_play_process,
};

static struct play_stream *play_stream_new(struct pw_core *core, const char *name, const char *role,
                                           const char *target, float amplitude) {
    struct play_stream *s = calloc(1, sizeof(*s));
    s->amplitude = amplitude;
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Playback", PW_KEY_MEDIA_ROLE, role,
        PW_KEY_NODE_NAME, name, PW_KEY_NODE_LATENCY, LATENCY, PW_KEY_APP_NAME, "pw-reaction", NULL);
    if (target != NULL) pw_properties_set(props, PW_KEY_TARGET_OBJECT, target);
    s->stream = pw_stream_new(core, name, props);
    if (s->stream == NULL) {
        fprintf(stderr, "pw-reaction: pw_stream_new failed: %s\n", strerror(errno));
        exit(1);
    }
    pw_stream_add_listener(s->stream, &s->listener, &play_events, s);
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    params[0] = spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat,
        &SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .channels = CHANNELS, .rate = RATE,
                                 .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR }));
    int res = pw_stream_connect(s->stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
        PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    if (res < 0) {
        fprintf(stderr, "pw-reaction: pw_stream_connect: %s\n", spa_strerror(res));
        exit(1);
    }
    return s;
}

static void play_stream_destroy(struct play_stream *s) {
    if (s == NULL) return;
    spa_hook_remove(&s->listener);
    pw_stream_destroy(s->stream);
    free(s);
}

/* ------------------------------------------------------------------------------------ */
/* Common connection.                                                                   */

struct app {
    struct pw_main_loop *loop;
    struct pw_context *context;
    struct pw_core *core;        /* observer / farm connection */
    struct pw_core *core_b;      /* trigger connection (react only) */
    struct spa_hook core_listener;
    int exit_code;
};

static void on_quit_signal(void *data, int signal_number) {
    struct app *app = data;
    (void)signal_number;
    pw_main_loop_quit(app->loop);
}

static void app_init(struct app *app) {
    app->loop = pw_main_loop_new(NULL);
    app->context = pw_context_new(pw_main_loop_get_loop(app->loop), NULL, 0);
    app->core = pw_context_connect(app->context, NULL, 0);
    if (app->core == NULL) {
        fprintf(stderr, "pw-reaction: cannot connect: %s\n", strerror(errno));
        exit(1);
    }
    pw_loop_add_signal(pw_main_loop_get_loop(app->loop), SIGINT, on_quit_signal, app);
    pw_loop_add_signal(pw_main_loop_get_loop(app->loop), SIGTERM, on_quit_signal, app);
}

/* ------------------------------------------------------------------------------------ */
/* farm                                                                                 */

/* TARGETS (optional, comma-separated sink names): stream i asks for target i mod n. PipeWire
 * 0.3.65 mixes at most 128 links into one input port, so 500 streams need several sinks. */
static int run_farm(int count, const char *role, const char *prefix, const char *targets) {
    struct app app = { 0 };
    app_init(&app);
    struct play_stream **streams = calloc((size_t)count, sizeof(*streams));
    char *target_list[16];
    int target_count = 0;
    char *copy = targets ? strdup(targets) : NULL;
    for (char *save = NULL, *t = copy ? strtok_r(copy, ",", &save) : NULL; t && target_count < 16;
         t = strtok_r(NULL, ",", &save))
        target_list[target_count++] = t;
    char name[256];
    for (int i = 0; i < count; i++) {
        snprintf(name, sizeof(name), "%s-%d", prefix, i);
        streams[i] = play_stream_new(app.core, name, role, target_count ? target_list[i % target_count] : NULL, 0.0f);
    }
    fprintf(stderr, "pw-reaction farm: %d %s streams\n", count, role);
    pw_main_loop_run(app.loop);
    for (int i = 0; i < count; i++) play_stream_destroy(streams[i]);
    free(streams);
    pw_core_disconnect(app.core);
    pw_context_destroy(app.context);
    pw_main_loop_destroy(app.loop);
    free(copy);
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* churn: a steady rate of streams created and destroyed                                */

struct churn {
    struct app app;
    struct play_stream **ring;
    int alive;
    int next;
    long created;
    const char *role;
    const char *prefix;
    struct spa_source *timer;
};

static void on_churn_tick(void *data, uint64_t expirations) {
    struct churn *c = data;
    (void)expirations;
    int slot = c->next % c->alive;
    play_stream_destroy(c->ring[slot]);
    char name[256];
    snprintf(name, sizeof(name), "%s-%ld", c->prefix, c->created++);
    c->ring[slot] = play_stream_new(c->app.core, name, c->role, NULL, 0.0f);
    c->next++;
}

static int run_churn(double rate, int alive, const char *role, const char *prefix) {
    struct churn c = { 0 };
    app_init(&c.app);
    c.alive = alive;
    c.role = role;
    c.prefix = prefix;
    c.ring = calloc((size_t)alive, sizeof(*c.ring));
    char name[256];
    for (int i = 0; i < alive; i++) {
        snprintf(name, sizeof(name), "%s-%ld", prefix, c.created++);
        c.ring[i] = play_stream_new(c.app.core, name, role, NULL, 0.0f);
    }
    struct pw_loop *loop = pw_main_loop_get_loop(c.app.loop);
    c.timer = pw_loop_add_timer(loop, on_churn_tick, &c);
    uint64_t period = (uint64_t)(1e9 / rate);
    struct timespec value = { (time_t)(period / 1000000000ull), (long)(period % 1000000000ull) };
    pw_loop_update_timer(loop, c.timer, &value, &value, false);
    fprintf(stderr, "pw-reaction churn: %d alive, %.1f/s\n", alive, rate);
    pw_main_loop_run(c.app.loop);
    fprintf(stdout, "churn_created,%ld\n", c.created);
    fflush(stdout);
    for (int i = 0; i < alive; i++) play_stream_destroy(c.ring[i]);
    pw_core_disconnect(c.app.core);
    pw_context_destroy(c.app.context);
    pw_main_loop_destroy(c.app.loop);
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* sync: pw_core_sync round-trips                                                       */

struct sync_probe {
    struct app app;
    int trials, done;
    int pending_seq;
    uint64_t started;
    uint64_t *samples;
};

static void sync_next(struct sync_probe *p) {
    p->started = now_ns();
    p->pending_seq = pw_core_sync(p->app.core, PW_ID_CORE, 0);
}

static void on_sync_done(void *data, uint32_t id, int seq) {
    struct sync_probe *p = data;
    if (id != PW_ID_CORE || seq != p->pending_seq) return;
    uint64_t t = now_ns();
    p->samples[p->done++] = t - p->started;
    if (p->done == p->trials) pw_main_loop_quit(p->app.loop);
    else sync_next(p);
}

static const struct pw_core_events sync_core_events = {
    PW_VERSION_CORE_EVENTS,
    .done = on_sync_done,
};

static int run_sync(int trials) {
    struct sync_probe p = { 0 };
    app_init(&p.app);
    p.trials = trials;
    p.samples = calloc((size_t)trials, sizeof(uint64_t));
    pw_core_add_listener(p.app.core, &p.app.core_listener, &sync_core_events, &p);
    sync_next(&p);
    pw_main_loop_run(p.app.loop);
    printf("trial,sync_us\n");
    for (int i = 0; i < p.done; i++) printf("%d,%.3f\n", i, p.samples[i] / 1000.0);
    fflush(stdout);
    return p.done == trials ? 0 : 1;
}

/* ------------------------------------------------------------------------------------ */
/* react: the observer and the trial loop                                               */

enum scenario { INTERRUPT, DUCK, REFLEX };
enum phase { WAIT_BASELINE, GAP, WAIT_TRIGGER, WAIT_EFFECT, WAIT_TRIGGER_GONE, WAIT_RESTORE, DONE };

struct node {
    bool present, victim, trigger;
    struct pw_proxy *proxy;
    struct spa_hook listener, proxy_listener;
    bool props_subscribed;
    enum pw_node_state state;
    float volume, channel_min, monitor_min, soft_min;
    uint32_t peer;          /* the node a victim plays into (its latest link's input node) */
    uint32_t partner;       /* a loopback sink's playback side (input.loopback.X -> output.loopback.X) */
    char name[96];
    int links_out;          /* links from this node */
    int baseline_links;
    uint64_t last_change;
};

struct link {
    bool present;
    uint32_t out_node, in_node;
};

struct react {
    struct app app;
    struct pw_registry *registry;
    struct spa_hook registry_listener;
    enum scenario scenario;
    const char *prefix;
    size_t prefix_len;
    int expected_victims;
    int trials, trial;
    uint64_t settle_ns;
    /* the trigger lives at least this long (WirePlumber 0.5 leaves a victim unlinked for good
     * when a trigger goes before its own role link is active) */
    uint64_t hold_ns;
    bool effect_done;
    enum phase phase;
    struct spa_source *timer;
    uint64_t deadline;
    struct node *nodes;
    struct link *links;
    uint32_t *victims;
    int victim_count;
    struct play_stream *trigger;
    char trigger_name[128];
    uint32_t trigger_id;
    /* REFLEX: the victim's links destroyed on the trigger's global */
    uint32_t reflex_links[MAX_REFLEX_LINKS];
    int reflex_link_count;
    uint64_t t0, t1;
    /* per-trial results, ns after t0 (effect) or t1 (restore); 0 = not yet */
    uint64_t a_first, a_all, b_first, b_full, c_first, c_all;
    /* the trigger's first audible cycle, ns after t0; 0 = none before it went */
    uint64_t audible;
    bool timed_out;
    int failures;
    float duck_level;
    int baseline_playing, baseline_seen;
    uint64_t baseline_progress, baseline_check;
};

/* The converter applies the soft volumes instead of the channel volumes once a session manager
 * wrote them (audiosessiond's ducks), until the channel volumes are written again; unwritten
 * soft volumes are 1.0, above any channel volume, so the smaller of the two is what plays. */
static float node_gain(const struct node *n) {
    float g = n->volume * (n->soft_min >= 0 ? fminf(n->channel_min, n->soft_min) : n->channel_min);
    if (n->monitor_min >= 0) g *= n->monitor_min;
    return g;
}

/* The gain a victim is heard at: its own, times the node it plays into (and, for a loopback
 * sink, times that loopback's playback side). */
static float effective_gain(struct react *r, uint32_t id) {
    struct node *v = &r->nodes[id];
    float g = node_gain(v);
    if (v->peer != SPA_ID_INVALID && r->nodes[v->peer].present) {
        struct node *peer = &r->nodes[v->peer];
        g *= node_gain(peer);
        if (peer->partner != SPA_ID_INVALID && r->nodes[peer->partner].present) g *= node_gain(&r->nodes[peer->partner]);
    }
    return g;
}

/* WirePlumber 0.5's role loopbacks: input.loopback.X (the sink streams play into) and
 * output.loopback.X (the stream it plays on, whose volume the role policy ducks). */
static void pair_loopback(struct react *r, uint32_t id) {
    struct node *n = &r->nodes[id];
    const char *other_prefix, *rest;
    if (strncmp(n->name, "input.loopback.", 15) == 0) { other_prefix = "output."; rest = n->name + 6; }
    else if (strncmp(n->name, "output.loopback.", 16) == 0) { other_prefix = "input."; rest = n->name + 7; }
    else return;
    char wanted[128];
    snprintf(wanted, sizeof(wanted), "%s%s", other_prefix, rest);
    for (uint32_t i = 0; i < MAX_IDS; i++) {
        if (!r->nodes[i].present || i == id || strcmp(r->nodes[i].name, wanted) != 0) continue;
        if (other_prefix[0] == 'o') n->partner = i; else r->nodes[i].partner = id;
        return;
    }
}

static bool victim_affected(struct react *r, uint32_t id) {
    struct node *v = &r->nodes[id];
    return v->links_out < v->baseline_links;
}

static bool every_victim_unlinked(struct react *r) {
    for (int i = 0; i < r->victim_count; i++)
        if (r->nodes[r->victims[i]].links_out > 0) return false;
    return true;
}

static bool victim_restored_links(struct react *r, uint32_t id) {
    struct node *v = &r->nodes[id];
    return v->links_out >= v->baseline_links;
}

static void arm_timer(struct react *r, uint64_t at_ns) {
    struct pw_loop *loop = pw_main_loop_get_loop(r->app.loop);
    uint64_t now = now_ns();
    uint64_t delta = at_ns > now ? at_ns - now : 1;
    struct timespec value = { (time_t)(delta / 1000000000ull), (long)(delta % 1000000000ull) };
    pw_loop_update_timer(loop, r->timer, &value, NULL, false);
}

static void advance(struct react *r);

static void print_row(struct react *r) {
    /* microseconds; empty when the reaction was not seen before the deadline */
    char cols[7][32];
    uint64_t vals[7] = { r->a_first, r->a_all, r->b_first, r->b_full, r->c_first, r->c_all, r->audible };
    for (int i = 0; i < 7; i++) {
        if (vals[i]) snprintf(cols[i], sizeof(cols[i]), "%.1f", vals[i] / 1000.0);
        else cols[i][0] = '\0';
    }
    printf("%d,%s,%s,%s,%s,%s,%s,%s,%d\n", r->trial, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6],
           r->timed_out ? 1 : 0);
    fflush(stdout);
}

static void start_gap(struct react *r) {
    r->phase = GAP;
    /* a settle time plus up to 10 ms of jitter, so trials do not lock to the graph cycle */
    uint64_t jitter = (uint64_t)(rand() % 10000) * 1000ull;
    r->deadline = now_ns() + r->settle_ns + jitter;
    arm_timer(r, r->deadline);
}

static void end_trial(struct react *r) {
    print_row(r);
    if (r->timed_out) r->failures++;
    r->trial++;
    if (r->trial >= r->trials || r->failures > 20) {
        r->phase = DONE;
        pw_main_loop_quit(r->app.loop);
        return;
    }
    start_gap(r);
}

static bool baseline_ready(struct react *r) {
    if (r->victim_count < r->expected_victims) return false;
    for (int i = 0; i < r->victim_count; i++) {
        struct node *v = &r->nodes[r->victims[i]];
        if (v->links_out < 1 || v->state != PW_NODE_STATE_RUNNING) return false;
        if (r->scenario == DUCK && (v->volume < 0 || effective_gain(r, r->victims[i]) < 0.999f)) return false;
    }
    return true;
}

static bool ready_for_trial(struct react *r) {
    if (r->trigger_id != SPA_ID_INVALID) return false;
    for (int i = 0; i < r->victim_count; i++) {
        uint32_t id = r->victims[i];
        struct node *v = &r->nodes[id];
        if (!v->present || v->links_out < v->baseline_links || v->state != PW_NODE_STATE_RUNNING) return false;
        if (r->scenario == DUCK && effective_gain(r, id) < 0.999f) return false;
    }
    return true;
}

/* REFLEX: every link of one victim (taken in turn), chosen before the trigger exists: a stream
 * is cut off only once all of its links are gone, and each destroy costs the server a hop to
 * its data thread, as it does a policy that silences the stream. */
static void choose_reflex_links(struct react *r) {
    r->reflex_link_count = 0;
    if (r->scenario != REFLEX) return;
    uint32_t victim = r->victims[r->trial % r->victim_count];
    for (uint32_t id = 0; id < MAX_IDS && r->reflex_link_count < MAX_REFLEX_LINKS; id++)
        if (r->links[id].present && r->links[id].out_node == victim) r->reflex_links[r->reflex_link_count++] = id;
}

static void begin_trial(struct react *r) {
    drop_page_cache_if_asked();
    r->a_first = r->a_all = r->b_first = r->b_full = r->c_first = r->c_all = r->audible = 0;
    choose_reflex_links(r);
    r->t0 = r->t1 = 0;
    r->timed_out = false;
    snprintf(r->trigger_name, sizeof(r->trigger_name), "bench-trigger-%d", r->trial);
    r->trigger = play_stream_new(r->app.core_b, r->trigger_name,
                                 r->scenario == DUCK ? "Notification" : "Communication", NULL, 0.05f);
    r->phase = WAIT_TRIGGER;
    r->deadline = now_ns() + 5000000000ull;
    arm_timer(r, r->deadline);
}

static void end_trigger(struct react *r) {
    uint64_t until = r->t0 + r->hold_ns;
    if (r->hold_ns && now_ns() < until) {
        /* the effect is measured; the trigger stays until its minimum lifetime */
        r->effect_done = true;
        r->deadline = until;
        arm_timer(r, until);
        return;
    }
    r->effect_done = false;
    uint64_t audible = atomic_load(&r->trigger->first_audible_ns);
    if (audible > r->t0 && r->t0) r->audible = audible - r->t0;
    play_stream_destroy(r->trigger);
    r->trigger = NULL;
    r->phase = WAIT_TRIGGER_GONE;
    r->deadline = now_ns() + 5000000000ull;
    arm_timer(r, r->deadline);
}

/* Evaluate the trial after any observed change. */
static void advance(struct react *r) {
    uint64_t t = now_ns();
    switch (r->phase) {
    case WAIT_BASELINE:
        if (!baseline_ready(r)) {
            /* give up at the deadline, or after 20 s without one more victim linked and running
             * (WirePlumber's endpoints stop at 128 links per port) */
            int playing = 0;
            for (int i = 0; i < r->victim_count; i++)
                if (r->nodes[r->victims[i]].links_out > 0 && r->nodes[r->victims[i]].state == PW_NODE_STATE_RUNNING) playing++;
            if (playing != r->baseline_playing || r->victim_count != r->baseline_seen) {
                r->baseline_playing = playing;
                r->baseline_seen = r->victim_count;
                r->baseline_progress = t;
            }
            if (t >= r->deadline || t >= r->baseline_progress + 20000000000ull)
                pw_main_loop_quit(r->app.loop); /* reported by run_react */
            else if (t >= r->baseline_check) {
                r->baseline_check = t + 1000000000ull;
                arm_timer(r, r->baseline_check);
            }
        } else {
            for (int i = 0; i < r->victim_count; i++) {
                struct node *v = &r->nodes[r->victims[i]];
                v->baseline_links = v->links_out;
            }
            fprintf(stderr, "pw-reaction react: %d victims linked and running\n", r->victim_count);
            if (r->trials == 0) { r->phase = DONE; pw_main_loop_quit(r->app.loop); break; }
            start_gap(r);
        }
        break;
    case GAP:
        if (t >= r->deadline && ready_for_trial(r)) begin_trial(r);
        else if (t >= r->deadline) {
            /* the previous trial has not fully restored: wait for it, bounded */
            if (t >= r->deadline + 5000000000ull) {
                fprintf(stderr, "pw-reaction react: victims not restored before trial %d\n", r->trial);
                r->phase = DONE;
                r->app.exit_code = 2;
                pw_main_loop_quit(r->app.loop);
            } else arm_timer(r, t + 50000000ull);
        }
        break;
    case WAIT_TRIGGER:
        if (t >= r->deadline) {
            fprintf(stderr, "pw-reaction react: trigger node never appeared\n");
            r->timed_out = true;
            end_trigger(r);
        }
        break;
    case WAIT_EFFECT: {
        if (r->effect_done) {
            if (t >= r->deadline) end_trigger(r);
            break;
        }
        int affected = 0, at_level = 0;
        for (int i = 0; i < r->victim_count; i++) {
            uint32_t id = r->victims[i];
            if (r->scenario != DUCK) {
                if (victim_affected(r, id)) affected++;
            } else {
                float g = effective_gain(r, id);
                if (g < 0.99f) affected++;
                if (g <= r->duck_level * 1.05f) at_level++;
            }
        }
        if (r->scenario != DUCK) {
            if (affected > 0 && !r->a_first) r->a_first = t - r->t0;
            if (affected == r->victim_count && !r->a_all) r->a_all = t - r->t0;
            /* REFLEX: the trigger stays until the session manager has held every victim (no
             * link left), so that it gives every link back when the trigger goes: with one
             * victim, the observer's own cut would end the trial before the manager saw the
             * call, and a link someone else removed from a stream it does not hold stays
             * removed */
            bool held = r->scenario != REFLEX || every_victim_unlinked(r);
            if (r->a_all && held) { end_trigger(r); break; }
        } else {
            if (affected > 0 && !r->b_first) r->b_first = t - r->t0;
            if (at_level == r->victim_count && !r->b_full) r->b_full = t - r->t0;
            if (r->b_full) { end_trigger(r); break; }
        }
        if (t >= r->deadline) { r->timed_out = true; end_trigger(r); }
        break;
    }
    case WAIT_TRIGGER_GONE:
        if (t >= r->deadline) {
            fprintf(stderr, "pw-reaction react: trigger node never went away\n");
            r->timed_out = true;
            r->phase = DONE;
            r->app.exit_code = 2;
            pw_main_loop_quit(r->app.loop);
        }
        break;
    case WAIT_RESTORE: {
        int first = 0, all = 0;
        for (int i = 0; i < r->victim_count; i++) {
            uint32_t id = r->victims[i];
            if (r->scenario != DUCK) {
                struct node *v = &r->nodes[id];
                if (v->links_out > 0) first++;
                if (victim_restored_links(r, id)) all++;
            } else {
                float g = effective_gain(r, id);
                if (g > r->duck_level + 0.01f) first++;
                if (g >= 0.999f) all++;
            }
        }
        if (first > 0 && !r->c_first) r->c_first = t - r->t1;
        if (all == r->victim_count && !r->c_all) r->c_all = t - r->t1;
        if (r->c_all) { end_trial(r); break; }
        if (t >= r->deadline) { r->timed_out = true; end_trial(r); }
        break;
    }
    case DONE:
        break;
    }
}

static void on_timer(void *data, uint64_t expirations) {
    (void)expirations;
    advance(data);
}

/* --- node proxies ------------------------------------------------------------------- */

static void parse_props(struct node *n, const struct spa_pod *param) {
    if (param == NULL || !spa_pod_is_object_type(param, SPA_TYPE_OBJECT_Props)) return;
    const struct spa_pod_object *obj = (const struct spa_pod_object *)param;
    const struct spa_pod_prop *prop;
    SPA_POD_OBJECT_FOREACH(obj, prop) {
        switch (prop->key) {
        case SPA_PROP_volume: {
            float f;
            if (spa_pod_get_float(&prop->value, &f) == 0) n->volume = f;
            break;
        }
        case SPA_PROP_channelVolumes:
        case SPA_PROP_softVolumes:
        case SPA_PROP_monitorVolumes: {
            float values[SPA_AUDIO_MAX_CHANNELS];
            uint32_t count = spa_pod_copy_array(&prop->value, SPA_TYPE_Float, values, SPA_AUDIO_MAX_CHANNELS);
            if (count == 0) break;
            float min = values[0];
            for (uint32_t i = 1; i < count; i++) min = fminf(min, values[i]);
            if (prop->key == SPA_PROP_channelVolumes) n->channel_min = min;
            else if (prop->key == SPA_PROP_softVolumes) n->soft_min = min;
            else n->monitor_min = min;
            break;
        }
        default:
            break;
        }
    }
}

struct node_ref { struct react *r; uint32_t id; };

static void on_node_info(void *data, const struct pw_node_info *info) {
    struct node_ref *ref = data;
    struct react *r = ref->r;
    struct node *n = &r->nodes[ref->id];
    if (info->change_mask & PW_NODE_CHANGE_MASK_STATE) n->state = info->state;
    if ((info->change_mask & PW_NODE_CHANGE_MASK_PARAMS) && !n->props_subscribed) {
        for (uint32_t i = 0; i < info->n_params; i++) {
            if (info->params[i].id == SPA_PARAM_Props && (info->params[i].flags & SPA_PARAM_INFO_READ)) {
                uint32_t ids[1] = { SPA_PARAM_Props };
                pw_node_subscribe_params((struct pw_node *)n->proxy, ids, 1);
                n->props_subscribed = true;
            }
        }
    }
    advance(r);
}

static void on_node_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param) {
    struct node_ref *ref = data;
    (void)seq; (void)index; (void)next;
    if (id != SPA_PARAM_Props) return;
    parse_props(&ref->r->nodes[ref->id], param);
    advance(ref->r);
}

static const struct pw_node_events node_events = {
    PW_VERSION_NODE_EVENTS,
    .info = on_node_info,
    .param = on_node_param,
};

static void on_node_proxy_removed(void *data) {
    struct node_ref *ref = data;
    pw_proxy_destroy(ref->r->nodes[ref->id].proxy);
}

static void on_node_proxy_destroy(void *data) {
    struct node_ref *ref = data;
    struct node *n = &ref->r->nodes[ref->id];
    spa_hook_remove(&n->listener);
    spa_hook_remove(&n->proxy_listener);
    n->proxy = NULL;
}

static const struct pw_proxy_events node_proxy_events = {
    PW_VERSION_PROXY_EVENTS,
    .removed = on_node_proxy_removed,
    .destroy = on_node_proxy_destroy,
};

/* --- registry ----------------------------------------------------------------------- */

static uint32_t prop_u32(const struct spa_dict *props, const char *key) {
    const char *s = props ? spa_dict_lookup(props, key) : NULL;
    return s ? (uint32_t)strtoul(s, NULL, 10) : SPA_ID_INVALID;
}

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props) {
    struct react *r = data;
    uint64_t t = now_ns();
    (void)permissions;
    if (id >= MAX_IDS) return;
    if (strcmp(type, PW_TYPE_INTERFACE_Node) == 0) {
        struct node *n = &r->nodes[id];
        memset(n, 0, sizeof(*n));
        n->present = true;
        n->volume = 1.0f;
        n->channel_min = 1.0f;
        n->monitor_min = -1.0f;
        n->soft_min = -1.0f;
        n->peer = SPA_ID_INVALID;
        n->partner = SPA_ID_INVALID;
        n->state = PW_NODE_STATE_CREATING;
        const char *name = props ? spa_dict_lookup(props, PW_KEY_NODE_NAME) : NULL;
        if (name) {
            snprintf(n->name, sizeof(n->name), "%s", name);
            pair_loopback(r, id);
        }
        if (name && strncmp(name, r->prefix, r->prefix_len) == 0 && name[r->prefix_len] == '-') {
            n->victim = true;
            r->victims[r->victim_count++] = id;
        }
        if (name && r->trigger && strcmp(name, r->trigger_name) == 0) {
            n->trigger = true;
            r->trigger_id = id;
            if (r->phase == WAIT_TRIGGER) {
                for (int i = 0; i < r->reflex_link_count; i++)
                    if (r->links[r->reflex_links[i]].present) pw_registry_destroy(r->registry, r->reflex_links[i]);
                r->t0 = t;
                r->phase = WAIT_EFFECT;
                r->deadline = t + 3000000000ull;
                arm_timer(r, r->deadline);
            }
        }
        n->proxy = pw_registry_bind(r->registry, id, type, PW_VERSION_NODE, sizeof(struct node_ref));
        struct node_ref *ref = pw_proxy_get_user_data(n->proxy);
        ref->r = r;
        ref->id = id;
        pw_proxy_add_object_listener(n->proxy, &n->listener, &node_events, ref);
        pw_proxy_add_listener(n->proxy, &n->proxy_listener, &node_proxy_events, ref);
    } else if (strcmp(type, PW_TYPE_INTERFACE_Link) == 0) {
        uint32_t out = prop_u32(props, PW_KEY_LINK_OUTPUT_NODE), in = prop_u32(props, PW_KEY_LINK_INPUT_NODE);
        if (out >= MAX_IDS || in >= MAX_IDS) return;
        r->links[id] = (struct link){ .present = true, .out_node = out, .in_node = in };
        r->nodes[out].links_out++;
        r->nodes[out].peer = in;
        advance(r);
    }
    (void)version;
}

static void on_global_remove(void *data, uint32_t id) {
    struct react *r = data;
    uint64_t t = now_ns();
    if (id >= MAX_IDS) return;
    if (r->links[id].present) {
        struct link *l = &r->links[id];
        l->present = false;
        if (r->nodes[l->out_node].links_out > 0) r->nodes[l->out_node].links_out--;
        advance(r);
        return;
    }
    struct node *n = &r->nodes[id];
    if (!n->present) return;
    n->present = false;
    if (n->victim) {
        for (int i = 0; i < r->victim_count; i++)
            if (r->victims[i] == id) { r->victims[i] = r->victims[--r->victim_count]; break; }
        fprintf(stderr, "pw-reaction react: a victim went away\n");
    }
    if (id == r->trigger_id) {
        r->trigger_id = SPA_ID_INVALID;
        if (r->phase == WAIT_TRIGGER_GONE) {
            r->t1 = t;
            r->phase = WAIT_RESTORE;
            r->deadline = t + 3000000000ull;
            arm_timer(r, r->deadline);
        }
    }
    advance(r);
}

static const struct pw_registry_events registry_events = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = on_global,
    .global_remove = on_global_remove,
};

static int run_react(enum scenario scenario, int trials, const char *prefix, int expected, int settle_ms, int hold_ms) {
    struct react *r = calloc(1, sizeof(*r));
    app_init(&r->app);
    r->app.core_b = pw_context_connect(r->app.context, NULL, 0);
    if (r->app.core_b == NULL) {
        fprintf(stderr, "pw-reaction: cannot connect the trigger: %s\n", strerror(errno));
        return 1;
    }
    r->scenario = scenario;
    r->trials = trials;
    r->prefix = prefix;
    r->prefix_len = strlen(prefix);
    r->expected_victims = expected;
    r->settle_ns = (uint64_t)settle_ms * 1000000ull;
    r->hold_ns = (uint64_t)hold_ms * 1000000ull;
    r->duck_level = 0.3f;
    r->trigger_id = SPA_ID_INVALID;
    r->reflex_link_count = 0;
    r->nodes = calloc(MAX_IDS, sizeof(struct node));
    r->links = calloc(MAX_IDS, sizeof(struct link));
    r->victims = calloc(MAX_IDS, sizeof(uint32_t));
    r->phase = WAIT_BASELINE;
    struct pw_loop *loop = pw_main_loop_get_loop(r->app.loop);
    r->timer = pw_loop_add_timer(loop, on_timer, r);
    r->registry = pw_core_get_registry(r->app.core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(r->registry, &r->registry_listener, &registry_events, r);
    printf("trial,a_first_us,a_all_us,b_first_us,b_full_us,c_first_us,c_all_us,audible_us,timeout\n");
    fflush(stdout);
    /* the baseline must come within BENCH_BASELINE_SECONDS (default 60) */
    const char *baseline = getenv("BENCH_BASELINE_SECONDS");
    r->deadline = now_ns() + (uint64_t)((baseline ? atof(baseline) : 60.0) * 1e9);
    r->baseline_progress = now_ns();
    r->baseline_check = r->baseline_progress + 1000000000ull;
    arm_timer(r, r->baseline_check);
    pw_main_loop_run(r->app.loop);
    if (r->phase == WAIT_BASELINE) {
        int linked = 0, running = 0;
        for (int i = 0; i < r->victim_count; i++) {
            if (r->nodes[r->victims[i]].links_out > 0) linked++;
            if (r->nodes[r->victims[i]].state == PW_NODE_STATE_RUNNING) running++;
        }
        fprintf(stderr, "pw-reaction react: of %d victims expected, %d exist, %d linked, %d running\n", expected,
                r->victim_count, linked, running);
        r->app.exit_code = 3;
    }
    play_stream_destroy(r->trigger);
    return r->app.exit_code;
}

/* ------------------------------------------------------------------------------------ */

static void usage(void) {
    fprintf(stderr,
            "usage: pw-reaction farm COUNT ROLE PREFIX [SINK,SINK...]\n"
            "       pw-reaction churn RATE ALIVE ROLE PREFIX\n"
            "       pw-reaction react interrupt|duck|reflex TRIALS PREFIX COUNT [SETTLE_MS [HOLD_MS]]\n"
            "       pw-reaction sync TRIALS\n");
    exit(64);
}

int main(int argc, char *argv[]) {
    pw_init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    srand((unsigned)now_ns());
    if (argc < 2) usage();
    const char *command = argv[1];
    if (strcmp(command, "farm") == 0 && (argc == 5 || argc == 6))
        return run_farm(atoi(argv[2]), argv[3], argv[4], argc == 6 ? argv[5] : NULL);
    if (strcmp(command, "churn") == 0 && argc == 6) return run_churn(atof(argv[2]), atoi(argv[3]), argv[4], argv[5]);
    if (strcmp(command, "sync") == 0 && argc == 3) return run_sync(atoi(argv[2]));
    if (strcmp(command, "react") == 0 && argc >= 6 && argc <= 8) {
        enum scenario s;
        if (strcmp(argv[2], "interrupt") == 0) s = INTERRUPT;
        else if (strcmp(argv[2], "duck") == 0) s = DUCK;
        else if (strcmp(argv[2], "reflex") == 0) s = REFLEX;
        else usage();
        return run_react(s, atoi(argv[3]), argv[4], atoi(argv[5]), argc >= 7 ? atoi(argv[6]) : 30,
                         argc == 8 ? atoi(argv[7]) : 0);
    }
    usage();
    return 64;
}
