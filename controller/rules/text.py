"""Every text shown to dealers and players, in English and Spanish.

A text is a *message*: a catalogue key and its arguments, ``("display.to_act",
{"seat": 7})``. ``render`` turns it into words in one language; ``display.language``
(``en`` | ``es``) picks the language in the daemon. The rules core speaks English in
its replay output (``Refusal.message``, the state's ``display``); every such text is
made from its message here, never written out where it is used, so each text has one
source.

A refusal (``refuse``) is an error code and a message: its English ``message`` and its
words in any language are both rendered from the message. A message inside another
(``MIN {verb} 40`` with ``RAISE TO``, a pot's name, a betting round's) is a ``Phrase``:
its English words, as the replay output and JSON carry them, that keep their message,
so the outer message renders them in its own language.

The catalogues themselves, and the rules they keep, are in ``catalogue.py``.
"""

from __future__ import annotations

from typing import Any

from controller.rules.catalogue import CATALOGUES, EN
from controller.rules.errors import Refusal

Message = tuple[str, dict[str, object]]

#: Draw games: the betting rounds' names on the dealer display (flop games show none:
#: the board tells the dealer where the hand is).
ROUND_WORDS = {
    "predraw": "word.round_predraw",
    "draw1": "word.round_draw1",
    "draw2": "word.round_draw2",
    "draw3": "word.round_draw3",
}


def round_word(phase: str) -> Phrase | None:
    """The name of a draw game's betting round (``DRAW 1``), else None."""
    key = ROUND_WORDS.get(phase)
    return phrase(key) if key is not None else None


def placeholders(template: str) -> set[str]:
    import string  # the catalogue tests' question: the firmware's start does without it

    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def msg(key: str, /, **args: object) -> Message:
    """A message; an unknown key is a programming error, raised at once."""
    if key not in EN:
        raise KeyError(f"no text {key!r} in the catalogue")
    return key, args


def render(message: Message, language: str = "en") -> str:
    key, args = message
    catalogue = CATALOGUES.get(language, EN)
    template = catalogue.get(key) or EN[key]
    values = {
        name: (render(value.message, language) if isinstance(value, Phrase) else value)
        for name, value in args.items()
    }
    return template.format(**values)


class Phrase(str):
    """A message used inside another message: the English words (what the replay
    output, the journal and JSON hold), keeping the message they were rendered from so
    that ``render`` shows them in the outer message's language."""

    message: Message

    def __new__(cls, message: Message) -> Phrase:
        self = super().__new__(cls, render(message))
        self.message = message
        return self

    def __reduce__(self) -> tuple[object, ...]:  # copies and pickles keep the message
        return Phrase, (self.message,)


def phrase(key: str, /, **args: object) -> Phrase:
    """The message ``key`` as an argument of another message."""
    return Phrase(msg(key, **args))


def refuse(code: str, key: str, /, **args: object) -> Refusal:
    """A refusal (raise it): the replay contract's ``code``, and the catalogue message
    its English ``message`` and its words in every language are made from."""
    message = msg(key, **args)
    return Refusal(code, render(message), key=key, key_args=args)


def refusal_message(refusal: Refusal) -> Message | None:
    """The catalogue message of a refusal of the rules; None for a malformed event
    (``BadEvent``), whose message quotes the line and is shown as it is."""
    return (refusal.key, refusal.key_args) if refusal.key is not None else None


def refusal_text(refusal: Refusal, language: str) -> str:
    """A refusal's words in ``language``."""
    said = refusal_message(refusal)
    return render(said, language) if said is not None else refusal.message


def to_json(message: Message) -> list[object]:
    """A message as JSON: a ``Phrase`` argument stays a string, its English words
    (the state view's ``display_text``)."""
    key, args = message
    return [key, dict(args)]


def to_record(message: Message) -> list[object]:
    """A message to keep in the table's state (journal snapshots): a ``Phrase``
    argument kept as its message, so that it is shown in any language after a restart."""
    key, args = message
    return [
        key,
        {
            name: ({"phrase": to_record(value.message)} if isinstance(value, Phrase) else value)
            for name, value in args.items()
        },
    ]


def from_json(data: Any) -> Message:
    """A message from ``to_json`` or ``to_record``."""
    key, args = data
    return str(key), {
        name: (Phrase(from_json(value["phrase"])) if isinstance(value, dict) else value)
        for name, value in dict(args).items()
    }
