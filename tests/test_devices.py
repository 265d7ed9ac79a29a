"""Devices: ``auto | cpu | cuda | cuda:N | mps`` for model-based scorers and the local model, the batch size each
device gets, and a clear error when a device is absent. There is no GPU here: availability is monkeypatched where
a test needs an accelerator, and nothing is ever moved to one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.model  # torch at import, the bundled embedder

torch = pytest.importorskip("torch")

from evenhand.config import ConfigError, parse_config  # noqa: E402
from evenhand.generation import get_client  # noqa: E402
from evenhand.generation.clients.local import CPU_BATCH_SIZE, LocalModelClient  # noqa: E402
from evenhand.pipeline.families.base import build_scorer  # noqa: E402
from evenhand.scorers._base import (  # noqa: E402
    Scorer,
    adapt_batch_size,
    check_device,
    device_batch_size,
    model_device,
    resolve_device,
)

HAS_CUDA = torch.cuda.is_available()
no_gpu = pytest.mark.skipif(HAS_CUDA, reason="tests the behaviour without a GPU")


def _pretend_cuda(monkeypatch: pytest.MonkeyPatch, count: int = 1) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)


@no_gpu
def test_cpu_and_auto_work_and_absent_devices_are_clear_errors() -> None:
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") in ("cpu", "mps")
    for absent in ("cuda", "cuda:0", "cuda:3"):
        with pytest.raises(ValueError, match=r"no CUDA device; use 'cpu' or 'auto'"):
            resolve_device(absent)
    with pytest.raises(ValueError, match="one of 'auto', 'cpu', 'cuda', 'cuda:N', 'mps'"):
        check_device("gpu")
    with pytest.raises(ValueError, match="one of"):
        check_device("mps:1")


def test_auto_picks_cuda_when_torch_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    _pretend_cuda(monkeypatch, count=2)
    assert resolve_device("auto") == "cuda"
    assert resolve_device("cuda:1") == "cuda:1"
    with pytest.raises(ValueError, match=r"2 CUDA device\(s\): cuda:0 to cuda:1"):
        resolve_device("cuda:2")


def test_batch_size_follows_the_device() -> None:
    assert device_batch_size("cpu", 32) == 32
    assert device_batch_size("cuda", 32) == device_batch_size("cuda:1", 32) == 128
    assert device_batch_size("mps", 32) == 64


class DeviceScorer(Scorer):
    """A model-based scorer stand-in: it records its device like the Hugging Face backends do."""

    def __init__(self, device: str = "auto", batch_size: int = 32, **options: Any) -> None:
        super().__init__(batch_size=batch_size, **options)
        self.device = resolve_device(device)

    def _run(self, texts: list[str]) -> np.ndarray:
        return np.zeros(len(texts))


def _factory(spec: Any, **options: Any) -> DeviceScorer:
    return DeviceScorer(**options)


def test_build_scorer_gives_the_device_batch_size_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    _pretend_cuda(monkeypatch)
    on_gpu = build_scorer(_factory, None, key="scoring.toxicity", device="cuda")
    assert (on_gpu.device, on_gpu.batch_size) == ("cuda", 128)
    chosen = build_scorer(_factory, {"spec": None, "batch_size": 16}, key="scoring.toxicity", device="cuda")
    assert chosen.batch_size == 16  # the user's batch size stays
    on_cpu = build_scorer(_factory, None, key="scoring.toxicity", device="cpu")
    assert on_cpu.batch_size == 32
    assert on_gpu.recipe is not None and on_gpu.recipe[2] == {"device": "cuda"}


@no_gpu
def test_scorer_errors_name_the_config_key() -> None:
    with pytest.raises(ValueError, match=r"^scoring.embedder: device='cuda' was requested"):
        build_scorer(_factory, None, key="scoring.embedder", device="cuda")


def test_category_scorers_adapt_their_parent() -> None:
    class Parent(DeviceScorer):
        pass

    class Category(Scorer):
        def __init__(self, parent: Parent) -> None:
            super().__init__(batch_size=1024)
            self.parent = parent

        def _run(self, texts: list[str]) -> np.ndarray:
            return np.zeros(len(texts))

    parent = Parent(device="cpu")
    parent.device = "cuda:0"  # as if built on a GPU
    adapt_batch_size(Category(parent))
    assert parent.batch_size == 128
    assert model_device(object()) is None


@no_gpu
def test_bundled_embedder_on_cpu_and_auto_and_not_on_absent_cuda() -> None:
    from evenhand.scorers import get_embedder

    assert get_embedder(device="cpu").device == "cpu"
    assert get_embedder(device="auto").device in ("cpu", "mps")
    with pytest.raises(ValueError, match="no CUDA device"):
        get_embedder(device="cuda")


@no_gpu
def test_local_model_client_device() -> None:
    client = LocalModelClient(device="cpu")
    assert (client.device, client.batch_size) == ("cpu", CPU_BATCH_SIZE)
    assert LocalModelClient().device in ("cpu", "mps")  # auto
    assert LocalModelClient(device="cpu", batch_size=8).batch_size == 8
    with pytest.raises(ValueError, match="no CUDA device"):
        LocalModelClient(device="cuda")
    with pytest.raises(ValueError, match="no CUDA device"):
        get_client({"provider": "local", "device": "cuda:0"})
    with pytest.raises(ValueError, match="one of"):
        get_client({"provider": "local", "device": "tpu"})


def test_local_model_client_on_a_gpu_gets_a_larger_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    _pretend_cuda(monkeypatch)
    client = get_client({"provider": "local", "device": "auto"})
    assert isinstance(client, LocalModelClient)
    assert (client.device, client.batch_size) == ("cuda", device_batch_size("cuda", CPU_BATCH_SIZE))
    assert client.describe().endswith("on cuda")


def test_model_device_in_the_config(tmp_path: Any) -> None:
    base = {"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]}}
    config = parse_config(base | {"model": {"provider": "local", "device": "cuda:1"}}, source="c")
    assert config.model.client_spec()["device"] == "cuda:1"
    with pytest.raises(ConfigError, match=r"model\.device applies to provider local"):
        parse_config(base | {"model": {"provider": "openai", "base_url": "http://x/v1", "model": "m", "device": "cpu"}})
    with pytest.raises(ConfigError, match="one of 'auto'"):
        parse_config(base | {"model": {"device": "gpu"}})


@no_gpu
def test_an_absent_model_device_stops_the_config_run_naming_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.pipeline.from_config import assess_config
    from evenhand.pipeline.responses import sources

    def no_generation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("generation started")

    monkeypatch.setattr(sources, "generate_frame", no_generation)
    data = {"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi her."]}, "model": {"device": "cuda"}}
    with pytest.raises(ValueError, match=r"^model\.device: device='cuda' was requested but torch reports no CUDA"):
        assess_config(parse_config(data, source="c"))
