"""The floor feed's contract, `docs/floor.schema.json`, as the tests check it: every
message a test sees the daemon (or the publisher) send must validate."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "docs" / "floor.schema.json"


@cache
def _validator() -> Any:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(payload: Mapping[str, Any]) -> list[str]:
    """Every way `payload` breaks the schema, one line each."""
    return [
        f"{payload.get('kind')}: /{'/'.join(str(p) for p in error.absolute_path)}: {error.message}"
        for error in _validator().iter_errors(dict(payload))
    ]


def assert_valid(payloads: Iterable[Mapping[str, Any] | None]) -> int:
    """Validate every payload (a non-JSON payload is a failure too); how many."""
    count = 0
    found: list[str] = []
    for payload in payloads:
        count += 1
        if payload is None:
            found.append("a payload that is not a JSON object")
            continue
        found += problems(payload)
    assert not found, "\n".join(found[:20])
    return count


def guide_examples() -> list[dict[str, Any]]:
    """Every JSON example in docs/floor.md, in order (a block may hold several)."""
    text = (SCHEMA_PATH.parent / "floor.md").read_text()
    decoder = json.JSONDecoder()
    examples: list[dict[str, Any]] = []
    for block in text.split("```json\n")[1:]:
        body = block.split("```", 1)[0]
        at = 0
        while body[at:].strip():
            at += len(body[at:]) - len(body[at:].lstrip())
            example, at = decoder.raw_decode(body, at)
            examples.append(example)
    return examples
