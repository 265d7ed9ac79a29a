"""The scoring-engine interface: ``engine.map(scorer, texts)``, the local engine, ``get_engine`` and the protocols."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.scorers import (
    CallableEmbedder,
    CallableScorer,
    LocalEngine,
    ScoreCache,
    ScoringEngine,
    TextEmbedder,
    TextScorer,
    batching,
    get_embedder,
    get_engine,
    get_sentiment_scorer,
)
from evenhand.scorers import engine as engine_module


class Counting:
    """score = len(text) / (len(text) + 10); records every batch it sees."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[float]:
        self.batches.append(list(texts))
        return [len(t) / (len(t) + 10) for t in texts]


class CountingEncoder:
    """Embeds a text as (length, number of spaces); records every batch."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.array([[len(t), t.count(" ")] for t in texts], dtype=np.float32)


def expected(texts: list[str]) -> list[float]:
    return [len(t) / (len(t) + 10) for t in texts]


def test_map_on_a_plain_callable_dedups_and_keeps_the_input_order() -> None:
    fn = Counting()
    texts = ["bb", "a", "bb", "ccc", "a", "bb"]
    out = LocalEngine().map(fn, texts)
    assert out.dtype == np.float64 and out.shape == (6,)
    np.testing.assert_array_equal(out, expected(texts))
    assert sorted(t for b in fn.batches for t in b) == ["a", "bb", "ccc"]  # each distinct text once


def test_map_sorts_longest_first_in_batches_of_the_scorer_size() -> None:
    fn = Counting()
    scorer = CallableScorer(fn, batch_size=2)
    texts = ["a", "abcd", "ab", "abcde", "abc", "ab"]
    out = LocalEngine().map(scorer, texts)
    assert fn.batches == [["abcde", "abcd"], ["abc", "ab"], ["a"]]
    np.testing.assert_array_equal(out, expected(texts))
    assert scorer.n_computed == 5


def test_map_uses_the_scorer_cache(tmp_path: Any) -> None:
    cache = ScoreCache(tmp_path / "c.sqlite")
    engine = LocalEngine()
    first = engine.map(CallableScorer(Counting(), name="len", cache=cache), ["x", "yy"])
    fn = Counting()
    scorer = CallableScorer(fn, name="len", cache=cache)
    second = engine.map(scorer, ["yy", "zzz", "x"])
    assert fn.batches == [["zzz"]]  # only the text not in the cache
    assert scorer.n_computed == 1
    np.testing.assert_array_equal(second, [first[1], 3 / 13, first[0]])
    assert len(cache) == 3


def test_map_on_embedders_gives_rows_in_input_order() -> None:
    enc = CountingEncoder()
    texts = pd.Series(["a b", "xyz", "a b", "a b c d"])
    out = get_engine().map(enc, texts)
    assert out.dtype == np.float64 and out.shape == (4, 2)
    np.testing.assert_array_equal(out, [[3, 1], [3, 0], [3, 1], [7, 3]])
    assert enc.batches == [["a b c d", "a b", "xyz"]]  # distinct texts, longest first (stable among equals)
    wrapped = CallableEmbedder(CountingEncoder(), batch_size=1)
    np.testing.assert_array_equal(get_engine().map(wrapped, texts), out)
    assert wrapped.n_computed == 3
    assert get_engine().map(CountingEncoder(), []).shape[0] == 0


def test_map_equals_calling_the_scorer() -> None:
    texts = ["I love it", "I hate it", "", "I love it", "meh"]
    vader = get_sentiment_scorer()
    np.testing.assert_array_equal(LocalEngine().map(vader, texts), vader(texts))
    scorer = CallableScorer(Counting(), batch_size=2)
    np.testing.assert_array_equal(LocalEngine().map(scorer, texts), scorer(texts))
    emb = get_embedder(CountingEncoder())
    np.testing.assert_array_equal(LocalEngine().map(emb, texts), emb.encode(texts))
    assert LocalEngine().map(scorer, []).shape == (0,)


def test_scorers_delegate_to_the_local_engines_batching(monkeypatch: pytest.MonkeyPatch) -> None:
    """``scorer(texts)`` and ``encode(texts)`` run the local engine's path (evenhand/scorers/batching.py), and so
    does ``LocalEngine.map``."""
    seen: list[tuple[Any, list[str]]] = []
    real = batching.batched_outputs

    def spy(model: Any, texts: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((model, list(texts)))
        return real(model, texts, *args, **kwargs)

    monkeypatch.setattr(batching, "batched_outputs", spy)
    monkeypatch.setattr(engine_module, "batched_outputs", spy)
    scorer = CallableScorer(Counting())
    emb = get_embedder(CountingEncoder())
    scorer(["a", "b"])
    emb.encode(["c"])
    assert seen == [(scorer, ["a", "b"]), (emb, ["c"])]
    LocalEngine().map(scorer, ["d"])
    assert seen[-1] == (scorer, ["d"])
    assert get_engine() is engine_module.DEFAULT_ENGINE


def test_map_validates_like_the_scorers() -> None:
    with pytest.raises(ValueError, match="outside"):
        LocalEngine().map(lambda texts: [2.0] * len(texts), ["a"])
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        LocalEngine().map(Counting(), ["a", None])
    with pytest.raises(TypeError, match="cannot score texts"):
        LocalEngine().map(42, ["a"])


class PredictOnly:
    def predict(self, texts: list[str]) -> np.ndarray:
        return np.full(len(texts), 0.25)


def test_map_accepts_objects_with_predict() -> None:
    np.testing.assert_array_equal(LocalEngine().map(PredictOnly(), ["a", "b", "a"]), [0.25, 0.25, 0.25])


def test_get_engine() -> None:
    assert isinstance(get_engine(), LocalEngine)
    assert isinstance(get_engine("local"), LocalEngine)
    for bad in ("spark", "", 3, object()):  # "ray" is the Ray engine (tests/test_scorers_ray.py)
        with pytest.raises(ValueError, match="'local'") as info:
            get_engine(bad)  # type: ignore[arg-type]
        assert "map(scorer, texts)" in str(info.value)


class RecordingEngine:
    """A custom engine: everything through the local engine, but records what it was asked."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def map(self, scorer: Any, texts: Any) -> np.ndarray:
        self.calls.append(len(texts))
        return LocalEngine().map(scorer, texts)


