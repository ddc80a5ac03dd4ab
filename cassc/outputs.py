"""Writing outputs so that a killed build never leaves a half-written file a later build would trust:
a regular output is produced under a temporary name in its final directory and renamed into place.

Only a regular file (or a name that does not exist yet) is cassc's to replace. A symbolic link is
written through, as nvcc does: its target is replaced, the link stays. Anything else at the output path
(`/dev/null`, `/dev/stdout`, another character or block device, a FIFO, a socket) is opened and written in
place, never renamed over or unlinked: configure scripts and CMake checks compile to `-o /dev/null`,
and as root a rename would replace the device with a regular file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Iterator

from cassc.errors import OutputError


def check_writable(path: Path) -> None:
    """Fail before any work is done when `path` cannot be written."""
    if _is_special(path):
        if not os.access(path, os.W_OK):
            raise OutputError(f"cannot write output '{path}': permission denied")
        return
    destination = _destination(path)
    if destination.is_dir():
        raise OutputError(f"cannot write output '{path}': it is a directory")
    directory = destination.parent if str(destination.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"cannot write output '{path}': directory '{directory}' does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write output '{path}': directory '{directory}' is not writable")
    if destination.exists() and not os.access(destination, os.W_OK):
        raise OutputError(f"cannot write output '{path}': permission denied")


@contextlib.contextmanager
def atomic_output(path: Path) -> Iterator[Path]:
    """Yields a temporary path for the output. On success a regular output is replaced by it (renamed in
    beside the destination); a device, FIFO or socket gets its bytes written in place. On failure the
    temporary is removed and the output is untouched."""
    check_writable(path)
    if _is_special(path):
        with tempfile.TemporaryDirectory(prefix="cassc-output-") as directory:
            temporary = Path(directory) / path.name
            yield temporary
            if not temporary.exists():
                raise OutputError(f"no output was produced for '{path}'")
            _write_in_place(temporary, path)
        return
    destination = _destination(path)
    directory = destination.parent if str(destination.parent) else Path(".")
    handle, name = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".cassc-tmp", dir=directory)
    os.close(handle)
    temp_path = Path(name)
    temp_path.unlink()  # the name is ours; tools such as `ar` must create the file themselves
    try:
        yield temp_path
        if not temp_path.exists():
            raise OutputError(f"no output was produced for '{path}'")
        mode = 0o777 & ~_umask()
        os.chmod(temp_path, mode if os.access(temp_path, os.X_OK) or _is_executable(temp_path) else mode & 0o666)
        os.replace(temp_path, destination)
    finally:
        temp_path.unlink(missing_ok=True)


def write_bytes_atomically(path: Path, data: bytes) -> None:
    with atomic_output(path) as temporary:
        temporary.write_bytes(data)


def is_plain_file_output(path: Path) -> bool:
    """Whether a compiler may write `path` itself: a regular file or a name not yet taken, which clang
    replaces atomically (its temporary beside the output, renamed into place), as atomic_output does. A
    link (written through) and a device or FIFO (written in place) are cassc's to write."""
    return not path.is_symlink() and not _is_special(path)


def is_replaceable(path: Path) -> bool:
    """Whether cassc may delete what is at `path` (nvcc -clean-targets): a file or a link, not a device."""
    return path.is_symlink() or path.is_file()


def _destination(path: Path) -> Path:
    """Where the output's bytes go: a symbolic link's target (nvcc writes through links), else `path`."""
    if not path.is_symlink():
        return path
    try:
        return path.resolve()
    except (OSError, RuntimeError) as error:
        raise OutputError(f"cannot write output '{path}': {getattr(error, 'strerror', None) or error}") from error


def _is_special(path: Path) -> bool:
    """An existing output that is, through any links, neither a regular file nor a directory: a device,
    FIFO or socket. The kernel follows the links (`/dev/stdout` is /proc's link to a pipe or terminal,
    which no path names)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_in_place(source: Path, path: Path) -> None:
    """Copy `source` into an existing device or FIFO, opened without creating or truncating anything (a
    FIFO's open waits for its reader, as nvcc's would)."""
    try:
        handle = os.open(path, os.O_WRONLY)
        with source.open("rb") as reader, os.fdopen(handle, "wb") as writer:
            shutil.copyfileobj(reader, writer)
    except OSError as error:
        raise OutputError(f"cannot write output '{path}': {error.strerror or error}") from error


def _is_executable(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(20)
    # ELF executables and shared objects (e_type 2 or 3) get execute permission, objects do not.
    return head[:4] == b"\x7fELF" and len(head) >= 18 and head[16] in (2, 3)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
