"""A Detoxify checkpoint is a pickle: it is loaded with ``torch.load(weights_only=True)``, so a file whose unpickling
would run code is refused (nothing runs) unless the user trusts it explicitly."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.model  # torch and Detoxify (transformers) at import

torch = pytest.importorskip("torch")
pytest.importorskip("detoxify")

from evenhand.scorers import get_toxicity_scorer  # noqa: E402


class _Payload:
    """Unpickling this calls os.mkdir(marker): proof that code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.mkdir, (self.marker,))


def _checkpoint(path: Path, marker: Path, *, raw_pickle: bool = False) -> Path:
    content = {
        "config": {"arch": {"args": {}}, "dataset": {"args": {"classes": ["toxic"]}}},
        "state_dict": {"w": torch.zeros(1)},
        "extra": _Payload(marker),
    }
    if raw_pickle:
        with open(path, "wb") as f:
            pickle.dump(_Payload(marker), f, protocol=2)
    else:
        torch.save(content, path)
    return path


@pytest.mark.parametrize("raw_pickle", [False, True], ids=["torch.save", "pickle.dump"])
def test_malicious_checkpoint_is_refused_and_runs_nothing(tmp_path: Path, raw_pickle: bool) -> None:
    marker = tmp_path / "pwned"
    ckpt = _checkpoint(tmp_path / "evil.ckpt", marker, raw_pickle=raw_pickle)
    with pytest.raises(ValueError, match="trust_checkpoint=True") as refused:
        get_toxicity_scorer("detoxify", checkpoint=ckpt, device="cpu")
    assert "refusing to load" in str(refused.value) and str(ckpt) in str(refused.value)
    assert not marker.exists()


def test_trusting_a_checkpoint_is_explicit(tmp_path: Path) -> None:
    """``trust_checkpoint=True`` is the unrestricted load (the payload is live: this is what the default prevents)."""
    marker = tmp_path / "pwned"
    ckpt = _checkpoint(tmp_path / "evil.ckpt", marker)
    with pytest.raises(Exception):  # noqa: B017 - the payload ran; the fake config then cannot build a model
        get_toxicity_scorer("detoxify", checkpoint=ckpt, device="cpu", trust_checkpoint=True)
    assert marker.exists()


def test_not_a_detoxify_checkpoint(tmp_path: Path) -> None:
    ckpt = tmp_path / "weights.ckpt"
    torch.save({"weight": torch.zeros(2)}, ckpt)
    with pytest.raises(ValueError, match="not a Detoxify checkpoint"):
        get_toxicity_scorer("detoxify-unbiased", checkpoint=ckpt, device="cpu")


def test_downloads_are_loaded_weights_only(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_download(url: str, **kwargs: Any) -> Any:
        seen.update(kwargs, url=url)
        raise pickle.UnpicklingError("Weights only load failed: Unsupported global: GLOBAL posix.mkdir")

    monkeypatch.setattr(torch.hub, "load_state_dict_from_url", fake_download)
    with pytest.raises(ValueError, match="trust_checkpoint=True"):
        get_toxicity_scorer("detoxify-original", device="cpu")
    assert seen["weights_only"] is True and seen["url"].startswith("https://")


@pytest.mark.subprocess
def test_importing_the_scorers_does_not_import_torch() -> None:
    code = "import sys, evenhand.scorers.toxicity; print('torch' in sys.modules, 'detoxify' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
