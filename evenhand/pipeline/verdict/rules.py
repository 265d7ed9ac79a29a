"""The verdict's rules in words (results.json ``verdict.rules``, docs/assessment.md): each kind of evidence's own
(:attr:`EvidenceKind.rules <evenhand.pipeline.verdict.kinds.base.EvidenceKind.rules>`), the rule of the watch tier,
and the rules of the qualifiers every finding may carry (:mod:`.qualifiers`).

The order is the one results files have always had: the kinds named in :data:`_WRITTEN` first, in that order, with
the watch tier's rule in its place; then any other kind's rules, in the registry's order
(:data:`evenhand.registry.EVIDENCE_KINDS`); then the qualifiers'. A rule two kinds share is listed once. A kind that
is not ``always_listed`` (numeric outcomes) is in a run's list only when the run judged one of its metrics
(:func:`listed_rules`); :data:`RULES` has them all.
"""

from __future__ import annotations

from collections.abc import Collection

from evenhand.pipeline.verdict.kinds import KINDS
from evenhand.pipeline.verdict.qualifiers import FewUnits, ScorerBias, ThinEvidence, WithinScorerFalseAlarms
from evenhand.pipeline.verdict.severity import SUGGESTIVE

#: The rule of the watch tier, which every kind's watch follows
WATCH_TIER = (
    f"watch has a known null rate: it rests on adjusted p-values below {SUGGESTIVE} (Benjamini-Hochberg over every "
    "test of the assessment), never on an unadjusted p or an interval alone"
)
#: The kinds whose rules came first, in results.json's order, and the watch tier's rule among them
_WRITTEN: tuple[str, ...] = (
    "similarity", "sentiment", "share", "group_toxicity", "refusal_parity", "adversarial", "cooccurrence",
    WATCH_TIER, "lists",
)  # fmt: skip


def _rules(judged: Collection[str] | None = None) -> tuple[str, ...]:
    """Every kind's rules (``judged`` None), or those a run's ``verdict.rules`` lists: every kind's that is
    :attr:`~evenhand.pipeline.verdict.kinds.base.EvidenceKind.always_listed`, and the others' of the kinds it
    judged."""
    written = [name for name in _WRITTEN if name in KINDS]
    order = [*_WRITTEN, *(name for name in KINDS if name not in written)]
    rules: list[str] = []
    for name in order:
        if name == WATCH_TIER:
            rules.append(name)
            continue
        kind = KINDS[name]  # type: ignore[index]
        if judged is None or kind.always_listed or name in judged:
            rules.extend(kind.rules)
    rules.extend(q.rule for q in (FewUnits, ThinEvidence, ScorerBias, WithinScorerFalseAlarms))
    return tuple(dict.fromkeys(rules))


RULES: tuple[str, ...] = _rules()


def listed_rules(judged: Collection[str]) -> tuple[str, ...]:
    """The rules a run's results.json lists (``verdict.rules``), given the kinds of evidence it judged."""
    return _rules(judged)
