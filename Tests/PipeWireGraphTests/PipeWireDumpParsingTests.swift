import PipeWireSandbox
import Testing

/// The `pw-dump` oracle reads what pw-dump 0.3.65 prints while objects come and go: its
/// dump's array, and an array for each object removed meanwhile, before or after it.
@Suite struct PipeWireDumpParsing {
    private static let dump = """
        [
          {
            "id": 40,
            "type": "PipeWire:Interface:Node",
            "info": { "props": { "node.name": "music [\\"a\\"] {", "media.class": "Stream/Output/Audio" } }
          },
          {
            "id": 41,
            "type": "PipeWire:Interface:Node",
            "info": { "props": { "node.name": "call", "media.class": "Stream/Input/Audio" } }
          }
        ]
        """

    private static func removal(of id: Int) -> String {
        "[\n  {\n    \"id\": \(id),\n    \"info\": null\n  }\n]\n"
    }

    @Test func anObjectRemovedAfterTheDumpIsGone() throws {
        let parsed = try PipeWireDump(json: Self.dump + "\n" + Self.removal(of: 41))
        #expect(parsed.nodes.map(\.id) == [40])
        #expect(parsed.node(named: "music [\"a\"] {")?.mediaClass == "Stream/Output/Audio")
    }

    @Test func anObjectRemovedBeforeTheDumpLeavesTheDumpWhole() throws {
        let parsed = try PipeWireDump(json: Self.removal(of: 39) + Self.dump + "\n")
        #expect(parsed.nodes.map(\.id) == [40, 41])
    }

    @Test func aTruncatedDumpIsAnError() {
        #expect(throws: (any Error).self) { try PipeWireDump(json: String(Self.dump.dropLast(40))) }
        #expect(throws: (any Error).self) { try PipeWireDump(json: "") }
    }
}
