import SessionPolicy
import Testing

/// On a server that routes streams itself (PulseAudio), a session's own route moves a stream
/// once, and back to the default once; a stream on the default route is never moved (the
/// server and its user place it).
@Suite("A server that routes streams itself: a session's own route")
struct ServerRoutedStreamsTests {
    let stream = StreamID(.capture, 7)

    @Test func aRouteOnTheDefaultMovesNothing() {
        var routes = ServerRoutedStreams()
        #expect(routes.route(stream, to: 2, defaultDevice: 2) == .none)
        #expect(routes.all.isEmpty)
    }

    @Test func aSessionsOwnRouteMovesOnceAndGoesBackOnce() {
        var routes = ServerRoutedStreams()
        #expect(routes.route(stream, to: 3, defaultDevice: 2) == .move(3))
        #expect(routes.route(stream, to: 3, defaultDevice: 2) == .none, "decided again: no second move (its user may have moved it since)")
        #expect(routes.route(stream, to: 4, defaultDevice: 2) == .move(4))
        #expect(routes.all == [stream])
        #expect(routes.route(stream, to: 2, defaultDevice: 2) == .backToDefault)
        #expect(routes.route(stream, to: 2, defaultDevice: 2) == .none)
        #expect(routes.all.isEmpty)
    }

    /// The default moved to where the stream's route is: the stream follows the default again.
    @Test func aDefaultThatComesToTheRouteTakesTheStreamBack() {
        var routes = ServerRoutedStreams()
        #expect(routes.route(stream, to: 3, defaultDevice: 2) == .move(3))
        #expect(routes.route(stream, to: 3, defaultDevice: 3) == .backToDefault)
    }

    @Test func aStreamGoneIsForgotten() {
        var routes = ServerRoutedStreams()
        _ = routes.route(stream, to: 3, defaultDevice: 2)
        routes.forget(stream)
        #expect(routes.route(stream, to: 2, defaultDevice: 2) == .none)
    }
}
