import AppProcesses
import SessionPolicy
import Testing

@testable import AudioSessionDaemon

/// What is read from a new stream's properties before the policy sees it, and the trimming
/// the daemon uses wherever it reads text from a server or a file.
@Suite("Stream property parsing")
struct StreamPropertyParsingTests {
    @Test func whitespaceIsTrimmedFromBothEnds() {
        #expect("  64 ".trimmingWhitespace() == "64")
        #expect("\t48000\r\n".trimmingWhitespace() == "48000")
        #expect("a b".trimmingWhitespace() == "a b", "inner spaces stay")
        #expect("   ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect("x".trimmingWhitespace() == "x")
    }

    @Test func textWhoseEndsAreNotASCIIIsTrimmedAsUnicodeSays() {
        #expect("\u{00A0}Mikrofon\u{2003}".trimmingWhitespace() == "Mikrofon", "no-break and em spaces")
        #expect(" café ".trimmingWhitespace() == "café")
        #expect(" e\u{0301} ".trimmingWhitespace() == "e\u{0301}", "a combining accent stays with its letter")
        #expect(" 音声 ".trimmingWhitespace() == "音声")
        #expect(Substring(" 64/48000 ").trimmingWhitespace() == "64/48000")
    }

    @Test func aStreamsLatencyAndRateAreItsHardwareRequest() {
        #expect(NodeHardwareRequest.request(from: ["node.latency": "256/48000"])
            == StreamHardwareRequest(bufferFrames: 256, bufferRate: 48000))
        #expect(NodeHardwareRequest.request(from: ["node.latency": " 64 / 48000 ", "node.rate": "1/96000"])
            == StreamHardwareRequest(bufferFrames: 64, bufferRate: 48000, sampleRate: 96000))
        #expect(NodeHardwareRequest.request(from: ["node.latency": "64/48000", "node.rate": "2/96000"])?.sampleRate == nil,
                "a rate is 1/N")
    }

    @Test func aLatencyThatIsNoFractionIsNoRequest() {
        for text in ["", "64", "64/", "/48000", "64/48000/2", "sixty-four/48000", "64/48k", "6 4/48000", "+64/48000",
                     "99999999999999999999/48000"] {
            #expect(NodeHardwareRequest.request(from: ["node.latency": text]) == nil, "\(text)")
        }
        #expect(NodeHardwareRequest.request(from: [:]) == nil)
    }
}
