import PipeWireGraph
import Testing

@testable import AudioSessionDaemon

/// Our share of a PipeWire stream's level in its converter's soft volumes: what is written over
/// the user's level, and when it must be written again.
@Suite struct SoftShareTests {
    let user = SoftShare.UserLevel(NodeProps(mute: false, channelVolumes: [0.5, 0.25]))!

    func props(channels: [Float], mute: Bool = false, soft: [Float], softMute: Bool = false) -> NodeProps {
        NodeProps(volume: 1, mute: mute, channelVolumes: channels, softMute: softMute, softVolumes: soft)
    }

    @Test func aDuckScalesEveryChannelOfTheUsersLevelAndKeepsTheirMute() {
        var share = SoftShare()
        share.gain = 0.3
        let written = share.write(over: user, running: true)
        #expect(written.volumes == [0.5 * 0.3, 0.25 * 0.3])
        #expect(written.mute == false)
        share.muted = true
        #expect(share.write(over: user, running: true).mute == true, "our mute over their unmuted level")
        var theirs = SoftShare()
        #expect(theirs.write(over: SoftShare.UserLevel(NodeProps(mute: true, channelVolumes: [1]))!, running: true).mute,
                "their mute stays, whatever ours")
    }

    @Test func aUsersLevelIsKnownOnlyWithItsChannelVolumes() {
        #expect(SoftShare.UserLevel(nil) == nil)
        #expect(SoftShare.UserLevel(NodeProps(volume: 1, mute: false)) == nil, "before its format: nothing to scale")
    }

    /// PipeWire 1.6's converter reports no channel volumes until someone sets its Props; with
    /// its channels known (its ports), its level is then 1.0 on each.
    @Test func aConverterThatReportsNoChannelVolumesPlaysEachOfItsChannelsAtOne() {
        let unset = NodeProps(volume: 1, mute: false, channelVolumes: [], softVolumes: [])
        #expect(SoftShare.UserLevel(unset, channels: 2) == SoftShare.UserLevel(NodeProps(mute: false, channelVolumes: [1, 1])))
        #expect(SoftShare.UserLevel(unset, channels: 0) == nil, "no ports yet: nothing to scale")
        #expect(SoftShare.UserLevel(props(channels: [0.5], soft: [0.5]), channels: 2)?.channelVolumes == [0.5],
                "reported volumes win over the count")
        var share = SoftShare()
        share.gain = 0.3
        #expect(share.verdict(on: unset, channels: 2, running: true) == .rewrite, "a duck asked before goes out")
        #expect(share.write(over: SoftShare.UserLevel(unset, channels: 2)!, running: true).volumes == [0.3, 0.3])
        #expect(share.verdict(on: props(channels: [1, 1], soft: [0.3, 0.3]), channels: 2, running: true) == .keep,
                "the converter's report after our write is our echo")
    }

    @Test func ourEchoAsksForNothingAndTheUsersChangeAsksForOursAgain() {
        var share = SoftShare()
        share.gain = 0.3
        let written = share.write(over: user, running: true)
        #expect(share.verdict(on: props(channels: [0.5, 0.25], soft: written.volumes), running: true) == .keep)
        // The user turned it up: the converter now plays theirs, ours must go over it again.
        #expect(share.verdict(on: props(channels: [0.8, 0.8], soft: written.volumes), running: true) == .rewrite)
        #expect(share.verdict(on: props(channels: [0.5, 0.25], mute: true, soft: written.volumes), running: true) == .rewrite)
    }

    @Test func aShareWrittenBeforeTheStreamRanIsWrittenOnceMoreWhenItRuns() {
        var share = SoftShare()
        share.gain = 0.3
        let written = share.write(over: user, running: false)
        let echo = props(channels: [0.5, 0.25], soft: written.volumes)
        #expect(share.verdict(on: echo, running: false) == .keep)
        #expect(share.verdict(on: echo, running: true) == .rewrite, "its format may have put its own level back")
        _ = share.write(over: user, running: true)
        #expect(share.verdict(on: echo, running: true) == .keep, "once")
    }

    @Test func aShareNotYetWrittenGoesOutWithTheFirstLevelKnown() {
        var share = SoftShare()
        share.muted = true  // asked before the stream's level was known
        #expect(share.verdict(on: props(channels: [1, 1], soft: [1, 1]), running: false) == .rewrite)
        // A restore after a crash asks for the identity over what the dead run left: it goes out too.
        #expect(SoftShare().verdict(on: props(channels: [1, 1], soft: [0.3, 0.3]), running: false) == .rewrite)
    }

    @Test func theIdentityIsForgottenOnlyOnceTheConverterPlaysExactlyTheUsersLevel() {
        var share = SoftShare()
        let written = share.write(over: user, running: true)  // the restore: gain 1, no mute
        #expect(written.volumes == user.channelVolumes)
        #expect(share.verdict(on: props(channels: [0.5, 0.25], soft: [0.15, 0.075]), running: true) == .keep, "our restore is on its way")
        #expect(share.verdict(on: props(channels: [0.5, 0.25], soft: [0.5, 0.25]), running: true) == .done)
        // The user changed their level before our restore reached the converter: ours was
        // computed from the old one, and would play it: written again over theirs.
        #expect(share.verdict(on: props(channels: [0.9, 0.9], soft: [0.5, 0.25]), running: true) == .rewrite)
    }
}