def test_a_custom_engine_object_is_accepted() -> None:
    custom = RecordingEngine()
    assert get_engine(custom) is custom
    assert isinstance(custom, ScoringEngine)
    out = get_engine(custom).map(Counting(), ["ab", "ab"])
    np.testing.assert_array_equal(out, expected(["ab", "ab"]))
    assert custom.calls == [2]


def test_the_steps_a_distributed_engine_reuses() -> None:
    """Rebuild ``LocalEngine.map`` from the module-level steps, as a remote engine would (batches in any order)."""
    fn = Counting()
    scorer = CallableScorer(fn, batch_size=2)
    texts = ["ccc", "a", "ccc", "dddd", "bb"]
    codes, distinct = engine_module.deduplicate(texts)
    assert [distinct[c] for c in codes] == texts
    values, todo = engine_module.cached_outputs(scorer, distinct)
    assert values is None and todo == [0, 1, 2, 3]
    batches = engine_module.length_sorted_batches(distinct, todo, scorer.batch_size)
    assert [[distinct[i] for i in idx] for idx in batches] == [["dddd", "ccc"], ["bb", "a"]]
    table = engine_module.allocate(scorer, len(distinct), 0.0)
    for idx in reversed(batches):  # results may come back in any order
        table[idx] = engine_module.run_batch(scorer, [distinct[i] for i in idx])
    out = engine_module.finish(scorer, table[codes])
    np.testing.assert_array_equal(out, scorer(texts))


def test_protocols_describe_scorers_and_embedders() -> None:
    assert isinstance(CallableScorer(Counting()), TextScorer)
    assert isinstance(get_sentiment_scorer(), TextScorer)
    assert isinstance(get_embedder(CountingEncoder()), TextEmbedder)
    assert isinstance(CountingEncoder(), TextEmbedder)
    assert not isinstance(Counting(), TextEmbedder)
    assert isinstance(LocalEngine(), ScoringEngine)


@given(st.lists(st.text(max_size=10), max_size=30), st.integers(1, 5))
def test_map_equals_per_text_scoring(texts: list[str], batch_size: int) -> None:
    fn = Counting()
    out = LocalEngine().map(CallableScorer(fn, batch_size=batch_size), texts)
    np.testing.assert_array_equal(out, np.asarray(expected(texts), dtype=np.float64).reshape(-1))
    assert sum(len(b) for b in fn.batches) == len(set(texts))
    lengths = [len(t) for b in fn.batches for t in b]
    assert lengths == sorted(lengths, reverse=True)
