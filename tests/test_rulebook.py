"""docs/rulebook.md: every rule id of the rule book, and every id the controller shows
(display texts, the docs) leads there; no document links outside the repository
(issue 11 item 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BOOK = DOCS / "rulebook.md"
#: every id of the project's rule book (docs/rulebook.md), section by section
RULE_IDS = [
    "B1",
    "B2",
    "B3",
    "B4",
    "B5",
    "B6",
    "B7",
    "B8",
    "B9",
    "B10",
    "B10a",
    "B10b",
    "B11",
    "B12",
    "B13",
    "B14",
    "B15",
    "B16",
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "P6",
    "R1",
    "R2",
    "R3",
    "R4",
    "R5",
    "R6",
    "R6b",
    "R7",
    "R8",
    "R10",
    "R11",
    "R12",
    "R13",
    "R14",
    "R15",
    "R16",
    "A1",
    "A2",
    "A3",
    "T1",
    "T2",
    "T3",
    "T4",
    "T5",
    "T6",
    "T7",
    "T8",
]
ID = re.compile(
    r"(?<![\w#/`.-])(" + "|".join(sorted(RULE_IDS, key=len, reverse=True)) + r")(?![\w`-])"
)
LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def headings(path: Path) -> set[str]:
    return {
        anchor(line.lstrip("#")) for line in path.read_text().splitlines() if line.startswith("#")
    }


def prose(path: Path) -> list[str]:
    """The lines of ``path`` outside code blocks and headings, code spans blanked."""
    lines, fence = [], False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence and not line.startswith("#"):
            lines.append(re.sub(r"`[^`]*`", "``", line))
    return lines


def test_the_rule_book_has_every_rule_id_with_behaviour_and_knob() -> None:
    text = BOOK.read_text()
    found = re.findall(r"^### (\S+)$", text, re.M)
    assert found == RULE_IDS
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        rule_id = block.split()[0]
        assert "**Rule**" in block and "**The controller**" in block, rule_id
        assert "**Knob**" in block, rule_id


DOCUMENTS = sorted(p for p in DOCS.glob("*.md") if p.name != "rules.md")


@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_every_rule_id_in_the_docs_links_to_the_rule_book(path: Path) -> None:
    target = "" if path == BOOK else "rulebook.md"
    for line in prose(path):
        for label, href in LINK.findall(line):
            if ID.fullmatch(label):
                assert href == f"{target}#{label.lower()}", (path.name, line)
        bare = ID.findall(LINK.sub("", line))
        assert not bare, (path.name, bare, line)


def test_rules_md_leads_to_the_rule_book() -> None:
    assert "(rulebook.md)" in (DOCS / "rules.md").read_text()


def test_every_rule_id_the_display_can_show_is_in_the_rule_book() -> None:
    shown = set()
    for source in (ROOT / "controller").rglob("*.py"):
        shown |= set(re.findall(r"[\"']([BPR]\d{1,2}[ab]?)[\"']", source.read_text()))
    assert shown, "the display names rules (READ AS CALL (R15))"
    assert shown <= set(RULE_IDS), shown - set(RULE_IDS)


MARKDOWN = sorted([*DOCS.glob("*.md"), ROOT / "README.md"])


@pytest.mark.parametrize("path", MARKDOWN, ids=[p.name for p in MARKDOWN])
def test_no_link_leaves_the_repository_and_every_anchor_exists(path: Path) -> None:
    text = path.read_text()
    assert "../shared" not in text and "/work/" not in text
    for _, href in LINK.findall(text):
        assert "://" not in href and not href.startswith("/"), (path.name, href)
        file, _, fragment = href.partition("#")
        where = (path.parent / file).resolve() if file else path
        assert where.is_relative_to(ROOT) and where.exists(), (path.name, href)
        if fragment and where.suffix == ".md":
            assert fragment in headings(where), (path.name, href)
