"""The floor link: a table's events to the casino floor system over MQTT (docs/floor.md).

    settings.py     `FloorSettings`, the `floor:` section
    topics.py       the topic tree `casino/<site>/table/<id>/...`
    messages.py     `messages_for`: the outbox rows of one journaled event (pure)
    changes.py      what an event changed, read from the states around it (pure)
    outbox.py       the outbox table, shared with the journal
    publisher.py    `Publisher`: the thread that sends the outbox, in order, on PUBACK
    inflight.py     the publisher's window of rows in flight, and which are sent
    linkstatus.py   `LinkStatus`, the link's snapshot, and the publisher's status bookkeeping
    security.py     TLS and credentials for the MQTT clients
    consumer.py     the floor's side: subscribe, parse, drop duplicates

Nothing here is imported by the daemon unless the configuration has a `floor:` section.
The private Mosquitto the tests and `bench/floor.py` start is `tests/localbroker.py`:
test-only code stays out of the firmware.
"""
