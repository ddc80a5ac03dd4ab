"""Writing outputs so that a killed build never leaves a half-written file a later build would trust:
every output is produced under a temporary name in its final directory and renamed into place."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

from cassc.errors import OutputError


def check_writable(path: Path) -> None:
    """Fail before any work is done when `path` cannot be written."""
    directory = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"cannot write output '{path}': it is a directory")
    if not directory.is_dir():
        raise OutputError(f"cannot write output '{path}': directory '{directory}' does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write output '{path}': directory '{directory}' is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"cannot write output '{path}': permission denied")


@contextlib.contextmanager
def atomic_output(path: Path) -> Iterator[Path]:
    """Yields a temporary path beside `path`; on success it replaces `path`, on failure it is removed."""
    check_writable(path)
    directory = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".cassc-tmp", dir=directory)
    os.close(handle)
    temp_path = Path(temporary)
    temp_path.unlink()  # the name is ours; tools such as `ar` must create the file themselves
    try:
        yield temp_path
        if not temp_path.exists():
            raise OutputError(f"no output was produced for '{path}'")
        mode = 0o777 & ~_umask()
        os.chmod(temp_path, mode if os.access(temp_path, os.X_OK) or _is_executable(temp_path) else mode & 0o666)
        os.replace(temp_path, path)
    finally:
        temp_path.unlink(missing_ok=True)


def write_bytes_atomically(path: Path, data: bytes) -> None:
    with atomic_output(path) as temporary:
        temporary.write_bytes(data)


def _is_executable(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(20)
    # ELF executables and shared objects (e_type 2 or 3) get execute permission, objects do not.
    return head[:4] == b"\x7fELF" and len(head) >= 18 and head[16] in (2, 3)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
