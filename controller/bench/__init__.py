"""Bench mode (``tablectl bench``): the real daemon on simulated devices, in a terminal.

Modules:

- ``session``  ``Bench``: the ``Daemon`` started with every device simulated, the
               technician's actions (keypad keys, puck, tray, cables) and ``snapshot()``
               of what the screen draws
- ``lamps``    the seat lights as an eye sees them, read off the simulated pins
- ``layout``   where the seats, the middle and the bottom rows go for a terminal size
- ``render``   the screen as text and style names, a pure function of a snapshot
- ``keys``     which computer key is which dealer-keypad key, and the bench's own keys
- ``tui``      the curses loop: redraw ten times a second, keys, resizing
- ``demo``     seats players and plays hands through the keypad by itself
- ``script``   the same bench without a screen (``--script``, ``--demo``)

docs/bench.md is the technician's guide.
"""
