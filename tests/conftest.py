"""Shared test configuration: never reach a model hub, make hypothesis deterministic."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "evenhand", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
    )
    settings.load_profile("evenhand")
except ImportError:  # pragma: no cover
    pass


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def chromium() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``chromium(url, *args)``: headless Chromium on a page (a screenshot, ``--dump-dom``); skips without it."""
    path = chromium_path()
    if path is None:
        pytest.skip("headless Chromium is not installed")

    def run(url: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [path, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", *args, url],
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run
