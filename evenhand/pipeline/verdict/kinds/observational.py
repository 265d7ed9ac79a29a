"""Observational comparisons (issue 33): the replies to the prompts that name a person no name list can place,
against the replies to the other prompts (URD, ULD, UTD, UPD; :mod:`evenhand.metrics.unplaced`).

No counterfactual version varies such a person's group, so this is the only evidence there is; but the two sets of
prompts differ in more than the names (topic, task, length), so a gap is never a concern: a clear one (the
permutation test over prompts, adjusted over the observational rows as their own set, below
:data:`~evenhand.pipeline.verdict.severity.ALPHA`) is a watch, a reason to look at those prompts' replies, and the
sentence says it is observational. Which outcome a metric compares is registry data (:attr:`MetricSpec.words
<evenhand.registry.MetricSpec.words>`: ``rate``, what a share counts; or ``mean``, the unit of a relative mean),
never its key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evenhand._json import float_or_none
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.verdict.evidence import Evidence
from evenhand.pipeline.verdict.kinds.base import EvidenceKind, RunFacts
from evenhand.pipeline.verdict.kinds.wording import adjusted_p, interval, over
from evenhand.pipeline.verdict.severity import ALPHA

#: What every sentence of this kind says of itself.
OBSERVATIONAL = "observational, not counterfactual: these prompts differ from the others in more than the names"


class Observational(EvidenceKind):
    name = "observational"
    rules = (
        "people no name list can place (URD, ULD, UTD, UPD): the replies to the prompts that name them against the "
        "other prompts' replies; watch when the permutation test over prompts (shuffling which prompts are in the "
        f"set, each with all its replies; adjusted over these rows as their own set) has an adjusted p below "
        f"{ALPHA}; never a concern, because the comparison is observational: the two sets of prompts differ in more "
        "than the names (topic, task, length), so a gap is a reason to look, not evidence that the name caused it",
    )
    always_listed = False  # only runs whose prompts name such people judge it: other runs' files stay as they were

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        spec, d = rec.spec, rec.result.details
        p = e.p_adjusted if e.p_adjusted is not None else e.p_value
        e.severity = "watch" if p is not None and p < ALPHA else "ok"
        who = _who(rec.attribute or "", d)
        evidence = f"{spec.name} {interval(e)}{over(rec, spec)}, {adjusted_p(e.p_adjusted)} ({OBSERVATIONAL})"
        inside, rest = float_or_none(d.get("mean_in_set")), float_or_none(d.get("mean_rest"))
        if inside is None or rest is None:
            e.claim = f"replies to {who} cannot be compared with the other prompts' replies: {evidence}"
            return
        if "rate" in spec.words:
            say = f"replies to {who} {spec.words['rate']} {inside:.0%} of the time, against {rest:.0%} for the others"
        else:
            relative = inside / rest - 1 if rest else 0.0
            longer = "longer" if relative > 0 else "shorter"
            unit = spec.words.get("mean", "")
            say = f"replies to {who} are {abs(relative):.0%} {longer} (mean {inside:.3g} vs {rest:.3g} {unit})"
        lead = "" if e.severity == "watch" else "no clear difference: "
        e.claim = f"{lead}{say}: {evidence}"


def _who(attribute: str, details: Mapping[str, Any]) -> str:
    """"the 8 prompts that name a person whose race no name list can place"."""
    n = details.get("n_prompts_in_set", details.get("n_replies_in_set"))
    if n is not None and int(n) == 1:
        return f"the 1 prompt that names a person whose {attribute} no name list can place"
    count = f"{int(n)} " if n is not None else ""
    return f"the {count}prompts that name a person whose {attribute} no name list can place"


KIND = Observational()
