"""Bad input: a clear message naming the problem, a nonzero exit, and no output left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write


def test_missing_input_file(cassc, tmp_path: Path) -> None:
    result = cassc("-c", "nothere.cu", check=False)
    assert result.returncode == 1 and "nothere.cu" in result.stderr and "does not exist" in result.stderr


def test_unknown_option(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", "__global__ void k() {}\n")
    result = cassc("--bogus-option", "-c", "k.cu", check=False)
    assert result.returncode == 1
    assert "Unknown option '--bogus-option'" in result.stderr
    assert not (tmp_path / "k.o").exists()


def test_syntax_error_names_file_and_line_and_leaves_no_output(cassc, tmp_path: Path) -> None:
    write(tmp_path / "inc" / "bad.cuh", "#pragma once\n\ninline int broken( { return 1; }\n")
    write(tmp_path / "k.cu", '#include <cuda_runtime.h>\n\n__global__ void k(int* p) {\n  *p = 1\n}\n')
    result = cassc("-c", "k.cu", "-o", "k.o", check=False)
    assert result.returncode == 1
    assert "k.cu:4:" in result.stderr and "error" in result.stderr
    assert "mirror" not in result.stderr
    assert not (tmp_path / "k.o").exists()
    assert [p for p in tmp_path.iterdir() if p.name.startswith(".k.o")] == []
    write(tmp_path / "h.cu", '#include "inc/bad.cuh"\n')
    result = cassc("-c", "h.cu", check=False)
    assert result.returncode == 1 and "inc/bad.cuh:3:" in result.stderr


def test_unwritable_output(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", "__global__ void k() {}\n")
    result = cassc("-c", "k.cu", "-o", "missing/dir/k.o", check=False)
    assert result.returncode == 1 and "directory 'missing/dir' does not exist" in result.stderr
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        result = cassc("-c", "k.cu", "-o", "locked/k.o", check=False)
        assert result.returncode == 1 and "not writable" in result.stderr
    finally:
        locked.chmod(0o700)


def test_output_that_is_an_input_is_refused(cassc, tmp_path: Path) -> None:
    source = write(tmp_path / "k.cu", "__global__ void k() {}\n")
    result = cassc("-c", "k.cu", "-o", "k.cu", check=False)
    assert result.returncode == 1 and "never overwrites its inputs" in result.stderr
    assert source.read_text() == "__global__ void k() {}\n"


def test_unknown_input_kind_and_no_inputs(cassc, tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "hello\n")
    assert "Don't know what to do with 'notes.txt'" in cassc("notes.txt", check=False).stderr
    assert "No input files specified" in cassc("-c", check=False).stderr


def test_corrupt_object_is_named(cassc, tmp_path: Path) -> None:
    write(tmp_path / "junk.o", "\x7fELF this is not really an object")
    result = cassc("junk.o", "-o", "app", check=False)
    assert result.returncode == 1 and "junk.o" in result.stderr
    assert not (tmp_path / "app").exists()


def test_a_reader_that_stops_early_ends_cassc_quietly(cassc_env: dict[str, str]) -> None:
    reader = subprocess.Popen([sys.executable, "-m", "cassc", "--version"], env=cassc_env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None
    reader.stdout.close()  # like `cassc --version | head -0`
    _, stderr = reader.communicate()
    assert b"Traceback" not in stderr and b"BrokenPipe" not in stderr
