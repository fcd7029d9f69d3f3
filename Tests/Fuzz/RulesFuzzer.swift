// A libFuzzer target for the rules reader: any bytes as a rules file, read (SPA-JSON),
// checked and layered over the shipped rules, exactly as the daemon reads a file. Nothing may
// crash or hang; an invalid file must be a diagnostic. Built and run by scripts/fuzz.sh.
import PolicyRules

@_cdecl("LLVMFuzzerTestOneInput")
public func rulesFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let text = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }
    do {
        let file = try RulesFile(path: "fuzz.conf", text: text)
        _ = try? RuleSet.build(files: [file])
    } catch {
        // A diagnostic: what an invalid file must give.
        _ = error.diagnostics.map(\.description)
    }
    return 0
}
