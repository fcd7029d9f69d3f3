import Testing

/// Every test that starts a private PipeWire lives under this suite: they run one at a time
/// (two cores, one daemon each), each with its own daemon, runtime dir and clients.
@Suite(.serialized) struct PipeWireIntegration {}
