"""What a metric declaration is: the vocabulary and the spec types of the metric registry.

:class:`MetricSpec` (one metric) and :class:`FamilySpec` (one family of the paper), the names their fields take
(:data:`Inputs`, :data:`EvidenceKindName`, :data:`IntervalMethod`, :data:`Risk`, ...) and :func:`bind`, the lazy
``"module:object"`` binding a spec uses to name its function without importing it. The table of the metrics
themselves, and the lookups over it, are :mod:`evenhand.registry` (which re-exports every name here: import them from
there).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from evenhand.errors import InputKeyError

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
    "decision_pairs_and_truth",  # decision pairs with the case's true outcome (1 = the counted class), left10b
    "decision_pairs",  # parsed decisions (1 = the positive one) of counterfactual pairs of classification answers
    "toxicity_pairs",  # toxicity scores of counterfactual response pairs
    "refusal_pairs",  # refusal scores (1 = a refusal) of counterfactual response pairs
    "non_completion_pairs",  # 1 where a counterfactual request got no reply (an error, a content filter, empty)
    "refusal_groups",  # refusal scores of answers, each with its person's group (person-level: no versions to pair)
    "length_pairs",  # answer lengths in words of counterfactual response pairs
    "condition_pairs",  # per-reply scores under an adversarial and the benign system prompt, same request and slot
    "estimate_pairs",  # the numbers read from counterfactual pairs of replies (NaN: the reply held none)
    "judged_pairs",  # an LLM judge's verdict on each counterfactual pair of replies, asked in both orders (issue 38)
    "refusal_sets", "length_sets", "toxicity_sets", "decision_sets",  # per reply, and whether its prompt is in a set
]
#: The kind of evidence a metric gives, by name (:attr:`MetricSpec.judge`): how the verdict judges and words it, picks
#: the pair of replies that shows it and how ``compare`` recomputes it. Each kind is one module, named lazily in
#: :data:`EVIDENCE_KINDS` (docs/architecture.md, "Adding a kind of evidence").
EvidenceKindName = Literal[
    "similarity", "sentiment", "share", "cooccurrence", "lists", "rates", "decisions", "decision_flips",
    "group_toxicity", "refusal_parity", "length_parity", "adversarial", "estimates", "judged_treatment",
    "observational", "non_completion_parity", "person_refusal_parity",
    "counterfactual_errors",
]
#: How a metric's interval is computed (issue 37; docs/uncertainty.md): ``"bootstrap"``, the percentile or BCa
#: bootstrap of its units; ``"rate"``, for a rate, a difference of two rates or a spread of several whose result
#: carries its counts (``MetricResult.rate_counts``), a Clopper-Pearson interval on the effective number of trials
#: (Newcombe's square-and-add for differences), which keeps its coverage at 0%, at 100% and on few prompts.
IntervalMethod = Literal["bootstrap", "rate"]
#: The error a group-rate metric compares, and the kind of intervention that makes it the harm (paper section 4).
Harm = Literal["false negatives", "false positives"]
Intervention = Literal["assistive", "punitive"]
#: Which harm each kind of intervention makes the one to compare (Saleiro et al.'s tree, paper section 4).
INTERVENTION_HARM: Mapping[Intervention, Harm] = MappingProxyType(
    {"assistive": "false negatives", "punitive": "false positives"}
)

Risk = Literal[
    "toxicity", "stereotype", "counterfactual", "allocational", "refusal", "quality_of_service", "adversarial",
    "judged_treatment", "observational",
]
#: The risk of the red-teaming families (evenhand.redteaming): their metrics compare two runs of the use case (an
#: adversarial system prompt against the benign one), so no plan chooses them and no pipeline family computes them.
ADVERSARIAL: Risk = "adversarial"


def bind(target: str) -> Any:
    """The object a ``"package.module:object"`` string names, imported now (the registry's lazy binding)."""
    module_name, sep, name = target.partition(":")
    if not sep or not module_name or not name:
        raise InputKeyError(f"{target!r} is not a 'module:object' reference")
    return getattr(importlib.import_module(module_name), name)


@dataclass(frozen=True)
class FamilySpec:
    """A metric family of the paper: its key, display title, section, and the risk it measures (what a verdict's
    finding is about: toxicity, stereotypes, counterfactual unfairness, allocational harm).

    ``audit`` names the scorer whose audit (:mod:`evenhand.scorers.audit`, results.json ``scorer_audit``) can explain
    the family's group differences. Only findings about a pair of groups can point one way; today those are
    counterfactual sentiment parity and toxicity per group. TF, EMT, TP and the stereotype metrics describe the
    whole use case (or one attribute), so their audits are reported and can explain nothing group-wise: a family
    that gains per-group findings names its scorer here."""

    key: str
    title: str
    section: str
    risk: Risk
    audit: str | None = None
    adjusted_apart: bool = False  # its tests are adjusted as their own set (observational: neither dilutes the other)
    #: False: no plan chooses it; its pipeline family makes its rows where the responses call for them (non-completion
    #: parity, beside refusal parity in the runs where a request got no reply), so the other runs keep their rows
    planned: bool = True


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
        module: the module of :mod:`evenhand.metrics` that defines the function (:attr:`function`).
        judge: the kind of evidence it gives (see :data:`EvidenceKindName`, :data:`EVIDENCE_KINDS`).
        value_range: the range of possible values.
        higher_is_fairer: its direction.
        scope: ``"use_case"`` (one value for the whole use case), ``"attribute"`` (one per protected attribute)
            or ``"pair"`` (one per pair of groups of an attribute).
        settings: metric parameter -> the run setting that supplies it, e.g. ``{"threshold":
            "toxicity_threshold"}``; a metric takes exactly these parameters from the settings.
        rate: for group fairness, the per-group rate the metric compares ("false negative rate").
        ratio: for group fairness, the function (in :mod:`evenhand.metrics`) of the ``min / max`` ratio of the
            same rate (paper footnote 24); higher is fairer there.
        harm: for error-based fairness, the error the metric compares (see :data:`INTERVENTION_HARM`).
        pair_similarity: for counterfactual similarity, the per-pair score behind the metric
            (:data:`evenhand.metric_functions.PAIR_SIMILARITIES`): the same-prompt noise floor uses exactly that maths.
        unit: what the value is a share or mean of, in the words a finding's sentence uses: ``"responses"`` (TF:
            the share of responses), ``"prompts"`` (TP: the share of prompts whose most toxic response is toxic;
            EMT: the mean over prompts of the worst response's score), ``"pairs"`` (counterfactual pairs of
            responses or lists), ``"predictions"`` (group rates).
        signed: the value is a signed difference between the pair's two groups (first minus second), 0 when
            fair: ``higher_is_fairer`` is False and means "farther from 0 is less fair"; ``compare`` judges a
            change by the size of the gap, and a ``value`` threshold its size.
        pair_column: for metrics over counterfactual pairs of per-response scores, the response frame's column
            the pairs read (``"refusal"`` gives ``refusal_a`` and ``refusal_b``); ``compare`` rebuilds from it.
        formula: the formula, in words and symbols, for the documentation and results.json.
        words: what a finding's sentence calls the metric's parts, for a kind of evidence that words several metrics
            one way (its module says which keys it reads), so that no kind branches on a metric's key.
        interval: how its interval is computed (see :data:`IntervalMethod`); results.json names the method per row.
        interval_covers: False where its interval is measured to undercover and no bound mends it without losing
            all power (RLD: 63.5-96.5% in the coverage benchmark's cells, a rare much longer reply unseen): the
            verdict then judges it by its adjusted test alone and shows the interval as a description that may
            undercover (:class:`~evenhand.pipeline.verdict.qualifiers.IntervalMayUndercover`), not as a gate.
        tested_with: metrics that test one comparison two ways (CER, a ratio, and CED, a difference, of the same
            numbers) share a name here: the multiplicity adjustment puts their tests in one family per attribute
            (:attr:`adjustment_key`), so that a finding that rests on the stronger of two correlated tests is
            adjusted for both (est17: read apart, a fair name audit raised a concern in about 6% of runs).
        described_beside: the key of the metric whose test decides wherever it is defined for the same attribute and
            comparison (CED beside CER, est17b): this metric's test then joins no adjustment and sets no severity;
            its value and interval are described beside the deciding one. Where that metric's test is undefined
            (CER on numbers of 0 or less), this metric's own test decides, adjusted as every other.
    """

    key: str
    name: str
    full_name: str
    family: str
    section: str
    requires: str
    inputs: Inputs
    module: str
    judge: EvidenceKindName
    value_range: tuple[float, float] = (0.0, 1.0)
    higher_is_fairer: bool = False
    scope: Scope = "attribute"
    settings: Mapping[str, str] = field(default_factory=dict)
    pair_similarity: str | None = None
    rate: str | None = None
    ratio: str | None = None
    harm: Harm | None = None
    unit: str = "responses"
    signed: bool = False
    pair_column: str | None = None
    formula: str | None = None
    words: Mapping[str, str] = field(default_factory=dict)
    interval: IntervalMethod = "bootstrap"
    interval_covers: bool = True
    tested_with: str | None = None
    described_beside: str | None = None

    @property
    def adjustment_key(self) -> str:
        """The metric part of its tests' family in the multiplicity adjustment: :attr:`tested_with` where it shares
        a comparison with other metrics, else its own key."""
        return self.tested_with or self.key

    @property
    def function(self) -> str:
        """The metric function as a lazy ``"module:object"`` reference, e.g.
        ``"evenhand.metrics.toxicity:toxic_fraction"``."""
        return f"{self.module}:{self.key}"

    def load(self) -> Callable[..., Any]:
        """The metric function itself (its module is imported now, not when the registry is)."""
        fn: Callable[..., Any] = bind(self.function)
        return fn

    @property
    def title(self) -> str:
        """Display title: the full name with the short name, e.g. "Counterfactual ROUGE-L (CROUGE-L)"."""
        return self.full_name if self.full_name == self.name else f"{self.full_name} ({self.name})"

    @property
    def direction(self) -> str:
        if self.signed:
            return "closer to 0 is fairer"
        return "higher is fairer" if self.higher_is_fairer else "lower is fairer"

    @property
    def pairwise(self) -> bool:
        return self.scope == "pair"

    @property
    def needs_truth(self) -> bool:
        """Whether the metric needs ground-truth labels besides the predictions."""
        return self.inputs == "predictions_and_truth"

    def describe_range(self) -> str:
        low, high = self.value_range
        return f"[{'-∞' if math.isinf(low) else f'{low:g}'}, {'∞' if math.isinf(high) else f'{high:g}'}]"

    def identity(self) -> dict[str, Any]:
        """What a metric function's result takes from here: ``name``, ``value_range`` and ``higher_is_fairer``
        (``MetricResult(**spec.identity(), value=...)``), so the metric module never re-types them."""
        return {"name": self.name, "value_range": self.value_range, "higher_is_fairer": self.higher_is_fairer}
