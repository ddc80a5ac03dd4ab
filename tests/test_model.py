"""Repair models for real: a tiny GGUF written here, run by llama.cpp in process and behind
`python -m llama_cpp.server` on 127.0.0.1. Its answers are meaningless; cassc must reject them and
fall back to hipify's result."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from conftest import write
from test_repair import BROKEN_KERNEL
from tiny_model import write_tiny_llama

pytest.importorskip("llama_cpp", reason="model repair needs llama-cpp-python (make setup installs it)")


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("model") / "tiny-llama.gguf")


@pytest.fixture
def quick_repair(cassc_env: dict[str, str]) -> Path:
    """A config.toml that keeps the tiny model's babble short."""
    config = Path(cassc_env["CASSC_CONFIG_DIR"])
    write(config / "config.toml", "[repair]\nmax_attempts = 2\nmax_answer_tokens = 48\ncontext_length = 2048\n"
                                  "threads = 1\n")
    return config


def test_model_add_list_verify_remove(cassc, tiny_gguf: Path, data_dir: Path) -> None:
    added = cassc("model", "add", str(tiny_gguf), "--name", "tiny-a")
    assert "added tiny-a" in added.stdout and "prompt instruct" in added.stdout
    stored = data_dir / "models" / "tiny-a.gguf"
    assert stored.read_bytes() == tiny_gguf.read_bytes()

    listing = json.loads(cassc("model", "list", "--json").stdout)
    [mine] = [m for m in listing["installed"] if m["name"] == "tiny-a"]
    assert mine["path"] == str(stored) and len(mine["sha256"]) == 64
    assert {"cass-src-7b", "qwen2.5-coder-7b-instruct"} <= {k["name"] for k in listing["known"]}
    assert listing["selected"] is None

    verified = json.loads(cassc("model", "verify", "tiny-a", "--json").stdout)
    assert verified["hash_checked"] and verified["tokens"] > 0 and verified["tokens_per_second"] > 0

    stored.write_bytes(stored.read_bytes()[:-1] + b"\x01")  # a file changed behind cassc's back
    changed = cassc("model", "verify", "tiny-a", check=False)
    assert changed.returncode == 1 and "changed since it was added" in changed.stderr

    assert "removed tiny-a" in cassc("model", "remove", "tiny-a").stdout
    assert not stored.exists()
    gone = cassc("model", "remove", "tiny-a", check=False)
    assert gone.returncode == 1 and "no model named 'tiny-a'" in gone.stderr


def test_a_known_but_missing_model_says_where_to_get_it(cassc, tmp_path: Path) -> None:
    write(tmp_path / "lanes.cu", BROKEN_KERNEL)
    result = cassc("-c", "lanes.cu", "--cassc-model", "cass-src-7b", check=False)
    assert result.returncode == 1
    assert "model 'cass-src-7b' is not installed. cassc never downloads models" in result.stderr
    assert "https://huggingface.co/ahmedheakl/cass-src-7b" in result.stderr
    assert "lanes.cu:5:16: error: invalid instruction" in result.stderr
    assert not (tmp_path / "lanes.o").exists()

    nothing = cassc("-c", "lanes.cu", check=False)
    assert "no repair model configured" in nothing.stderr
    not_gguf = cassc("model", "add", "lanes.cu", check=False)
    assert not_gguf.returncode == 1 and "is not a GGUF file" in not_gguf.stderr


def test_tiny_model_answers_are_rejected_and_the_build_falls_back(cassc, tiny_gguf: Path, tmp_path: Path,
                                                                  quick_repair: Path) -> None:
    cassc("model", "add", str(tiny_gguf), "--name", "tiny-b")
    write(tmp_path / "lanes.cu", BROKEN_KERNEL)
    result = cassc("-c", "lanes.cu", env={"CASSC_MODEL": "tiny-b"}, check=False)
    assert result.returncode == 1
    assert "cassc: model repair rejected for lanes.cu:3-8 (lanes)" in result.stderr
    assert "tokens/s" in result.stderr and "model load" in result.stderr
    assert "model repair did not fix this unit; the errors above are those of hipify's translation" in result.stderr
    assert "lanes.cu:5:16: error: invalid instruction" in result.stderr
    assert "cassc fatal   : compiling lanes.cu failed" in result.stderr
    assert not (tmp_path / "lanes.o").exists()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def model_server(tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` serving the tiny model on 127.0.0.1."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as output:
        server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(tiny_gguf),
                                   "--model_alias", "tiny-server", "--n_ctx", "2048", "--n_threads", "1",
                                   "--host", "127.0.0.1", "--port", str(port)], stdout=output, stderr=output)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/v1/models", timeout=2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"llama_cpp.server did not start:\n{log.read_text()}")
                time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_server_backend_verifies_and_falls_back(cassc, model_server: str, tmp_path: Path, quick_repair: Path) -> None:
    verified = json.loads(cassc("model", "verify", model_server, "--json").stdout)
    assert verified["name"] == f"tiny-server at {model_server}" and verified["tokens"] > 0

    write(tmp_path / "lanes.cu", BROKEN_KERNEL)
    result = cassc("-c", "lanes.cu", "--cassc-model", model_server, check=False)
    assert result.returncode == 1
    assert "model repair rejected for lanes.cu:3-8 (lanes)" in result.stderr
    assert f"tiny-server at {model_server}" in result.stderr
    assert "model repair did not fix this unit" in result.stderr


def test_an_unreachable_server_is_a_clear_message(cassc, tmp_path: Path, quick_repair: Path) -> None:
    write(quick_repair / "config.toml", "[repair]\nserver_timeout_s = 2\nserver_retries = 1\n")
    write(tmp_path / "lanes.cu", BROKEN_KERNEL)
    url = f"http://127.0.0.1:{_free_port()}"
    result = cassc("-c", "lanes.cu", "--cassc-model", url, check=False)
    assert result.returncode == 1
    assert f"model repair unavailable: model server {url} does not answer" in result.stderr
    assert "after 2 tries" in result.stderr
