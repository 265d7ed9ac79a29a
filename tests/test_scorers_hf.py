"""Hugging Face and Detoxify backends on tiny random models that the tests build and save locally (no hub)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.model

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from evenhand.scorers import (  # noqa: E402
    DetoxifyToxicity,
    HFSentiment,
    HFToxicity,
    MaxScorer,
    ModelUnavailableError,
    StereotypeScorer,
    get_sentiment_scorer,
    get_stereotype_scorer,
    get_toxicity_scorer,
)

WORDS = "the a is was he she they doctor nurse man woman good bad nice awful hate love people ! . ,".split()
STEREO_LABELS = [
    "unrelated",
    "stereotype_gender",
    "anti-stereotype_gender",
    "stereotype_race",
    "anti-stereotype_race",
    "stereotype_religion",
    "anti-stereotype_religion",
    "stereotype_profession",
    "anti-stereotype_profession",
]
TEXTS = ["the nurse is nice .", "he was awful !", "she hate people", "", "the nurse is nice ."]


def build_tiny_bert(folder: Path, labels: list[str], *, multi_label: bool = False) -> Path:
    """Save a 2-layer, hidden-32 random BERT classifier with a tiny WordPiece vocabulary into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tokenizer = transformers.BertTokenizer(str(vocab), model_max_length=64)
    config = transformers.BertConfig(
        vocab_size=len(WORDS) + 5,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=64,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={lab: i for i, lab in enumerate(labels)},
        problem_type="multi_label_classification" if multi_label else "single_label_classification",
    )
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config)
    with torch.no_grad():  # spread the logits so that labels differ visibly
        model.classifier.weight.normal_(0, 2.0)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def reference_probs(folder: Path, texts: list[str], multi_label: bool = False) -> np.ndarray:
    """Probabilities straight from transformers, one text at a time (no batching, no padding)."""
    tok = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).eval()
    rows = []
    with torch.no_grad():
        for t in texts:
            logits = model(**tok(t, return_tensors="pt")).logits[0]
            rows.append((torch.sigmoid(logits) if multi_label else torch.softmax(logits, -1)).numpy())
    return np.array(rows, dtype=np.float64)


@pytest.fixture(scope="module")
def toxic_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tox"), ["non-toxic", "toxic"])


@pytest.fixture(scope="module")
def multilabel_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("ml"), ["toxic", "insult", "threat"], multi_label=True)


@pytest.fixture(scope="module")
def sentiment_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("sent"), ["NEGATIVE", "NEUTRAL", "POSITIVE"])


@pytest.fixture(scope="module")
def stereotype_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("stereo"), STEREO_LABELS)


def test_hf_toxicity_from_local_path(toxic_model: Path) -> None:
    scorer = get_toxicity_scorer(str(toxic_model), device="cpu", batch_size=2)
    assert isinstance(scorer, HFToxicity) and scorer.labels == ["non-toxic", "toxic"]
    np.testing.assert_allclose(scorer(TEXTS), reference_probs(toxic_model, TEXTS)[:, 1], atol=1e-5)
    assert scorer.n_computed == 4  # the repeated text is scored once
    same = get_toxicity_scorer(f"hf:{toxic_model}", toxic_label="TOXIC", device="cpu")
    np.testing.assert_allclose(same(TEXTS), scorer(TEXTS), atol=1e-6)


def test_hf_toxicity_label_choice(toxic_model: Path, multilabel_model: Path) -> None:
    ref = reference_probs(toxic_model, TEXTS)
    other = get_toxicity_scorer(toxic_model, toxic_label="non-toxic", device="cpu")
    np.testing.assert_allclose(other(TEXTS), ref[:, 0], atol=1e-5)
    both = get_toxicity_scorer(toxic_model, toxic_label=["non-toxic", "toxic"], device="cpu")
    np.testing.assert_allclose(both(TEXTS), 1.0, atol=1e-5)  # softmax labels add up
    multi = get_toxicity_scorer(multilabel_model, toxic_label=["insult", "threat"], device="cpu")
    ref_ml = reference_probs(multilabel_model, TEXTS, multi_label=True)
    np.testing.assert_allclose(multi(TEXTS), ref_ml[:, 1:].max(axis=1), atol=1e-5)  # multi-label: max
    with pytest.raises(ValueError, match="not among the labels"):
        get_toxicity_scorer(toxic_model, toxic_label="hateful", device="cpu")


