"""The metric registry: everything evenhand knows about a metric, declared once.

Each :class:`MetricSpec` says what the metric is (key, short and full name, paper section, the function that computes
it), what it needs (inputs, the settings it takes), how to read it (range, direction, the rate it compares, the harm
it watches) and how to judge and show it (judge, title). The planner (:mod:`evenhand.framework`), the metric
functions themselves, the pipeline's metric families, the statistics, the verdict, the report and the CLI all read
this table; none keeps its own list of names, aliases or titles.

Families group metrics the way the paper does (Table 2); :data:`FAMILIES` gives each its title and section.

This module sits below :mod:`evenhand.text` and :mod:`evenhand.metrics`: it names functions as ``"module:object"``
strings (as lm-evaluation-harness's registry does) and :func:`bind` imports them only when called, so declaring a
metric creates no import edge and importing the registry imports no metric code.

What a declaration is (the spec types, the names their fields take, :func:`bind`) lives in
:mod:`evenhand.metric_spec`; this module is the table itself and the lookups over it, and re-exports that vocabulary.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any, NamedTuple

from evenhand.errors import InputKeyError
from evenhand.metric_spec import (  # the vocabulary of a declaration, importable from here as before
    ADVERSARIAL,
    INTERVENTION_HARM,
    EvidenceKindName,
    FamilySpec,
    Harm,
    Inputs,
    IntervalMethod,
    Intervention,
    MetricSpec,
    Risk,
    Scope,
    bind,
)

__all__ = [
    "ADVERSARIAL", "ALIASES", "EVIDENCE_KINDS", "FAMILIES", "INTERVENTION_HARM", "METRICS", "RESPONSES_PER_PROMPT",
    "Alias", "EvidenceKindName", "FamilySpec", "Harm", "Inputs", "IntervalMethod", "Intervention", "MetricSpec", "Risk",
    "Scope", "bind", "family_keys", "metric", "rate_metrics", "rate_name", "resolve",
]  # fmt: skip

#: Each kind of evidence's object, as a lazy ``"module:object"`` (:func:`bind`): the kinds live in the pipeline's
#: verdict and in the red team, above this module, which names them without importing them. Their order is the order
#: of the kinds' rules in results.json after the ones written before this table (``verdict.rules``).
EVIDENCE_KINDS: Mapping[EvidenceKindName, str] = MappingProxyType(
    {
        "similarity": "evenhand.pipeline.verdict.kinds.similarity:KIND",  # distance to the same-prompt noise floor
        "sentiment": "evenhand.pipeline.verdict.kinds.sentiment:KIND",  # a paired test of two groups' scores
        "share": "evenhand.pipeline.verdict.kinds.shares:KIND",  # shares of flagged responses or prompts
        "cooccurrence": "evenhand.pipeline.verdict.kinds.cooccurrence:KIND",  # a group-shuffle test
        "lists": "evenhand.pipeline.verdict.kinds.lists:KIND",  # recommendation lists against their floor
        "rates": "evenhand.pipeline.verdict.kinds.rates:KIND",  # group rates, an exact test per pair of groups
        "decisions": "evenhand.pipeline.verdict.kinds.decisions:KIND",  # counterfactual decisions (CPRD)
        "decision_flips": "evenhand.pipeline.verdict.kinds.decisions:FLIPS",  # how often decisions flip (DFR)
        "group_toxicity": "evenhand.pipeline.verdict.kinds.group_toxicity:KIND",  # signed, a paired swap test
        "refusal_parity": "evenhand.pipeline.verdict.kinds.refusal_length:REFUSAL",  # signed, paired sign flips
        "length_parity": "evenhand.pipeline.verdict.kinds.refusal_length:LENGTH",  # signed, paired sign flips
        "adversarial": "evenhand.redteaming.adversarial_shift:KIND",  # a shift under an adversarial system prompt
        "estimates": "evenhand.pipeline.verdict.kinds.estimates:KIND",  # numbers, signed, paired sign flips
        "judged_treatment": "evenhand.pipeline.verdict.kinds.judged:KIND",  # an LLM judge's verdicts on reply pairs
        "observational": "evenhand.pipeline.verdict.kinds.observational:KIND",  # two sets of prompts, not versions
        # requests left without a reply, signed, paired sign flips (listed only by the runs that judged one)
        "non_completion_parity": "evenhand.pipeline.verdict.kinds.refusal_length:NON_COMPLETION",
        # left10b: persons of two groups refused at different rates (person-level classification: no versions)
        "person_refusal_parity": "evenhand.pipeline.verdict.kinds.refusal_length:PERSON_REFUSAL",
        # left10b: error rates of counterfactual versions of the same cases, signed, paired sign flips
        "counterfactual_errors": "evenhand.pipeline.verdict.kinds.decisions:ERRORS",
    }
)

#: The paper's convention for EMT, TP, EMS and SP: 25 responses (generations) per prompt (Table 2).
RESPONSES_PER_PROMPT = 25


FAMILIES: Mapping[str, FamilySpec] = MappingProxyType(
    {
        f.key: f
        for f in (
            FamilySpec("toxicity", "Toxicity", "3.1.1", "toxicity"),
            # beside the paper: the replies to each group's counterfactual versions, scored and compared by pair
            FamilySpec("toxicity_parity", "Toxicity per group", "3.1.1", "toxicity", audit="toxicity"),
            FamilySpec("stereotype", "Stereotypes", "3.1.2", "stereotype"),
            FamilySpec("counterfactual_similarity", "Counterfactual similarity", "3.1.3.1", "counterfactual"),
            FamilySpec("counterfactual_sentiment", "Counterfactual sentiment", "3.1.3.2", "counterfactual",
                       audit="sentiment"),
            FamilySpec("representation", "Representation fairness", "3.2.1", "allocational"),
            FamilySpec("error_based", "Error-based fairness", "3.2.2", "allocational"),
            FamilySpec("recommendation", "Recommendation fairness", "3.3", "counterfactual"),
            # not in the paper: its counterfactual design (3.1.3, 3.3) applied to classification decisions
            FamilySpec("counterfactual_decisions", "Counterfactual decisions", "3.2", "allocational"),
            # left10b: the error rates of the counterfactual versions (the error-based view of the paired design), rows
            # only where the responses carry the true outcome (families/decisions.py)
            FamilySpec("counterfactual_errors", "Counterfactual error rates", "3.2", "allocational", planned=False),
            # beyond the paper (issue 27): who is refused, who gets shorter answers (docs/metrics.md)
            FamilySpec("refusal", "Refusal parity", "beyond the paper", "refusal"),
            # a row of its own only in runs where a counterfactual request got no reply (families/refusal_length.py)
            FamilySpec("non_completion", "Non-completion parity", "beyond the paper", "refusal", planned=False),
            # left10b: refusals in a person-level classification log, a row per pair of groups in every classification
            # run (families/classification.py), beside the decision metrics they are left out of
            FamilySpec("person_refusal", "Refusal parity (persons)", "beyond the paper", "refusal", planned=False),
            FamilySpec("quality_of_service", "Quality-of-service parity", "beyond the paper", "quality_of_service"),
            # beyond the paper (issue 29): the use case under adversarial system prompts against its own
            # (evenhand.redteaming; no plan chooses these: they compare two runs)
            FamilySpec("adversarial", "Adversarial system prompts", "beyond the paper", "adversarial"),
            # beyond the paper (issue 36): the numbers a use case answers (a salary, a price, a limit), by pair
            FamilySpec("estimation", "Numeric outcomes", "beyond the paper", "allocational"),
            # beyond the paper (issue 38): an LLM judge compares the replies to two groups' versions, in both orders
            FamilySpec("judged_treatment", "Judged treatment (LLM judge)", "beyond the paper", "judged_treatment"),
            # beyond the paper (issue 33): the prompts that name people no name list can place against the rest
            FamilySpec("unplaced_names", "People no name list can place (observational)", "beyond the paper",
                       "observational", adjusted_apart=True),
        )
    }
)  # fmt: skip

_ONE = "1 (or more) generation per prompt"
_MANY = f"{RESPONSES_PER_PROMPT} generations per prompt"
_PAIRS = "1 (or more) counterfactual pair of generations per prompt"
_CLS = "binary predictions, ground truth and protected attribute groups"
_TOX = {"threshold": "toxicity_threshold"}
_STEREO = {"threshold": "stereotype_threshold"}
_INF = (0.0, math.inf)
_COS = (-1.0, 1.0)
_FN: Harm = "false negatives"
_FP: Harm = "false positives"

#: The red-team comparisons (evenhand.redteaming): one condition's replies against the benign prompt's, slot by slot
_ADVERSARIAL: dict[str, Any] = {"family": "adversarial", "section": "beyond the paper", "inputs": "condition_pairs",
                                "module": "evenhand.metrics.adversarial", "judge": "adversarial", "signed": True,
                                "unit": "replies", "requires": "the use case's replies under two system prompts"}
_ADVERSARIAL_PAIR: dict[str, Any] = {**_ADVERSARIAL, "scope": "pair", "value_range": (-2.0, 2.0)}

_SCORES = "evenhand.metrics.toxicity"  # one piece of maths for toxicity and stereotype classifier scores
_TOXICITY: dict[str, Any] = {"family": "toxicity", "section": "3.1.1", "inputs": "toxicity_scores", "scope": "use_case",
                             "module": _SCORES, "judge": "share"}  # fmt: skip
_COOCCURRENCE: dict[str, Any] = {"family": "stereotype", "section": "3.1.2.1", "requires": _ONE, "inputs": "texts",
                                 "module": "evenhand.metrics.cooccurrence", "judge": "cooccurrence"}  # fmt: skip
_CLASSIFIER: dict[str, Any] = {"family": "stereotype", "section": "3.1.2.2", "inputs": "stereotype_scores",
                               "module": _SCORES, "judge": "share"}  # fmt: skip
_SIMILARITY: dict[str, Any] = {
    "family": "counterfactual_similarity",
    "section": "3.1.3.1",
    "requires": _PAIRS,
    "inputs": "text_pairs",
    "module": "evenhand.metrics.counterfactual",
    "judge": "similarity",
    "scope": "pair",
    "higher_is_fairer": True,
    "unit": "pairs",
}
_SENTIMENT: dict[str, Any] = {
    "family": "counterfactual_sentiment",
    "section": "3.1.3.2",
    "requires": _PAIRS,
    "inputs": "sentiment_pairs",
    "module": "evenhand.metrics.counterfactual",
    "judge": "sentiment",
    "scope": "pair",
}
_GROUP_TOXICITY: dict[str, Any] = {
    "family": "toxicity_parity",
    "section": "3.1.1",
    "requires": _PAIRS,
    "inputs": "toxicity_pairs",
    "module": "evenhand.metrics.toxicity_parity",
    "judge": "group_toxicity",
    "scope": "pair",
    "value_range": (-1.0, 1.0),
    "unit": "pairs",
    "signed": True,
    "pair_column": "toxicity",  # compare rebuilds TSD/MTD from each reply's stored toxicity score
}
_RATES: dict[str, Any] = {"module": "evenhand.metrics.classification", "judge": "rates", "unit": "predictions"}
_ERRORS: dict[str, Any] = {
    "family": "error_based",
    "section": "3.2.2",
    "requires": _CLS,
    "inputs": "predictions_and_truth",
    **_RATES,
}
_LISTS: dict[str, Any] = {
    "family": "recommendation",
    "section": "3.3",
    "requires": "counterfactual pairs of K-item lists",
    "inputs": "item_list_pairs",
    "module": "evenhand.metrics.recommendation",
    "judge": "lists",
    "scope": "pair",
    "higher_is_fairer": True,
    "unit": "pairs",
}
_DECISIONS: dict[str, Any] = {
    "family": "counterfactual_decisions",
    "section": "3.2",
    "requires": "1 (or more) counterfactual pair of classification answers per prompt",
    "inputs": "decision_pairs",
    "module": "evenhand.metrics.decisions",
    "judge": "decisions",
    "scope": "pair",
    "unit": "pairs",
}
#: left10b: the error rates of counterfactual decisions (the true outcome is the case's, the same for both versions)
_ERROR_PAIRS: dict[str, Any] = {**_DECISIONS, "family": "counterfactual_errors", "inputs": "decision_pairs_and_truth",
                                "judge": "counterfactual_errors", "value_range": (-1.0, 1.0), "signed": True,
                                "requires": "counterfactual pairs of classification answers and each case's true "
                                "outcome"}  # fmt: skip
_PARITY: dict[str, Any] = {
    "section": "beyond the paper",
    "requires": _PAIRS,
    "module": "evenhand.metrics.parity",
    "scope": "pair",
    "unit": "pairs",
    "signed": True,
}
#: Numeric outcomes (task estimation): the numbers read from the two replies of each counterfactual pair, compared
_ESTIMATES: dict[str, Any] = {
    "family": "estimation",
    "section": "beyond the paper",
    "requires": "1 (or more) counterfactual pair of numeric answers per prompt",
    "inputs": "estimate_pairs",
    "module": "evenhand.metrics.estimation",
    "judge": "estimates",
    "scope": "pair",
    "unit": "pairs",
    "signed": True,
    "pair_column": "estimate",  # compare rebuilds CER and CED from each reply's stored number
    "tested_with": "estimate_gap",  # CER and CED test one comparison: one family in the adjustment (est17)
}
_PER_PROMPT = "prompts"  # EMT, TP, EMS, SP: one value per prompt (its most toxic / stereotyped response)
#: Issue 33: replies to the prompts naming a person no name list can place against the others' (observational)
_UNPLACED: dict[str, Any] = {"family": "unplaced_names", "section": "beyond the paper", "requires": _ONE,
                             "module": "evenhand.metrics.unplaced", "judge": "observational", "signed": True,
                             "value_range": (-1.0, 1.0), "unit": "replies"}  # fmt: skip
_SETS = "over the replies to the N_u prompts that name a person no name list can place and to the N_r others"

METRICS: Mapping[str, MetricSpec] = MappingProxyType(
    {
        m.key: m
        for m in (
            MetricSpec("toxic_fraction", "TF", "Toxic Fraction", requires=_ONE, settings=_TOX, **_TOXICITY),
            MetricSpec("expected_maximum_toxicity", "EMT", "Expected Maximum Toxicity", requires=_MANY,
                       unit=_PER_PROMPT, **_TOXICITY),
            MetricSpec("toxicity_probability", "TP", "Toxicity Probability", requires=_MANY, settings=_TOX,
                       unit=_PER_PROMPT, **_TOXICITY),
            MetricSpec("toxic_share_difference", "TSD", "Toxic Share Difference", settings=_TOX, **_GROUP_TOXICITY),
            MetricSpec("mean_toxicity_difference", "MTD", "Mean Toxicity Difference", **_GROUP_TOXICITY),
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
                       inputs="predictions", rate="predicted prevalence rate", ratio="demographic_parity_ratio",
                       **_RATES),
            MetricSpec("false_negative_rate_difference", "FNRD", "False Negative Rate Difference",
                       rate="false negative rate", ratio="false_negative_rate_ratio", harm=_FN, **_ERRORS),
            MetricSpec("false_omission_rate_difference", "FORD", "False Omission Rate Difference",
                       rate="false omission rate", ratio="false_omission_rate_ratio", harm=_FN, **_ERRORS),
            MetricSpec("false_positive_rate_difference", "FPRD", "False Positive Rate Difference",
                       rate="false positive rate", ratio="false_positive_rate_ratio", harm=_FP, **_ERRORS),
            MetricSpec("false_discovery_rate_difference", "FDRD", "False Discovery Rate Difference",
                       rate="false discovery rate", ratio="false_discovery_rate_ratio", harm=_FP, **_ERRORS),
            MetricSpec("jaccard_at_k", "Jaccard-K", "Counterfactual Jaccard Similarity at K", **_LISTS),
            MetricSpec("serp_at_k", "SERP-K", "Search Result Page Misinformation Score at K", **_LISTS),
            MetricSpec("prag_at_k", "PRAG-K", "Pairwise Ranking Accuracy Gap at K", **_LISTS),
            MetricSpec("decision_flip_rate", "DFR", "Decision Flip Rate", **{**_DECISIONS, "judge": "decision_flips"}),
            MetricSpec("counterfactual_positive_rate_difference", "CPRD", "Counterfactual Positive Rate Difference",
                       value_range=(-1.0, 1.0), signed=True, **_DECISIONS),
            MetricSpec("counterfactual_false_negative_rate_difference", "CFNRD",
                       "Counterfactual False Negative Rate Difference", rate="false negative rate", harm=_FN,
                       formula="CFNRD = FNR(A versions) - FNR(B versions) over the counterfactual pairs whose true "
                       "outcome is the counted class: the share of them the A version misses minus the B version's",
                       **_ERROR_PAIRS),
            MetricSpec("counterfactual_false_positive_rate_difference", "CFPRD",
                       "Counterfactual False Positive Rate Difference", rate="false positive rate", harm=_FP,
                       formula="CFPRD = FPR(A versions) - FPR(B versions) over the counterfactual pairs whose true "
                       "outcome is another class: the share of them the A version gives the class minus the B "
                       "version's",
                       **_ERROR_PAIRS),
            MetricSpec("refusal_rate_difference", "RRD", "Refusal Rate Difference", family="refusal",
                       inputs="refusal_pairs", value_range=(-1.0, 1.0), settings={"threshold": "refusal_threshold"},
                       pair_column="refusal", judge="refusal_parity",
                       formula="RRD = (1/N) sum_i (1[R(y'_i) >= t] - 1[R(y''_i) >= t]): "
                       "refusal rate of the first group's versions minus the second's, over N counterfactual pairs",
                       **_PARITY),
            MetricSpec("non_completion_rate_difference", "NRD", "Non-completion Rate Difference",
                       family="non_completion", inputs="non_completion_pairs", value_range=(-1.0, 1.0),
                       judge="non_completion_parity",
                       formula="NRD = (1/N) sum_i (m(y'_i) - m(y''_i)), m = 1 when the request got no reply (an "
                       "error, a content filter, an empty reply): share of the first group's versions left without a "
                       "reply minus the second's, over N counterfactual pairs of requests",
                       **{**_PARITY, "unit": "pairs of requests"}),
            MetricSpec("person_refusal_rate_difference", "PRRD", "Person-level Refusal Rate Difference",
                       family="person_refusal", inputs="refusal_groups", value_range=(-1.0, 1.0),
                       settings={"threshold": "refusal_threshold"}, judge="person_refusal_parity",
                       formula="PRRD = (1/N') sum_{i in G'} 1[R(y_i) >= t] - (1/N'') sum_{i in G''} 1[R(y_i) >= t]: "
                       "refusal rate of the first group's persons minus the second's (person-level, unpaired)",
                       **{**_PARITY, "unit": "answers", "requires": "classification answers and each person's group"}),
            MetricSpec("relative_length_difference", "RLD", "Relative Answer Length Difference",
                       family="quality_of_service", inputs="length_pairs", value_range=(-1.0, math.inf),
                       pair_column="words", judge="length_parity", interval_covers=False,
                       formula="RLD = sum_i words(y'_i) / sum_i words(y''_i) - 1: how much "
                       "longer (> 0) or shorter (< 0) the first group's replies are, over counterfactual pairs where "
                       "neither reply is a refusal (R < t on both sides; refusals are RRD's)",
                       **_PARITY),
            MetricSpec("unplaced_refusal_difference", "URD", "Unplaced-name Refusal Rate Difference",
                       inputs="refusal_sets", settings={"threshold": "refusal_threshold"}, **_UNPLACED,
                       words={"rate": "are refusals"}, formula=f"URD = mean_u 1[R >= t] - mean_r 1[R >= t], {_SETS}"),
            MetricSpec("unplaced_length_difference", "ULD", "Unplaced-name Relative Answer Length Difference",
                       inputs="length_sets", words={"mean": "words"}, **{**_UNPLACED, "value_range": (-1.0, math.inf)},
                       formula=f"ULD = mean_u words(y) / mean_r words(y) - 1, {_SETS}"),
            MetricSpec("unplaced_toxicity_difference", "UTD", "Unplaced-name Toxic Share Difference",
                       inputs="toxicity_sets", settings=_TOX, words={"rate": "are toxic"},
                       formula=f"UTD = mean_u 1[T(y) >= t] - mean_r 1[T(y) >= t], {_SETS}", **_UNPLACED),
            MetricSpec("unplaced_positive_rate_difference", "UPD", "Unplaced-name Positive Rate Difference",
                       inputs="decision_sets", words={"rate": "get the positive decision"},
                       formula=f"UPD = mean_u d(y) - mean_r d(y), d = 1 for the positive decision, {_SETS}",
                       **_UNPLACED),
            MetricSpec("counterfactual_estimate_ratio", "CER", "Counterfactual Estimate Ratio",
                       value_range=(-1.0, math.inf), formula="CER = exp((1/N) sum_i log(y'_i / y''_i)) - 1: how much "
                       "higher (> 0) or lower (< 0) the first group's numbers are than the second's for the same "
                       "prompt, as the geometric mean of the per-pair ratios minus 1, over the N pairs where both "
                       "replies hold a positive number", words={"scale": "ratio"}, **_ESTIMATES),
            MetricSpec("counterfactual_estimate_difference", "CED", "Counterfactual Estimate Difference",
                       value_range=(-math.inf, math.inf), formula="CED = (1/N) sum_i (y'_i - y''_i): the first group's "
                       "number minus the second's for the same prompt, in the answers' unit, averaged over the N "
                       "pairs where both replies hold a number", words={"scale": "difference"},
                       described_beside="counterfactual_estimate_ratio", **_ESTIMATES),  # CER decides (est17b)
            MetricSpec("toxic_share_shift", "TSS", "Toxic Share Shift", settings=_TOX, scope="use_case",
                       words={"counted": "of replies are toxic"},
                       value_range=(-1.0, 1.0), formula="TSS = (1/K) sum_k mean_i (1[T(c_i) >= t] - 1[T(b_i) >= t]): "
                       "share of replies scored toxic under the adversarial system prompt minus under the benign "
                       "one, same request and sample slot, over K prompts", **_ADVERSARIAL),
            MetricSpec("refusal_rate_shift", "RSS", "Refusal Rate Shift", settings={"threshold": "refusal_threshold"},
                       words={"counted": "of replies are refusals"},
                       scope="use_case", value_range=(-1.0, 1.0), formula="RSS = (1/K) sum_k mean_i "
                       "(1[R(c_i) >= t] - 1[R(b_i) >= t]): share of replies that refuse under the adversarial system "
                       "prompt minus under the benign one, over K prompts", **_ADVERSARIAL),
            MetricSpec("toxic_share_gap_shift", "TGS", "Toxic-share Gap Shift", settings=_TOX,
                       words={"compared": "toxic share", "scale": "points"},
                       formula="TGS = (1/K) sum_k mean_i ((1[T(c'_i) >= t] - 1[T(c''_i) >= t]) - (1[T(b'_i) >= t] - "
                       "1[T(b''_i) >= t])): the toxic-share gap between the first and second group's versions under "
                       "the adversarial system prompt minus under the benign one", **_ADVERSARIAL_PAIR),
            MetricSpec("refusal_gap_shift", "RGS", "Refusal Gap Shift", settings={"threshold": "refusal_threshold"},
                       words={"compared": "refusal rate", "scale": "points"},
                       formula="RGS = (1/K) sum_k mean_i ((1[R(c'_i) >= t] - 1[R(c''_i) >= t]) - (1[R(b'_i) >= t] - "
                       "1[R(b''_i) >= t])): the refusal gap between the two groups' versions under the adversarial "
                       "system prompt minus under the benign one", **_ADVERSARIAL_PAIR),
            MetricSpec("sentiment_gap_shift", "SGS", "Sentiment Gap Shift", words={"compared": "mean sentiment"},
                       formula="SGS = (1/K) sum_k mean_i ((S(c'_i) - S(c''_i)) - (S(b'_i) - S(b''_i))): the sentiment "
                       "gap between the two groups' versions under the adversarial system prompt minus under the "
                       "benign one", **_ADVERSARIAL_PAIR),
            MetricSpec("non_completion_shift", "NCS", "Non-completion Shift", scope="use_case",
                       # a blocked jailbreak may be good behaviour: the sentence says what happened, TSS whether
                       # it mattered
                       words={"counted": "of requests got no reply (replies withheld or blocked: errors, content "
                              "filters, empty replies)"},
                       value_range=(-1.0, 1.0), formula="NCS = (1/K) sum_k mean_i (m(c_i) - m(b_i)), m = 1 when the "
                       "request got no reply (an error, a content filter, an empty reply): share of requests left "
                       "without a reply under the adversarial system prompt minus under the benign one, over K "
                       "prompts", **{**_ADVERSARIAL, "unit": "requests"}),
            MetricSpec("non_completion_gap_shift", "NGS", "Non-completion Gap Shift",
                       words={"compared": "share of requests left without replies (withheld or blocked)",
                              "scale": "points"},
                       formula="NGS = (1/K) sum_k mean_i ((m(c'_i) - m(c''_i)) - (m(b'_i) - m(b''_i))): the gap in "
                       "requests left without a reply between the two groups' versions under the adversarial system "
                       "prompt minus under the benign one", **{**_ADVERSARIAL_PAIR, "unit": "requests"}),
            MetricSpec("positive_rate_shift", "PRS", "Positive Rate Shift", scope="use_case", value_range=(-1.0, 1.0),
                       formula="PRS = (1/K) sum_k mean_i (d(c_i) - d(b_i)), d = 1 when the reply's parsed label is "
                       "the positive decision: share of positive decisions under the adversarial system prompt minus "
                       "under the benign one, over slots where both replies parsed, over K prompts",
                       **{**_ADVERSARIAL, "unit": "decisions"}),
            MetricSpec("positive_rate_gap_shift", "PGS", "Positive-rate Gap Shift",
                       words={"compared": "rate of {decision}", "scale": "points"},
                       formula="PGS = (1/K) sum_k mean_i ((d(c'_i) - d(c''_i)) - (d(b'_i) - d(b''_i))): the "
                       "counterfactual positive rate difference (CPRD, the first group's versions minus the "
                       "second's) under the adversarial system prompt minus under the benign one, over slots where "
                       "all four decisions parsed", **{**_ADVERSARIAL_PAIR, "unit": "decisions"}),
            # issue 38: the pair judge (evenhand.generation.pair_judge; docs/assistants.md)
            MetricSpec("judged_worse_difference", "JWD", "Judged Worse-treatment Difference",
                       family="judged_treatment", section="beyond the paper", inputs="judged_pairs",
                       module="evenhand.metrics.judged_pairs", judge="judged_treatment", scope="pair",
                       value_range=(-1.0, 1.0), unit="pairs", signed=True,
                       requires="1 (or more) counterfactual pair of generations per prompt and an LLM judge",
                       formula="JWD = (1/N) sum_i (1[v_i = a] - 1[v_i = b]): the share of counterfactual pairs an "
                       "LLM judge finds treated worse on the first group's side minus on the second's, over the N "
                       "pairs whose two orders (first group's reply shown first, then second) agree"),
        )
    }
)  # fmt: skip


#: Issue 37: the metrics that are a rate (a share of replies, prompts or pairs), a difference of two rates or a
#: spread of group rates, and whose results carry their counts: their intervals are ``"rate"`` intervals. (The gap
#: shifts of the red team are differences of two differences: bootstrap.)
_RATE_INTERVALS = (
    "toxic_fraction", "toxicity_probability", "stereotype_fraction", "stereotype_probability", "toxic_share_difference",
    "demographic_parity_difference", "false_negative_rate_difference", "false_omission_rate_difference",
    "false_positive_rate_difference", "false_discovery_rate_difference", "decision_flip_rate",
    "counterfactual_positive_rate_difference", "refusal_rate_difference", "toxic_share_shift", "refusal_rate_shift",
    "non_completion_shift", "positive_rate_shift", "non_completion_rate_difference",
    "person_refusal_rate_difference",
)  # fmt: skip
METRICS = MappingProxyType(
    {key: replace(spec, interval="rate") if key in _RATE_INTERVALS else spec for key, spec in METRICS.items()}
)


class Alias(NamedTuple):
    """What a spelling of a metric names: the registry ``key`` and whether it is the ``ratio`` variant (the
    ``min / max`` of a group-rate metric, :attr:`MetricSpec.ratio`)."""

    key: str
    ratio: bool = False


def rate_name(spec: MetricSpec) -> str:
    """The name of the rate behind a group-rate metric, as the permutation tests report it: its key without
    ``_difference`` ("false_negative_rate", "demographic_parity")."""
    return spec.key.removesuffix("_difference")


def _spellings(m: MetricSpec) -> dict[str, Alias]:
    own = Alias(m.key)
    out = dict.fromkeys((m.key, m.name.lower(), m.full_name.lower()), own)
    if m.ratio is not None:  # a group rate: its ratio function, and the rate itself ("false_negative_rate", "fnr")
        out[m.ratio] = Alias(m.key, ratio=True)
        out[rate_name(m)] = own
        if m.name.endswith("RD"):
            out[m.name[:-1].lower()] = own
    return out


#: Every accepted spelling of a metric (lower case) -> what it names: the key, the short name ("CROUGE-L"), the full
#: name, and for group rates the ratio function, the rate ("false_negative_rate") and its abbreviation ("fnr"). The
#: one alias table: the registry, the classification metrics and the permutation tests resolve names through it.
ALIASES: Mapping[str, Alias] = MappingProxyType({s: a for m in METRICS.values() for s, a in _spellings(m).items()})


def resolve(name: str) -> Alias:
    """What a spelling names (see :data:`ALIASES`; case-insensitive); KeyError when nothing."""
    found = ALIASES.get(str(name).strip().lower())
    if found is None:
        raise InputKeyError(f"unknown metric {name!r}; known: {', '.join(m.name for m in METRICS.values())}")
    return found


def metric(name: str) -> MetricSpec:
    """The spec of a metric by key ("counterfactual_rouge_l") or short name ("CROUGE-L"; case-insensitive)."""
    found = METRICS.get(name) or ALIASES.get(str(name).strip().lower())
    if isinstance(found, MetricSpec):
        return found
    if found is None or found.ratio:  # a ratio variant is another function, with the opposite direction
        raise InputKeyError(f"unknown metric {name!r}; known: {', '.join(m.name for m in METRICS.values())}")
    return METRICS[found.key]


def family_keys(family: str) -> tuple[str, ...]:
    """The metric keys of one family, in registry order."""
    if family not in FAMILIES:
        raise InputKeyError(f"unknown metric family {family!r}; families: {list(FAMILIES)}")
    return tuple(k for k, m in METRICS.items() if m.family == family)


def rate_metrics() -> tuple[MetricSpec, ...]:
    """The group-rate metrics (DP and the error-based ones), in registry order."""
    return tuple(m for m in METRICS.values() if m.ratio is not None)
