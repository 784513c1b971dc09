"""``controller.lines``: an ordinary line takes the plain decoder's fast path, any other
the careful path; on every line, hostile or not, the two give the same object or the
same refusal message, word for word."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller import lines
from controller.lines import decode_line, needs_care
from controller.rules import BadEvent
from tests.test_hostile_lines import HOSTILE


def outcome(line: bytes | str) -> tuple[str, str]:
    """What ``decode_line`` makes of a line: the object (``repr`` tells 1 from 1.0 and
    -0.0 from 0.0) or the refusal's message."""
    try:
        return "decoded", repr(decode_line(line))
    except BadEvent as refusal:
        return "refused", refusal.message


@contextmanager
def every_line_careful() -> Iterator[None]:
    """``decode_line`` with every line taking its careful path."""
    screen = lines.needs_care
    lines.needs_care = lambda text: True
    try:
        yield
    finally:
        lines.needs_care = screen


def assert_paths_agree(line: bytes | str) -> None:
    fast = outcome(line)
    with every_line_careful():
        careful = outcome(line)
    assert fast == careful, line


EDGES: list[bytes | str] = [
    b'{"type": "sit", "seat": 1, "player": "ana", "chips": 1000}',
    b'{"type": "act", "seat": 3, "action": "raise", "to": 120, "by": "d17"}',
    b'{"type": "tray", "counts": {"5": 100, "25": 40}}',
    b'{"a": 1.5, "b": -0.0, "c": -0, "d": 0.1, "e": 123456789012345.6}',
    b'{"a": 999999999999999, "b": -999999999999999}',  # 15 digits: the fast path
    b'{"a": 9007199254740992, "b": -9007199254740992}',  # 2^53: in range, careful
    b'{"a": 9007199254740993}',
    b'{"a": 1e3, "b": 1E-3, "c": 2.5e+2}',
    b'{"a": 1e400}',
    b'{"a": -1e400}',
    b'{"a": NaN}',
    b'{"a": -Infinity, "b": "\\ud800"}',
    b'{"a": "\\ud83d\\ude00"}',  # a pair: fine
    b'{"a": "\\udc00\\ud83d"}',
    b'{"\\ud800": 1}',
    b'{"a": "\\\\u"}',  # an escaped backslash, then u: careful, and fine
    b'{"a": "\\u00e9", "b": "\xc3\xa9"}',
    b'\xef\xbb\xbf{"a": 1}',  # a byte-order mark
    "\ufeff{}",
    b"{}",
    b"[1, 2]",
    b'"text"',
    b"12",
    b"null",
    b"",
    b"{",
    b'{"a": 1} x',
    b'{"a": 01}',
    b'{"a": 1.}',
    b'{"a": -}',
    b'{"a": [' + b"[" * 31 + b"]" * 31 + b"]}",
    b'{"a": [' + b"[" * 32 + b"]" * 32 + b"]}",
    b'{"a": "' + b"[" * 40 + b'"}',
    b'{"a": "\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\""}',
    '{"a": "\ud800"}',  # a str line holding a surrogate itself
    '{"a": "é", "b": 1}',
    b"\xff",
]


@pytest.mark.parametrize("line", [*(line for line, _ in HOSTILE), *EDGES])
def test_the_fast_and_careful_paths_agree_on_hostile_and_edge_lines(line: bytes | str) -> None:
    assert_paths_agree(line)


def test_the_careful_path_is_taken_only_where_it_is_needed() -> None:
    assert not needs_care('{"type": "act", "seat": 3, "action": "raise", "to": 120}')
    assert not needs_care('{"a": 999999999999999, "b": "e", "c": "1 e"}')
    assert needs_care('{"a": 1234567890123456}')
    assert needs_care('{"a": 1e5}')
    assert needs_care('{"a": 1.5E-5}')
    assert needs_care('{"a": "\\ud800"}')
    assert needs_care('\ufeff{"a": 1}')


#: Pieces of JSON text, hostile ones among them, for lines put together at random.
PIECES = [
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    " ",
    '"type"',
    '"a"',
    "-",
    ".",
    "e",
    "E",
    "+",
    "0",
    "7",
    "9" * 15,
    "9" * 16,
    "9007199254740993",
    "\\u",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\\\\",
    "\\",
    "NaN",
    "Infinity",
    "true",
    "null",
    "\ufeff",
    "é",
    "\ud800",
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.integers(min_value=-(10**16), max_value=10**16)
    | st.floats()
    | st.text(st.sampled_from('ab "\\é\u2028\ud800\udc00\U0001f600[{'), max_size=6),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(st.sampled_from("ab\ud800"), max_size=3), children, max_size=3)
    ),
    max_leaves=12,
)


