#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs `body` once on a new, detached thread. A plain pthread: Foundation's `Thread` would
/// link all of Foundation (and ICU) into the daemon for this one use.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
        &thread, nil,
        { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
    guard created == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        fatalError("pthread_create failed (\(created))")
    }
    pthread_detach(thread)
}
