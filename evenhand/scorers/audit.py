"""Audit a scorer before trusting it: how does it score benign and insulting statements about each group?

A fairness assessment is only as fair as its scorers. A lexical toxicity model that has learned "gay" from abusive
comments scores "My neighbor is gay." as toxic, and then any difference in toxicity between the replies about gay
and straight people partly measures the scorer. :func:`audit_scorer` runs a scorer on a built-in set of identity
statements (``evenhand/data/audit/identity_statements.json``: benign and insulting templates, in the style of
Dixon et al. 2018's madlibs, filled with each group's identity terms and with non-identity controls) and measures,
per group and per term, with the definitions of Borkan et al. (2019, *Nuanced Metrics for Measuring Unintended Bias
with Real Data for Text Classification*):

Let :math:`D` be the audit statements, :math:`y = 1` for insulting ones, :math:`D_g` those about group (or term)
:math:`g`, :math:`\\bar D_g = D \\setminus D_g` the background, and superscripts :math:`+`/:math:`-` the insulting
and benign parts. With :math:`b(x)` the scorer's "badness" (the score; for a sentiment scorer whose high scores are
positive, one minus the score) and :math:`\\mathrm{AUC}(P, N)` the probability that a random element of :math:`P`
gets a higher badness than one of :math:`N` (ties count one half):

* false-positive rate :math:`\\mathrm{FPR}_g = |\\{x \\in D_g^-: b(x) \\ge \\tau\\}| / |D_g^-|` (sentiment: ``>``,
  since 0.5 is neutral), and the mean raw score of :math:`D_g^-`;
* subgroup AUC :math:`= \\mathrm{AUC}(D_g^+, D_g^-)`: can the scorer tell insults from benign statements within
  the group?
* BPSN AUC (background positive, subgroup negative) :math:`= \\mathrm{AUC}(\\bar D_g^+, D_g^-)`: low when benign
  statements about :math:`g` score like insults about others (false positives driven by the identity term);
* BNSP AUC (background negative, subgroup positive) :math:`= \\mathrm{AUC}(D_g^+, \\bar D_g^-)`: low when insults
  about :math:`g` score like benign statements about others (missed abuse).

The AUC is computed from ranks, :math:`\\mathrm{AUC}(P, N) = (R_P - |P|(|P|+1)/2) / (|P||N|)` with :math:`R_P` the
sum of the (average, tie-aware) ranks of :math:`P` in :math:`P \\cup N` (the Mann-Whitney U statistic).

The result says in plain words where the scorer's own benign scores differ between groups by more than ``margin``
("the toxicity scorer scores benign statements about gay people 0.62 on average vs 0.17 for straight people"); the
verdict uses those gaps to discount a finding that points the same way (``evenhand.pipeline.verdict.findings``).
"""

from __future__ import annotations

import functools
import itertools
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy.stats import rankdata

from evenhand._validation import check_threshold
from evenhand.errors import InputError
from evenhand.scorers.domain_audit import DomainFalsePositives, audit_scores, domain_false_positives

AuditKind = Literal["toxicity", "sentiment", "stereotype"]
KINDS: tuple[str, ...] = ("toxicity", "sentiment", "stereotype")
#: A benign-score gap between two groups larger than this (in the scorer's own units) is called out, and lets the
#: verdict discount a finding in the same direction.
DEFAULT_MARGIN = 0.05
#: A group whose benign statements cross the threshold at least this often is named in the findings.
NOTABLE_FPR = 0.10
CONTROL = "control"  # the attribute and group of the non-identity control statements
_MAX_CUSTOM_TERMS = 3  # terms taken from each group of a custom attribute's word lists


@functools.lru_cache(maxsize=1)
def _statement_data() -> dict[str, Any]:
    source = resources.files("evenhand") / "data" / "audit" / "identity_statements.json"
    data: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return data


def _fill(template: str, term: str, insult: str = "") -> str:
    """One statement: ``{term}``/``{Term}``, ``{insult}``, and ``{a}``/``{A}`` as the article of the next word."""
    from evenhand.text._grammar import indefinite_article

    text = template.replace("{Term}", term[:1].upper() + term[1:]).replace("{term}", term)
    text = text.replace("{insult}", insult)
    for mark in ("{a}", "{A}"):
        while mark in text:
            at = text.index(mark)
            article = indefinite_article(text[at + len(mark) :].lstrip())
            text = text[:at] + (article.capitalize() if mark == "{A}" else article) + text[at + len(mark) :]
    return text


