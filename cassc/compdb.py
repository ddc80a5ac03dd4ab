"""compile_commands.json entries that clangd can use for the CUDA sources cassc compiles.

Why cassc writes them (on request: `CASSC_COMPILE_COMMANDS=FILE`) rather than leaving it to the build:
CMake's CMAKE_EXPORT_COMPILE_COMMANDS and Bear record the nvcc command line, which clangd cannot read
(nvcc's options, `-x cu`, comma lists), and Bear also records the clang commands cassc runs on its
temporary hipified mirror, files that are gone when clangd opens them. Only cassc knows the clang command
that stands for an nvcc one: the entry is that command for the user's own file, compiled as HIP with the
stand-in toolkit's CUDA headers first (CUDA's names resolve to HIP's there, as in a g++ build against the
toolkit), so clangd sees the file the user edits, not the mirror.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from pathlib import Path


def entry(directory: Path, source: Path, arguments: list[str]) -> dict[str, object]:
    return {"directory": str(directory), "file": str(source), "arguments": arguments}


def record(database: Path, new: dict[str, object]) -> None:
    """Add an entry to the database (replacing the file's previous one). Parallel builds write the same
    file: under an exclusive lock, read, replace, then write a temporary file renamed into place."""
    database.parent.mkdir(parents=True, exist_ok=True)
    with open(database.with_name(database.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            entries = json.loads(database.read_text()) if database.exists() else []
        except (OSError, ValueError):
            entries = []  # a damaged database is rewritten rather than stopping the build
        entries = [e for e in entries if not (isinstance(e, dict) and e.get("file") == new["file"])] + [new]
        handle, temporary = tempfile.mkstemp(dir=database.parent, prefix=".compile_commands.")
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temporary, 0o666 & ~mask)  # mkstemp's 0600 would hide it from the rest of the team
        with os.fdopen(handle, "w") as out:
            json.dump(entries, out, indent=2)
            out.write("\n")
        os.replace(temporary, database)
