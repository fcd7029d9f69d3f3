// FuzzTests: seeded random values of every supported shape, round-tripped through a variant, and
// random argument lists thrown at every method. The service answers each one and never crashes.

import SessionBus
import Testing

/// SplitMix64: a tiny seedable generator, so a failure names the seed that reproduces it.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random value; containers nest up to `depth`.
func randomValue(_ g: inout SeededGenerator, depth: Int) -> BusValue {
    let kinds = depth > 0 ? 16 : 12
    switch Int.random(in: 0..<kinds, using: &g) {
    case 0: return .byte(.random(in: .min ... .max, using: &g))
    case 1: return .bool(.random(using: &g))
    case 2: return .int16(.random(in: .min ... .max, using: &g))
    case 3: return .uint16(.random(in: .min ... .max, using: &g))
    case 4: return .int32(.random(in: .min ... .max, using: &g))
    case 5: return .uint32(.random(in: .min ... .max, using: &g))
    case 6: return .int64(.random(in: .min ... .max, using: &g))
    case 7: return .uint64(.random(in: .min ... .max, using: &g))
    case 8: return .double([0, -0.0, 1e308, -1e-308, .infinity, .pi][Int.random(in: 0..<6, using: &g)])
    case 9: return .string(randomText(&g))
    case 10: return .objectPath(["/", "/a", "/org/audiosession/Session/12", "/_/x_1"][Int.random(in: 0..<4, using: &g)])
    case 11: return .signature(["", "s", "a{sv}", "(iu)av"][Int.random(in: 0..<4, using: &g)])
    case 12:
        let element = randomValue(&g, depth: depth - 1)
        let count = Int.random(in: 0...3, using: &g)
        // Same-typed elements: regenerate until the signature matches (bounded tries), else repeat one.
        var items: [BusValue] = []
        for _ in 0..<count {
            let candidate = randomValue(&g, depth: depth - 1)
            items.append(candidate.signature == element.signature ? candidate : element)
        }
        return .array(element: element.signature, items)
    case 13:
        return .dictionary(
            Dictionary(
                (0..<Int.random(in: 0...3, using: &g)).map { ("k\($0)", randomValue(&g, depth: depth - 1)) },
                uniquingKeysWith: { first, _ in first }))
    case 14: return .structure((0..<Int.random(in: 1...4, using: &g)).map { _ in randomValue(&g, depth: depth - 1) })
    default: return .variant(randomValue(&g, depth: depth - 1))
    }
}

private func randomText(_ g: inout SeededGenerator) -> String {
    let pieces = ["", "a", "ümlaut", "日本", "🎧", "'quote'", "\"", "\\", " ", "\n", String(repeating: "x", count: 300)]
    return (0..<Int.random(in: 0...3, using: &g)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &g)] }.joined()
}

@Suite(.serialized) struct FuzzTests {
    @Test(arguments: [1, 2, 3] as [UInt64]) func randomValuesRoundTrip(seed: UInt64) async throws {
        try await withFixture { fixture in
            var g = SeededGenerator(state: seed)
            for round in 0..<150 {
                let value = randomValue(&g, depth: 4)
                let reply = try await fixture.call("Echo", [.variant(value)])
                #expect(reply == [.variant(value)], "seed \(seed) round \(round): \(value.signature)")
            }
        }
    }

    @Test(arguments: [11, 12] as [UInt64]) func randomArgumentsNeverCrashTheService(seed: UInt64) async throws {
        try await withFixture { fixture in
            var g = SeededGenerator(state: seed)
            for round in 0..<120 {
                let method = testInterface.methods[Int.random(in: 0..<testInterface.methods.count, using: &g)]
                if method.name == "Later" || method.name == "Forget" { continue }
                let body = (0..<Int.random(in: 0...4, using: &g)).map { _ in randomValue(&g, depth: 3) }
                let fits = BusValue.signature(of: body) == method.inputs.map(\.signature).joined()
                do {
                    _ = try await fixture.call(method.name, body)
                    #expect(fits || method.name == "Fail", "seed \(seed) round \(round): \(method.name) accepted \(body)")
                } catch let error as BusError {
                    if !fits {
                        #expect(error.name == "org.freedesktop.DBus.Error.InvalidArgs", "seed \(seed) round \(round): \(error)")
                    }
                }
            }
            #expect(try await fixture.call("Add", [.int32(20), .int32(22)]) == [.int32(42)])
        }
    }
}
