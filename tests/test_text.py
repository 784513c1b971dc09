"""controller.rules.text: both catalogues complete and displayable; every refusal of
the rules core made from a catalogue message, in every language."""

from __future__ import annotations

import copy
import json
import pickle
import string
from pathlib import Path

import pytest

from controller.rules import BadEvent, Refusal, catalogue, parse_event, text
from controller.rules.text import phrase
from tests.keypad_tables import THREE, keys, table

RULES = Path(__file__).resolve().parents[1] / "controller" / "rules"
NUMBERS = (
    "seat",
    "to_act",
    "amount",
    "count",
    "value",
    "seconds",
    "hand",
    "tries",
    "index",
    "last",
    "call",
    "expected",
    "counted",
    "difference",
    "chips",
    "seat_from",
    "seat_to",
    "page",
    "pages",
    "shift",
    "level",
    "back",
    "add_on",
    "rebuy",
    "place",
)
SAMPLES = {name: 88 for name in NUMBERS} | {
    "verb": phrase("word.raise_to"),
    "reason": phrase("reason.capped"),
    "only": phrase("word.call_or_fold"),
    "name": phrase("word.side_pot", index=2),
    "action": phrase("word.call"),
    "choice": phrase("choice.wait_post"),
    "player": "SEAT3-H12",
    "seats": "1 4 7",
    "out": phrase("display.player_out", seat=8, place=phrase("word.place_n", place=88)),
    "digits": "1500",
    "key": "'X'",
    "stars": "****",
    "supervisor": "1042",
    "dealer": "1207",
    "witness": "2077",
    "pile": "25+25+100",
    "rule": "R14",
    "what": "TRAY UNPLUGGED",
    "round": phrase("word.round_predraw"),
    "situation": phrase("display.call", amount=40),
    "cause": phrase("stop.display_lost"),
    "version": "10.20.300",
    "digest": "6cf4d697b26e",
    "stakes": "15000/30000 A30000",  # a tournament level's blinds and ante
    "time": "88:88",  # the level's time left
}


def test_both_catalogues_have_the_same_keys() -> None:
    assert set(catalogue.EN) == set(catalogue.ES)


@pytest.mark.parametrize("key", sorted(catalogue.EN))
def test_both_catalogues_have_the_same_placeholders(key: str) -> None:
    assert text.placeholders(catalogue.EN[key]) == text.placeholders(catalogue.ES[key])


@pytest.mark.parametrize("language", catalogue.LANGUAGES)
def test_texts_are_upper_case_printable_ascii(language: str) -> None:
    for key, template in catalogue.CATALOGUES[language].items():
        literal = "".join(lit for lit, _, _, _ in string.Formatter().parse(template))
        assert all(" " <= ch <= "~" for ch in literal), (language, key)
        assert literal == literal.upper(), (language, key)


@pytest.mark.parametrize("language", catalogue.LANGUAGES)
def test_prompts_and_display_lines_fit_the_display(language: str) -> None:
    for key in catalogue.EN:
        rendered = text.render(
            (key, {n: SAMPLES[n] for n in text.placeholders(catalogue.EN[key])}), language
        )
        limit = 40 if key.split(".")[0] in ("prompt", "display", "choice", "word") else 80
        assert len(rendered) <= limit, (language, key, rendered)


def test_every_placeholder_has_a_sample() -> None:
    for template in catalogue.EN.values():
        assert text.placeholders(template) <= set(SAMPLES), template


def _refused(events: list[dict[str, object]], event: dict[str, object]) -> Refusal:
    t = table(events)
    with pytest.raises(Refusal) as refused:
        t.check(parse_event(event))
    return refused.value


def test_a_refusal_of_the_core_is_one_message_in_every_language() -> None:
    refusal = _refused(
        THREE + keys("NEXT"), {"type": "act", "seat": 8, "action": "raise", "to": 15}
    )
    assert refusal.as_dict() == {"code": "bad_amount", "message": "MIN RAISE TO 20"}
    assert text.refusal_message(refusal) == ("refuse.min", {"verb": "RAISE TO", "amount": 20})
    assert text.refusal_text(refusal, "en") == "MIN RAISE TO 20"
    assert text.refusal_text(refusal, "es") == "MINIMO SUBIR A 20"


def test_messages_inside_messages_are_translated() -> None:
    refusal = text.refuse(
        "raise_not_allowed",
        "refuse.may_only",
        seat=4,
        only=phrase("word.call_or_fold"),
        reason=phrase("reason.no_answer"),
    )
    assert refusal.message == "SEAT 4 MAY ONLY CALL OR FOLD: NO ONE LEFT TO ANSWER A RAISE"
    assert text.refusal_text(refusal, "es") == (
        "EL ASIENTO 4 SOLO PUEDE IGUALAR O NO IR: NADIE PUEDE RESPONDER A UNA SUBIDA"
    )
    situation = phrase("display.more_pots", situation=phrase("display.call", amount=40))
    assert text.render(situation.message, "es") == "IGUALA 40  NEXT: BOTES"


def test_a_malformed_line_is_shown_as_it_is() -> None:
    refusal = BadEvent("MISSING FIELD 'seat'")
    assert text.refusal_message(refusal) is None
    assert text.refusal_text(refusal, "es") == "MISSING FIELD 'seat'"


def test_a_phrase_is_its_english_in_json_and_keeps_its_message() -> None:
    """The replay output carries a phrase's English (``display_text``); copies, pickles
    and the state's records (``to_record``, journal snapshots) keep its message."""
    message = text.msg("display.round_to_act", round=phrase("word.round_draw1"), seat=2)
    assert json.dumps(text.to_json(message)) == (
        '["display.round_to_act", {"round": "DRAW 1", "seat": 2}]'
    )
    restored = text.from_json(json.loads(json.dumps(text.to_record(message))))
    for again in (copy.deepcopy(message), pickle.loads(pickle.dumps(message)), restored):
        assert text.render(again, "es") == "DESCARTE 1: HABLA EL ASIENTO 2"


def test_refuse_keeps_english_and_the_key() -> None:
    refusal = text.refuse("seat_taken", "refuse.seat_taken", seat=3)
    assert isinstance(refusal, Refusal)
    assert refusal.as_dict() == {"code": "seat_taken", "message": "SEAT 3 IS TAKEN"}
    assert text.refusal_text(refusal, "es") == "EL ASIENTO 3 ESTA OCUPADO"


def test_an_unknown_key_is_a_programming_error() -> None:
    with pytest.raises(KeyError, match="no text"):
        text.msg("no.such.key")


def test_the_configuration_offers_exactly_the_catalogues_languages() -> None:
    """`display.language` is a `Literal` for mypy; its choices are the catalogues'."""
    from controller.config.daemon import LANGUAGES

    assert LANGUAGES == catalogue.LANGUAGES
    assert set(catalogue.CATALOGUES) == set(LANGUAGES)
