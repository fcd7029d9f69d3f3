/* pa-reaction: the PulseAudio side of the side-by-side reaction benchmark.
 *
 *   pa-reaction farm  COUNT ROLE PREFIX SINKS   COUNT playback streams (media.role ROLE) on one
 *                                               context, spread over SINKS null sinks named
 *                                               speaker, speaker-1, ... (a sink takes 256 inputs)
 *   pa-reaction react interrupt TRIALS PREFIX COUNT [SETTLE_MS]
 *   pa-reaction react duck TRIALS PREFIX COUNT [SETTLE_MS]
 *
 * `react` opens two contexts. The *observer* context subscribes to sink-input events and
 * stamps each with CLOCK_MONOTONIC as it is dispatched; the *trigger* context plays a
 * `media.role=phone` stream and removes it. Measured like pw-reaction, from the trigger's
 * sink-input `new` event (restore: its `remove` event):
 *
 *   a_first / a_all   the first / every victim silenced: muted (module-role-cork mutes the
 *                     corked stream and sends it PA_STREAM_EVENT_REQUEST_CORK; the farm does
 *                     not act on the request, so only the server's own reaction is timed) or
 *                     moved off the sink it played on (audiosessiond --backend pulseaudio
 *                     parks a held stream on a suspended sink of its own)
 *   c_first / c_all   the first / every victim playing again (unmuted, back on its sink)
 *                     after the trigger is gone
 *
 * The farm's streams play silence; the trigger plays a quiet tone (-26 dBFS), as pw-reaction's
 * does: audiosessiond meters a notification and ducks for it only once it is heard.
 *
 * `duck` plays a `media.role=event` trigger and times, like pw-reaction's duck:
 *
 *   b_first / b_full  the first victim's volume below where it was / every victim at the duck
 *                     level (0.3 of its volume on the linear scale, the shipped level)
 *   c_first / c_all   the first victim's volume up again / every victim back where it was
 *
 * module-role-ducking cannot be timed so: it changes a sink input's volume *factor*
 * (pa_sink_input_add_volume_factor), which posts no subscription event and is not part of
 * pa_sink_input_info, so no client can observe when it happens. What a client's ducking does
 * (audiosessiond --backend pulseaudio steps the sink input's own volume) is visible.
 *
 * Output: the same CSV columns as pw-reaction (b_* stay empty).
 */
#include <math.h>
#include "page-cache.h"
#include <pulse/pulseaudio.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_INDEX 65536

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pa_mainloop *mainloop;
static pa_mainloop_api *api;
static const pa_sample_spec spec = { .format = PA_SAMPLE_FLOAT32LE, .rate = 48000, .channels = 2 };

static void quit_on_signal(pa_mainloop_api *a, pa_signal_event *e, int sig, void *userdata) {
    (void)e; (void)sig; (void)userdata;
    a->quit(a, 0);
}

/* NOFAIL: with many farms starting at once the server's listen backlog can refuse a
 * connection; libpulse then retries instead of failing. A refusal it reports at once (the
 * backlog was full when connect() ran) is retried here, for up to two seconds. */
static pa_context *connect_context(const char *name, pa_context_notify_cb_t on_state, void *userdata) {
    for (int attempt = 0;; attempt++) {
        pa_proplist *props = pa_proplist_new();
        pa_proplist_sets(props, PA_PROP_APPLICATION_NAME, "pa-reaction");
        pa_context *c = pa_context_new_with_proplist(api, name, props);
        pa_proplist_free(props);
        /* the callback only after a successful start: a refused attempt must not report
         * FAILED to it (the farm and the observer quit on FAILED) */
        if (pa_context_connect(c, NULL, PA_CONTEXT_NOFAIL, NULL) >= 0) {
            pa_context_set_state_callback(c, on_state, userdata);
            return c;
        }
        int error = pa_context_errno(c);
        pa_context_unref(c);
        if (attempt >= 100) {
            fprintf(stderr, "pa-reaction: connect: %s\n", pa_strerror(error));
            exit(1);
        }
        usleep(20000);
    }
}

/* --- playback streams: silence, or the trigger's tone ------------------------------ */

/* A 440 Hz tone at -26 dBFS; its phase carries over from one write to the next. */
struct tone {
    double phase;
};

