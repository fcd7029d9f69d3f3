// A libFuzzer target for what reads D-Bus calls: any bytes as what a peer sends on a connection
// after authenticating, parsed by sd-bus exactly as the daemon's connection parses them, and every
// message's body read by MessageCoding as the daemon reads a call's arguments. Nothing may crash,
// hang or grow without bound; and what is read must be what was sent: the values have the
// message's signature, and written into a new message and read back they come out the same.
// Built and run by scripts/fuzz.sh; seeds are recorded calls (scripts/record-bus-corpus.sh).
@testable import SessionBus
import CSystemd
import Glibc

/// What a client sends before its first message: the SASL handshake sd-bus serves.
private let handshake = Array("\0AUTH ANONYMOUS\r\nBEGIN\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func busCallFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    signal(SIGPIPE, SIG_IGN)
    var sockets: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else { return 0 }
    let (server, client) = (sockets[0], sockets[1])
    defer { close(client) }
    // The whole input fits the socket's buffer (max_len in scripts/fuzz.sh), so one write each.
    _ = handshake.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count) }
    _ = write(client, data, size)
    shutdown(client, Int32(SHUT_WR))

    var bus: OpaquePointer?
    guard sd_bus_new(&bus) >= 0, let bus else { close(server); return 0 }
    defer { sd_bus_flush_close_unref(bus) }
    var id = sd_id128_t()
    _ = sd_id128_randomize(&id)
    guard sd_bus_set_fd(bus, server, server) >= 0 else { close(server); return 0 }
    _ = sd_bus_set_server(bus, 1, id)
    _ = sd_bus_set_anonymous(bus, 1)
    guard sd_bus_start(bus) >= 0 else { return 0 }
    _ = sd_bus_add_filter(bus, nil, { message, _, _ in
        if let message { checkReading(message) }
        return 0
    }, nil)
    // Every byte is in the socket and its end is marked: processing ends in EOF, well before this.
    for _ in 0..<100_000 {
        let result = sd_bus_process(bus, nil)
        if result < 0 { break }
        if result == 0 && sd_bus_wait(bus, 0) <= 0 && sd_bus_process(bus, nil) <= 0 { break }
    }
    return 0
}

/// Reads the body as the daemon reads arguments; what it reads must survive being written again.
private func checkReading(_ message: OpaquePointer) {
    let values: [BusValue]
    do {
        values = try MessageCoding.readAll(message)
    } catch {
        return  // refused as InvalidArgs: what an unreadable body must give
    }
    let signature = sd_bus_message_get_signature(message, 1).map { String(cString: $0) } ?? ""
    precondition(BusValue.signature(of: values) == signature, "read \(BusValue.signature(of: values)) from a \(signature) body")
    guard let bus = sd_bus_message_get_bus(message) else { return }
    var copy: OpaquePointer?
    guard sd_bus_message_new_method_call(bus, &copy, "org.example.Fuzz", "/", "org.example.Fuzz", "Call") >= 0,
        let copy
    else { return }
    defer { sd_bus_message_unref(copy) }
    do {
        try MessageCoding.append(values, to: copy)
    } catch {
        preconditionFailure("values read from a message cannot be written again: \(error)")
    }
    precondition(sd_bus_message_seal(copy, 1, 0) >= 0, "cannot seal the copy")
    precondition(sd_bus_message_rewind(copy, 1) >= 0, "cannot rewind the copy")
    let again = try? MessageCoding.readAll(copy)
    // Compared as text: a NaN is not equal to itself, and its bits are all that must survive.
    precondition(again.map { "\($0)" } == "\(values)", "the copy reads back differently")
}
