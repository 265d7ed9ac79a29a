"""The metric registry: everything evenhand knows about a metric, declared once.

Each :class:`MetricSpec` says what the metric is (key = its function in :mod:`evenhand.metrics`, short and full
name, paper section), what it needs (inputs, the settings it takes), how to read it (range, direction) and how
to show it (title). The planner (:mod:`evenhand.framework`), the pipeline's metric families, the statistics, the
report and the CLI all read this table; none keeps its own list of names, aliases or titles.

Families group metrics the way the paper does (Table 2); :data:`FAMILIES` gives each its title and section.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

Scope = Literal["use_case", "attribute", "pair"]
#: What a metric function takes, beyond its settings: the pipeline's families dispatch on this, not on names.
Inputs = Literal[
    "toxicity_scores",  # one toxicity score per response, with the prompt of each
    "texts",  # the responses themselves, with the attribute's lexicon
    "stereotype_scores",  # one stereotype score per response, with the prompt of each
    "text_pairs",  # counterfactual response pairs (texts)
    "sentiment_pairs",  # sentiment scores of counterfactual response pairs
    "predictions",  # predicted labels and groups
    "predictions_and_truth",  # ground truth, predicted labels and groups
    "item_list_pairs",  # counterfactual pairs of K-item lists
]


Risk = Literal["toxicity", "stereotype", "counterfactual", "allocational"]


@dataclass(frozen=True)
class FamilySpec:
    """A metric family of the paper: its key, display title, section, and the risk it measures (what a verdict's
    finding is about: toxicity, stereotypes, counterfactual unfairness, allocational harm)."""

    key: str
    title: str
    section: str
    risk: Risk


@dataclass(frozen=True)
class MetricSpec:
    """One metric, declared once.

    Attributes:
        key: the metric function's name in :mod:`evenhand.metrics` (also the key in results and configs).
        name: the short name the paper uses ("CROUGE-L").
        full_name: the name spelled out ("Counterfactual ROUGE-L").
        family: the :data:`FAMILIES` key.
        section: the paper section that defines it.
        requires: the input it needs, in the words of the paper's Table 2.
        inputs: what the metric function takes (see :data:`Inputs`).
        value_range: the range of possible values.
        higher_is_fairer: its direction.
        scope: ``"use_case"`` (one value for the whole use case), ``"attribute"`` (one per protected attribute)
            or ``"pair"`` (one per pair of groups of an attribute).
        settings: metric parameter -> the run setting that supplies it, e.g. ``{"threshold":
            "toxicity_threshold"}``; a metric takes exactly these parameters from the settings.
        rate: for group fairness, the per-group rate the metric compares ("false negative rate").
        pair_similarity: for counterfactual similarity, the per-pair score behind the metric
            (``"rouge_l"``, ``"bleu"``, ``"cosine"``): the same-prompt noise floor uses exactly that maths.
        unit: what the value is a share or mean of, in the words a finding's sentence uses: ``"responses"`` (TF:
            the share of responses), ``"prompts"`` (TP: the share of prompts whose most toxic response is toxic;
            EMT: the mean over prompts of the worst response's score), ``"pairs"`` (counterfactual pairs of
            responses or lists), ``"predictions"`` (group rates).
    """

    key: str
    name: str
    full_name: str
    family: str
    section: str
    requires: str
    inputs: Inputs
    value_range: tuple[float, float] = (0.0, 1.0)
    higher_is_fairer: bool = False
    scope: Scope = "attribute"
    settings: Mapping[str, str] = field(default_factory=dict)
    pair_similarity: str | None = None
    rate: str | None = None
    unit: str = "responses"

    @property
    def title(self) -> str:
        """Display title: the full name with the short name, e.g. "Counterfactual ROUGE-L (CROUGE-L)"."""
        return self.full_name if self.full_name == self.name else f"{self.full_name} ({self.name})"

    @property
    def direction(self) -> str:
        return "higher is fairer" if self.higher_is_fairer else "lower is fairer"

    @property
    def pairwise(self) -> bool:
        return self.scope == "pair"

    def describe_range(self) -> str:
        low, high = self.value_range
        return f"[{low:g}, {'∞' if math.isinf(high) else f'{high:g}'}]"


FAMILIES: Mapping[str, FamilySpec] = MappingProxyType(
    {
        f.key: f
        for f in (
            FamilySpec("toxicity", "Toxicity", "3.1.1", "toxicity"),
            FamilySpec("stereotype", "Stereotypes", "3.1.2", "stereotype"),
            FamilySpec("counterfactual_similarity", "Counterfactual similarity", "3.1.3.1", "counterfactual"),
            FamilySpec("counterfactual_sentiment", "Counterfactual sentiment", "3.1.3.2", "counterfactual"),
            FamilySpec("representation", "Representation fairness", "3.2.1", "allocational"),
            FamilySpec("error_based", "Error-based fairness", "3.2.2", "allocational"),
            FamilySpec("recommendation", "Recommendation fairness", "3.3", "counterfactual"),
        )
    }
)

_ONE = "1 (or more) generation per prompt"
_MANY = "25 generations per prompt"
_PAIRS = "1 (or more) counterfactual pair of generations per prompt"
_CLS = "binary predictions, ground truth and protected attribute groups"
_TOX = {"threshold": "toxicity_threshold"}
_STEREO = {"threshold": "stereotype_threshold"}
_INF = (0.0, math.inf)
_COS = (-1.0, 1.0)


_TOXICITY: dict[str, Any] = {"family": "toxicity", "section": "3.1.1", "inputs": "toxicity_scores", "scope": "use_case"}
_COOCCURRENCE: dict[str, Any] = {"family": "stereotype", "section": "3.1.2.1", "requires": _ONE, "inputs": "texts"}
_CLASSIFIER: dict[str, Any] = {"family": "stereotype", "section": "3.1.2.2", "inputs": "stereotype_scores"}
_SIMILARITY: dict[str, Any] = {
    "family": "counterfactual_similarity",
    "section": "3.1.3.1",
    "requires": _PAIRS,
    "inputs": "text_pairs",
    "scope": "pair",
    "higher_is_fairer": True,
    "unit": "pairs",
}
_SENTIMENT: dict[str, Any] = {
    "family": "counterfactual_sentiment",
    "section": "3.1.3.2",
    "requires": _PAIRS,
    "inputs": "sentiment_pairs",
    "scope": "pair",
}
_ERRORS: dict[str, Any] = {
    "family": "error_based",
    "section": "3.2.2",
    "requires": _CLS,
    "inputs": "predictions_and_truth",
    "unit": "predictions",
}
_LISTS: dict[str, Any] = {
    "family": "recommendation",
    "section": "3.3",
    "requires": "counterfactual pairs of K-item lists",
    "inputs": "item_list_pairs",
    "scope": "pair",
    "higher_is_fairer": True,
    "unit": "pairs",
}
_PER_PROMPT = "prompts"  # EMT, TP, EMS, SP: one value per prompt (its most toxic / stereotyped response)

METRICS: Mapping[str, MetricSpec] = MappingProxyType(
    {
        m.key: m
        for m in (
            MetricSpec("toxic_fraction", "TF", "Toxic Fraction", requires=_ONE, settings=_TOX, **_TOXICITY),
            MetricSpec("expected_maximum_toxicity", "EMT", "Expected Maximum Toxicity", requires=_MANY,
                       unit=_PER_PROMPT, **_TOXICITY),
            MetricSpec("toxicity_probability", "TP", "Toxicity Probability", requires=_MANY, settings=_TOX,
                       unit=_PER_PROMPT, **_TOXICITY),
            MetricSpec("cooccurrence_bias", "COBS", "Co-Occurrence Bias Score", value_range=_INF, scope="pair",
                       **_COOCCURRENCE),
            MetricSpec("stereotypical_associations", "SA", "Stereotypical Associations", **_COOCCURRENCE),
            MetricSpec("stereotype_fraction", "SF", "Stereotype Fraction", requires=_ONE, settings=_STEREO,
                       **_CLASSIFIER),
            MetricSpec("expected_maximum_stereotype", "EMS", "Expected Maximum Stereotype", requires=_MANY,
                       unit=_PER_PROMPT, **_CLASSIFIER),
            MetricSpec("stereotype_probability", "SP", "Stereotype Probability", requires=_MANY, settings=_STEREO,
                       unit=_PER_PROMPT, **_CLASSIFIER),
            MetricSpec("counterfactual_rouge_l", "CROUGE-L", "Counterfactual ROUGE-L", pair_similarity="rouge_l",
                       **_SIMILARITY),
            MetricSpec("counterfactual_bleu", "CBLEU", "Counterfactual BLEU", pair_similarity="bleu", **_SIMILARITY),
            MetricSpec("counterfactual_cosine", "CCS", "Counterfactual Cosine Similarity", value_range=_COS,
                       pair_similarity="cosine", **_SIMILARITY),
            MetricSpec("strict_sentiment_parity", "SCSP", "Strict Counterfactual Sentiment Parity", **_SENTIMENT),
            MetricSpec("weak_sentiment_parity", "WCSP", "Weak Counterfactual Sentiment Parity",
                       settings={"threshold": "sentiment_threshold"}, **_SENTIMENT),
            MetricSpec("demographic_parity_difference", "DP", "Demographic Parity difference",
                       family="representation", section="3.2.1", requires="binary predictions and groups",
                       inputs="predictions", rate="predicted positive rate", unit="predictions"),
            MetricSpec("false_negative_rate_difference", "FNRD", "False Negative Rate Difference",
                       rate="false negative rate", **_ERRORS),
            MetricSpec("false_omission_rate_difference", "FORD", "False Omission Rate Difference",
                       rate="false omission rate", **_ERRORS),
            MetricSpec("false_positive_rate_difference", "FPRD", "False Positive Rate Difference",
                       rate="false positive rate", **_ERRORS),
            MetricSpec("false_discovery_rate_difference", "FDRD", "False Discovery Rate Difference",
                       rate="false discovery rate", **_ERRORS),
            MetricSpec("jaccard_at_k", "Jaccard-K", "Counterfactual Jaccard Similarity at K", **_LISTS),
            MetricSpec("serp_at_k", "SERP-K", "Search Result Page Misinformation Score at K", **_LISTS),
            MetricSpec("prag_at_k", "PRAG-K", "Pairwise Ranking Accuracy Gap at K", **_LISTS),
        )
    }
)  # fmt: skip


def metric(name: str) -> MetricSpec:
    """The spec of a metric by key ("counterfactual_rouge_l") or short name ("CROUGE-L"; case-insensitive)."""
    found = METRICS.get(name) or _BY_NAME.get(str(name).strip().lower())
    if found is None:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(m.name for m in METRICS.values())}")
    return found


def family_keys(family: str) -> tuple[str, ...]:
    """The metric keys of one family, in registry order."""
    if family not in FAMILIES:
        raise KeyError(f"unknown metric family {family!r}; families: {list(FAMILIES)}")
    return tuple(k for k, m in METRICS.items() if m.family == family)


_BY_NAME: dict[str, MetricSpec] = {
    alias: m for m in METRICS.values() for alias in (m.key, m.name.lower(), m.full_name.lower())
}
