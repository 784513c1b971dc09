"""controller.rules.text: both catalogues complete, displayable, and covering every
refusal the rules core can raise."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from controller.rules import text
from controller.rules.errors import Refusal

RULES = Path(__file__).resolve().parents[1] / "controller" / "rules"
SAMPLES = {name: 88 for name in text.NUMBERS} | {
    "verb": "RAISE TO", "reason": "BETTING IS CAPPED", "only": "CALL OR FOLD",
    "name": "SIDE POT 2", "action": "CALL", "choice": "1 WAIT 2 POST", "player": "SEAT3-H12",
    "seats": "1 4 7", "digits": "1500", "key": "'X'", "stars": "****", "supervisor": "1042",
    "dealer": "1207", "pile": "25+25+100", "rule": "R14", "what": "TRAY UNPLUGGED",
    "round": "PREDRAW",
    "situation": "CALL 40",
}


def test_both_catalogues_have_the_same_keys() -> None:
    assert set(text.EN) == set(text.ES)


@pytest.mark.parametrize("key", sorted(text.EN))
def test_both_catalogues_have_the_same_placeholders(key: str) -> None:
    assert text.placeholders(text.EN[key]) == text.placeholders(text.ES[key])


@pytest.mark.parametrize("language", text.LANGUAGES)
def test_texts_are_upper_case_printable_ascii(language: str) -> None:
    for key, template in text.CATALOGUES[language].items():
        literal = "".join(lit for lit, _, _, _ in string.Formatter().parse(template))
        assert all(" " <= ch <= "~" for ch in literal), (language, key)
        assert literal == literal.upper(), (language, key)


@pytest.mark.parametrize("language", text.LANGUAGES)
def test_prompts_and_display_lines_fit_the_display(language: str) -> None:
    for key in text.EN:
        rendered = text.render((key, {n: SAMPLES[n] for n in text.placeholders(text.EN[key])}),
                               language)
        limit = 40 if key.split(".")[0] in ("prompt", "display", "choice", "word") else 80
        assert len(rendered) <= limit, (language, key, rendered)


def test_every_placeholder_has_a_sample() -> None:
    for template in text.EN.values():
        assert text.placeholders(template) <= set(SAMPLES), template


def _shape(node: ast.expr) -> str | None:
    """An f-string or string constant with its holes as ``{}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                parts.append("{}")
        return "".join(parts)
    return None


def _template_shapes() -> set[str]:
    shapes = set()
    for template in text.EN.values():
        shapes.add("".join(lit + ("{}" if name else "")
                           for lit, name, _, _ in string.Formatter().parse(template)))
    return shapes


def _core_messages() -> list[tuple[str, str]]:
    found = []
    for path in sorted(RULES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "Refusal" and len(node.args) >= 2):
                shape = _shape(node.args[1])
                if shape is not None:
                    found.append((f"{path.name}:{node.lineno}", shape))
            if isinstance(node, ast.FunctionDef) and node.name == "_no_raise_reason":
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        shape = _shape(ret.value)
                        if shape is not None:
                            found.append((f"{path.name}:{ret.lineno}", shape))
    return found


def test_every_refusal_of_the_rules_core_is_in_the_catalogue() -> None:
    """A refusal written as ``Refusal(code, f"...")`` anywhere in the core must match an
    English template, so that the display can show it in Spanish."""
    shapes = _template_shapes()
    missing = [f"{where}: {shape}" for where, shape in _core_messages() if shape not in shapes]
    assert not missing, "add these to controller/rules/text.py:\n" + "\n".join(missing)


@pytest.mark.parametrize("key", sorted(text.EN))
def test_parse_recovers_every_message_from_its_english(key: str) -> None:
    args = {n: SAMPLES[n] for n in text.placeholders(text.EN[key])}
    english = text.render((key, args))
    parsed = text.parse(english)
    assert parsed is not None
    assert text.render(parsed) == english
    assert text.render(parsed, "es") == text.render((key, args), "es")


def test_nested_messages_are_translated() -> None:
    message = "SEAT 4 MAY ONLY CALL OR FOLD: NO ONE LEFT TO ANSWER A RAISE"
    assert text.localize(message, "es") == (
        "EL ASIENTO 4 SOLO PUEDE IGUALAR O NO IR: NADIE PUEDE RESPONDER A UNA SUBIDA"
    )
    assert text.localize("MIN RAISE TO 40", "es") == "MINIMO SUBIR A 40"


def test_unknown_text_is_shown_as_it_is() -> None:
    assert text.localize("SOMETHING NEW", "es") == "SOMETHING NEW"


def test_refuse_keeps_english_and_the_key() -> None:
    refusal = text.refuse("seat_taken", "refuse.seat_taken", seat=3)
    assert isinstance(refusal, Refusal)
    assert refusal.as_dict() == {"code": "seat_taken", "message": "SEAT 3 IS TAKEN"}
    assert text.refusal_text(refusal, "es") == "EL ASIENTO 3 ESTA OCUPADO"
    plain = Refusal("cannot_check", "CANNOT CHECK: CALL 40 OR FOLD")
    assert text.refusal_text(plain, "es") == "NO PUEDE PASAR: IGUALA 40 O NO VA"


def test_an_unknown_key_is_a_programming_error() -> None:
    with pytest.raises(KeyError, match="no text"):
        text.msg("no.such.key")
