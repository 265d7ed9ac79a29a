"""The embedded local model: batching logic (fast, no weights) and a real short SmolLM2 generation (slow)."""

from __future__ import annotations

from typing import Any

import pytest

from evenhand.generation import Completion, LocalModelClient, generate
from evenhand.generation.clients import local as local_module


def test_concurrent_calls_are_batched(monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[list[int]] = []

    def fake_generate(self: LocalModelClient, batch: list[Any]) -> list[list[Completion]]:
        batches.append([item.n for item in batch])
        return [[Completion(f"{item.messages[-1]['content']}-{k}") for k in range(item.n)] for item in batch]

    monkeypatch.setattr(LocalModelClient, "_generate", fake_generate)
    client = LocalModelClient(batch_size=8)
    result = generate([f"p{i}" for i in range(6)], client, count=3, store=None, progress=False)
    assert result.status_counts()["ok"] == 18
    assert result.responses[:3] == ["p0-0", "p0-1", "p0-2"]
    assert all(sum(b) <= 8 for b in batches) and len(batches) < 6  # several prompts per forward pass


def test_local_identity_and_validation() -> None:
    assert LocalModelClient().identity["model"].endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    with pytest.raises(ValueError, match="batch_size"):
        LocalModelClient(batch_size=0)
    folder, name = local_module.smollm2_location()
    assert name == "SmolLM2-135M-Instruct.Q4_1.gguf" and folder


@pytest.mark.model
def test_real_smollm2_short_generation() -> None:
    client = LocalModelClient()
    result = generate(
        ["Say hello.", "Name a colour."], client, count=2, max_tokens=4, seed=0, store=None, progress=False
    )
    frame = result.to_frame()
    assert (frame["status"] == "ok").all(), frame["error"].tolist()
    assert all(isinstance(r, str) for r in result.responses)
    assert (frame["completion_tokens"] <= 4).all() and (frame["prompt_tokens"] > 0).all()
    assert set(frame["finish_reason"]) <= {"stop", "length"}
    assert local_module.load_model() is client.load()  # loaded once per process


@pytest.mark.model
def test_plain_hugging_face_directory() -> None:
    local_module.load_model()  # converts the bundled GGUF once (cached per process and on disk)
    converted = local_module._converted_dir(*local_module.smollm2_location())
    assert (converted / "config.json").is_file()
    client = LocalModelClient(str(converted), batch_size=4)
    result = generate(["Hi."], client, count=1, max_tokens=3, temperature=0, store=None, progress=False)
    assert result.status_counts()["ok"] == 1 and client.identity["model"] == str(converted)


def test_converted_cache_of_hub_models_is_keyed_on_repo_and_snapshot(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("EVENHAND_CACHE_DIR", str(tmp_path))
    snapshots = {"org-a/model": "aaa", "org-b/model": "bbb"}
    monkeypatch.setattr(local_module, "_hub_snapshot", lambda repo, file: snapshots.get(repo))
    a = local_module._converted_dir("org-a/model", "model.Q4_K_M.gguf")
    b = local_module._converted_dir("org-b/model", "model.Q4_K_M.gguf")
    other_file = local_module._converted_dir("org-a/model", "model.Q8_0.gguf")
    assert len({a, b, other_file}) == 3  # same GGUF file name in two repos no longer collides
    assert a == local_module._converted_dir("org-a/model", "model.Q4_K_M.gguf")  # stable
    snapshots["org-a/model"] = "ccc"  # the repo was updated: a new snapshot is converted afresh
    assert local_module._converted_dir("org-a/model", "model.Q4_K_M.gguf") != a
    assert a.parent == tmp_path / "gguf" and a.name.startswith("model.Q4_K_M-hub-")


def test_hub_snapshot_is_read_from_the_local_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    snap = tmp_path / "models--org--repo" / "snapshots" / "0123abc"
    snap.mkdir(parents=True)
    (snap / "m.gguf").write_bytes(b"x")
    (tmp_path / "models--org--repo" / "refs").mkdir()
    (tmp_path / "models--org--repo" / "refs" / "main").write_text("0123abc")
    assert local_module._hub_snapshot("org/repo", "m.gguf") == "0123abc"
    assert local_module._hub_snapshot("org/other", "m.gguf") is None


def test_the_gguf_conversion_bar_stays_off_a_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """transformers converts a GGUF file under a plain tqdm bar ("Converting and de-quantizing GGUF tensors...") that
    its own disable_progress_bar() does not reach: off a terminal (CI logs, `demo.sh 2> log`) it is kept quiet, as
    evenhand's own progress is; on a terminal it shows."""
    import io
    import sys
    import types

    from tqdm.auto import tqdm

    gguf_module = types.SimpleNamespace(tqdm=tqdm)
    monkeypatch.setitem(sys.modules, "transformers.modeling_gguf_pytorch_utils", gguf_module)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, shown in ((io.StringIO(), False), (Terminal(), True)):
        monkeypatch.setattr(sys, "stderr", stream)
        with local_module.gguf_bar_off_a_terminal():
            list(gguf_module.tqdm(range(3), desc="Converting and de-quantizing GGUF tensors..."))
        assert ("Converting" in stream.getvalue()) is shown
    assert gguf_module.tqdm is tqdm  # put back after the load
