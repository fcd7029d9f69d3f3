#ifndef AUDIOSESSION_CPULSE_H
#define AUDIOSESSION_CPULSE_H
/* libpulse, loaded at run time (dlopen) when a PulseAudio connection is first made, never
 * linked: a daemon on PipeWire maps neither libpulse nor the twenty-odd libraries it pulls in
 * (libsndfile, codecs, X11, libgcrypt: 2.2 MB of RSS), and runs where libpulse is not
 * installed. Swift calls libpulse through the table below (`libpulse.pa_context_new(...)`);
 * the headers give the types. A function missing from this list does not link, loudly. */
#include <pulse/pulseaudio.h>
#include <pulse/ext-stream-restore.h>

#pragma clang assume_nonnull begin

/* Every libpulse function the project calls. */
#define PWS_PULSE_FUNCTIONS(X) \
    X(pa_context_connect) \
    X(pa_context_disconnect) \
    X(pa_context_errno) \
    X(pa_context_get_client_info) \
    X(pa_context_get_card_info_by_index) \
    X(pa_context_get_card_info_list) \
    X(pa_context_get_client_info_list) \
    X(pa_context_get_module_info) \
    X(pa_context_get_module_info_list) \
    X(pa_context_get_server_info) \
    X(pa_context_get_sink_info_by_index) \
    X(pa_context_get_sink_info_list) \
    X(pa_context_get_sink_input_info) \
    X(pa_context_get_sink_input_info_list) \
    X(pa_context_get_source_info_by_index) \
    X(pa_context_get_source_info_list) \
    X(pa_context_get_source_output_info) \
    X(pa_context_get_source_output_info_list) \
    X(pa_context_get_state) \
    X(pa_context_load_module) \
    X(pa_context_move_sink_input_by_index) \
    X(pa_context_move_sink_input_by_name) \
    X(pa_context_move_source_output_by_index) \
    X(pa_context_move_source_output_by_name) \
    X(pa_context_new) \
    X(pa_context_set_default_sink) \
    X(pa_context_set_default_source) \
    X(pa_context_set_sink_input_mute) \
    X(pa_context_set_sink_input_volume) \
    X(pa_context_set_sink_port_by_index) \
    X(pa_context_set_sink_volume_by_index) \
    X(pa_context_set_source_output_mute) \
    X(pa_context_set_source_output_volume) \
    X(pa_context_set_source_port_by_index) \
    X(pa_context_set_source_volume_by_index) \
    X(pa_context_set_state_callback) \
    X(pa_context_set_subscribe_callback) \
    X(pa_context_subscribe) \
    X(pa_context_suspend_sink_by_index) \
    X(pa_context_suspend_source_by_index) \
    X(pa_context_unload_module) \
    X(pa_context_unref) \
    X(pa_ext_stream_restore_delete) \
    X(pa_ext_stream_restore_read) \
    X(pa_ext_stream_restore_write) \
    X(pa_gettimeofday) \
    X(pa_mainloop_api_once) \
    X(pa_operation_unref) \
    X(pa_proplist_free) \
    X(pa_proplist_gets) \
    X(pa_proplist_iterate) \
    X(pa_proplist_new) \
    X(pa_proplist_sets) \
    X(pa_stream_connect_record) \
    X(pa_stream_disconnect) \
    X(pa_stream_drop) \
    X(pa_stream_get_context) \
    X(pa_stream_get_state) \
    X(pa_stream_new_with_proplist) \
    X(pa_stream_peek) \
    X(pa_stream_set_monitor_stream) \
    X(pa_stream_set_read_callback) \
    X(pa_stream_set_state_callback) \
    X(pa_stream_unref) \
    X(pa_strerror) \
    X(pa_sw_volume_from_linear) \
    X(pa_sw_volume_to_linear) \
    X(pa_threaded_mainloop_free) \
    X(pa_threaded_mainloop_get_api) \
    X(pa_threaded_mainloop_in_thread) \
    X(pa_threaded_mainloop_lock) \
    X(pa_threaded_mainloop_new) \
    X(pa_threaded_mainloop_start) \
    X(pa_threaded_mainloop_stop) \
    X(pa_threaded_mainloop_unlock) \
    X(pa_timeval_add)

struct pws_pulse {
#define PWS_PULSE_FIELD(name) __typeof__(name) *name;
    PWS_PULSE_FUNCTIONS(PWS_PULSE_FIELD)
#undef PWS_PULSE_FIELD
};

/* Loads libpulse.so.0 once (thread-safe); NULL when it cannot be: the reason is then in
 * pws_pulse_load_error(). */
const struct pws_pulse *_Nullable pws_pulse_load(void);
const char *_Nullable pws_pulse_load_error(void);

#pragma clang assume_nonnull end
#endif
