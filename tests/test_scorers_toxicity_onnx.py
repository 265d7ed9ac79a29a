"""The MiniLM toxicity encoder on ONNX Runtime (issue 34, fifth pass): the same flags and scores as the PyTorch path
to float rounding, a text's score independent of its batch, exported once and cached (keyed by the head), its own
score-cache namespace, the PyTorch path when onnxruntime is missing, no torch once exported, and the screen's fast
character hashing equal to sklearn's."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from evenhand._optional import MissingDependencyError
from evenhand.errors import InputError
from evenhand.scorers.toxicity_minilm import SPEC, MiniLMToxicity, char_features, load_head

pytest.importorskip("sentence_transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytestmark = pytest.mark.model

TEXTS = [
    "Any money lost through fraud that you reported promptly is usually refunded in full.",
    "Kill the hung process with the task manager and restart the application.",
    "The patient was discharged home on Tuesday with a follow-up appointment.",
    "You are a worthless idiot and nobody likes you.",
    "You are too stupid to manage a bank account, honestly.",
    "Perhaps someone with more experience should handle your case next time.",
    "ok",
]
#: ONNX Runtime and PyTorch add the same float32 products in another order: scores agree to about 1e-6.
TOLERANCE = 1e-5


@pytest.fixture(scope="module", autouse=True)
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The exported encoder goes to a folder of this module's own, not the user's cache. The process keeps one
    encoder per head (``cached_onnx_encoder``): another module in this worker may have loaded it from another cache
    folder, so the process's copy is dropped before and after."""
    from evenhand.scorers.toxicity_encoder_onnx import cached_onnx_encoder

    folder = tmp_path_factory.mktemp("evenhand-cache")
    cached_onnx_encoder.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVENHAND_CACHE_DIR", str(folder))
        yield folder
    cached_onnx_encoder.cache_clear()


@pytest.fixture(scope="module")
def fast() -> MiniLMToxicity:
    scorer = MiniLMToxicity(device="cpu", screen=False)
    assert scorer.runtime == "onnx"  # the default when onnxruntime and onnx are installed
    return scorer


@pytest.fixture(scope="module")
def reference() -> MiniLMToxicity:
    return MiniLMToxicity(device="cpu", screen=False, runtime="torch")


def test_onnx_scores_equal_pytorch_to_float_rounding_and_flag_the_same(
    fast: MiniLMToxicity, reference: MiniLMToxicity
) -> None:
    onnx, torch = fast(TEXTS), reference(TEXTS)
    assert np.abs(onnx - torch).max() <= TOLERANCE, np.abs(onnx - torch)
    assert ((onnx >= 0.5) == (torch >= 0.5)).all()
    assert ((onnx >= 0.5)[3:5]).all() and not (onnx >= 0.5)[:3].any()  # the test could fail: both kinds present
    assert fast.encoder().export_difference <= 1e-4


def test_a_texts_score_does_not_depend_on_its_batch(fast: MiniLMToxicity) -> None:
    together = fast.head_logits(TEXTS * 3)  # padded to the longest text of its length-sorted batch
    alone = np.concatenate([fast.head_logits([text]) for text in TEXTS])
    assert np.abs(together[: len(TEXTS)] - alone).max() <= 1e-6
    assert np.abs(together.reshape(3, -1) - alone).max() <= 1e-6


