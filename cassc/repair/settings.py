"""How model repair is configured: `[repair]` in `<config dir>/config.toml`, the model also by
`CASSC_MODEL` and `--cassc-model` (option > environment > file). No model named: repair is off.

    [repair]
    model = "cass-src-7b"      # an installed model, a .gguf path, or http://host:port (a model server)
    threads = 8                # llama.cpp threads (default: its own choice)
    context_length = 8192
    max_attempts = 3           # model answers tried per failing compile
    time_limit_s = 300         # wall time for all attempts of one compile
    max_answer_tokens = 2048
    server_timeout_s = 120
    server_retries = 2
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Mapping

from cassc import locations
from cassc.errors import ModelError


@dataclass(frozen=True)
class RepairSettings:
    model: str | None = None
    threads: int | None = None
    context_length: int = 8192
    max_attempts: int = 3
    time_limit_s: float = 300.0
    max_answer_tokens: int = 2048
    server_timeout_s: float = 120.0
    server_retries: int = 2


def config_file() -> Path:
    return locations.config_dir() / "config.toml"


def load_settings(option_model: str | None, env: Mapping[str, str] = os.environ) -> RepairSettings:
    path = config_file()
    values: dict[str, object] = {}
    if path.is_file():
        try:
            values = dict(tomllib.loads(path.read_text()).get("repair", {}))
        except tomllib.TOMLDecodeError as error:
            raise ModelError(f"{path}: {error}") from error
    known = {f.name: f for f in fields(RepairSettings)}
    for key, value in values.items():
        if key not in known:
            raise ModelError(f"{path}: unknown setting '{key}' in [repair] (known: {', '.join(known)})")
        if key != "model" and not isinstance(value, (int, float)):
            raise ModelError(f"{path}: [repair] {key} must be a number")
    model = option_model or env.get("CASSC_MODEL") or values.get("model")
    values["model"] = str(model) if model else None
    return RepairSettings(**values)  # type: ignore[arg-type]