static void on_write(pa_stream *s, size_t nbytes, void *userdata) {
    struct tone *tone = userdata;
    void *data;
    size_t n = nbytes;
    if (pa_stream_begin_write(s, &data, &n) < 0 || data == NULL) return;
    if (tone == NULL) {
        memset(data, 0, n);
    } else {
        float *samples = data;
        size_t frames = n / (sizeof(float) * 2);
        for (size_t i = 0; i < frames; i++) {
            float value = 0.05f * (float)sin(tone->phase);
            tone->phase += 2.0 * M_PI * 440.0 / 48000.0;
            if (tone->phase > 2.0 * M_PI) tone->phase -= 2.0 * M_PI;
            samples[2 * i] = samples[2 * i + 1] = value;
        }
    }
    pa_stream_write(s, data, n, NULL, 0, PA_SEEK_RELATIVE);
}

static struct tone trigger_tone;

static pa_stream *play_stream_new(pa_context *c, const char *name, const char *role, const char *sink, struct tone *tone) {
    pa_proplist *props = pa_proplist_new();
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, role);
    pa_stream *s = pa_stream_new_with_proplist(c, name, &spec, NULL, props);
    pa_proplist_free(props);
    pa_stream_set_write_callback(s, on_write, tone);
    /* about the PipeWire side's quantum (2048 frames at 48 kHz) of buffering */
    pa_buffer_attr attr = { .maxlength = (uint32_t)-1, .tlength = 2048 * 8 * 2, .prebuf = (uint32_t)-1,
                            .minreq = 2048 * 8, .fragsize = (uint32_t)-1 };
    if (pa_stream_connect_playback(s, sink, &attr, PA_STREAM_ADJUST_LATENCY, NULL, NULL) < 0) {
        fprintf(stderr, "pa-reaction: connect_playback: %s\n", pa_strerror(pa_context_errno(c)));
        exit(1);
    }
    return s;
}

/* --- farm ---------------------------------------------------------------------------- */

struct farm { int count, sinks; const char *role, *prefix; bool started; };

static void on_farm_state(pa_context *c, void *userdata) {
    struct farm *f = userdata;
    pa_context_state_t state = pa_context_get_state(c);
    if (state == PA_CONTEXT_READY && !f->started) {
        f->started = true;
        char name[256], sink[64];
        for (int i = 0; i < f->count; i++) {
            snprintf(name, sizeof(name), "%s-%d", f->prefix, i);
            int k = i % f->sinks;
            if (k == 0) snprintf(sink, sizeof(sink), "speaker");
            else snprintf(sink, sizeof(sink), "speaker-%d", k);
            play_stream_new(c, name, f->role, sink, NULL);
        }
        fprintf(stderr, "pa-reaction farm: %d %s streams\n", f->count, f->role);
    } else if (state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED) {
        api->quit(api, 1);
    }
}

static int run_farm(int count, const char *role, const char *prefix, int sinks) {
    struct farm f = { count, sinks < 1 ? 1 : sinks, role, prefix, false };
    connect_context("pa-reaction farm", on_farm_state, &f);
    int ret = 0;
    pa_mainloop_run(mainloop, &ret);
    return ret;
}

/* --- react --------------------------------------------------------------------------- */

enum phase { WAIT_BASELINE, GAP, WAIT_TRIGGER, WAIT_EFFECT, WAIT_TRIGGER_GONE, WAIT_RESTORE, DONE };

struct input {
    bool present, victim, trigger, known, muted;
    /* the sink it played on when first seen: off it, it is held */
    bool home_known;
    uint32_t home_sink;
    /* its loudest channel now, and as first seen (duck) */
    pa_volume_t volume, baseline;
    /* its lowest volume in this trial (duck: a step up after it is the restore starting) */
    pa_volume_t lowest;
    bool known_volume;
    uint64_t pending_since; /* earliest event not yet answered by an info reply */
};

struct react {
    pa_context *observer, *trigger_context;
    bool observer_ready, trigger_ready;
    const char *prefix;
    size_t prefix_len;
    int expected, trials, trial, failures, exit_code;
    uint64_t settle_ns, deadline, t0, t1;
    int64_t a_first, a_all, c_first, c_all; /* ns; 0 = not seen */
    bool a_first_seen, a_all_seen, c_first_seen, c_all_seen;
    /* `duck`: a_* hold the duck's b_first / b_full, printed in those columns */
    bool duck;
    bool timed_out;
    enum phase phase;
    struct input inputs[MAX_INDEX];
    pa_stream *trigger;
    char trigger_name[128];
    uint32_t trigger_index;
    pa_time_event *timer;
};

static struct react R;

static void arm_timer(uint64_t at_ns) {
    uint64_t now = now_ns();
    uint64_t delta = at_ns > now ? at_ns - now : 1;
    struct timeval tv;
    pa_gettimeofday(&tv);
    pa_timeval_add(&tv, delta / 1000);
    api->time_restart(R.timer, &tv);
}