def test_max_of_default_and_hf(toxic_model: Path) -> None:
    combo = get_toxicity_scorer([None, str(toxic_model)], device="cpu")
    assert isinstance(combo, MaxScorer)
    parts = np.vstack([get_toxicity_scorer()(TEXTS), get_toxicity_scorer(toxic_model, device="cpu")(TEXTS)])
    np.testing.assert_allclose(combo(TEXTS), parts.max(axis=0), atol=1e-6)


def test_hf_sentiment(sentiment_model: Path) -> None:
    ref = reference_probs(sentiment_model, TEXTS)
    neg = get_sentiment_scorer(sentiment_model, device="cpu")
    assert isinstance(neg, HFSentiment)
    np.testing.assert_allclose(neg(TEXTS), ref[:, 0], atol=1e-5)
    pos = get_sentiment_scorer(f"hf:{sentiment_model}", label="positive", device="cpu")
    np.testing.assert_allclose(pos(TEXTS), ref[:, 2], atol=1e-5)
    assert neg.scale.startswith("probability of the label 'NEGATIVE'") and "'POSITIVE'" in pos.scale  # type: ignore[attr-defined]


def test_stereotype_categories(stereotype_model: Path) -> None:
    ref = reference_probs(stereotype_model, TEXTS)
    scorer = get_stereotype_scorer(stereotype_model, device="cpu")
    assert isinstance(scorer, StereotypeScorer)
    cats = scorer.score_categories(TEXTS)
    assert list(cats) == ["gender", "race", "religion", "profession"]
    for cat in cats:
        np.testing.assert_allclose(cats[cat], ref[:, STEREO_LABELS.index(f"stereotype_{cat}")], atol=1e-5)
    stereo_cols = [i for i, lab in enumerate(STEREO_LABELS) if lab.startswith("stereotype_")]
    np.testing.assert_allclose(scorer(TEXTS), ref[:, stereo_cols].sum(axis=1), atol=1e-5)
    gender = get_stereotype_scorer(stereotype_model, category="Gender", device="cpu")
    np.testing.assert_allclose(gender(TEXTS), cats["gender"], atol=1e-6)
    assert scorer.score_categories([])["race"].shape == (0,)


def test_stereotype_label_map(stereotype_model: Path) -> None:
    ref = reference_probs(stereotype_model, TEXTS)
    scorer = StereotypeScorer(
        stereotype_model,
        label_map={"gender": ["stereotype_gender", "anti-stereotype_gender"], "race": "stereotype_race"},
        device="cpu",
    )
    assert scorer.categories == ("gender", "race")
    cats = scorer.score_categories(TEXTS)
    np.testing.assert_allclose(cats["gender"], ref[:, 1] + ref[:, 2], atol=1e-5)
    np.testing.assert_allclose(cats["race"], ref[:, 3], atol=1e-5)
    with pytest.raises(ValueError, match="unknown stereotype category"):
        scorer.category("age")
    with pytest.raises(ValueError, match="not among the labels"):
        StereotypeScorer(stereotype_model, label_map={"age": "stereotype_age"}, device="cpu")


def test_offline_default_stereotype_model_gives_clear_error() -> None:
    with pytest.raises(ModelUnavailableError, match=r"pass its path.*get_stereotype_scorer\('/path"):
        get_stereotype_scorer(device="cpu")


def test_missing_hf_model_gives_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="could not load toxicity model"):
        get_toxicity_scorer(str(tmp_path / "nowhere"), device="cpu")


def test_hf_cache_and_device(toxic_model: Path, tmp_path: Path) -> None:
    first = get_toxicity_scorer(toxic_model, device="auto", cache=tmp_path / "c.sqlite")
    a = first(TEXTS)
    second = get_toxicity_scorer(toxic_model, device="cpu", cache=tmp_path / "c.sqlite")
    np.testing.assert_allclose(second(TEXTS), a)
    assert second.n_computed == 0


