"""Which classification metrics fit a use case (paper section 4, after Saleiro et al., 2018): the whole decision tree.

If fairness requires approximately equal predicted prevalence across groups, the representation metric (DP) is the
criterion. Otherwise the error-based metrics are, and the kind of intervention picks the harm
(:data:`evenhand.registry.INTERVENTION_HARM`): false negatives (FNRD, FORD) when positive predictions assign
assistive interventions, false positives (FPRD, FDRD) when they assign punitive ones, all four when the kind is
unknown. Which metric compares which harm is a registry fact (:attr:`~evenhand.registry.MetricSpec.harm`); this
module holds the tree and the reason each branch gives, and the planner (:mod:`evenhand.framework`) asks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from evenhand.errors import InputError
from evenhand.registry import INTERVENTION_HARM, METRICS, Intervention, family_keys

ErrorFocus = Literal["assistive", "punitive"]

#: Why each metric answers its branch of the tree, in the words a plan line uses.
_REASONS: Mapping[str, str] = {
    "demographic_parity_difference": "predicted prevalence should be about equal across groups (representation "
    "fairness)",
    "false_negative_rate_difference": "assistive intervention: missing a deserving person (false negative) is the "
    "harm; compares the share of actual positives that are missed",
    "false_omission_rate_difference": "assistive intervention: compares the share of negative predictions that are "
    "wrong (people wrongly denied the intervention)",
    "false_positive_rate_difference": "punitive intervention: wrongly punishing someone (false positive) is the "
    "harm; compares the share of actual negatives that are flagged",
    "false_discovery_rate_difference": "punitive intervention: compares the share of positive predictions that are "
    "wrong (people wrongly punished)",
}
_UNKNOWN = " (intervention type not stated, so both false negatives and false positives are assessed)"
_UNANSWERED = " (prevalence_parity not answered)"


def error_keys(intervention: Intervention) -> tuple[str, ...]:
    """The error-based metrics that compare the harm of one kind of intervention, in registry order."""
    harm = INTERVENTION_HARM[intervention]
    return tuple(k for k, m in METRICS.items() if m.harm == harm and m.family == "error_based")


def classification_metrics_for(prevalence_parity: bool, intervention: ErrorFocus | None = None) -> dict[str, str]:
    """Which classification metrics to report, following the decision framework (paper section 4).

    If fairness requires approximately equal predicted prevalence across groups, report the representation metric
    (DP). Otherwise report error-based metrics: disparities in false negatives (FNRD, FORD) when the model assigns
    assistive interventions, in false positives (FPRD, FDRD) when it assigns punitive ones, and all four when the
    kind of intervention is unknown.

    Returns:
        ``{function name in evenhand.metrics: reason}``, in reporting order; pass the keys to
        ``classification_metrics(y_true, y_pred, groups, metrics=...)`` to compute them in one pass.
    """
    if intervention not in (None, "assistive", "punitive"):
        raise InputError(f"intervention must be 'assistive', 'punitive' or None, got {intervention!r}")
    if prevalence_parity:
        return {key: _REASONS[key] for key in family_keys("representation")}
    if intervention is not None:
        return {key: _REASONS[key] for key in error_keys(intervention)}
    both = (*error_keys("assistive"), *error_keys("punitive"))
    return {key: _REASONS[key] + _UNKNOWN for key in both}


def planned_classification(prevalence_parity: bool | None, intervention: ErrorFocus | None) -> dict[str, str]:
    """:func:`classification_metrics_for` for a use case's answers, where an unanswered parity question
    (``prevalence_parity=None``) plans both branches and says so in each reason."""
    chosen: dict[str, str] = {}
    if prevalence_parity is not False:
        chosen.update(classification_metrics_for(True))
    if prevalence_parity is not True:
        chosen.update(classification_metrics_for(False, intervention))
    if prevalence_parity is None:
        chosen = {k: why + _UNANSWERED for k, why in chosen.items()}
    return chosen


def why_left_out(prevalence_parity: bool | None, intervention: ErrorFocus | None) -> str:
    """Why the classification metrics the tree did not choose are left out (a plan's not-applicable line)."""
    if prevalence_parity:
        names = [METRICS[k].name for k in family_keys("representation")]
        joined = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        return f"predicted prevalence should be equal, so representation fairness ({joined}) is the criterion (§4)"
    parts = ["equal predicted prevalence is not a fairness goal here"] if prevalence_parity is False else []
    if intervention:
        parts.append(
            f"interventions are {intervention}, so {INTERVENTION_HARM[intervention]} are the harm to compare (§4)"
        )
    return "; ".join(parts)