static void print_row(void) {
    /* Signed: module-role-cork acts inside the server's own hook, so its change can be
     * announced in the same burst as (even just before) the trigger's new/remove event. */
    char cols[4][32];
    int64_t vals[4] = { R.a_first, R.a_all, R.c_first, R.c_all };
    bool seen[4] = { R.a_first_seen, R.a_all_seen, R.c_first_seen, R.c_all_seen };
    for (int i = 0; i < 4; i++) {
        if (seen[i]) snprintf(cols[i], sizeof(cols[i]), "%.1f", vals[i] / 1000.0);
        else cols[i][0] = '\0';
    }
    if (R.duck)
        printf("%d,,,%s,%s,%s,%s,%d\n", R.trial, cols[0], cols[1], cols[2], cols[3], R.timed_out ? 1 : 0);
    else
        printf("%d,%s,%s,,,%s,%s,%d\n", R.trial, cols[0], cols[1], cols[2], cols[3], R.timed_out ? 1 : 0);
    fflush(stdout);
}

/* Interrupt: silenced (muted or moved off its sink). Duck: not at the volume it had. */
static bool affected(const struct input *in) {
    return R.duck ? in->volume != in->baseline : in->muted;
}

static int victims_where(bool muted) {
    int n = 0;
    for (int i = 0; i < MAX_INDEX; i++)
        if (R.inputs[i].present && R.inputs[i].victim && R.inputs[i].known && affected(&R.inputs[i]) == muted) n++;
    return n;
}

/* Duck: at (or below) 0.3 of its volume on the linear scale. */
static bool at_duck_level(const struct input *in) {
    pa_volume_t level = pa_sw_volume_from_linear(0.3 * pa_sw_volume_to_linear(in->baseline));
    return in->volume <= level + 1;
}

static int victims_at_duck_level(void) {
    int n = 0;
    for (int i = 0; i < MAX_INDEX; i++)
        if (R.inputs[i].present && R.inputs[i].victim && R.inputs[i].known && at_duck_level(&R.inputs[i])) n++;
    return n;
}

static int victims_stepping_up(void) {
    int n = 0;
    for (int i = 0; i < MAX_INDEX; i++)
        if (R.inputs[i].present && R.inputs[i].victim && R.inputs[i].known && R.inputs[i].volume > R.inputs[i].lowest) n++;
    return n;
}

static int victim_count(void) {
    int n = 0;
    for (int i = 0; i < MAX_INDEX; i++)
        if (R.inputs[i].present && R.inputs[i].victim && R.inputs[i].known) n++;
    return n;
}

static void start_gap(void) {
    R.phase = GAP;
    R.deadline = now_ns() + R.settle_ns + (uint64_t)(rand() % 10000) * 1000ull;
    arm_timer(R.deadline);
}

static void end_trial(void) {
    print_row();
    if (R.timed_out) R.failures++;
    R.trial++;
    if (R.trial >= R.trials || R.failures > 20) {
        R.phase = DONE;
        api->quit(api, 0);
        return;
    }
    start_gap();
}

static void begin_trial(void) {
    drop_page_cache_if_asked();
    R.a_first = R.a_all = R.c_first = R.c_all = 0;
    R.a_first_seen = R.a_all_seen = R.c_first_seen = R.c_all_seen = false;
    R.timed_out = false;
    snprintf(R.trigger_name, sizeof(R.trigger_name), "bench-trigger-%d", R.trial);
    for (int i = 0; i < MAX_INDEX; i++) R.inputs[i].lowest = R.inputs[i].volume;
    R.trigger = play_stream_new(R.trigger_context, R.trigger_name, R.duck ? "event" : "phone", NULL, &trigger_tone);
    R.phase = WAIT_TRIGGER;
    R.deadline = now_ns() + 5000000000ull;
    arm_timer(R.deadline);
}

static void end_trigger(void) {
    pa_stream_disconnect(R.trigger);
    pa_stream_unref(R.trigger);
    R.trigger = NULL;
    R.phase = WAIT_TRIGGER_GONE;
    R.deadline = now_ns() + 5000000000ull;
    arm_timer(R.deadline);
}

