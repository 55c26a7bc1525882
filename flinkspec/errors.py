"""Errors every command shares."""


class CliError(Exception):
    """Bad usage: the message says what was wrong and how to fix it (exit 2)."""
