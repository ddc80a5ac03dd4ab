"""Where cassc's files are: what it ships inside its package (`resource_dir`), and what it keeps per user:
a data directory (generated device libraries, the stand-in CUDA toolkits, repair models), a cache
directory and a config directory (`config.toml`). The per-user ones follow platformdirs and can be moved
by environment variables."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import platformdirs

# The installed package. What cassc ships lives inside it, so a wheel, `pipx install`, an editable
# install and a checkout on PYTHONPATH all find it the same way (pip always unpacks wheels: the package
# is a directory, as importlib.resources.files("cassc") would return, without that module's import time
# on every compile).
PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """`shims` or `models`: kept at the repository's top level, linked into the package as
    `cassc/_resources/<name>` in the checkout and copied there into the wheel (pyproject's package-data)."""
    return PACKAGE_DIR / "_resources" / name


def install_id() -> str:
    """This install of cassc: its package directory and the Python environment running it (sys.prefix:
    a venv's `python` and `python3` are one install). Several installs on one machine (venvs, pipx, a
    checkout) share the data directory but each has its own stand-in toolkit."""
    return hashlib.sha256(f"{PACKAGE_DIR}\0{sys.prefix}".encode()).hexdigest()[:16]


def data_dir() -> Path:
    override = os.environ.get("CASSC_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("cassc"))


def cache_dir() -> Path:
    override = os.environ.get("CASSC_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir("cassc"))


def config_dir() -> Path:
    override = os.environ.get("CASSC_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir("cassc"))


def cache_enabled() -> bool:
    return os.environ.get("CASSC_CACHE", "1") not in ("0", "false", "no", "off")
