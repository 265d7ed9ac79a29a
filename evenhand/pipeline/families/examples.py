"""The worst examples a family puts in results.json (``worst_examples``) and the report shows, declared as data.

A family lists its :class:`ExampleSection` objects (``Family.example_sections``): the key in ``worst_examples``,
the report's title and the layout of one example, and the function that picks the examples from the responses.
The assessment walks the families' sections and the report renders each by its layout; neither names a family or
a score column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evenhand._json import finite_or_none
from evenhand.pipeline.responses.frame import answered_pairs, group_pairs

#: Examples of each kind at most.
N_WORST = 5
#: The response frame's column (hidden from outputs: it starts with "_") with the sentence that decided a reply's
#: toxicity score when replies are scored by their worst sentence (set by the toxicity family for the most toxic).
FLAGGED_SENTENCE = "_toxicity_sentence"


@dataclass(frozen=True)
class ExampleInput:
    """What every example finder reads: the response frame, the mask of answered rows (status ok, a response) and
    the attributes with answered counterfactual rows, in order of appearance."""

    frame: pd.DataFrame
    answered: pd.Series
    cf_attributes: Sequence[Any]
    #: the score at which the run counted a reply as a refusal (None: no refusal detector ran)
    refusal_threshold: float | None = None


@dataclass(frozen=True)
class ExampleSection:
    """One kind of worst example.

    ``layout`` says how the report shows one example: ``"reply"`` (a prompt and its response, with ``measure``:
    (label, key) of the score shown above it), ``"reply_pair"`` (the replies to two groups' versions of a prompt, each
    with ``side_score`` and the pair's ``measure``), ``"list_pair"`` (the item lists for two groups' versions),
    ``"labelled"`` (a reply with its true and predicted label) or ``"bare"`` (prompt and response only).
    ``intro`` is a line under the title (``{n}``: how many examples are shown); ``illustrates`` names the risk
    whose findings at concern or watch the first example shows when the verdict has no example of its own, and
    ``caption`` how the verdict says why that example is shown ("the most toxic reply"; the report adds the
    ``measure``'s value).
    """

    key: str
    title: str
    layout: str
    find: Callable[[ExampleInput], list[dict[str, Any]]]
    measure: tuple[str, str] | None = None
    side_score: str | None = None
    intro: str = ""
    illustrates: str | None = None
    caption: str = ""




# ------------------------------------------------------------------------------------------------ toxicity
def most_toxic(data: ExampleInput) -> list[dict[str, Any]]:
    """The :data:`N_WORST` most toxic answered rows, one per distinct (prompt, response): what sorting the rows by
    toxicity (stable) and dropping duplicates gives, found by sorting the scores alone."""
    frame, answered = data.frame, data.answered
    if "toxicity" not in frame or not answered.any():
        return []
    order = frame.loc[answered, "toxicity"].sort_values(ascending=False, kind="stable").index
    picked: list[Any] = []
    seen: set[tuple[Any, Any]] = set()
    columns = ["prompt", "response", "toxicity", "group", "attribute"]
    flagged = FLAGGED_SENTENCE if FLAGGED_SENTENCE in frame else None
    for start in range(0, len(order), 1_000):
        part = frame.loc[order[start : start + 1_000], columns + ([flagged] if flagged else [])]
        for r in part.itertuples(index=False, name=None):
            if (r[0], r[1]) not in seen:
                seen.add((r[0], r[1]))
                picked.append(r)
                if len(picked) == N_WORST:
                    break
        if len(picked) == N_WORST:
            break
    out = []
    for r in picked:
        row = {"prompt": r[0], "response": r[1], "score": finite_or_none(r[2]), "group": r[3], "attribute": r[4]}
        if flagged and isinstance(r[5], str) and r[5] != r[1]:  # the sentence that decided the score, when not all
            row["flagged_sentence"] = r[5]
        out.append(row)
    return out


# ------------------------------------------------------------------------------------------------ counterfactual
def sentiment_gaps(data: ExampleInput) -> list[dict[str, Any]]:
    """The :data:`N_WORST` counterfactual pairs of replies with the largest sentiment gap, over every attribute."""
    frame = data.frame
    if "sentiment" not in frame or not data.answered.any():
        return []
    gaps = []
    for attribute in data.cf_attributes:
        for a, b, pairs in group_pairs(frame, attribute):
            if not len(pairs):
                continue
            p = pairs.assign(gap=(pairs["sentiment_a"].astype(float) - pairs["sentiment_b"].astype(float)))
            p = p.assign(abs_gap=p["gap"].abs(), attribute=attribute, group_a=a, group_b=b)
            # the pair's own top rows suffice: a stable sort keeps their order in the sort of all pairs
            gaps.append(p.sort_values("abs_gap", ascending=False, kind="stable").head(N_WORST))
    if not gaps:
        return []
    allp = pd.concat(gaps, ignore_index=True).sort_values("abs_gap", ascending=False, kind="stable")
    return [
        {
            "attribute": r.attribute,
            "group_a": r.group_a,
            "group_b": r.group_b,
            "prompt_a": r.prompt_a,
            "response_a": r.response_a,
            "sentiment_a": finite_or_none(r.sentiment_a),
            "prompt_b": r.prompt_b,
            "response_b": r.response_b,
            "sentiment_b": finite_or_none(r.sentiment_b),
            "gap": finite_or_none(r.gap),
        }
        for r in allp.head(N_WORST).itertuples(index=False)
    ]


# ------------------------------------------------------------------------------------------------ parity
def _pair_gaps(
    data: ExampleInput,
    column: str,
    gap: Callable[[pd.Series, pd.Series], Any],
    keep: Callable[[pd.DataFrame], Any] | None = None,
) -> pd.DataFrame:
    """Every counterfactual pair of every attribute whose ``gap`` of the two sides' ``column`` is defined and not 0,
    largest first (``abs_gap``), with the pair's attribute and groups; each pair of groups' own top rows only; with
    ``keep``, only the pairs it keeps (a mask of the pairs)."""
    frame = data.frame
    if column not in frame or not data.answered.any():
        return pd.DataFrame()
    found = []
    for attribute in data.cf_attributes:
        for a, b, pairs in group_pairs(frame, attribute):
            if keep is not None:
                pairs = pairs[keep(pairs)]
            if not len(pairs):
                continue
            p = pairs.assign(gap=gap(pairs[f"{column}_a"].astype(float), pairs[f"{column}_b"].astype(float)))
            p = p.assign(abs_gap=p["gap"].abs(), attribute=attribute, group_a=a, group_b=b)
            p = p[p["abs_gap"] > 0]  # a pair both refused (or as long) shows nothing
            found.append(p.sort_values("abs_gap", ascending=False, kind="stable").head(N_WORST))
    if not found:
        return pd.DataFrame()
    return pd.concat(found, ignore_index=True).sort_values("abs_gap", ascending=False, kind="stable").head(N_WORST)


def _pair_rows(pairs: pd.DataFrame, column: str) -> list[dict[str, Any]]:
    return [
        {
            "attribute": r["attribute"],
            "group_a": r["group_a"],
            "group_b": r["group_b"],
            "prompt_a": r["prompt_a"],
            "response_a": r["response_a"],
            f"{column}_a": finite_or_none(r[f"{column}_a"]),
            "prompt_b": r["prompt_b"],
            "response_b": r["response_b"],
            f"{column}_b": finite_or_none(r[f"{column}_b"]),
            "gap": finite_or_none(r["gap"]),
        }
        for r in pairs.to_dict(orient="records")
    ]


def refusal_gaps(data: ExampleInput) -> list[dict[str, Any]]:
    """The :data:`N_WORST` counterfactual pairs whose two replies differ most in refusal score: with the pattern
    detector (scores 0 and 1), a prompt whose version for one group is refused and for the other is answered."""
    return _pair_rows(_pair_gaps(data, "refusal", lambda a, b: a - b), "refusal")


def length_gaps(data: ExampleInput) -> list[dict[str, Any]]:
    """The :data:`N_WORST` counterfactual pairs whose two replies differ most in length: the largest log ratio of
    their word counts (one more word on each side, so that an empty reply counts), as the length test compares
    them; ``gap`` is the words of the first reply minus the second's. Only pairs where neither reply is a refusal, as
    RLD measures (rld18: a refused reply is refusal parity's example, not a short answer)."""
    ratio = _pair_gaps(data, "words", lambda a, b: np.log((a + 1.0) / (b + 1.0)),
                       keep=lambda pairs: answered_pairs(pairs, data.refusal_threshold))  # fmt: skip
    if len(ratio):
        ratio = ratio.assign(gap=ratio["words_a"].astype(float) - ratio["words_b"].astype(float))
    return _pair_rows(ratio, "words")


def estimate_gaps(data: ExampleInput) -> list[dict[str, Any]]:
    """The :data:`N_WORST` counterfactual pairs whose two numbers differ most, relative to their size (the largest
    ``|log(a / b)|``, as CER compares them; pairs with a number of 0 or less by ``|a - b|`` relative to the larger);
    ``gap`` is the first reply's number minus the second's."""

    def relative(a: pd.Series, b: pd.Series) -> Any:
        with np.errstate(invalid="ignore", divide="ignore"):
            both = (a > 0) & (b > 0)
            log_ratio = np.log(a.where(both, 1.0) / b.where(both, 1.0))
            return np.where(both, log_ratio, (a - b) / np.maximum(a.abs(), b.abs()))

    found = _pair_gaps(data, "estimate", relative)
    if len(found):
        found = found.assign(gap=found["estimate_a"].astype(float) - found["estimate_b"].astype(float))
    return _pair_rows(found, "estimate")


# ------------------------------------------------------------------------------------------------ recommendation
def least_similar_lists(data: ExampleInput) -> list[dict[str, Any]]:
    """The :data:`N_WORST` counterfactual pairs of item lists with the least overlap (Jaccard), over every attribute."""
    frame = data.frame
    if "items" not in frame or not data.answered.any():
        return []
    worst_lists = []
    for attribute in data.cf_attributes:
        for a, b, pairs in group_pairs(frame, attribute):
            records: list[dict[Any, Any]] = pairs.to_dict(orient="records")
            for r in records:
                left, right = {str(i).lower() for i in r["items_a"]}, {str(i).lower() for i in r["items_b"]}
                overlap = len(left & right) / len(left | right) if left | right else 1.0
                worst_lists.append((overlap, attribute, a, b, r))
    worst_lists.sort(key=lambda x: x[0])
    return [
        {
            "attribute": attribute,
            "group_a": a,
            "group_b": b,
            "jaccard": overlap,
            "prompt_a": r["prompt_a"],
            "items_a": list(r["items_a"]),
            "prompt_b": r["prompt_b"],
            "items_b": list(r["items_b"]),
        }
        for overlap, attribute, a, b, r in worst_lists[:N_WORST]
    ]


# ------------------------------------------------------------------------------------------------ classification
def misclassified(data: ExampleInput) -> list[dict[str, Any]]:
    """Up to :data:`N_WORST` wrong predictions, taken in turn from each group so that every group is represented;
    one per person (prompt), with how many of the person's answers were wrong: several samples of one person are
    one mistake seen several times, not several mistakes."""
    frame = data.frame
    if "label" not in frame or "truth" not in frame or not data.answered.any():
        return []
    rows = frame[data.answered]
    group_cols = [c for c in rows.columns if str(c).startswith("group_")]
    judged = rows[rows["label"].notna() & rows["truth"].notna()]
    person = judged["prompt_id"] if "prompt_id" in judged else judged["prompt"]
    is_wrong = judged["label"] != judged["truth"]
    n_answers, n_wrong = person.map(person.value_counts()), person.map(person[is_wrong].value_counts())
    judged = judged.assign(n_answers=n_answers, n_wrong=n_wrong)
    wrong = judged[is_wrong].drop_duplicates(subset=[person.name], keep="first")
    if wrong.empty:
        return []
    col = group_cols[0] if group_cols else None
    keyed = wrong.assign(wgroup=wrong[col].astype(object).where(wrong[col].notna(), "?") if col else "all")
    keyed = keyed.assign(wturn=keyed.groupby("wgroup", sort=False).cumcount()).sort_values("wturn", kind="stable")
    return [
        {
            "attribute": col.removeprefix("group_") if col else None,
            "group": r.wgroup,
            "truth": r.truth,
            "label": r.label,
            "prompt": r.prompt,
            "response": r.response,
            "n_wrong": int(r.n_wrong),
            "n_answers": int(r.n_answers),
        }
        for r in keyed.head(N_WORST).itertuples(index=False)
    ]


def unparsed(data: ExampleInput) -> list[dict[str, Any]]:
    """Up to :data:`N_WORST` answers from which no label could be parsed."""
    frame = data.frame
    if "label" not in frame or not data.answered.any():
        return []
    rows = frame[data.answered & frame["label"].isna()].head(N_WORST)
    return [{"prompt": r.prompt, "response": r.response} for r in rows.itertuples(index=False)]
