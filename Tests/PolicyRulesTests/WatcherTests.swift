import Foundation
import PipeWireSandbox
import Synchronization
import Testing
@testable import PolicyRules

/// Waits for the next change report, or gives up at the deadline.
private func nextChange(_ watcher: RulesWatcher, within deadline: Duration = .seconds(10)) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            var iterator = watcher.changes.makeAsyncIterator()
            return await iterator.next() != nil
        }
        group.addTask {
            try? await Task.sleep(for: TestTime.scaled(deadline))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

/// Waits (polling, with a deadline) until `calls` holds `count` entries.
private func waitForCalls(_ count: Int, _ calls: Shared<[String]>, within deadline: Duration = .seconds(10)) throws {
    let end = ContinuousClock.now + TestTime.scaled(deadline)
    while calls.withLock({ $0.count }) < count {
        guard ContinuousClock.now < end else {
            Issue.record("\(count) onChange calls expected within \(deadline), got \(calls.withLock { $0 })")
            return
        }
        usleep(2_000)
    }
}

@Suite("The rules watcher reports file changes", .serialized)
struct WatcherTests {
    @Test("writing, replacing and deleting a file are each reported")
    func changes() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.path + "/rules", withIntermediateDirectories: true)
        let watcher = try RulesWatcher(directories: [root.path + "/rules"], settleTime: .milliseconds(20))
        defer { watcher.stop() }

        try root.write("rules/50.conf", "audiosession.settings = { }")
        #expect(await nextChange(watcher))
        try root.write("rules/50.conf", "audiosession.settings = { duck.level = 0.2 }")
        #expect(await nextChange(watcher))
        try FileManager.default.removeItem(atPath: root.path + "/rules/50.conf")
        #expect(await nextChange(watcher))
    }

    @Test("a directory created after the watcher started is noticed, and then its files")
    func directoryCreatedLater() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let watcher = try RulesWatcher(directories: [root.path + "/config/policy-rules.d"], settleTime: .milliseconds(20))
        defer { watcher.stop() }

        try FileManager.default.createDirectory(atPath: root.path + "/unrelated", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root.path + "/config", withIntermediateDirectories: true)
        #expect(await nextChange(watcher))
        try FileManager.default.createDirectory(atPath: root.path + "/config/policy-rules.d", withIntermediateDirectories: true)
        #expect(await nextChange(watcher))
        try root.write("config/policy-rules.d/10.conf", "")
        #expect(await nextChange(watcher))
    }

    @Test("with onChange, each burst is one call on the watcher's own thread")
    func callback() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.path + "/rules", withIntermediateDirectories: true)
        let calls = Shared<[String]>([])
        let watcher = try RulesWatcher(directories: [root.path + "/rules"], settleTime: .milliseconds(20)) {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            calls.withLock { $0.append(name.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        try root.write("rules/50.conf", "audiosession.settings = { }")
        try waitForCalls(1, calls)
        try root.write("rules/50.conf", "audiosession.settings = { duck.level = 0.2 }")
        try root.write("rules/README", "not a rules file")
        try waitForCalls(2, calls)
        #expect(calls.withLock { $0 } == ["rules-watcher", "rules-watcher"])
        watcher.stop()
    }

    @Test("stop finishes the stream")
    func stop() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let watcher = try RulesWatcher(directories: [root.path])
        watcher.stop()
        watcher.stop()
        var iterator = watcher.changes.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}

@Suite("Which file-system events count as a rules change")
struct WatchScopeTests {
    @Test("in a rule directory: *.conf files and the directory itself")
    func rulesDirectory() {
        let scope = WatchScope(isRulesDirectory: true)
        #expect(scope.isRelevant(name: "50-mine.conf"))
        #expect(scope.isRelevant(name: ""))
        #expect(!scope.isRelevant(name: "README"))
        #expect(!scope.isRelevant(name: ".50-mine.conf.swp"))
        #expect(!scope.isRelevant(name: "50-mine.conf~"))
    }

    @Test("in an ancestor of a missing rule directory: only the next directory on the way")
    func ancestor() {
        let scope = WatchScope(children: ["audiosession"])
        #expect(scope.isRelevant(name: "audiosession"))
        #expect(!scope.isRelevant(name: "gtk-3.0"))
        #expect(!scope.isRelevant(name: "x.conf"))
    }
}

/// A value shared with closures on other threads (a `Mutex` itself cannot be captured).
private final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { storage.withLock { body(&$0) } }
}
