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
    meta: dict[str, object]
    files: dict[str, bytes]  # read at lookup: another build may replace the entry right after

    def read_bytes(self, name: str) -> bytes:
        return self.files[name]

    def read_text(self, name: str) -> str:
        return self.files[name].decode()


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
            files = {path.name: path.read_bytes() for path in directory.iterdir()}
            meta = json.loads(files.pop("meta.json"))
        except (OSError, KeyError, ValueError):
            return None  # absent, or renamed aside by a build replacing it: a miss
        for path, expected in dict(meta.get("extra_dependencies", {})).items():
            # relative below the working directory (stages.compile_unit): a copy of the tree elsewhere
            # is checked against its own files
            if file_digest(Path.cwd() / path) != expected:
                return None
        for path, stamp in dict(meta.get("system_dependencies", {})).items():
            if file_stamp(Path(path)) != stamp:
                return None
        return CacheEntry(meta, files)

    def store(self, key: str, files: dict[str, Path], meta: dict[str, object]) -> None:
        if not self.enabled:
            return
        final = self._entry_dir(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=final.parent))
        # mkdtemp makes the directory private; a cache shared by a team (a group-writable or NFS
        # directory) needs entries that others can read, as the umask allows for any new file.
        staging.chmod(0o777 & ~_umask())
        try:
            for name, source in files.items():
                shutil.copyfile(source, staging / name)
            (staging / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True))
            if final.exists():
                # A stale entry (its extra dependencies changed): renamed aside, never emptied in
                # place, so a build reading it now (another process or machine) reads it whole.
                stale = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-stale-", dir=final.parent))
                try:
                    os.rename(final, stale / "entry")
                except OSError:
                    pass  # another build replaced it first
                shutil.rmtree(stale, ignore_errors=True)
            try:
                os.rename(staging, final)
            except OSError:
                pass  # another build stored the same key first; its entry is as good as ours
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
