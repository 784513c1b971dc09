"""Hardware abstraction layer: one interface per device kind, real and simulated."""
