"""Where cassc keeps its own files: a data directory (generated device libraries, the stand-in CUDA
toolkit, repair models), a cache directory and a config directory (`config.toml`). All follow
platformdirs and can be moved by environment variables."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


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
