"""Which models cassc knows (`models/*.toml` of the repository, shipped inside the package) and which the user has added (the
`models/` folder of cassc's data directory: `<name>.gguf` and its record `<name>.json`).

cassc never downloads a model: a model it knows but the user has not added is a message saying where to
fetch it by hand and how to add it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import struct
import tempfile
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cassc import locations
from cassc.errors import ModelError

KNOWN_MODELS_DIR = locations.resource_dir("models")
PROMPT_FORMATS = ("cass-source", "cass-assembly", "instruct")
GGUF_MAGIC = b"GGUF"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")


@dataclass(frozen=True)
class KnownModel:
    name: str
    family: str
    task: str  # "source" or "assembly"
    prompt_format: str
    context_length: int
    quantization: str
    licence: str
    download: str  # where a user fetches it by hand
    file_name: str
    sha256: str | None = None  # only when a published file has a known hash


@dataclass(frozen=True)
class InstalledModel:
    name: str
    path: Path  # the GGUF file in cassc's data directory
    sha256: str
    size: int
    prompt_format: str
    context_length: int | None  # trained context, from the GGUF header
    known_as: str | None  # the registry entry it was added as


def known_models(directory: Path = KNOWN_MODELS_DIR) -> dict[str, KnownModel]:
    models = {}
    for path in sorted(directory.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        model = KnownModel(**data)
        if model.prompt_format not in PROMPT_FORMATS:
            raise ModelError(f"{path}: unknown prompt_format '{model.prompt_format}' "
                             f"(one of {', '.join(PROMPT_FORMATS)})")
        models[model.name] = model
    return models


def store_dir() -> Path:
    return locations.data_dir() / "models"


def installed_models() -> dict[str, InstalledModel]:
    models = {}
    for record in sorted(store_dir().glob("*.json")):
        data = json.loads(record.read_text())
        data["path"] = Path(data["path"])
        models[data["name"]] = InstalledModel(**data)
    return models


def file_sha256(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 22):
            hasher.update(chunk)
    return hasher.hexdigest()


def check_gguf(path: Path) -> None:
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as error:
        raise ModelError(f"cannot read model file '{path}': {error.strerror}") from error
    if magic != GGUF_MAGIC:
        raise ModelError(f"'{path}' is not a GGUF file (llama.cpp's format); convert the model with "
                         "llama.cpp's convert_hf_to_gguf.py first")


_GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q",
                 12: "<d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def gguf_context_length(path: Path) -> int | None:
    """The context length the model was trained with (`<architecture>.context_length` in the GGUF
    header): a longer llama.cpp context only degrades its answers."""
    with path.open("rb", buffering=1 << 16) as stream:

        def read(fmt: str) -> Any:
            return struct.unpack(fmt, stream.read(struct.calcsize(fmt)))[0]

        def string() -> str:
            return stream.read(read("<Q")).decode("utf-8", errors="replace")

        def value(kind: int) -> Any:
            if kind == _GGUF_STRING:
                return string()
            if kind == _GGUF_ARRAY:
                item_kind, count = read("<I"), read("<Q")
                for _ in range(count):
                    value(item_kind)
                return None
            return read(_GGUF_SCALARS[kind])

        if stream.read(4) != GGUF_MAGIC:
            return None
        read("<I")  # version
        read("<Q")  # tensor count
        metadata: dict[str, Any] = {}
        for _ in range(read("<Q")):
            key = string()
            metadata[key] = value(read("<I"))
            architecture = metadata.get("general.architecture")
            if architecture and f"{architecture}.context_length" in metadata:
                return int(metadata[f"{architecture}.context_length"])
    return None


def add_model(source: Path, name: str | None = None, prompt_format: str | None = None) -> InstalledModel:
    """Put a GGUF file into the store (a hard link when the file system allows, else a copy)."""
    check_gguf(source)
    known = known_models()
    digest = file_sha256(source)
    by_hash = {m.sha256: m for m in known.values() if m.sha256}
    by_file = {m.file_name: m for m in known.values()}
    entry = known.get(name or "") or by_hash.get(digest) or by_file.get(source.name)
    if entry is not None and entry.sha256 and entry.sha256 != digest and name == entry.name:
        raise ModelError(f"'{source}' is not the published {entry.name}: its sha256 is {digest}, "
                         f"expected {entry.sha256}")
    name = name or (entry.name if entry else source.name.removesuffix(".gguf"))
    if not _NAME.fullmatch(name):
        raise ModelError(f"'{name}' is not a usable model name: letters, digits, '.', '_' and '-' only")
    chosen_format = prompt_format or (entry.prompt_format if entry else "instruct")
    if chosen_format not in PROMPT_FORMATS:
        raise ModelError(f"unknown prompt format '{chosen_format}' (one of {', '.join(PROMPT_FORMATS)})")
    store = store_dir()
    store.mkdir(parents=True, exist_ok=True)
    target = store / f"{name}.gguf"
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=store))
    try:
        staged = staging / target.name
        try:
            os.link(source, staged)
        except OSError:
            shutil.copyfile(source, staged)
        model = InstalledModel(name=name, path=target, sha256=digest, size=source.stat().st_size,
                               prompt_format=chosen_format, context_length=gguf_context_length(source),
                               known_as=entry.name if entry else None)
        record = staging / f"{name}.json"
        record.write_text(json.dumps({**asdict(model), "path": str(target)}, indent=1))
        os.replace(staged, target)
        os.replace(record, store / record.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return model


def remove_model(name: str) -> InstalledModel:
    model = installed_models().get(name)
    if model is None:
        raise ModelError(f"no model named '{name}' is installed (see `cassc model list`)")
    (store_dir() / f"{name}.json").unlink()
    model.path.unlink(missing_ok=True)
    return model


@dataclass(frozen=True)
class LocalModel:
    """A GGUF file run in-process by llama.cpp."""

    name: str
    path: Path
    prompt_format: str
    context_length: int | None
    sha256: str | None


@dataclass(frozen=True)
class ServerModel:
    """An OpenAI-compatible server (llama.cpp's server, `python -m llama_cpp.server`)."""

    url: str


def locate_model(spec: str) -> LocalModel | ServerModel:
    """A model named the way --cassc-model, CASSC_MODEL and config.toml name one: an http(s) URL, an
    installed model's name, or a path to a GGUF file."""
    if spec.startswith(("http://", "https://")):
        return ServerModel(spec.rstrip("/"))
    installed = installed_models().get(spec)
    if installed is not None:
        if not installed.path.is_file():
            raise ModelError(f"model '{spec}' was added but its file {installed.path} is gone: "
                             f"`cassc model remove {spec}` and add it again")
        return LocalModel(installed.name, installed.path, installed.prompt_format, installed.context_length,
                          installed.sha256)
    path = Path(spec).expanduser()
    if path.suffix == ".gguf" or path.is_file():
        if not path.is_file():
            raise ModelError(f"model file '{spec}' does not exist")
        check_gguf(path)
        entry = {m.file_name: m for m in known_models().values()}.get(path.name)
        return LocalModel(path.name.removesuffix(".gguf"), path.resolve(), entry.prompt_format if entry else "instruct",
                          gguf_context_length(path), None)
    entry = known_models().get(spec)
    if entry is not None:
        raise ModelError(f"model '{spec}' is not installed. cassc never downloads models: fetch it by hand from "
                         f"{entry.download}, then run `cassc model add FILE --name {spec}`")
    raise ModelError(f"no model '{spec}': not an installed model (`cassc model list`), a .gguf file or an "
                     "http:// server URL")
