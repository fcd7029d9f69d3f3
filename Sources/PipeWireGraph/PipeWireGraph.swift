// PipeWireGraph: the PipeWire graph mirror and actions (mechanism only).
