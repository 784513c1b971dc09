"""table-controller: firmware of a live, dealer-run casino poker table.

Its version is `pyproject.toml`'s, read where it is needed from the installed metadata
(`controller.software.version()`, `tablectl --version`)."""

from controller.clock_guard import guard as _guard_the_clock

_guard_the_clock()  # before logging is imported: a clock past 2262 (clock_guard.py)
