"""docs/compliance.md names, for each requirement a regulator or laboratory checks, the
tests that prove it: every test it names exists (a renamed or deleted test fails here),
every row has a status, and the rows the issue asked for are all there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MATRIX = ROOT / "docs" / "compliance.md"
NAMED = re.compile(r"`(tests/[A-Za-z0-9_/]+\.py)::([A-Za-z0-9_]+)`")
#: A replay scenario named by its file (run by ``tests/test_scenarios.py::test_scenario``).
SCENARIO = re.compile(r"`([A-Za-z0-9_]+\.yaml)`")
STATUSES = ("met", "partial", "not met")
#: The requirements the matrix must hold a row for (issue 24 item 7).
REQUIRED = (
    "25 CFR 547.10 (a)",
    "25 CFR 547.10 (b)",
    "25 CFR 547.10 (c)",
    "25 CFR 547.9",
    "25 CFR 543.10 (e)",
    "N.J.A.C. 13:69E-1.28P (d)",
    "N.J.A.C. 13:69E-1.28P (e)",
    "N.J.A.C. 13:69E-1.28P (f)",
    "AGCO 6.1.1",
    "AGCO 6.1.3",
    "AGCO 6.1.4",
    "AGCO 6.1.7",
    "AGCO 6.1.8",
    "AGCO 12.2.1",
    "AGCO 12.3.1",
    "AGCO 22.1.1",
    "AGCO 22.1.2",
    "AGCO 22.1.3",
    "AGCO 13.1.1",
    "AGCO 13.1.3",
    "AGCO 13.1.4",
    "AGCO 15.1.x",
    "9 NYCRR 5317.26",
    "13 Miss. Code R. 8-4.5",
    "GLI significant events",
    "GLI door",
    "GLI play history",
    "GLI critical memory",
    "GLI program verification",
)


def rows() -> list[list[str]]:
    """The matrix's table rows (header and rule rows aside), cell by cell."""
    found = []
    for line in MATRIX.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("| id ") or set(line) <= set("|- "):
            continue
        found.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return found


def missing_tests(text: str) -> list[str]:
    """The tests ``text`` names (`tests/FILE.py::TEST`, or a scenario `NAME.yaml`) that do
    not exist."""
    missing = []
    for path, test in NAMED.findall(text):
        source = ROOT / path
        if not source.is_file() or not re.search(
            rf"^def {test}\(", source.read_text(encoding="utf-8"), re.M
        ):
            missing.append(f"{path}::{test}")
    for name in SCENARIO.findall(text):
        if not (ROOT / "tests" / "scenarios" / name).is_file():
            missing.append(f"tests/scenarios/{name}")
    return missing


def test_every_test_the_matrix_names_exists() -> None:
    text = MATRIX.read_text(encoding="utf-8")
    assert len(NAMED.findall(text)) > 30
    missing = missing_tests(text)
    assert not missing, f"docs/compliance.md names tests that do not exist: {missing}"


def test_every_row_has_a_status_and_every_required_row_is_there() -> None:
    table = rows()
    ids = [row[0] for row in table]
    assert [r for r in REQUIRED if r not in ids] == []
    for row in table:
        assert len(row) == 5, row
        assert row[4].split(":")[0].split(" (")[0] in STATUSES, row
        if row[4] != "not met":  # what is met is proved by a named test
            assert NAMED.search(row[3]), row


def test_the_checker_fails_on_a_test_that_does_not_exist() -> None:
    """The check can fail: a test renamed, a file gone."""
    assert missing_tests(
        "`tests/test_compliance.py::test_no_such_test` `tests/test_gone.py::test_x` "
        "`tests/test_compliance.py::test_every_test_the_matrix_names_exists` "
        "`P6_door_open_stops_play.yaml` `P6_no_such_scenario.yaml`"
    ) == [
        "tests/test_compliance.py::test_no_such_test",
        "tests/test_gone.py::test_x",
        "tests/scenarios/P6_no_such_scenario.yaml",
    ]
