@testable import AudioSessionDaemon
import SessionPolicy
import Testing

/// A session's own route on PulseAudio moves a stream once, and back to the default once; a
/// stream on the default route is never moved (PulseAudio and its user place it).
@Suite("PulseAudio: a session's own route")
struct SessionRoutesTests {
    let stream = StreamID(.capture, 7)

    @Test func aRouteOnTheDefaultMovesNothing() {
        var routes = SessionRoutes()
        #expect(routes.route(stream, to: nil) == .none)
        #expect(routes.all.isEmpty)
    }

    @Test func aSessionsOwnRouteMovesOnceAndGoesBackOnce() {
        var routes = SessionRoutes()
        #expect(routes.route(stream, to: 3) == .move(3))
        #expect(routes.route(stream, to: 3) == .none, "decided again: no second move (its user may have moved it since)")
        #expect(routes.route(stream, to: 4) == .move(4))
        #expect(routes.all == [stream])
        #expect(routes.route(stream, to: nil) == .backToDefault)
        #expect(routes.route(stream, to: nil) == .none)
        #expect(routes.all.isEmpty)
    }

    @Test func aStreamGoneIsForgotten() {
        var routes = SessionRoutes()
        _ = routes.route(stream, to: 3)
        routes.forget(stream)
        #expect(routes.route(stream, to: nil) == .none)
    }
}