/* Evaluate after every answered event; `t` is when the change was first announced. */
static void advance(uint64_t t) {
    uint64_t now = now_ns();
    int count = victim_count();
    switch (R.phase) {
    case WAIT_BASELINE:
        if (now >= R.deadline && !(count >= R.expected && victims_where(true) == 0)) {
            api->quit(api, 3); /* reported by run_react */
        } else if (R.observer_ready && R.trigger_ready && count >= R.expected && victims_where(true) == 0) {
            fprintf(stderr, "pa-reaction react: %d victims playing\n", count);
            if (R.trials == 0) { R.phase = DONE; api->quit(api, 0); break; }
            start_gap();
        }
        break;
    case GAP:
        if (now >= R.deadline) {
            if (victims_where(true) == 0 && R.trigger_index == PA_INVALID_INDEX) begin_trial();
            else if (now >= R.deadline + 5000000000ull) {
                fprintf(stderr, "pa-reaction react: victims not restored before trial %d\n", R.trial);
                R.exit_code = 2;
                R.phase = DONE;
                api->quit(api, 2);
            } else arm_timer(now + 50000000ull);
        }
        break;
    case WAIT_TRIGGER:
        if (now >= R.deadline) { R.timed_out = true; end_trigger(); }
        break;
    case WAIT_EFFECT: {
        int muted = victims_where(true);
        int full = R.duck ? victims_at_duck_level() : muted;
        if (muted > 0 && !R.a_first_seen) { R.a_first = (int64_t)(t - R.t0); R.a_first_seen = true; }
        if (full == count && !R.a_all_seen) { R.a_all = (int64_t)(t - R.t0); R.a_all_seen = true; }
        if (R.a_all_seen) end_trigger();
        else if (now >= R.deadline) { R.timed_out = true; end_trigger(); }
        break;
    }
    case WAIT_TRIGGER_GONE:
        if (now >= R.deadline) {
            fprintf(stderr, "pa-reaction react: trigger never went away\n");
            R.exit_code = 2;
            R.phase = DONE;
            api->quit(api, 2);
        }
        break;
    case WAIT_RESTORE: {
        int playing = victims_where(false);
        int first = R.duck ? victims_stepping_up() : playing;
        if (first > 0 && !R.c_first_seen) { R.c_first = (int64_t)(t - R.t1); R.c_first_seen = true; }
        if (playing == count && !R.c_all_seen) { R.c_all = (int64_t)(t - R.t1); R.c_all_seen = true; }
        if (R.c_all_seen) end_trial();
        else if (now >= R.deadline) { R.timed_out = true; end_trial(); }
        break;
    }
    case DONE:
        break;
    }
}

static void on_timer(pa_mainloop_api *a, pa_time_event *e, const struct timeval *tv, void *userdata) {
    (void)a; (void)e; (void)tv; (void)userdata;
    advance(now_ns());
}

static void on_input_info(pa_context *c, const pa_sink_input_info *info, int eol, void *userdata) {
    (void)c; (void)userdata;
    if (eol || info == NULL || info->index >= MAX_INDEX) return;
    struct input *in = &R.inputs[info->index];
    uint64_t t = in->pending_since ? in->pending_since : now_ns();
    in->pending_since = 0;
    if (!in->present) return; /* removed meanwhile */
    in->known = true;
    if (!in->home_known) {
        in->home_sink = info->sink;
        in->home_known = true;
    }
    in->muted = info->mute != 0 || info->sink != in->home_sink;
    in->volume = pa_cvolume_max(&info->volume);
    if (!in->known_volume) {
        in->baseline = in->volume;
        in->lowest = in->volume;
        in->known_volume = true;
    }
    if (in->volume < in->lowest && R.phase == WAIT_EFFECT) in->lowest = in->volume;
    if (!in->victim && !in->trigger && info->name) {
        if (strncmp(info->name, R.prefix, R.prefix_len) == 0 && info->name[R.prefix_len] == '-') in->victim = true;
        else if (R.trigger && strcmp(info->name, R.trigger_name) == 0) {
            in->trigger = true;
            R.trigger_index = info->index;
            if (R.phase == WAIT_TRIGGER) {
                R.t0 = t;
                R.phase = WAIT_EFFECT;
                R.deadline = now_ns() + 3000000000ull;
                arm_timer(R.deadline);
            }
        }
    }
    advance(t);
}

static void on_subscription(pa_context *c, pa_subscription_event_type_t type, uint32_t index, void *userdata) {
    (void)userdata;
    uint64_t t = now_ns();
    if ((type & PA_SUBSCRIPTION_EVENT_FACILITY_MASK) != PA_SUBSCRIPTION_EVENT_SINK_INPUT || index >= MAX_INDEX) return;
    struct input *in = &R.inputs[index];
    switch (type & PA_SUBSCRIPTION_EVENT_TYPE_MASK) {
    case PA_SUBSCRIPTION_EVENT_NEW:
        memset(in, 0, sizeof(*in));
        in->present = true;
        /* fall through */
    case PA_SUBSCRIPTION_EVENT_CHANGE:
        if (!in->pending_since) in->pending_since = t;
        pa_operation_unref(pa_context_get_sink_input_info(c, index, on_input_info, NULL));
        break;
    case PA_SUBSCRIPTION_EVENT_REMOVE:
        in->present = false;
        if (index == R.trigger_index) {
            R.trigger_index = PA_INVALID_INDEX;
            if (R.phase == WAIT_TRIGGER_GONE) {
                R.t1 = t;
                R.phase = WAIT_RESTORE;
                R.deadline = t + 3000000000ull;
                arm_timer(R.deadline);
            }
        }
        advance(t);
        break;
    }
}

