import Testing
@testable import SessionPolicy

/// Ownership from credentials: a sandboxed app's sessions are its app id's whatever it says;
/// a stream joins a named session only from the owner's process tree or the same sandboxed app;
/// sandboxed callers change no settings.
@Suite struct SessionOwnershipTests {
    static let shell = SessionOwnership.Owner(pid: 100, sandboxAppID: nil)
    static let memo = SessionOwnership.Owner(pid: 200, sandboxAppID: "org.example.Memo")

    @Test func aSandboxedAppIsItsAppIDWhateverItSays() {
        #expect(SessionOwnership.app(named: "org.example.Recorder", by: Self.memo) == "org.example.Memo")
        #expect(SessionOwnership.app(named: "my-tool", by: Self.shell) == "my-tool")
    }

    @Test func aStreamJoinsOnlyFromTheOwnersTreeOrApp() {
        #expect(SessionOwnership.mayJoin(streamLineage: [300, 100, 1], streamSandboxAppID: nil, owner: Self.shell), "a child")
        #expect(SessionOwnership.mayJoin(streamLineage: [100], streamSandboxAppID: nil, owner: Self.shell), "the owner itself")
        #expect(!SessionOwnership.mayJoin(streamLineage: [400, 1], streamSandboxAppID: nil, owner: Self.shell), "another app")
        #expect(SessionOwnership.mayJoin(streamLineage: [500, 1], streamSandboxAppID: "org.example.Memo", owner: Self.memo), "its app")
        #expect(!SessionOwnership.mayJoin(streamLineage: [500, 1], streamSandboxAppID: "org.example.Other", owner: Self.memo))
        #expect(!SessionOwnership.mayJoin(streamLineage: [], streamSandboxAppID: nil, owner: Self.shell), "no process known")
    }

    @Test func sandboxedCallersChangeNoSettings() {
        #expect(SessionOwnership.mayChangeSettings(Self.shell))
        #expect(!SessionOwnership.mayChangeSettings(Self.memo))
    }
}
