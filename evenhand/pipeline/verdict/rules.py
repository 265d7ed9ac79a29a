"""The verdict's rules in words (results.json ``verdict.rules``, docs/assessment.md): each kind of evidence's own
(:attr:`EvidenceKind.rules <evenhand.pipeline.verdict.kinds.base.EvidenceKind.rules>`), the rule of the watch tier,
and the rules of the qualifiers every finding may carry (:mod:`.qualifiers`).

The order is the one results files have always had: the kinds named in :data:`_WRITTEN` first, in that order, with
the watch tier's rule in its place; then any other kind's rules, in the registry's order
(:data:`evenhand.registry.EVIDENCE_KINDS`); then the qualifiers'. A rule two kinds share is listed once. An opt-in
kind's rules (an LLM judge's) follow, in a verdict that judged its evidence only (:func:`rules_of`).
"""

from __future__ import annotations

from collections.abc import Iterable

from evenhand.pipeline.verdict.kinds import KINDS
from evenhand.pipeline.verdict.qualifiers import FewUnits, ScorerBias, ThinEvidence
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


def _rules() -> tuple[str, ...]:
    written = [name for name in _WRITTEN if name in KINDS]
    order = [*_WRITTEN, *(name for name in KINDS if name not in written)]
    rules: list[str] = []
    for name in order:
        if name != WATCH_TIER and KINDS[name].opt_in:  # type: ignore[index]
            continue
        rules.extend([name] if name == WATCH_TIER else KINDS[name].rules)  # type: ignore[index]
    rules.extend(q.rule for q in (FewUnits, ThinEvidence, ScorerBias))
    return tuple(dict.fromkeys(rules))


RULES: tuple[str, ...] = _rules()


def rules_of(judged: Iterable[str]) -> list[str]:
    """A verdict's rules: :data:`RULES`, then the rules of each opt-in kind among ``judged`` (the kinds whose evidence
    it judged)."""
    kinds = set(judged)
    extra = [rule for name, kind in KINDS.items() if kind.opt_in and name in kinds for rule in kind.rules]
    return list(dict.fromkeys([*RULES, *extra]))
