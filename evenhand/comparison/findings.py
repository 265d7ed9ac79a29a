"""How the verdict's findings changed from the baseline run to another run.

A finding is one risk for one attribute and pair of groups (or class), with a severity (concern > watch > ok) that
each run's own verdict set on its own evidence. From the baseline to a run, a finding **appeared** (ok or not
judged -> watch/concern), **went away** (watch/concern -> ok), got **worse** or **less severe** (watch <-> concern),
is **unchanged**, or was **not assessed** in the run. Appeared and worse count as worse; went away and less severe
as improved.

Findings of one risk are matched by metric: where the two runs' findings lead with different metrics (A's refusal
finding with RRD, B's with NRD), the change is that of the metric leading the more severe of the two, read from
each run's evidence (A's NRD was ok: "ok -> concern"), and the sentence names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evenhand.comparison.rows import IMPROVED, NO_CLEAR_CHANGE, WORSE
from evenhand.comparison.runs import Run

_RANK = {"ok": 0, "watch": 1, "concern": 2}
FindingKey = tuple[Any, Any, Any, Any, Any]


@dataclass
class FindingChange:
    """One finding of the baseline and/or a run, and how it changed (``change``) and which way (``direction``)."""

    risk: str
    attribute: str | None
    groups: tuple[str, ...] | None
    cls: str | None
    run: str
    baseline: str
    before: str | None
    after: str | None
    change: str
    direction: str
    sentence: str
    before_sentence: str = ""
    after_sentence: str = ""
    condition: str | None = None  # a red team's finding: its adversarial system prompt
    metric: str | None = None  # the metric whose severities are compared (named where the runs' findings differ)
    named: bool = False  # whether the sentence names it: the two runs' findings lead with different metrics


    @property
    def scope(self) -> str:
        risk = f"{self.risk} ({self.metric})" if self.named and self.metric else self.risk
        parts = [risk, f"under {self.condition!r}" if self.condition else "", self.attribute or "",
                 " vs ".join(self.groups) if self.groups else ""]  # fmt: skip
        if self.cls:
            parts.append(f"class {self.cls}")
        return ", ".join(p for p in parts if p)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["groups"] = list(self.groups) if self.groups else None
        out["class"] = out.pop("cls")
        del out["named"]
        if self.condition is None:  # a comparison of assessments keeps its form
            del out["condition"]
        return out


def _key(finding: dict[str, Any]) -> FindingKey:
    groups = finding.get("groups")
    # a red team's finding is also about one adversarial system prompt (None for any other finding)
    return (finding.get("risk"), finding.get("attribute"), tuple(groups) if groups else None, finding.get("class"),
            finding.get("condition"))  # fmt: skip


def compare_findings(base: Run, run: Run) -> list[FindingChange]:
    """One :class:`FindingChange` per finding of either run (baseline order first)."""
    before = {_key(f): f for f in base.findings}
    after = {_key(f): f for f in run.findings}
    out = []
    for key in dict.fromkeys([*before, *after]):
        old, new = before.get(key), after.get(key)
        metric = _compared_metric(old, new)
        severity_old, severity_new = _severity(old, metric), _severity(new, metric)
        change, direction = classify(severity_old, severity_new)
        risk, attribute, groups, cls, condition = key
        named = bool(old and new and old.get("metric") != new.get("metric"))
        item = FindingChange(
            str(risk), attribute, groups, cls, run.label, base.label, severity_old, severity_new, change, direction,
            "", (old or {}).get("sentence", ""), (new or {}).get("sentence", ""), condition, metric, named,
        )  # fmt: skip
        item.sentence = _sentence(item)
        out.append(item)
    return out


def _compared_metric(old: dict[str, Any] | None, new: dict[str, Any] | None) -> str | None:
    """The metric a finding's change is about: the one leading the more severe of the two runs' findings (the
    run's, where they are as severe)."""
    found = [f for f in (new, old) if f]
    if not found:
        return None
    lead = max(found, key=lambda f: _RANK.get(str(f.get("severity")), -1))
    return lead.get("metric")


def _severity(finding: dict[str, Any] | None, metric: str | None) -> str | None:
    """The severity of ``metric``'s own evidence in ``finding`` (its leading metric: the finding's severity); a
    finding without that metric's evidence is "not judged" for it (None), unless its evidence is not recorded."""
    if finding is None:
        return None
    if metric is None or finding.get("metric") == metric or "evidence" not in finding:
        return finding.get("severity")
    return next((e.get("severity") for e in finding["evidence"] if e.get("metric") == metric), None)


def classify(before: str | None, after: str | None) -> tuple[str, str]:
    """(change, direction) for a finding's severity in the baseline and in the run (None: not judged there)."""
    old, new = _RANK.get(before or "", -1), _RANK.get(after or "", -1)
    if new < 0:
        return "not assessed", NO_CLEAR_CHANGE
    if old <= 0 and new > 0:
        return "appeared", WORSE
    if old > 0 and new == 0:
        return "went away", IMPROVED
    if old < 0:
        return "new (ok)", NO_CLEAR_CHANGE
    if new > old:
        return "worse", WORSE
    if new < old:
        return "less severe", IMPROVED
    return "unchanged", NO_CLEAR_CHANGE


def _sentence(item: FindingChange) -> str:
    """``finding appeared in B: counterfactual, gender, female vs male (ok -> concern)``."""
    shift = f"{item.before or 'not judged'} -> {item.after or 'not judged'}"
    if item.change == "not assessed":
        return f"{item.scope}: not assessed in {item.run} ({item.before} in {item.baseline})"
    if item.change in ("unchanged", "new (ok)"):
        return f"{item.scope}: {item.after} in {item.run} ({shift})"
    return f"finding {item.change} in {item.run}: {item.scope} ({shift})"