def test_batches_are_sorted_by_tokens_and_cut_to_their_longest(
    fast: MiniLMToxicity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixth pass: the encoder runs texts sorted by token count, each batch only as wide as its longest text, and
    gives every text the vector it has alone."""
    encoder = fast.encoder()
    texts = [TEXTS[i % len(TEXTS)] + " and more" * (i % 5) for i in range(23)]
    widths: list[tuple[int, int]] = []
    run = encoder.session.run

    def recording(names: object, feed: dict[str, np.ndarray]) -> object:
        mask = feed["attention_mask"]
        widths.append((mask.shape[1], int(mask.sum(axis=1).max())))
        return run(names, feed)

    monkeypatch.setattr(encoder.session, "run", recording, raising=False)
    together = encoder.pooled(texts, batch_size=4)
    assert len(widths) == 6 and all(width == longest for width, longest in widths)  # no padding column
    assert [w for w, _ in widths] == sorted((w for w, _ in widths), reverse=True)
    alone = np.vstack([encoder.pooled([text]) for text in texts])
    assert np.abs(together - alone).max() <= 1e-5
    assert encoder.pooled([]).shape == (0, encoder.width)


def test_the_encoder_is_exported_once_and_found_again_by_its_head(
    fast: MiniLMToxicity, onnx_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evenhand.scorers import _onnx, toxicity_encoder_onnx

    fast.encoder()
    folders = [p for p in (onnx_cache / "onnx").iterdir() if p.name.startswith("toxicity-encoder-")]
    assert len(folders) == 1 and (folders[0] / "encoder.onnx").is_file()
    assert load_head()["digest"] in (folders[0] / "meta.json").read_text()

    def no_export(*args: object, **kwargs: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(toxicity_encoder_onnx, "export_checked", no_export)
    monkeypatch.setattr(_onnx, "export_checked", no_export)
    again = toxicity_encoder_onnx.OnnxToxicityEncoder(int(load_head()["encoder_layers"]), fast_arrays(fast))
    assert again.folder == folders[0]


def fast_arrays(scorer: MiniLMToxicity) -> object:
    from evenhand.scorers.toxicity_encoder import FrozenArrays, adapter_arrays

    return FrozenArrays(scorer.head["digest"], adapter_arrays(scorer.head))


def test_each_runtime_keeps_its_own_score_cache(fast: MiniLMToxicity, reference: MiniLMToxicity) -> None:
    digest = load_head()["digest"]
    assert fast.cache_key == f"toxicity/{SPEC}/{digest}/onnx"
    assert reference.cache_key == f"toxicity/{SPEC}/{digest}"
    assert MiniLMToxicity(device="cpu").cache_key == f"toxicity/{SPEC}/{digest}/screened/onnx"


def test_without_onnxruntime_the_pytorch_encoder_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails, find_spec finds nothing
    scorer = MiniLMToxicity(device="cpu", screen=False)
    assert scorer.runtime == "torch" and not scorer.cache_key.endswith("/onnx")
    assert type(scorer.encoder()).__name__ == "ToxicityEncoder"
    assert (scorer(TEXTS[3:5]) >= 0.5).all()
    with pytest.raises(MissingDependencyError, match="onnxruntime"):
        MiniLMToxicity(device="cpu", runtime="onnx")


def test_runtime_choices_and_devices() -> None:
    assert MiniLMToxicity(device="cuda").runtime == "torch"  # an accelerator runs PyTorch
    with pytest.raises(InputError, match="runs on the CPU"):
        MiniLMToxicity(device="cuda", runtime="onnx")
    with pytest.raises(InputError, match="runtime must be one of"):
        MiniLMToxicity(runtime="tensorflow")


def test_the_factory_passes_runtime() -> None:
    from evenhand.scorers import get_toxicity_scorer

    built = get_toxicity_scorer(SPEC, device="cpu", runtime="torch")
    assert isinstance(built, MiniLMToxicity) and built.runtime == "torch"


@pytest.mark.subprocess
def test_once_exported_scoring_loads_no_torch(fast: MiniLMToxicity, onnx_cache: Path) -> None:
    fast.encoder()  # the file exists
    code = (
        "import sys; from evenhand.scorers.toxicity_minilm import MiniLMToxicity; "
        "s = MiniLMToxicity(device='cpu', screen=False); assert s.runtime == 'onnx'; "
        "assert s(['You are a worthless idiot.'])[0] >= 0.5; assert 'torch' not in sys.modules, 'torch loaded'"
    )
    env = {**__import__("os").environ, "EVENHAND_CACHE_DIR": str(onnx_cache)}
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, env=env)


def test_char_hashing_by_distinct_word_equals_sklearn() -> None:
    from sklearn.feature_extraction.text import HashingVectorizer

    vectorizer = HashingVectorizer(n_features=2**12, analyzer="char_wb", ngram_range=(2, 5), alternate_sign=False,
                                   norm="l2", lowercase=True)  # fmt: skip
    texts = [*TEXTS, "", "   ", "a", "Ünïcode ΣΟΦΙΑΣ ok", "İstanbul  x\ty\nz", "don't  stop\u00a0now", "ok ok ok ok"]
    fast_matrix, slow = char_features(vectorizer, texts), vectorizer.transform(texts)
    assert fast_matrix.shape == slow.shape
    assert np.abs((fast_matrix - slow).toarray()).max() <= 1e-12


def test_the_torch_free_tokenizer_gives_the_training_tokenizers_ids() -> None:
    from evenhand.scorers.toxicity_encoder import base_tokenizer, tokenize
    from evenhand.scorers.toxicity_encoder_onnx import numpy_tokenizer

    texts = [*TEXTS, "", "Ünïcode ΣΟΦΙΑΣ İstanbul", "word " * 300]  # the last one is cut at MAX_TOKENS
    expected, got = tokenize(base_tokenizer(), texts), numpy_tokenizer()(texts)
    assert set(got) == {"input_ids", "attention_mask", "token_type_ids"}
    for name, values in got.items():
        assert np.array_equal(values, expected[name].numpy()), name
