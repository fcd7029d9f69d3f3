import CPulse

/// libpulse, loaded on first use (`CPulse`: dlopen, never linked), so a daemon on PipeWire
/// never maps it. Every libpulse call goes through ``libpulse``; ``PulseLibrary/load()`` comes
/// first (``PulseConnection`` makes sure of it).
public enum PulseLibrary {
    /// Loads libpulse once; why it cannot be, or nil when it is loaded.
    public static func load() -> String? {
        guard pws_pulse_load() == nil else { return nil }
        return pws_pulse_load_error().map { String(cString: $0) } ?? "libpulse.so.0 cannot be loaded"
    }
}

/// libpulse's functions (the table `CPulse` filled from the loaded library).
let libpulse: pws_pulse = {
    guard let library = pws_pulse_load() else {
        preconditionFailure("libpulse used before it was loaded: \(PulseLibrary.load() ?? "")")
    }
    return library.pointee
}()

/// The context's last error, as libpulse words it.
func lastError(of context: OpaquePointer) -> String {
    libpulse.pa_strerror(libpulse.pa_context_errno(context)).map { String(cString: $0) } ?? "error \(libpulse.pa_context_errno(context))"
}
