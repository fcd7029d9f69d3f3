import Testing

@testable import AudioSessionDaemon

/// The loop thread's schedule, read when a fade step comes late.
struct ThreadScheduleTests {
    @Test func aThreadThatRanHasMoreTimeOnACPUAfter() throws {
        let before = try #require(ThreadSchedule.current(), "/proc/thread-self/schedstat read")
        var sum = 0
        for value in 0..<5_000_000 { sum &+= value }
        let spent = try #require(ThreadSchedule.current()).since(before)
        #expect(spent.onCPU > .zero, "\(spent) (sum \(sum))")
        #expect(spent.waiting >= .zero)
    }
}
