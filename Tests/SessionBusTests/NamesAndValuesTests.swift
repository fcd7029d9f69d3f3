// NamesAndValuesTests: the D-Bus syntax rules and value checks that run before anything reaches
// sd-bus (no bus needed).

import SessionBus
import Testing

struct NamesAndValuesTests {
    @Test func objectPaths() {
        for valid in ["/", "/a", "/org/audiosession/Session/12", "/_x/Y_9"] { #expect(BusNames.isValidObjectPath(valid), "\(valid)") }
        for invalid in ["", "a", "/a/", "//", "/a//b", "/a-b", "/ä"] { #expect(!BusNames.isValidObjectPath(invalid), "\(invalid)") }
    }

    @Test func interfaceMemberAndBusNames() {
        #expect(BusNames.isValidInterfaceName("org.audiosession.Session1"))
        #expect(!BusNames.isValidInterfaceName("Session1"))
        #expect(!BusNames.isValidInterfaceName("org..x"))
        #expect(!BusNames.isValidInterfaceName("org.1x"))
        #expect(BusNames.isValidMemberName("SetCategory"))
        #expect(!BusNames.isValidMemberName("Set-Category"))
        #expect(!BusNames.isValidMemberName("9Lives"))
        #expect(BusNames.isValidWellKnownName("org.audio-session.Manager1"))
        #expect(!BusNames.isValidWellKnownName(":1.5"))
    }

    @Test func signatures() {
        #expect(BusNames.completeTypes(in: "sa{sv}(ia(su))v") == ["s", "a{sv}", "(ia(su))", "v"])
        #expect(BusNames.isValidSignature(""))
        for invalid in ["a", "{sv}", "a{vs}", "a{s}", "()", "(s", "z", "a{sva}"] {
            #expect(!BusNames.isValidSignature(invalid), "\(invalid)")
        }
        #expect(BusNames.isValidSignature(String(repeating: "a", count: 32) + "s"))
        #expect(!BusNames.isValidSignature(String(repeating: "a", count: 33) + "s"))
    }

    @Test func valueSignaturesAndChecks() throws {
        let value = BusValue.structure([.string("a"), .dictionary(["k": .uint32(1)]), .array(element: "(id)", [])])
        #expect(value.signature == "(sa{sv}a(id))")
        try value.validate()
        #expect(value.structureValue?[1].dictionaryValue == ["k": .uint32(1)])
        #expect(throws: BusError.self) { try BusValue.array(element: "s", [.int32(1)]).validate() }
        #expect(throws: BusError.self) { try BusValue.dictEntry(key: .string("k"), value: .bool(true)).validate() }
        #expect(throws: BusError.self) { try BusValue.array(element: "{vs}", []).validate() }
        #expect(throws: BusError.self) { try BusValue.structure([]).validate() }
        #expect(throws: BusError.self) { try BusValue.variant(.objectPath("relative")).validate() }
    }

    @Test func errorsKeepTheirCodeApartFromTheText() {
        let error = BusError.audioSession("BadParam", code: -50, message: "unknown category")
        #expect(error.name == "org.audiosession.Error.BadParam")
        #expect(error.description == "org.audiosession.Error.BadParam: unknown category (code -50)")
    }
}
