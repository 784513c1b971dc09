"""table-controller: firmware of a live, dealer-run casino poker table.

Its version is `pyproject.toml`'s, read where it is needed from the installed metadata
(`controller.software.version()`, `tablectl --version`)."""
