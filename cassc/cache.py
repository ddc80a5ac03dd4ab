"""A content-addressed cache of stage outputs.

An entry is a directory `<cache>/v1/<key[:2]>/<key>/` holding the stage's output files and
`meta.json`. It is built under a temporary name and renamed into place in one step, so concurrent
builds (`make -j`) and killed builds never see a partial entry. `meta.json` lists the files outside the
hashed inputs that the output also depends on, checked on every hit: the user's by sha256, system and
toolchain headers by size and modification time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cassc import locations

CACHE_VERSION = "v1"


def digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


def file_digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def file_stamp(path: Path) -> list[int] | None:
    """Size and modification time: enough for system headers, which change only by reinstalling."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


@dataclass(frozen=True)
class CacheEntry:
    directory: Path
    meta: dict[str, object]

    def file(self, name: str) -> Path:
        return self.directory / name


class Cache:
    def __init__(self, root: Path | None = None, enabled: bool | None = None) -> None:
        self.root = (root or locations.cache_dir()) / CACHE_VERSION
        self.enabled = locations.cache_enabled() if enabled is None else enabled

    def _entry_dir(self, key: str) -> Path:
        return self.root / key[:2] / key

    def lookup(self, key: str) -> CacheEntry | None:
        if not self.enabled:
            return None
        directory = self._entry_dir(key)
        try:
            meta = json.loads((directory / "meta.json").read_text())
        except (OSError, ValueError):
            return None
        for path, expected in dict(meta.get("extra_dependencies", {})).items():
            # relative below the working directory (stages.compile_unit): a copy of the tree elsewhere
            # is checked against its own files
            if file_digest(Path.cwd() / path) != expected:
                return None
        for path, stamp in dict(meta.get("system_dependencies", {})).items():
            if file_stamp(Path(path)) != stamp:
                return None
        return CacheEntry(directory, meta)

    def store(self, key: str, files: dict[str, Path], meta: dict[str, object]) -> None:
        if not self.enabled:
            return
        final = self._entry_dir(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=final.parent))
        try:
            for name, source in files.items():
                shutil.copyfile(source, staging / name)
            (staging / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True))
            if final.exists():  # a stale entry (its extra dependencies changed): replace it
                shutil.rmtree(final, ignore_errors=True)
            try:
                os.rename(staging, final)
            except OSError:
                pass  # another build stored the same key first; its entry is as good as ours
        finally:
            shutil.rmtree(staging, ignore_errors=True)
