"""Simulated devices: the other end of the real drivers.

- ``keypad.SimKeypad``, ``tray.SimTray``, ``display.SimDisplay``: device programs on a
  pty pair (``pty_port``), speaking the device side of the protocols (``device``).
- ``pins.SimPuck`` and ``pins.SimLights``: drive and read gpiozero mock pins.
- ``line_noise``: noisy byte streams for fuzzing the decoders.

``drivers.build.open_devices(..., simulated=True)`` wires them up.
"""