static void on_initial_input(pa_context *c, const pa_sink_input_info *info, int eol, void *userdata) {
    if (!eol && info && info->index < MAX_INDEX) R.inputs[info->index].present = true;
    on_input_info(c, info, eol, userdata);
    if (eol) advance(now_ns());
}

static void on_observer_state(pa_context *c, void *userdata) {
    (void)userdata;
    pa_context_state_t state = pa_context_get_state(c);
    if (state == PA_CONTEXT_READY) {
        R.observer_ready = true;
        pa_context_set_subscribe_callback(c, on_subscription, NULL);
        pa_operation_unref(pa_context_subscribe(c, PA_SUBSCRIPTION_MASK_SINK_INPUT, NULL, NULL));
        pa_operation_unref(pa_context_get_sink_input_info_list(c, on_initial_input, NULL));
    } else if (state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED) {
        fprintf(stderr, "pa-reaction: observer connection lost\n");
        api->quit(api, 1);
    }
}

static void on_trigger_state(pa_context *c, void *userdata) {
    (void)userdata;
    pa_context_state_t state = pa_context_get_state(c);
    if (state == PA_CONTEXT_READY) {
        R.trigger_ready = true;
        advance(now_ns());
    } else if (state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED) {
        api->quit(api, 1);
    }
}

static int run_react(bool duck, int trials, const char *prefix, int expected, int settle_ms) {
    R.duck = duck;
    R.prefix = prefix;
    R.prefix_len = strlen(prefix);
    R.expected = expected;
    R.trials = trials;
    R.settle_ns = (uint64_t)settle_ms * 1000000ull;
    R.trigger_index = PA_INVALID_INDEX;
    R.phase = WAIT_BASELINE;
    /* the baseline must come within BENCH_BASELINE_SECONDS (default 60) */
    const char *baseline = getenv("BENCH_BASELINE_SECONDS");
    double baseline_s = baseline ? atof(baseline) : 60.0;
    struct timeval tv;
    pa_gettimeofday(&tv);
    pa_timeval_add(&tv, (pa_usec_t)(baseline_s * PA_USEC_PER_SEC));
    R.timer = api->time_new(api, &tv, on_timer, NULL);
    R.deadline = now_ns() + (uint64_t)(baseline_s * 1e9);
    printf("trial,a_first_us,a_all_us,b_first_us,b_full_us,c_first_us,c_all_us,timeout\n");
    fflush(stdout);
    R.observer = connect_context("pa-reaction observer", on_observer_state, NULL);
    R.trigger_context = connect_context("pa-reaction trigger", on_trigger_state, NULL);
    int ret = 0;
    pa_mainloop_run(mainloop, &ret);
    if (R.phase == WAIT_BASELINE) {
        fprintf(stderr, "pa-reaction react: only %d of %d victims\n", victim_count(), expected);
        return 3;
    }
    return R.exit_code;
}

static void usage(void) {
    fprintf(stderr, "usage: pa-reaction farm COUNT ROLE PREFIX SINKS\n"
                    "       pa-reaction react interrupt|duck TRIALS PREFIX COUNT [SETTLE_MS]\n");
    exit(64);
}

int main(int argc, char *argv[]) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    srand((unsigned)now_ns());
    mainloop = pa_mainloop_new();
    api = pa_mainloop_get_api(mainloop);
    pa_signal_init(api);
    pa_signal_new(SIGINT, quit_on_signal, NULL);
    pa_signal_new(SIGTERM, quit_on_signal, NULL);
    if (argc < 2) usage();
    if (strcmp(argv[1], "farm") == 0 && argc == 6) return run_farm(atoi(argv[2]), argv[3], argv[4], atoi(argv[5]));
    if (strcmp(argv[1], "react") == 0 && (argc == 6 || argc == 7)
        && (strcmp(argv[2], "interrupt") == 0 || strcmp(argv[2], "duck") == 0))
        return run_react(strcmp(argv[2], "duck") == 0, atoi(argv[3]), argv[4], atoi(argv[5]), argc == 7 ? atoi(argv[6]) : 30);
    usage();
    return 64;
}
