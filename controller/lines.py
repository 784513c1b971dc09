"""Input lines: the one place a line of text becomes an event object (docs/replay.md, bad lines).

Every input path reads its lines here: ``tablectl replay`` (plain and durable), the
daemon's console (``--stdin-events``) and the floor watcher. A line that is not valid
UTF-8, longer than ``MAX_LINE_BYTES``, nested deeper than ``MAX_DEPTH`` levels, or holds a
number outside ``±MAX_NUMBER``, NaN or Infinity, or text with an unpaired surrogate, is
refused with ``BadEvent`` naming what is wrong; the caller answers it like any refused
line and goes on with the next one. Nothing here ever raises anything else.

Lines are read as bytes in bounded chunks (``read_lines``): a 10 MB line costs at most
``MAX_LINE_BYTES`` of memory; the rest of it is read and dropped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from controller.rules.errors import BadEvent

MAX_LINE_BYTES = 64 * 1024
MAX_DEPTH = 32
MAX_NUMBER = 2**53
#: Floor messages: a state message is a few KiB; their times are nanoseconds.
MAX_DOCUMENT_BYTES = 1024 * 1024
DOCUMENT_DIGITS = 30
#: How much of a refused line the journal's audit row keeps.
AUDIT_CHARS = 256

_CHUNK = 64 * 1024
_BRACKETS = re.compile(r"[\[\]{}]")
#: A JSON string, scanned once: the loop gives back nothing (``*+``), since no
#: character it takes could end the string.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*+"', re.DOTALL)


class _Refused(Exception):
    """Raised from inside the JSON decoder's hooks; turned into ``BadEvent``."""


def read_lines(
    stream: IO[bytes], before_read: Callable[[], object] | None = None
) -> Iterator[bytes]:
    """The lines of a byte stream, each at most ``MAX_LINE_BYTES + 1`` bytes: a longer
    line is cut there (so ``decode_line`` refuses it) and its rest is dropped as it is
    read. Reads what is there (``read1``, or ``read`` of an unbuffered stream) without
    waiting for a full chunk, so a console is answered line by line. ``before_read``
    is called before each read, which may wait for the writer (the caller flushes its
    answers there)."""
    read = getattr(stream, "read1", None) or stream.read
    line = bytearray()
    too_long = False
    while True:
        if before_read is not None:
            before_read()
        chunk = read(_CHUNK)
        if not chunk:
            break
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            stop = len(chunk) if end < 0 else end + 1
            if end >= 0 and not line and stop - start <= MAX_LINE_BYTES + 1:
                yield chunk[start:stop]  # the common case: a whole line within the chunk
                start = stop
                continue
            if not too_long:
                line += chunk[start:stop]
                if len(line) > MAX_LINE_BYTES:
                    del line[MAX_LINE_BYTES + 1 :]
                    too_long = True
            start = stop
            if end >= 0:
                yield bytes(line)
                line.clear()
                too_long = False
    if line:
        yield bytes(line)


def event_lines(lines: Iterable[bytes | str]) -> Iterator[bytes | str]:
    """The lines that are events: blank lines and ``#`` comments are skipped."""
    for line in lines:
        text = line.strip()
        if isinstance(text, bytes):
            if text and not text.startswith(b"#"):
                yield text
        elif text and not text.startswith("#"):
            yield text


def decode_line(line: bytes | str) -> dict[str, Any]:
    """One input line as a JSON object, or ``BadEvent`` saying why not.

    An ordinary line (no run of 16 digits, no exponent, no ``\\u`` escape, no
    byte-order mark: ``needs_care``) is decoded by the plain decoder and not walked
    again: on it the number hooks could only return what the plain decoder makes, and
    none of its text can hold a surrogate. Any other line takes the careful path, which
    finds every refusal and words it (the two paths agree on every line:
    tests/test_lines.py)."""
    text = _text(line.strip())
    _check_depth(text)
    if not needs_care(text):
        # the plain decoder's scanner itself (``JSONDecoder.decode`` is Python around
        # it): the text is stripped, so a whole object ends at its end; anything else
        # (a syntax error, extra data, not an object) is worded by the careful path
        try:
            obj, end = _PLAIN_SCAN(text, 0)
        except (StopIteration, ValueError, _Refused):  # NaN or Infinity: _constant
            end = -1
        if end == len(text) and type(obj) is dict:
            return obj
    obj = _careful_object(text)
    check_value(obj)
    return obj