@pytest.fixture(scope="module")
def detoxify_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    classes = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]
    folder = build_tiny_bert(tmp_path_factory.mktemp("detox"), classes, multi_label=True)
    model = transformers.BertForSequenceClassification.from_pretrained(folder)
    ckpt = folder / "tiny.ckpt"
    torch.save(
        {
            "config": {
                "arch": {
                    "args": {
                        "model_type": str(folder),
                        "model_name": "BertForSequenceClassification",
                        "tokenizer_name": "BertTokenizer",
                        "num_classes": len(classes),
                    }
                },
                "dataset": {"args": {"classes": classes}},
            },
            "state_dict": model.state_dict(),
        },
        ckpt,
    )
    return ckpt, folder


def test_detoxify_checkpoint_path(detoxify_checkpoint: tuple[Path, Path]) -> None:
    ckpt, folder = detoxify_checkpoint
    scorer = get_toxicity_scorer("detoxify-unbiased", checkpoint=ckpt, huggingface_config_path=folder, device="cpu")
    assert isinstance(scorer, DetoxifyToxicity)
    out = scorer(TEXTS)
    ref = reference_probs(folder, TEXTS, multi_label=True).max(axis=1)  # Detoxify: sigmoid, max over labels
    np.testing.assert_allclose(out, ref, atol=1e-5)
    one = scorer(["he was awful !"])  # Detoxify squeezes one-text batches; the scorer must not care
    np.testing.assert_allclose(one, out[1:2], atol=1e-6)


def test_detoxify_offline_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from urllib.error import URLError

    def offline(*args: object, **kwargs: object) -> None:
        raise URLError("no internet")

    # Simulate the offline download, so the test never fetches (or finds cached) a real checkpoint.
    monkeypatch.setattr(torch.hub, "load_state_dict_from_url", offline)
    with pytest.raises(ValueError, match="unknown Detoxify"):
        DetoxifyToxicity("tiny")
    with pytest.raises(ModelUnavailableError, match="checkpoint="):
        get_toxicity_scorer("detoxify-original", device="cpu")


def test_long_texts_are_truncated_not_fatal(toxic_model: Path) -> None:
    long_text = " ".join(["the nurse is nice ."] * 200)  # far beyond the tiny model's 64 positions
    out = get_toxicity_scorer(toxic_model, device="cpu")([long_text, "he was awful !"])
    assert out.shape == (2,) and np.all((out >= 0) & (out <= 1))


def test_missing_embedder_folder_gives_clear_error(tmp_path: Path) -> None:
    from evenhand.scorers import get_embedder

    with pytest.raises(ModelUnavailableError, match="from the folder"):
        get_embedder(str(tmp_path / "nowhere"), device="cpu")


def test_replaced_local_weights_are_reloaded_and_rescored(tmp_path: Path) -> None:
    folder = build_tiny_bert(tmp_path / "model", ["non-toxic", "toxic"])
    cache = tmp_path / "c.sqlite"
    first = get_toxicity_scorer(folder, toxic_label="toxic", device="cpu", cache=cache)
    before = first(TEXTS)
    build_tiny_bert(folder, ["toxic", "non-toxic"])  # new weights and config at the same path
    second = get_toxicity_scorer(folder, toxic_label="toxic", device="cpu", cache=cache)
    assert second.cache_key != first.cache_key
    after = second(TEXTS)
    assert second.n_computed == 4  # not served from the stale cache rows
    np.testing.assert_allclose(after, reference_probs(folder, TEXTS)[:, 0], atol=1e-5)
    assert not np.allclose(after, before)


def test_hf_scorers_share_one_class(sentiment_model: Path) -> None:
    from evenhand.scorers._hf import HFLabelScorer

    scorer = get_sentiment_scorer(str(sentiment_model), device="cpu")
    assert isinstance(scorer, HFSentiment) and isinstance(scorer, HFLabelScorer)
    assert scorer.cache_key.startswith(f"sentiment/hf/{sentiment_model}#") and scorer.cache_key.endswith("/NEGATIVE")
