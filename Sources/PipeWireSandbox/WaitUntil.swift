import Foundation

/// Polls `condition` until it holds or `timeout` passes; then throws with `description`,
/// evaluated then: a message that shows what was seen ("now …", a log) shows it at the
/// deadline, not as it was when the wait began.
/// A deadline, not a fixed sleep: it returns as soon as the condition is true. The deadline is
/// `timeout` times ``TestTime/scale`` (`AUDIOSESSION_TEST_TIME_SCALE`): one factor for every wait.
public func waitUntil(
    timeout: Duration, poll: Duration = .milliseconds(10), _ description: @autoclosure () -> String,
    _ condition: () throws -> Bool
) throws {
    let clock = ContinuousClock()
    let timeout = TestTime.scaled(timeout)
    let deadline = clock.now + timeout
    while true {
        if try condition() { return }
        if clock.now >= deadline { throw SandboxError.timeout("timed out after \(timeout) waiting until \(description())") }
        let (seconds, attoseconds) = poll.components
        usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }
}

/// The async form: suspends between polls instead of blocking the thread; scaled the same way.
public func waitUntil(
    timeout: Duration, poll: Duration = .milliseconds(10), _ description: @autoclosure () -> String,
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let timeout = TestTime.scaled(timeout)
    let deadline = clock.now + timeout
    while true {
        if try await condition() { return }
        if clock.now >= deadline { throw SandboxError.timeout("timed out after \(timeout) waiting until \(description())") }
        try await Task.sleep(for: poll)
    }
}