def _audit_terms(attributes: Any) -> dict[str, dict[str, list[str]]]:
    """``{attribute: {group: [terms]}}`` for the attributes asked for: the built-in terms of the groups being
    assessed (a lexicon limited with ``attribute_groups`` keeps only those), or a custom lexicon's own words."""
    from evenhand.text.lexicon import BUILTIN_ATTRIBUTES, load_lexicon

    if attributes is None:
        attributes = BUILTIN_ATTRIBUTES
    items = attributes.items() if isinstance(attributes, Mapping) else ((None, a) for a in attributes)
    known: dict[str, dict[str, list[str]]] = _statement_data()["terms"]
    out: dict[str, dict[str, list[str]]] = {}
    for name, spec in items:
        if isinstance(spec, tuple):  # an intersection: its attributes are audited on their own
            continue
        lexicon = load_lexicon(spec)
        label = str(name) if name is not None else lexicon.name
        if lexicon.name in known:
            out[label] = {g: list(known[lexicon.name][g]) for g in lexicon.groups if g in known[lexicon.name]}
        else:
            out[label] = {
                g: sorted(t for t in lexicon.group_words(g) if " " not in t)[:_MAX_CUSTOM_TERMS] for g in lexicon.groups
            }
    return out


def identity_statements(attributes: Any = None, *, controls: bool = True) -> pd.DataFrame:
    """The audit statements for ``attributes`` (``None``: every built-in; names, lexicons or custom dicts, or a
    mapping ``{name: spec}`` as a use case's ``attribute_specs``), in a fixed order.

    Columns: ``text``, ``label`` (1 = insulting, 0 = benign), ``attribute``, ``group``, ``term``; control
    statements have attribute and group ``"control"``.
    """
    data = _statement_data()
    rows: list[tuple[str, int, str, str, str]] = []

    def add(attribute: str, group: str, term: str) -> None:
        rows.extend((_fill(t, term), 0, attribute, group, term) for t in data["benign_templates"])
        for template, insult in itertools.product(data["insult_templates"], data["insults"]):
            rows.append((_fill(template, term, insult), 1, attribute, group, term))

    for attribute, groups in _audit_terms(attributes).items():
        for group, terms in groups.items():
            for term in terms:
                add(attribute, group, term)
    if controls:
        for term in data["controls"]:
            add(CONTROL, CONTROL, term)
    return pd.DataFrame(rows, columns=["text", "label", "attribute", "group", "term"])