@dataclass(frozen=True, slots=True)
class Admitted:
    """What an input comes to (``admit``): the event object to hand to the rules
    (``obj``), or, when it is refused, None, why (``refusal``: ``BadEvent``'s message)
    and what the journal keeps of it (``audit``)."""

    obj: dict[str, Any] | None
    refusal: str = ""
    audit: str = ""


def admit(given: bytes | str | dict[str, Any]) -> Admitted:
    """One input, read once: a line (``decode_line``) or an object handed in directly
    (``check_value``), with the verdict and, for a refused one, its audit text
    (``audit_text``). Never raises."""
    if isinstance(given, dict):
        try:
            check_value(given)
        except BadEvent as refusal:
            return Admitted(None, refusal.message, audit_text(shown(given)))
        return Admitted(given)
    try:
        return Admitted(decode_line(given))
    except BadEvent as refusal:
        return Admitted(None, refusal.message, audit_text(given))


def needs_care(text: str) -> bool:
    """Whether only ``decode_line``'s careful path decodes ``text`` right: it may hold
    a number out of range (16 digits or more, an exponent), an unpaired surrogate (a
    ``\\u`` escape) or a byte-order mark (which ``json.loads`` words its own way)."""
    return "\\u" in text or text.startswith("\ufeff") or _LONG_OR_EXPONENT.search(text) is not None


def decode_document(payload: bytes | bytearray | str) -> Any:
    """A floor message: any JSON value of at most ``MAX_DOCUMENT_BYTES``, nested at most
    ``MAX_DEPTH`` levels, no NaN or Infinity, integers of at most ``DOCUMENT_DIGITS``
    digits (its nanosecond times are past 2^53), or ``BadEvent``."""
    raw = bytes(payload) if isinstance(payload, bytearray) else payload
    text = _text(raw, MAX_DOCUMENT_BYTES)
    _check_depth(text)
    try:
        document = json.loads(
            text, parse_int=_document_int, parse_float=_document_float, parse_constant=_constant
        )
    except _Refused as refused:
        raise BadEvent(str(refused)) from None
    except (RecursionError, ValueError) as error:
        raise BadEvent(f"NOT JSON: {getattr(error, 'msg', type(error).__name__)}") from None
    check_value(document, numbers=False)
    return document


