"""Subcommands of `tablectl`; see controller/cli.py for the protocol."""