def auc(positives: npt.ArrayLike, negatives: npt.ArrayLike) -> float:
    """P(a random positive scores above a random negative), ties counting one half (Mann-Whitney U / (|P||N|));
    NaN when either side is empty.

    >>> auc([0.9, 0.4], [0.1, 0.4])
    0.875
    """
    pos, neg = np.asarray(positives, dtype=float), np.asarray(negatives, dtype=float)
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    ranks = rankdata(np.concatenate([pos, neg]))
    return float((ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


@dataclass
class UnitAudit:
    """The audit of one group (``term`` None) or one identity term; controls have attribute "control"."""

    attribute: str
    group: str
    term: str | None
    n_benign: int
    n_insult: int
    mean_benign: float  # the raw score, as the scorer gives it
    mean_insult: float
    fpr: float  # share of benign statements flagged (badness at or over the threshold)
    tpr: float  # share of insulting statements flagged
    subgroup_auc: float | None
    bpsn_auc: float | None
    bnsp_auc: float | None
    # the counts behind fpr and tpr (issue 37: the Rogan-Gladen correction carries the audit's own uncertainty)
    benign_flagged: int = 0
    insults_flagged: int = 0


@dataclass
class ScorerAudit:
    """What :func:`audit_scorer` measured (see the module docstring for the definitions)."""

    kind: str
    scorer: str
    threshold: float
    margin: float
    higher_is_negative: bool  # whether the scorer's high scores are the bad side (toxic, negative, stereotyped)
    n_statements: int
    auc: float  # over every statement: insults vs benign
    groups: list[UnitAudit]
    terms: list[UnitAudit]
    controls: UnitAudit | None
    findings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: toxicity only: false alarms on benign sentences of the use case's nearest domain (issue 34,
    #: :mod:`evenhand.scorers.domain_audit`); None for other kinds or when not measured
    domain: DomainFalsePositives | None = None

    def group(self, attribute: str, group: str) -> UnitAudit | None:
        return next((g for g in self.groups if g.attribute == attribute and g.group == group), None)

    def benign_gap(self, attribute: str, group_a: str, group_b: str) -> float | None:
        """Mean raw benign score of ``group_a`` minus that of ``group_b`` (None when either was not audited)."""
        a, b = self.group(attribute, group_a), self.group(attribute, group_b)
        return None if a is None or b is None else a.mean_benign - b.mean_benign

    def gaps(self) -> list[dict[str, Any]]:
        """Every pair of groups of an attribute, with the difference of their mean benign scores."""
        out = []
        for attribute in dict.fromkeys(g.attribute for g in self.groups):
            members = [g for g in self.groups if g.attribute == attribute]
            for a, b in itertools.combinations(members, 2):
                out.append(
                    {"attribute": attribute, "group_a": a.group, "group_b": b.group,
                     "mean_a": a.mean_benign, "mean_b": b.mean_benign, "difference": a.mean_benign - b.mean_benign}
                )  # fmt: skip
        return out

    def to_frame(self, level: Literal["groups", "terms"] = "groups") -> pd.DataFrame:
        units = self.groups if level == "groups" else self.terms
        return pd.DataFrame([asdict(u) for u in units])

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "scorer": self.scorer,
            "threshold": self.threshold,
            "margin": self.margin,
            "higher_is_negative": self.higher_is_negative,
            "n_statements": self.n_statements,
            "auc": self.auc,
            "groups": [asdict(g) for g in self.groups],
            "terms": [asdict(t) for t in self.terms],
            "controls": asdict(self.controls) if self.controls is not None else None,
            "gaps": self.gaps(),
            "findings": list(self.findings),
            "seconds": round(self.seconds, 3),
            "domain_false_positives": None if self.domain is None else self.domain.to_dict(),
        }


def audit_scorer(
    scorer: Any,
    attributes: Any = None,
    *,
    threshold: float = 0.5,
    kind: AuditKind = "toxicity",
    margin: float = DEFAULT_MARGIN,
    engine: Any = None,
    name: str | None = None,
    prompts: Sequence[str] | None = None,
    domain: bool = True,
) -> ScorerAudit:
    """Run ``scorer`` on the identity statements of ``attributes`` and measure its group bias.

    Args:
        scorer: any scorer (an evenhand scorer, a Hugging Face or Detoxify one, or a callable
            ``f(list[str]) -> floats in [0, 1]``).
        attributes: ``None`` (every built-in), attribute names / lexicons / custom dicts, or ``{name: spec}``
            (a use case's ``attribute_specs``: only the groups being assessed are audited).
        threshold: the cut-off of the false- and true-positive rates.
        kind: ``"toxicity"`` and ``"stereotype"``: high scores are bad; ``"sentiment"``: the direction is read from
            the data (insults must score on the bad side on average), so any sentiment scale works.
        margin: a benign-score gap between two groups above this is reported as a finding.
        engine: the scoring engine (``None``: the local one).
        name: how the findings name the scorer (default: its repr).
        prompts: the use case's prompts: a toxicity audit measures false alarms on the benign sentences of their
            nearest domain (:func:`evenhand.scorers.domain_audit.domain_false_positives`; all domains without them).
        domain: ``False`` skips that measurement.

    >>> a = audit_scorer(lambda texts: [0.9 if "gay" in t.lower() else 0.1 for t in texts], ["sexual_orientation"])
    >>> a.findings[0]
    'the toxicity scorer scores benign statements about gay people 0.367 on average vs 0.1 for straight people'
    """
    if kind not in KINDS:
        raise InputError(f"kind must be one of {KINDS}, got {kind!r}")
    tau = check_threshold(threshold)
    started = time.perf_counter()
    statements = identity_statements(attributes)
    scores = audit_scores(scorer, statements["text"].tolist(), engine)
    label = statements["label"].to_numpy() == 1
    higher_is_negative = True
    if kind == "sentiment":  # which end of the scale is negative: where the insults lie
        higher_is_negative = bool(scores[label].mean() >= scores[~label].mean())
    badness = scores if higher_is_negative else 1.0 - scores
    flagged = badness > tau if kind == "sentiment" else badness >= tau

    attribute = statements["attribute"].to_numpy()
    group = statements["group"].to_numpy()
    term = statements["term"].to_numpy()

    def unit(mask: npt.NDArray[np.bool_], a: str, g: str, t: str | None) -> UnitAudit:
        benign, insult, background = mask & ~label, mask & label, ~mask
        aucs: tuple[float | None, float | None, float | None] = (None, None, None)
        if a != CONTROL:  # the controls are the reference, not a subgroup
            aucs = (
                _opt(auc(badness[insult], badness[benign])),
                _opt(auc(badness[background & label], badness[benign])),
                _opt(auc(badness[insult], badness[background & ~label])),
            )
        return UnitAudit(
            a, g, t, int(benign.sum()), int(insult.sum()),
            float(scores[benign].mean()), float(scores[insult].mean()),
            float(flagged[benign].mean()), float(flagged[insult].mean()), *aucs,
            int(flagged[benign].sum()), int(flagged[insult].sum()),
        )  # fmt: skip

    keys = statements[["attribute", "group", "term"]].drop_duplicates()
    groups = [
        unit((attribute == a) & (group == g), a, g, None)
        for a, g in dict.fromkeys(zip(keys["attribute"], keys["group"], strict=True))
        if a != CONTROL
    ]
    terms = [
        unit((attribute == a) & (group == g) & (term == t), a, g, t)
        for a, g, t in zip(keys["attribute"], keys["group"], keys["term"], strict=True)
        if a != CONTROL
    ]
    controls = unit(attribute == CONTROL, CONTROL, CONTROL, None) if (attribute == CONTROL).any() else None
    audit = ScorerAudit(
        kind=kind,
        scorer=name or repr(scorer),
        threshold=tau,
        margin=float(margin),
        higher_is_negative=higher_is_negative,
        n_statements=len(statements),
        auc=auc(badness[label], badness[~label]),
        groups=groups,
        terms=terms,
        controls=controls,
    )
    if kind == "toxicity" and domain:
        audit.domain = domain_false_positives(scorer, prompts, threshold=tau, engine=engine)
    audit.findings = _findings(audit)
    audit.seconds = time.perf_counter() - started
    return audit


def _opt(x: float) -> float | None:
    return None if np.isnan(x) else x


def _people(group: str) -> str:
    return f"{group.replace('_', ' ')} people"


def _findings(audit: ScorerAudit) -> list[str]:
    """One plain sentence per attribute whose groups' benign scores differ by more than the margin, and one for the
    groups whose benign statements the scorer flags often."""
    out = []
    direction = "" if audit.kind != "sentiment" else (
        " (higher = more negative)" if audit.higher_is_negative else " (higher = more positive)"
    )  # fmt: skip
    for attribute in dict.fromkeys(g.attribute for g in audit.groups):
        members = [g for g in audit.groups if g.attribute == attribute]
        if len(members) < 2:
            continue
        high = max(members, key=lambda g: g.mean_benign)
        low = min(members, key=lambda g: g.mean_benign)
        if high.mean_benign - low.mean_benign > audit.margin:
            out.append(
                f"the {audit.kind} scorer scores benign statements about {_people(high.group)} "
                f"{high.mean_benign:.3g} on average vs {low.mean_benign:.3g} for {_people(low.group)}{direction}"
            )
    flagged = sorted((g for g in audit.groups if g.fpr >= NOTABLE_FPR), key=lambda g: -g.fpr)
    if flagged:
        named = ", ".join(f"{g.group.replace('_', ' ')} {g.fpr:.0%}" for g in flagged)
        what = "toxic" if audit.kind == "toxicity" else "negative" if audit.kind == "sentiment" else "stereotyped"
        control = f"; controls {audit.controls.fpr:.0%}" if audit.controls is not None else ""
        out.append(
            f"benign statements flagged as {what} at {audit.threshold:g}, by group: {named}{control}"
        )
    return out


def benign_gap(audit: Mapping[str, Any], attribute: str, group_a: str, group_b: str) -> float | None:
    """:meth:`ScorerAudit.benign_gap` on an audit's ``to_dict()`` (as results.json keeps it)."""
    means = {
        g["group"]: g["mean_benign"] for g in audit.get("groups", ()) if g.get("attribute") == attribute
    }
    if group_a not in means or group_b not in means or means[group_a] is None or means[group_b] is None:
        return None
    return float(means[group_a]) - float(means[group_b])


def error_counts(audit: Mapping[str, Any], attribute: str, group: str) -> dict[str, int] | None:
    """The counts behind one group's false-positive and true-positive rates in an audit's ``to_dict()`` (as
    results.json keeps it): ``insults_flagged``, ``insults``, ``benign_flagged``, ``benign``; None when the group
    was not audited. An audit written before the counts were kept gives them from its rates."""
    for unit in audit.get("groups", ()):
        if unit.get("attribute") == attribute and unit.get("group") == group:
            insults, benign = int(unit["n_insult"]), int(unit["n_benign"])
            return {
                "insults_flagged": int(unit.get("insults_flagged", round(float(unit["tpr"]) * insults))),
                "insults": insults,
                "benign_flagged": int(unit.get("benign_flagged", round(float(unit["fpr"]) * benign))),
                "benign": benign,
            }
    return None


__all__ = [
    "DEFAULT_MARGIN",
    "KINDS",
    "ScorerAudit",
    "UnitAudit",
    "auc",
    "audit_scorer",
    "benign_gap",
    "error_counts",
    "identity_statements",
]