def check_value(value: Any, *, numbers: bool = True) -> None:
    """Refuse an object handed in directly (a console, the bench) that no line could
    carry: nested too deep, a number out of range (with ``numbers``), NaN, or
    unencodable text."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth > MAX_DEPTH:
                raise BadEvent(f"NESTED DEEPER THAN {MAX_DEPTH} LEVELS")
            children = list(item.items()) if isinstance(item, dict) else [(None, v) for v in item]
            for key, child in children:
                if isinstance(key, str):
                    _check_text(key)
                stack.append((child, depth + 1))
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if numbers and not -MAX_NUMBER <= item <= MAX_NUMBER:
                raise BadEvent(_out_of_range())
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise BadEvent("NaN AND Infinity ARE NOT NUMBERS")
            if numbers and not -MAX_NUMBER <= item <= MAX_NUMBER:
                raise BadEvent(_out_of_range())
        elif isinstance(item, str):
            _check_text(item)


def audit_text(line: bytes | str) -> str:
    """What the journal keeps of a refused line: its start, readable, and its length."""
    if isinstance(line, bytes):
        size = len(line)
        text = line[: AUDIT_CHARS * 4].decode("utf-8", errors="replace")
    else:
        text = line.encode("utf-8", errors="replace").decode("utf-8")
        size = len(text)
    if len(text) <= AUDIT_CHARS:
        return text
    return f"{text[:AUDIT_CHARS]}... ({size} {'bytes' if isinstance(line, bytes) else 'chars'})"


def shown(value: Any) -> str:
    """``repr`` of an object for a message, whatever it holds (``repr`` itself fails on
    deep nesting or an integer of thousands of digits)."""
    try:
        return repr(value)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__} that cannot be shown>"


def _text(line: bytes | str, limit: int = MAX_LINE_BYTES) -> str:
    size = len(line.encode("utf-8", errors="replace")) if isinstance(line, str) else len(line)
    if size > limit:
        raise BadEvent(f"LINE LONGER THAN {limit} BYTES")
    if isinstance(line, str):
        _check_text(line)
        return line
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadEvent(f"NOT UTF-8 TEXT: BAD BYTE AT POSITION {error.start + 1}") from None


def _check_depth(text: str) -> None:
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return  # the common case: too few brackets to nest too deep
    depth = 0
    for bracket in _BRACKETS.findall("".join(outside_strings(text))):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            raise BadEvent(f"NESTED DEEPER THAN {MAX_DEPTH} LEVELS")


def outside_strings(text: str) -> list[str]:
    """The pieces of ``text`` outside its JSON strings (the brackets that nest), each
    character looked at once: a string is scanned from its opening quote to its end
    (``_STRING``). When one has no end, no string can start after it (every quote
    after it is escaped inside it, so a scan from there reads the same characters to
    the same end), and the rest of the text is taken as it is: the pieces a search
    for every string would leave, without searching again from each of thousands of
    quotes (which took a 64 KiB line tens of seconds)."""
    pieces = []
    start = 0
    while (quote := text.find('"', start)) >= 0:
        string = _STRING.match(text, quote)
        if string is None:
            break
        pieces.append(text[start:quote])
        start = string.end()
    pieces.append(text[start:])
    return pieces


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadEvent("TEXT WITH AN UNPAIRED SURROGATE (NOT UNICODE)") from None


def _out_of_range() -> str:
    return f"NUMBER OUT OF RANGE (AT MOST 2^53 = {MAX_NUMBER} EITHER WAY)"


def _careful_object(text: str) -> dict[str, Any]:
    """``text`` decoded with every number hook, or ``BadEvent`` wording what is wrong."""
    try:
        obj = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except _Refused as refused:
        raise BadEvent(str(refused)) from None
    except json.JSONDecodeError as error:
        raise BadEvent(f"NOT JSON: {error.msg} AT COLUMN {error.colno}") from None
    except (RecursionError, ValueError) as error:  # not expected past the checks above
        raise BadEvent(f"NOT JSON: {type(error).__name__}") from None
    if not isinstance(obj, dict):
        raise BadEvent("AN EVENT MUST BE A JSON OBJECT")
    return obj


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > len(str(MAX_NUMBER)):
        raise _Refused(_out_of_range())
    number = int(digits)
    if not -MAX_NUMBER <= number <= MAX_NUMBER:
        raise _Refused(_out_of_range())
    return number


def _float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number) or not -MAX_NUMBER <= number <= MAX_NUMBER:
        raise _Refused(_out_of_range())
    return number


def _document_int(digits: str) -> int:
    if len(digits.lstrip("-")) > DOCUMENT_DIGITS:
        raise _Refused(f"NUMBER OF MORE THAN {DOCUMENT_DIGITS} DIGITS")
    return int(digits)


def _document_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Refused(_out_of_range())
    return number


def _constant(name: str) -> float:
    raise _Refused(f"{name} IS NOT A NUMBER JSON ALLOWS (NaN AND Infinity ARE REFUSED)")


#: The scanner (C) of a plain decoder made once, which ``JSONDecoder.decode`` calls
#: (typeshed does not list the attribute).
_PLAIN_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(
    parse_constant=_constant
).scan_once  # type: ignore[attr-defined]
#: A run of 16 digits (an integer of 15 is always inside ±2^53), or an exponent.
_LONG_OR_EXPONENT = re.compile(r"[0-9](?:[0-9]{15}|[eE])")
