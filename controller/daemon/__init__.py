"""The table's daemon: drivers -> one queue -> the controller loop -> journal, rules, outputs.

Modules, each small:

- ``process``      ``tablectl run`` as a process: logging, signals, the stdin console
- ``service``      start-up (devices, journal, integrity check, recovery, READY),
                   shutdown; ``Daemon`` runs in-process for tests too
- ``loop``         the controller loop (one thread): tell the time, check, record,
                   apply, show
- ``fault_handling`` sticky faults, device faults, tray alarms, the floor link's
                   trouble: to the log, the system log, the display, the floor
- ``reconfig``     configuration reload between hands, journal retention
- ``display``      what is shown beside the state; events and state as log lines
- ``recorder``     the durable step shared with replay's durable mode
- ``recovery``     the fold of the journal (latest snapshot + the events after it)
- ``snapshots``    how a snapshot of the state is stored
- ``timekeeping``  the daemon's clock (``Clock``, passed in), ticks: when time must be
                   journalled, the countdown between ticks, wall times for recall
                   and the log
- ``pinguard``     supervisor PINs kept out of the journal: digits recorded hidden,
                   the PIN file's verdict recorded with the ``ENTER`` (the keypad's
                   grammar itself is in the rules core, ``controller.rules.keypad``)
- ``inputs``       device events -> rules events and notices
- ``outputs``      state -> seat lights, clock digits, dealer display
- ``recall``       the last hands rebuilt from the journal (``tablectl recall``)

docs/daemon.md is the technician's guide.
"""
