// Test harness: private PipeWire, real clients, deadlines.
