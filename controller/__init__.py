"""table-controller: firmware of a live, dealer-run casino poker table."""

__version__ = "0.1.0"
