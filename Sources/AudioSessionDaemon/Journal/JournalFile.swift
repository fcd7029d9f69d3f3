#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// What a journal file in the state dir holds: empty means "nothing to undo" (no file).
protocol JournalContents: Codable, Equatable {
    static var fileName: String { get }
    var isEmpty: Bool { get }
    init()
}

/// Reads and writes a journal file atomically (write to a temp file, then rename): a crash
/// mid-write leaves the previous journal, never half of one.
struct JournalFile<Contents: JournalContents>: Sendable {
    let url: URL
    let logger: Logger

    init(directory: URL, logger: Logger) {
        url = directory.appendingPathComponent(Contents.fileName)
        self.logger = logger
    }

    func read() -> Contents {
        guard let data = try? Data(contentsOf: url) else { return Contents() }
        do {
            return try JSONDecoder().decode(Contents.self, from: data)
        } catch {
            logger.warning("ignoring unreadable journal \(url.path): \(error)")
            return Contents()
        }
    }

    /// Writes the journal (an empty one removes the file). Plain POSIX calls: it runs on the
    /// reaction thread before a duck's first step goes out, and Foundation's `FileManager` and
    /// `Data.write` made each write cost ~0.6 ms.
    func write(_ journal: Contents) {
        let path = url.path
        guard !journal.isEmpty else {
            if unlink(path) != 0, errno != ENOENT { report(errno, path) }
            return
        }
        let bytes: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            bytes = try encoder.encode(journal)
        } catch {
            return logger.error("cannot encode journal \(path): \(error); a crash now could leave changes behind")
        }
        let temporary = path + ".tmp"
        var descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT {  // the state dir does not exist yet
            try? FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { return report(errno, temporary) }
        let complete = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        let failure = complete ? 0 : errno
        close(descriptor)
        guard complete else { return report(failure, temporary) }
        if rename(temporary, path) != 0 { report(errno, path) }
    }

    private func report(_ code: Int32, _ path: String) {
        logger.error("cannot write journal \(path): \(String(cString: strerror(code))); a crash now could leave changes behind")
    }
}
