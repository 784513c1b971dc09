"""The dealer keypad's grammar, as pure state folded like every other event.

Keys (docs/replay.md, ``key``; docs/dealer.md): ``0``-``9``, ``FOLD``, ``CHECK`` (checks, or calls facing a bet),
``BET`` digits ``ENTER`` (bet or raise to a total), ``ALLIN``, ``ENTER``, ``CLEAR``,
``CLOCK``, ``NEXT`` (start the next hand when idle), ``FUNC`` (menus); and
``HIDDEN_DIGIT`` (``*``), a PIN digit as the shell records it. ``FOLD``,
``CHECK`` and ``ALLIN`` act at once for the seat to act. A refused key changes nothing
in the game; after a refused ``ENTER`` the digits keyed for it are gone, the prompt
stays (``Table.refused``).

Each key sequence ends in an ordinary rules event (``act``, ``sit``, ``award``,
``push``, ``misdeal`` ...) that the table checks and applies like any other; the
keypad's own state (the unfinished entry, the signed-in dealer, the PIN lock-out) lives
in ``TableState.keypad`` so that it is journalled, snapshotted and replayed.

Modules: ``grammar`` (what each key does), ``betting`` (the fast path), ``menus``
(FUNC 1-6, 8), ``award`` (FUNC 7), ``push`` (FUNC 9), ``supervisor`` (FUNC 0),
``prompt`` (the display while an entry is unfinished); ``modes`` (each entry mode's
row: the function reading its keys, its prompt, the keys ending its number). ``docs/dealer.md`` is the card.

Why in the rules core and not in the shell (where the project's first layout sketch put it):
which key is legal depends on the table's state, and an entry half keyed when the
power goes must come back with the state, so the grammar is pure and its state is
folded from the journal like the rest. The line with the shell runs at supervisor
PINs: the shell owns the PIN file, the hashing and the verdict, and keeps the digits
out of the journal (``controller.daemon.pinguard`` records ``HIDDEN_DIGIT`` and the
``ENTER``'s ``pin_ok``); the grammar takes that verdict, or else asks the verifier the
shell injected into the ``Table``.
"""

from controller.rules.keypad.base import HIDDEN_DIGIT, KEYS
from controller.rules.keypad.grammar import after_refusal, check, press, translate
from controller.rules.keypad.modes import prompt, view
from controller.rules.keypad.prompt import (
    collecting_pin,
    notice,
    pin_entry,
    signed_in,
    supervisor_in,
)
from controller.rules.keypad.supervisor import LOCKOUT_MS, MAX_PIN_TRIES, locked_ms

__all__ = [
    "HIDDEN_DIGIT",
    "KEYS",
    "LOCKOUT_MS",
    "MAX_PIN_TRIES",
    "after_refusal",
    "check",
    "collecting_pin",
    "locked_ms",
    "notice",
    "pin_entry",
    "press",
    "prompt",
    "signed_in",
    "supervisor_in",
    "translate",
    "view",
]
