// AudioSessionDaemon: wires the PipeWire mechanism to the policy engine.
