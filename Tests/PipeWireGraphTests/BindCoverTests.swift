import Testing

@testable import PipeWireGraph

/// The round trip after binds, which arms the watch for a server that stopped reading us.
struct BindCoverTests {
    @Test func theFirstBindAsksARoundTripAndTheOnesWhileItWaitsShareTheNext() {
        var cover = BindCover()
        let asked = [cover.bindSent(), cover.bindSent(), cover.bindSent()]
        #expect(asked == [true, false, false])
        let again = cover.answered()
        #expect(again, "the binds sent while it waited get a round trip of their own")
        let whileWaiting = cover.bindSent()
        #expect(!whileWaiting, "one waits already")
        let afterThat = [cover.answered(), cover.answered()]
        #expect(afterThat == [true, false], "then none waits: nothing was sent since")
    }

    @Test func aBindAfterTheAnswerAsksAgain() {
        var cover = BindCover()
        let steps = [cover.bindSent(), cover.answered(), cover.bindSent()]
        #expect(steps == [true, false, true])
    }
}
