// PipeWireSandbox: a private, headless PipeWire in a temporary runtime dir, with virtual devices and real clients (used by tests, the demo and the benchmarks).
