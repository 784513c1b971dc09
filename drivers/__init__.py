"""Hardware abstraction layer: one interface per device kind, real and simulated.

Start with ``drivers.build.open_devices`` (the API is documented there). The modules:

- ``settings``: the YAML ``hardware:`` section as frozen dataclasses, and its checks.
- ``events``: what the devices report on the controller's queue.
- ``interfaces``: what the controller calls (``SeatLights.show``, ``ClockDisplay``...).
- ``puck``, ``lights``: the GPIO devices (gpiozero); ``pins`` picks the pin factory.
- ``keypad``, ``tray``, ``display``: the serial devices' protocols and drivers, over
  ``frames`` (framing, CRC, decoder), ``messages`` (shared frames) and ``serial_link``
  (handshake, acknowledgements, reopening with backoff); ``droplog`` rate-limits logs;
  ``backoff``: the one back-off formula (also the floor publisher's).
- ``sim``: the simulated devices; ``absent``: stand-ins for devices a table lacks.

Nothing here imports ``controller``: dependencies point one way.
"""
