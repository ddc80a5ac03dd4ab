"""Errors a user can act on. Only the CLI turns them into exit codes and messages."""

from __future__ import annotations


class CasscError(Exception):
    """Base class: `str(error)` is the whole message shown to the user."""

    exit_code = 1


class UsageError(CasscError):
    """The command line is wrong (unknown option, missing value, bad combination)."""


class InputError(CasscError):
    """An input file is missing, unreadable or of a kind cassc cannot handle."""


class OutputError(CasscError):
    """An output cannot be written where the command line asks for it."""


class ToolchainError(CasscError):
    """The AMD toolchain is missing or incomplete; the message says how to fix it."""


class CompileError(CasscError):
    """A compiler or linker step failed; its own diagnostics were already printed."""


class ModelError(CasscError):
    """A repair model is missing, unreadable or unreachable; the message says what to do."""