@given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join), st.booleans())
def test_the_paths_agree_on_lines_put_together_at_random(text: str, as_bytes: bool) -> None:
    assert_paths_agree(text.encode("utf-8", errors="surrogatepass") if as_bytes else text)


@given(
    st.dictionaries(st.sampled_from(["type", "seat", "a", "\ud800"]), json_values, max_size=4),
    st.booleans(),
    st.booleans(),
)
def test_the_paths_agree_on_json_objects(
    obj: dict[str, object], ensure_ascii: bool, as_bytes: bool
) -> None:
    text = json.dumps(obj, ensure_ascii=ensure_ascii)
    assert_paths_agree(text.encode("utf-8", errors="surrogatepass") if as_bytes else text)


#: The depth check's old view of a line's strings: a search for every string, which
#: tries again from each quote when one has no end.
SEARCHED_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


@pytest.mark.slow  # a property test: out of the edit loop
def test_the_pieces_outside_strings_are_those_a_search_for_every_string_leaves() -> None:
    """Every text of up to seven characters made of quotes, backslashes, brackets and a
    letter: the same brackets outside strings as ``re.sub`` over every string."""
    for size in range(8):
        for letters in itertools.product('"\\[{]a', repeat=size):
            text = "".join(letters)
            searched = SEARCHED_STRINGS.sub('""', text)
            assert re.findall(r"[\[\]{}]", "".join(lines.outside_strings(text))) == re.findall(
                r"[\[\]{}]", searched
            ), text


@pytest.mark.parametrize(
    "line",
    [
        "[" * 33 + '"\\' * 32_000,  # thousands of quotes, each escaped inside the first
        "{" * 33 + '"' + '\\"' * 32_000,
        "[" * 33 + '"a' * 32_000,
    ],
)
def test_a_line_of_thousands_of_unended_strings_is_read_once(
    line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The depth check scans each character of a line once: a string is looked for
    only after the last one found, and after one without an end no more. (A search
    from each of these lines' quotes took tens of seconds a line: the daemon's
    console and the floor watcher, whose messages are up to 1 MiB, stalled on one.)"""
    scans: list[tuple[int, int | None]] = []
    string = lines._STRING

    class Scanned:
        def match(self, text: str, start: int) -> re.Match[str] | None:
            found = string.match(text, start)
            scans.append((start, found.end() if found else None))
            return found

    monkeypatch.setattr(lines, "_STRING", Scanned())
    with pytest.raises(BadEvent, match="NESTED DEEPER THAN 32"):
        decode_line(line)
    for (_, end), (start, _) in itertools.pairwise(scans):
        assert end is not None and start >= end  # only the last may find no end


@pytest.mark.parametrize("line", [*(line for line, _ in HOSTILE), *EDGES])
def test_admit_reads_a_line_once_into_its_verdict_and_its_audit_text(line: bytes | str) -> None:
    """What the recorder journals of a line comes from one call (``admit``): the object
    ``decode_line`` makes, or its refusal with the audit text of the line."""
    read = lines.admit(line)
    try:
        obj = decode_line(line)
    except BadEvent as refusal:
        assert read == lines.Admitted(None, refusal.message, lines.audit_text(line))
    else:
        assert read == lines.Admitted(obj)


def test_admit_refuses_an_object_no_line_could_carry_with_its_audit_text() -> None:
    deep: list[object] = []
    for _ in range(lines.MAX_DEPTH + 1):
        deep = [deep]
    for bad, words in (
        ({"type": "act", "seat": 2**60}, "NUMBER OUT OF RANGE"),
        ({"type": "act", "to": float("nan")}, "NaN AND Infinity"),
        ({"type": "sit", "player": "\ud800"}, "UNPAIRED SURROGATE"),
        ({"type": "act", "x": deep}, "NESTED DEEPER"),
    ):
        read = lines.admit(bad)
        assert read.obj is None and words in read.refusal
        assert read.audit == lines.audit_text(lines.shown(bad))
    good = {"type": "act", "seat": 1, "action": "call"}
    assert lines.admit(good) == lines.Admitted(good)
