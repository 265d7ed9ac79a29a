"""The shared scorer engine: de-duplication, batching, cache, progress, validation, callables, max ensembles."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.scorers import CallableScorer, MaxScorer, ScoreCache, get_toxicity_scorer
from evenhand.scorers._base import check_device, resolve_device


class CountingLength:
    """A deterministic toy scorer: score = len(text) / (len(text) + 10); records every batch it sees."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[float]:
        self.batches.append(list(texts))
        return [len(t) / (len(t) + 10) for t in texts]


@pytest.mark.subprocess
def test_import_scorers_does_not_pull_torch() -> None:
    code = (
        "import sys, evenhand.scorers as s; s.get_toxicity_scorer; s.get_sentiment_scorer; s.get_embedder; "
        "s.get_stereotype_scorer; s.get_toxicity_scorer()(['hi']); s.get_sentiment_scorer()(['hi']); "
        "print([m for m in ('torch', 'transformers', 'sentence_transformers', 'detoxify') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_identical_texts_cost_one_inference() -> None:
    fn = CountingLength()
    scorer = CallableScorer(fn)
    out = scorer(["same response"] * 25)
    assert out.shape == (25,)
    assert np.all(out == out[0])
    assert sum(len(b) for b in fn.batches) == 1
    assert scorer.n_computed == 1


def test_batches_are_bounded_and_length_sorted() -> None:
    fn = CountingLength()
    texts = [f"text {'x' * i}" for i in range(10)]
    out = CallableScorer(fn, batch_size=3)(texts)
    assert [len(b) for b in fn.batches] == [3, 3, 3, 1]
    seen = [t for b in fn.batches for t in b]
    assert seen == sorted(texts, key=len, reverse=True)
    np.testing.assert_allclose(out, [len(t) / (len(t) + 10) for t in texts])


@pytest.mark.parametrize("container", [list, tuple, np.array, pd.Series])
def test_accepts_common_containers(container: type) -> None:
    texts = ["a", "bb", "a"]
    out = CallableScorer(CountingLength())(container(texts))
    np.testing.assert_allclose(out, [1 / 11, 2 / 12, 1 / 11])
    assert out.dtype == np.float64


def test_empty_input_gives_empty_array() -> None:
    assert CallableScorer(CountingLength())([]).shape == (0,)


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [("just a string", TypeError, "single str"), (["ok", None], TypeError, r"texts\[1\]"), (None, TypeError, "None")],
)
def test_bad_texts_raise_clear_errors(bad: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        CallableScorer(CountingLength())(bad)


@pytest.mark.parametrize(
    ("fn", "match"),
    [
        (lambda texts: [1.5] * len(texts), "outside"),
        (lambda texts: [0.5], "shape"),
        (lambda texts: [float("nan")] * len(texts), "NaN"),
    ],
)
def test_bad_scorer_output_is_reported(fn: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        CallableScorer(fn)(["a", "b"])


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        CallableScorer(CountingLength(), batch_size=0)
    with pytest.raises(TypeError, match="cache"):
        CallableScorer(CountingLength(), cache=3.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="callable"):
        CallableScorer(42)
    with pytest.raises(ValueError, match="device"):
        check_device("tpu")
    with pytest.raises(ValueError, match="device"):
        get_toxicity_scorer(None, device="gpu")


@pytest.mark.model  # imports torch
def test_resolve_device_on_cpu_machine() -> None:
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") in ("cpu", "cuda", "mps")


def test_object_with_predict_is_accepted() -> None:
    class LangFairStyle:
        def predict(self, texts: list[str]) -> np.ndarray:
            return np.full(len(texts), 0.25)

    np.testing.assert_array_equal(get_toxicity_scorer(LangFairStyle())(["a", "b"]), [0.25, 0.25])


def test_max_across_scorers() -> None:
    a = CallableScorer(lambda t: [0.2, 0.9])
    b = CallableScorer(lambda t: [0.5, 0.1])
    np.testing.assert_allclose(MaxScorer([a, b])(["x", "y"]), [0.5, 0.9])
    combined = get_toxicity_scorer([a, b])
    assert isinstance(combined, MaxScorer)
    np.testing.assert_allclose(combined(["x", "y"]), [0.5, 0.9])


def test_disk_cache_round_trip(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "c.sqlite"  # type: ignore[operator]
    fn = CountingLength()
    first = CallableScorer(fn, name="len", cache=path)(["a", "bb", "ccc"])
    fn2 = CountingLength()
    second = CallableScorer(fn2, name="len", cache=path)(["ccc", "dddd", "a"])
    assert [t for b in fn2.batches for t in b] == ["dddd"]  # only the new text is computed
    np.testing.assert_allclose(second, [first[2], 4 / 14, first[0]])
    cache = ScoreCache(path)
    assert len(cache) == 4
    cache.clear("callable/len")
    assert len(cache) == 0


def test_cache_namespaces_do_not_mix(tmp_path: pytest.TempPathFactory) -> None:
    cache = ScoreCache(tmp_path / "c.sqlite")  # type: ignore[operator]
    CallableScorer(lambda t: [0.1] * len(t), name="a", cache=cache)(["x"])
    out = CallableScorer(lambda t: [0.7] * len(t), name="b", cache=cache)(["x"])
    assert out.tolist() == [0.7]


def test_unnamed_callable_never_caches(tmp_path: pytest.TempPathFactory) -> None:
    cache = ScoreCache(tmp_path / "c.sqlite")  # type: ignore[operator]
    CallableScorer(lambda t: [0.1] * len(t), cache=cache)(["x"])
    assert len(cache) == 0


def test_progress_bar_runs(capsys: pytest.CaptureFixture[str]) -> None:
    out = CallableScorer(CountingLength(), progress=True, batch_size=2)([f"t{i}" for i in range(5)])
    assert out.shape == (5,)
    with pytest.raises(TypeError, match="progress"):
        CallableScorer(CountingLength(), progress="yes")  # type: ignore[arg-type]


@given(st.lists(st.text(max_size=12), min_size=1, max_size=40), st.integers(1, 7))
def test_engine_equals_per_text_scoring(texts: list[str], batch_size: int) -> None:
    fn = CountingLength()
    out = CallableScorer(fn, batch_size=batch_size)(texts)
    np.testing.assert_allclose(out, [len(t) / (len(t) + 10) for t in texts])
    assert sum(len(b) for b in fn.batches) == len(set(texts))
    assert all(len(b) <= batch_size for b in fn.batches)


@given(st.lists(st.text(max_size=12), min_size=1, max_size=30), st.randoms())
def test_engine_is_permutation_equivariant(texts: list[str], rnd: object) -> None:
    order = list(range(len(texts)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    scorer = CallableScorer(CountingLength())
    np.testing.assert_allclose(scorer([texts[i] for i in order]), scorer(texts)[order])


def test_stereotype_factory_without_models() -> None:
    from evenhand.scorers import get_stereotype_scorer

    plain = get_stereotype_scorer(lambda texts: [0.3] * len(texts))
    assert plain(["a"]).tolist() == [0.3]
    with pytest.raises(ValueError, match="category="):
        get_stereotype_scorer(lambda texts: [0.3] * len(texts), category="gender")
    with pytest.raises(ValueError, match="category="):
        get_stereotype_scorer(plain, category="gender")
    with pytest.raises(TypeError, match="stereotype"):
        get_stereotype_scorer(12)


@given(st.lists(st.lists(st.floats(0, 1), min_size=3, max_size=3), min_size=1, max_size=4))
def test_max_scorer_dominates_each_member(columns: list[list[float]]) -> None:
    texts = ["a", "b", "c"]
    members = [CallableScorer(lambda t, c=c: c) for c in columns]
    combined = MaxScorer(members)(texts)
    for c in columns:
        assert np.all(combined >= np.asarray(c))
    assert np.allclose(combined, np.max(np.asarray(columns), axis=0))


def test_dedup_keeps_texts_that_differ_only_by_nul() -> None:
    # pandas < 3 hashes strings only up to the first NUL; the engine must not merge these.
    fn = CountingLength()
    assert CallableScorer(fn)(["", "\x00", ""]).tolist() == [0.0, 1 / 11, 0.0]
