"""Hypothesis profiles.

``ci`` (the default) draws the same examples on every run, so the test command gives
the same verdict on a clean checkout as on the machine that committed it. ``explore``
draws new examples each run and keeps the failures it finds in ``.hypothesis/``:
``HYPOTHESIS_PROFILE=explore python -m pytest``. A failure found that way goes into
the test as an ``@example`` once fixed.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
