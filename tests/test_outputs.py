"""Outputs that are not cassc's to replace: devices, FIFOs and sockets are written in place (or left
alone), symbolic links are written through, and -E / -M without -o write to stdout. Regular outputs are
still renamed into place."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from conftest import write

KERNEL = "__global__ void k(int* p) { *p = 1; }\nint main() { k<<<1, 1>>>(nullptr); }\n"
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")


def device(path: Path, major: int, minor: int) -> Path:
    """A private character device node (1,3 is the null device, 1,7 the full one)."""
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
    return path


def is_device(path: Path, major: int, minor: int) -> bool:
    status = path.lstat()
    return stat.S_ISCHR(status.st_mode) and status.st_rdev == os.makedev(major, minor)


@needs_root
def test_a_device_output_is_written_in_place_never_replaced(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    null = device(tmp_path / "null", 1, 3)
    cassc("-c", "k.cu", "-o", "null")
    cassc("k.cu", "-o", "null")  # the link phase too
    cassc("-M", "k.cu", "-MF", "null")
    assert is_device(null, 1, 3)
    cassc("-clean-targets", "k.cu", "-o", "null")
    assert is_device(null, 1, 3)

    full = device(tmp_path / "full", 1, 7)  # every write fails: cassc says so and leaves the device
    result = cassc("-c", "k.cu", "-o", "full", check=False)
    assert result.returncode == 1 and "cannot write output 'full': No space left on device" in result.stderr
    assert is_device(full, 1, 7)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "full", "k.cu", "null"]  # no temporary left


def test_a_fifo_output_gets_the_bytes_and_stays_a_fifo(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    fifo = tmp_path / "pipe.o"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    cassc("-c", "k.cu", "-o", "pipe.o")
    reader.join(timeout=60)
    assert received and received[0][:4] == b"\x7fELF"
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_socket_output_is_left_alone(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "k.o"))
        result = cassc("-c", "k.cu", check=False)
        assert result.returncode == 1 and "cannot write output 'k.o': No such device or address" in result.stderr
        assert stat.S_ISSOCK((tmp_path / "k.o").lstat().st_mode)


def test_a_symlink_output_is_written_through(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    (tmp_path / "objects").mkdir()
    (tmp_path / "k.o").symlink_to("objects/real.o")  # dangling until the compile
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_symlink() and os.readlink(tmp_path / "k.o") == "objects/real.o"
    assert (tmp_path / "objects" / "real.o").read_bytes()[:4] == b"\x7fELF"
    assert sorted(p.name for p in (tmp_path / "objects").iterdir()) == ["real.o"]


def test_preprocess_and_dependencies_without_o_go_to_stdout(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    assert "void k(int* p)" in cassc("-E", "k.cu").stdout
    assert cassc("-M", "k.cu").stdout.startswith("k.o : \\\n    k.cu")
    # /dev/stdout's own link, private (a regression must not replace the machine's): a pipe here
    (tmp_path / "stdout").symlink_to("/proc/self/fd/1")
    assert "void k(int* p)" in cassc("-E", "k.cu", "-o", "stdout").stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu", "stdout"]


def test_a_regular_output_is_replaced_by_a_rename(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    old = write(tmp_path / "k.o", "old")
    inode = old.stat().st_ino
    keep = os.open(old, os.O_RDONLY)  # a reader of the old file keeps reading the old contents
    try:
        cassc("-c", "k.cu", "-o", "k.o")
        assert os.read(keep, 3) == b"old"
    finally:
        os.close(keep)
    assert (tmp_path / "k.o").stat().st_ino != inode and (tmp_path / "k.o").read_bytes()[:4] == b"\x7fELF"
