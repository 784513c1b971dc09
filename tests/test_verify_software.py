"""`tablectl verify-software` where there is no installed release (issue 31, item 15):
in a source checkout (an editable install) it printed a digest over 0 files, which an
inspector could copy as if it were the program's."""

from __future__ import annotations

import re

import pytest

from controller import software
from controller.cli import main


def test_a_source_checkout_has_no_release_to_verify(capsys: pytest.CaptureFixture[str]) -> None:
    verdict = software.check()
    assert verdict.development, "this test runs from the project's editable install"
    assert main(["verify-software"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert not re.search(r"\b[0-9a-f]{64}\b", out + err), "no digest is printed"
    assert err == (
        "tablectl verify-software: no installed release to verify: "
        f"{verdict.unverified} (install a release: docs/install.md)\n"
    )
    assert main(["verify-software", "--seed", "00ff"]) == 1  # nor a seeded one
    out, err = capsys.readouterr()
    assert out == "" and "no installed release to verify" in err
