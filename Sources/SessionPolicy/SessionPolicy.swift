// SessionPolicy: the pure policy engine.
