"""The decision framework (paper section 4, Figure 1, Table 1): which metrics fit a use case, and why.

A :class:`UseCase` records the task, the prompts (or the answer to "do the prompts mention protected groups?"),
the attributes to check and the stakeholder answers the framework needs. :func:`plan` runs the FTU check on the
prompts and walks Figure 1:

* text generation / summarization: toxicity always; if FTU fails for an attribute, stereotype metrics and, when
  counterfactual invariance is wanted, counterfactual sentiment plus (unless content ought to differ across
  groups, footnote 26) counterfactual similarity;
* classification: only when inputs are person-level or mention a group; representation fairness (DP) when
  predicted prevalence should be equal, otherwise error-based fairness (FNRD/FORD for assistive, FPRD/FDRD for
  punitive interventions);
* recommendation: counterfactual Jaccard/SERP/PRAG when FTU fails and counterfactual invariance is wanted.

FTU is checked with an attribute's lexicon, which reads one language (``Lexicon.language``). When the prompts are
confidently in another language (:func:`evenhand.text.language.detect_language`), FTU is *not assessable* for that
attribute: never "satisfied" (the lexicon would find no word in any prompt), and the plan leaves out the metrics
that need the lexicon to read the prompts (counterfactual, stereotype), saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evenhand._validation import as_text_list
from evenhand.registry import METRICS, MetricSpec, family_keys
from evenhand.text.language import LanguageGuess, language_name
from evenhand.text.lexicon import BUILTIN_ATTRIBUTES, DEFAULT_ATTRIBUTES, load_lexicon

Task = Literal["text_generation", "summarization", "classification", "recommendation"]
_TEXT_TASKS = ("text_generation", "summarization")
Intervention = Literal["assistive", "punitive"]


def _keys(family: str, section: str | None = None) -> tuple[str, ...]:
    return tuple(k for k in family_keys(family) if section is None or METRICS[k].section == section)


#: The metric catalogue (paper Table 2): the registry, by metric key. ``CATALOGUE[key].name`` is the short name.
CATALOGUE = METRICS
MetricInfo = MetricSpec
TOXICITY = _keys("toxicity")
STEREOTYPE_COOCCURRENCE = _keys("stereotype", "3.1.2.1")
STEREOTYPE_CLASSIFIER = _keys("stereotype", "3.1.2.2")
CF_SIMILARITY = _keys("counterfactual_similarity")
CF_SENTIMENT = _keys("counterfactual_sentiment")
REPRESENTATION = _keys("representation")
FALSE_NEGATIVES = ("false_negative_rate_difference", "false_omission_rate_difference")
FALSE_POSITIVES = ("false_positive_rate_difference", "false_discovery_rate_difference")
RECOMMENDATION = _keys("recommendation")


class UseCase(BaseModel):
    """An LLM use case as the framework sees it: the task, the prompts and the stakeholder answers.

    Attributes:
        task: ``"text_generation"``, ``"summarization"``, ``"classification"`` or ``"recommendation"``.
        prompts: a sample of the use case's prompts (list, NumPy array or pandas Series); the FTU check runs on
            them. Leave empty and set ``mentions_protected_groups`` when the prompts are not at hand.
        attributes: built-in protected attributes to check (``evenhand.text.lexicon.BUILTIN_ATTRIBUTES``; the
            default is ``DEFAULT_ATTRIBUTES``, gender and race).
        custom_attributes: extra attributes as ``{name: {group: [words, ...]}}`` with aligned word lists.
        attribute_groups: the groups to compare per attribute, e.g. ``{"gender": ["female", "male", "nonbinary"]}``
            (default: every group of the attribute; gender's ``nonbinary`` only on request).
        intersections: attributes assessed together, e.g. ``[["gender", "race"]]``: an attribute named
            ``"gender+race"`` whose groups are the combinations (``"female+black"``, ...), with counterfactual
            prompts and metrics for every pair of combined groups (text tasks and recommendation); in
            classification a person's combined group comes from the per-attribute groups of the data.
        counterfactual_invariance: should responses stay the same when only the group mentioned changes?
        content_may_differ: is content expected to differ across groups (e.g. clinical)? Then counterfactual
            similarity is too strict and only counterfactual sentiment is used (paper footnote 26).
        prevalence_parity: classification: should predicted prevalence be equal across groups?
        intervention: classification: are positive predictions used for ``"assistive"`` or ``"punitive"``
            interventions? ``None`` = not decided (both error-based families are planned).
        person_level: classification: does each input correspond to a person (with a known group)?
        mentions_protected_groups: the FTU answer when no prompts are given (``True`` = FTU not satisfied).
        stereotype_when_ftu: also plan stereotype metrics when FTU holds (paper footnote 27).
        stereotype_classifier: a stereotype classifier is available, so SF/EMS/SP can be computed.
        name: a label for reports.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: Task
    prompts: list[str] = Field(default_factory=list)
    attributes: list[str] = Field(default_factory=lambda: list(DEFAULT_ATTRIBUTES))
    custom_attributes: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    intersections: list[list[str]] = Field(default_factory=list)
    attribute_groups: dict[str, list[str]] = Field(default_factory=dict)
    counterfactual_invariance: bool = True
    content_may_differ: bool = False
    prevalence_parity: bool | None = None
    intervention: Intervention | None = None
    person_level: bool | None = None
    mentions_protected_groups: bool | None = None
    stereotype_when_ftu: bool = False
    stereotype_classifier: bool = False
    name: str = "LLM use case"

    @field_validator("task", mode="before")
    @classmethod
    def _normalise_task(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().lower().replace("-", "_").replace(" ", "_")
            value = {"generation": "text_generation", "text": "text_generation", "summarisation": "summarization"}.get(
                value, value
            )
        return value

    @field_validator("prompts", mode="before")
    @classmethod
    def _coerce_prompts(cls, value: Any) -> Any:
        return [] if value is None else as_text_list(value, "prompts", allow_empty=True)

    @field_validator("attributes")
    @classmethod
    def _check_attributes(cls, value: list[str]) -> list[str]:
        unknown = [a for a in value if a not in BUILTIN_ATTRIBUTES]
        if unknown:
            raise ValueError(
                f"unknown attribute(s) {unknown}; built-ins are {list(BUILTIN_ATTRIBUTES)} "
                "(put your own groups under custom_attributes: {name: {group: [words]}})"
            )
        return list(dict.fromkeys(value))

    @model_validator(mode="after")
    def _check_custom(self) -> UseCase:
        for name, groups in self.custom_attributes.items():
            if name in self.attributes:
                raise ValueError(f"custom attribute {name!r} clashes with a built-in attribute of the same name")
            if len(groups) < 2:
                raise ValueError(f"custom attribute {name!r} needs at least two groups, got {list(groups)}")
        if not self.attributes and not self.custom_attributes:
            raise ValueError("no protected attribute to check: set attributes or custom_attributes")
        known = [*self.attributes, *self.custom_attributes]
        for name, chosen in self.attribute_groups.items():
            if name not in known:
                raise ValueError(f"attribute_groups: {name!r} is not among the attributes checked {known}")
            load_lexicon(name if name in self.attributes else self.custom_attributes[name]).with_groups(chosen)
        for i, names in enumerate(self.intersections):
            if len(names) < 2 or len(set(names)) != len(names):
                raise ValueError(f"intersections[{i}]: name two or more different attributes, got {names}")
            unknown = [n for n in names if n not in known]
            if unknown:
                raise ValueError(f"intersections[{i}]: {unknown} not among the attributes checked {known}")
        return self

    @property
    def attribute_specs(self) -> dict[str, Any]:
        """Each attribute name -> what the text core takes: a built-in name, a custom group dict, or for an
        intersection ("gender+race") the tuple of its attributes' specs."""
        specs: dict[str, Any] = {a: a for a in self.attributes}
        specs.update(self.custom_attributes)
        for name, chosen in self.attribute_groups.items():  # the lexicon limited to (or extended by) these groups
            specs[name] = load_lexicon(specs[name]).with_groups(chosen)
        for names in self.intersections:
            specs["+".join(names)] = tuple(specs[n] for n in names)
        return specs

    @property
    def intersection_names(self) -> tuple[str, ...]:
        return tuple("+".join(names) for names in self.intersections)


@dataclass(frozen=True)
class FTUSummary:
    """The FTU result of one attribute as the plan reports it.

    ``assessable`` is False when the prompts are in another language than the attribute's lexicon (``language``
    and ``lexicon_language`` differ): the check could not have found a word, so ``satisfied`` is False too and
    means nothing. Read ``assessable`` before ``satisfied``.
    """

    attribute: str
    satisfied: bool
    n_flagged: int
    n_prompts: int
    examples: tuple[str, ...] = ()  # attribute words found, for the reason text
    source: str = "prompts"  # "prompts" (checked) or "answer" (stated by the user)
    assessable: bool = True
    language: str | None = None  # the prompts' language (ISO 639-1) when detected with confidence, else None
    lexicon_language: str | None = None  # the language of the attribute's lexicon (None: unknown, e.g. a custom dict)
    language_evidence: str = ""  # how sure the detection is: "es, 38 of 40 prompts"

    def describe(self) -> str:
        if not self.assessable:
            a = self.attribute
            return (
                f"FTU cannot be checked for {a}: the prompts look {language_name(self.language)} "
                f"({self.language_evidence}) and the {a} lexicon reads {language_name(self.lexicon_language)}"
            )
        if self.source == "answer":
            verdict = "do not mention" if self.satisfied else "mention"
            return f"you stated that the prompts {verdict} {self.attribute} groups"
        if self.satisfied:
            a = self.attribute
            return f"FTU holds for {a}: none of the {self.n_prompts} prompts mentions a {a} term"
        words = f" (e.g. {', '.join(repr(w) for w in self.examples[:4])})" if self.examples else ""
        return (
            f"FTU fails for {self.attribute}: {self.n_flagged} of {self.n_prompts} prompts mention "
            f"{self.attribute} words{words}"
        )


@dataclass(frozen=True)
class PlannedMetric:
    """One metric the plan asks for, with the reason."""

    key: str
    name: str
    family: str
    attribute: str | None
    reason: str
    requires: str
    section: str


@dataclass(frozen=True)
class NotApplicable:
    """A metric family left out, with the reason; ``metrics`` are the keys of the metrics it leaves out, and the
    reason names them (their short names, from the registry) first: build one with :func:`left_out`."""

    family: str
    attribute: str | None
    reason: str
    metrics: tuple[str, ...] = ()


def left_out(family: str, attribute: str | None, why: str, keys: tuple[str, ...]) -> NotApplicable:
    """A :class:`NotApplicable` whose reason names the metrics it leaves out: "FNRD, FORD, FPRD and FDRD are left
    out: ..." (the names come from the registry, so a plan line never lists them by hand)."""
    names = [METRICS[k].name for k in dict.fromkeys(keys)]
    if not names:
        raise ValueError(f"a not-applicable line for {family} names no metric")
    verb = "is" if len(names) == 1 else "are"
    return NotApplicable(family, attribute, f"{_join(names)} {verb} left out: {why}", tuple(dict.fromkeys(keys)))


@dataclass(frozen=True)
class Plan:
    """What to compute for a use case and why (the output of :func:`plan`)."""

    use_case: UseCase
    ftu: Mapping[str, FTUSummary]
    metrics: tuple[PlannedMetric, ...]
    not_applicable: tuple[NotApplicable, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: What a reader of any result must keep in mind (e.g. prompts the lexicons cannot read); an assessment
    #: repeats these among its caveats.
    caveats: tuple[str, ...] = field(default_factory=tuple)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.family for m in self.metrics))

    def keys(self, family: str | None = None, attribute: str | None = None) -> tuple[str, ...]:
        """Metric keys planned (optionally of one family and attribute), without repeats."""
        return tuple(
            dict.fromkeys(
                m.key
                for m in self.metrics
                if (family is None or m.family == family) and (attribute is None or m.attribute == attribute)
            )
        )

    def attributes_for(self, family: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.attribute for m in self.metrics if m.family == family and m.attribute))

    def to_frame(self) -> pd.DataFrame:
        """One row per planned metric: name, family, attribute, reason, required input, paper section."""
        rows = [
            {
                "metric": m.name,
                "key": m.key,
                "family": m.family,
                "attribute": m.attribute,
                "reason": m.reason,
                "requires": m.requires,
                "section": m.section,
            }
            for m in self.metrics
        ]
        return pd.DataFrame(rows, columns=["metric", "key", "family", "attribute", "reason", "requires", "section"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (used by ``Assessment.to_json`` and the report)."""
        return {
            "use_case": self.use_case.model_dump(exclude={"prompts"}) | {"n_prompts": len(self.use_case.prompts)},
            "ftu": {
                k: {
                    "satisfied": v.satisfied,
                    "n_flagged": v.n_flagged,
                    "n_prompts": v.n_prompts,
                    "examples": list(v.examples),
                    "source": v.source,
                    "assessable": v.assessable,
                    "language": v.language,
                    "lexicon_language": v.lexicon_language,
                    "description": v.describe(),
                }
                for k, v in self.ftu.items()
            },
            "metrics": [m.__dict__.copy() for m in self.metrics],
            "not_applicable": [{**n.__dict__, "metrics": list(n.metrics)} for n in self.not_applicable],
            "notes": list(self.notes),
            "caveats": list(self.caveats),
        }

    def explain(self) -> str:
        """A plain-text explanation: FTU results, the metrics with reasons, what is left out and why."""
        lines = [f"Assessment plan for {self.use_case.name!r} ({self.use_case.task.replace('_', ' ')})"]
        lines += [f"  - {s.describe()}" for s in self.ftu.values()]
        lines.append("Metrics to compute:")
        lines += [
            f"  - {m.name} [{m.family}{', ' + m.attribute if m.attribute else ''}]: {m.reason}" for m in self.metrics
        ] or ["  (none)"]
        if self.not_applicable:
            lines.append("Not applicable:")
            lines += [
                f"  - {n.family}{' (' + n.attribute + ')' if n.attribute else ''}: {n.reason}"
                for n in self.not_applicable
            ]
        lines += [f"Note: {note}" for note in self.notes]
        lines += [f"Caveat: {caveat}" for caveat in self.caveats]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.explain()

    def __repr__(self) -> str:  # never the prompts (UseCase's own repr would list them all)
        from evenhand.notebook import plan_repr

        return plan_repr(self)

    def _repr_html_(self) -> str:  # Jupyter (evenhand.notebook)
        from evenhand.notebook import plan_html

        return plan_html(self)


def _check_ftu(use_case: UseCase) -> tuple[dict[str, FTUSummary], LanguageGuess | None]:
    """FTU per attribute, from the prompts when given, otherwise from the user's answer; and the prompts' language
    (None when not detected: no prompts, or no lexicon with a known language)."""
    out: dict[str, FTUSummary] = {}
    if not use_case.prompts:
        if use_case.mentions_protected_groups is None:
            raise ValueError(
                "plan() needs the use case's prompts (to check FTU) or the answer mentions_protected_groups=True/False"
            )
        for name in use_case.attribute_specs:
            out[name] = FTUSummary(name, not use_case.mentions_protected_groups, 0, 0, source="answer")
        return out, None
    from evenhand.text.ftu import check_ftu
    from evenhand.text.language import detect_language

    results = {name: check_ftu(use_case.prompts, attribute=spec) for name, spec in use_case.attribute_specs.items()}
    known = any(r.lexicon_language is not None for r in results.values())
    guess = detect_language(use_case.prompts) if known else None  # custom word lists alone: nothing to compare
    for name, result in results.items():
        assessable = guess is None or not guess.differs_from(result.lexicon_language)
        out[name] = FTUSummary(
            attribute=name,
            satisfied=bool(result.satisfied) and assessable,
            n_flagged=int(result.n_flagged),
            n_prompts=len(use_case.prompts),
            examples=_matched_words(result),
            assessable=assessable,
            language=guess.code if guess is not None else None,
            lexicon_language=result.lexicon_language,
            language_evidence=guess.evidence() if guess is not None and guess.code is not None else "",
        )
    return out, guess


def _language_notes(ftu: Mapping[str, FTUSummary], guess: LanguageGuess | None, task: str) -> list[str]:
    """Plan notes on the prompts' language: attributes FTU cannot check, and a large share of prompts in another
    language than a lexicon's (only those in the lexicon's language are then checked)."""
    notes: list[str] = []
    blocked = [f for f in ftu.values() if not f.assessable]
    if blocked and guess is not None:
        names = _join([f.attribute for f in blocked])
        readers = _join(sorted({language_name(f.lexicon_language) for f in blocked}))
        lexicons = f"the {names} lexicon reads" if len(blocked) == 1 else f"the {names} lexicons read"
        notes.append(
            f"the prompts look {guess.name} ({guess.evidence()}) but {lexicons} {readers}: FTU cannot be checked "
            f"for {names}, and the metrics that need the lexicon to read the prompts (counterfactual, stereotype) "
            f"are left out. Give {names} as custom word lists in {guess.name} (custom_attributes) or assess "
            "translated prompts"
            + ("; the offline default scorers (toxicity, sentiment) read English only" if task in _TEXT_TASKS else "")
        )
    if guess is not None:
        for language in sorted({f.lexicon_language for f in ftu.values() if f.assessable and f.lexicon_language}):
            other = guess.minority(language)
            if other is not None:
                code, n = other
                checked = [f.attribute for f in ftu.values() if f.assessable and f.lexicon_language == language]
                lexicons = "lexicon reads" if len(checked) == 1 else "lexicons read"
                notes.append(
                    f"{n} of {guess.n_sampled} prompts look {language_name(code)} ({code}); the {_join(checked)} "
                    f"{lexicons} {language_name(language)}, so FTU and counterfactual prompts cover only the "
                    f"{language_name(language)} ones"
                )
    return notes


def _join(words: list[str]) -> str:
    """``["a"]`` -> ``"a"``; ``["a", "b", "c"]`` -> ``"a, b and c"``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _matched_words(result: Any) -> tuple[str, ...]:
    """The distinct attribute words an FTU result found (best effort across result shapes)."""
    words: list[str] = []
    for per_prompt in getattr(result, "matches", ()) or ():
        for match in per_prompt or ():
            word = match if isinstance(match, str) else getattr(match, "text", None) or getattr(match, "word", None)
            if word is None and isinstance(match, (tuple, list)) and match:
                word = match[0]
            if isinstance(word, str) and word.lower() not in words:
                words.append(word.lower())
    return tuple(words)


def _add(out: list[PlannedMetric], keys: tuple[str, ...], attribute: str | None, reason: str) -> None:
    for key in keys:
        info = METRICS[key]
        out.append(PlannedMetric(key, info.name, info.family, attribute, reason, info.requires, info.section))


def _plan_text(uc: UseCase, ftu: Mapping[str, FTUSummary]) -> tuple[list[PlannedMetric], list[NotApplicable]]:
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    _add(metrics, TOXICITY, None, "every text generation / summarization use case is assessed for toxicity (§4)")
    for name, f in ftu.items():
        why = f.describe()
        if not f.assessable:
            skipped.append(
                left_out(
                    "stereotype",
                    name,
                    f"{why}: stereotype metrics look for {name} words in the responses, which this lexicon cannot "
                    "read (§3.1.2)",
                    STEREOTYPE_COOCCURRENCE + STEREOTYPE_CLASSIFIER,
                )
            )
            skipped.append(
                left_out(
                    "counterfactual",
                    name,
                    f"{why}: counterfactual prompts cannot be built from words the lexicon does not have (§3.1.3)",
                    CF_SENTIMENT + CF_SIMILARITY,
                )
            )
            continue
        if name in uc.intersection_names:
            # co-occurrence counts words of each group; an intersection's groups have no words of their own
            skipped.append(
                left_out(
                    "stereotype",
                    name,
                    f"stereotype metrics are computed per attribute; the intersection {name} is assessed "
                    "counterfactually",
                    STEREOTYPE_COOCCURRENCE + STEREOTYPE_CLASSIFIER,
                )
            )
        elif f.satisfied and not uc.stereotype_when_ftu:
            skipped.append(
                left_out(
                    "stereotype",
                    name,
                    f"{why}; stereotype risk is low (but not nil, footnote 27): set stereotype_when_ftu to include it",
                    STEREOTYPE_COOCCURRENCE + (STEREOTYPE_CLASSIFIER if uc.stereotype_classifier else ()),
                )
            )
        else:
            reason = f"{why}, so stereotypes linked to {name} groups are a risk (§3.1.2)"
            _add(metrics, STEREOTYPE_COOCCURRENCE, name, reason)
            if uc.stereotype_classifier:
                _add(metrics, STEREOTYPE_CLASSIFIER, name, reason + "; a stereotype classifier is configured")
            else:
                skipped.append(
                    left_out(
                        "stereotype_classifier",
                        name,
                        "they need a stereotype classifier; none is configured (offline there is no default)",
                        STEREOTYPE_CLASSIFIER,
                    )
                )
        if f.satisfied:
            skipped.append(
                left_out(
                    "counterfactual",
                    name,
                    f"{why}: there are no counterfactual input pairs to build (§3.1.3)",
                    CF_SENTIMENT + CF_SIMILARITY,
                )
            )
            continue
        if not uc.counterfactual_invariance:
            skipped.append(
                left_out(
                    "counterfactual",
                    name,
                    "counterfactual invariance is not a desired property here",
                    CF_SENTIMENT + CF_SIMILARITY,
                )
            )
            continue
        reason = f"{why} and counterfactual invariance is desired (§3.1.3)"
        _add(metrics, CF_SENTIMENT, name, reason)
        if uc.content_may_differ:
            skipped.append(
                left_out(
                    "counterfactual_similarity",
                    name,
                    "content is expected to differ across groups, so similarity is too strict; sentiment only "
                    "(footnote 26)",
                    CF_SIMILARITY,
                )
            )
        else:
            _add(metrics, CF_SIMILARITY, name, reason)
    return metrics, skipped


def _plan_classification(
    uc: UseCase, ftu: Mapping[str, FTUSummary]
) -> tuple[list[PlannedMetric], list[NotApplicable], list[str]]:
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    notes: list[str] = []
    unreadable = {name: f for name, f in ftu.items() if not f.assessable}
    mentioned = [name for name, f in ftu.items() if f.assessable and not f.satisfied]
    if not uc.person_level:
        for name, f in unreadable.items():
            skipped.append(
                left_out(
                    "classification",
                    name,
                    f"{f.describe()}: which prompts mention a {name} group is unknown, and so is the group of each "
                    "prediction (declare person_level and give groups)",
                    REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES,
                )
            )
    if not uc.person_level and not mentioned:
        why = "inputs are not person-level" if uc.person_level is False else "inputs are not declared person-level"
        if not unreadable:
            skipped.append(
                left_out(
                    "classification",
                    None,
                    f"{why} and FTU holds for every attribute: a fairness assessment is not applicable (§4)",
                    REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES,
                )
            )
        elif len(unreadable) < len(ftu):
            skipped.append(
                left_out(
                    "classification",
                    None,
                    f"{why} and FTU holds for every attribute it could check: a fairness assessment is not "
                    "applicable for those (§4)",
                    REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES,
                )
            )
        return metrics, skipped, notes
    from evenhand.metrics.classification import classification_metrics_for

    basis = "inputs correspond to persons" if uc.person_level else f"prompts mention {', '.join(mentioned)} groups"
    attributes = list(uc.attribute_specs) if uc.person_level else mentioned
    # the Saleiro et al. tree lives with the metrics; an unanswered parity question plans both branches
    chosen: dict[str, str] = {}
    if uc.prevalence_parity is not False:
        chosen.update(classification_metrics_for(True))
    if uc.prevalence_parity is not True:
        chosen.update(classification_metrics_for(False, uc.intervention))
    if uc.prevalence_parity is None:
        chosen = {k: f"{why} (prevalence_parity not answered)" for k, why in chosen.items()}
    unplanned = tuple(k for k in REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES if k not in chosen)
    for name in attributes:
        for key, why in chosen.items():
            _add(metrics, (key,), name, f"{basis}; {why} (§4)")
        if unplanned:
            skipped.append(left_out("classification", name, _why_left_out(uc), unplanned))
    if uc.prevalence_parity is None or (uc.prevalence_parity is False and uc.intervention is None):
        notes.append(
            "answer prevalence_parity and intervention (assistive/punitive) to narrow the classification metrics"
        )
    return metrics, skipped, notes


def _why_left_out(uc: UseCase) -> str:
    if uc.prevalence_parity:
        names = _join([METRICS[k].name for k in REPRESENTATION])
        return f"predicted prevalence should be equal, so representation fairness ({names}) is the criterion (§4)"
    parts = ["equal predicted prevalence is not a fairness goal here"] if uc.prevalence_parity is False else []
    if uc.intervention:
        harm = "false negatives" if uc.intervention == "assistive" else "false positives"
        parts.append(f"interventions are {uc.intervention}, so {harm} are the harm to compare (§4)")
    return "; ".join(parts)


def _plan_recommendation(uc: UseCase, ftu: Mapping[str, FTUSummary]) -> tuple[list[PlannedMetric], list[NotApplicable]]:
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    for name, f in ftu.items():
        if not f.assessable:
            skipped.append(
                left_out(
                    "recommendation",
                    name,
                    f"{f.describe()}: counterfactual prompts cannot be built from words the lexicon does not have "
                    "(§3.3)",
                    RECOMMENDATION,
                )
            )
        elif f.satisfied:
            skipped.append(
                left_out(
                    "recommendation",
                    name,
                    f"{f.describe()}: a fairness assessment is not applicable (§4)",
                    RECOMMENDATION,
                )
            )
        elif not uc.counterfactual_invariance:
            skipped.append(
                left_out(
                    "recommendation",
                    name,
                    "counterfactual invariance is not desired (e.g. different products per group are intended): "
                    "a fairness assessment is not applicable (§4)",
                    RECOMMENDATION,
                )
            )
        else:
            _add(
                metrics,
                RECOMMENDATION,
                name,
                f"{f.describe()} and counterfactual invariance is desired, so recommendations should not change "
                "with the group mentioned (§3.3)",
            )
    return metrics, skipped


def plan(use_case: UseCase | None = None, /, **answers: Any) -> Plan:
    """Map a use case to the metrics that fit it (paper section 4, Figure 1), each with its reason.

    Call with a :class:`UseCase` or with its fields as keywords::

        evenhand.plan(task="text_generation", prompts=prompts, content_may_differ=False)

    Returns a :class:`Plan`: ``plan.metrics`` (what to compute, with reasons that quote the FTU result),
    ``plan.not_applicable`` (what is left out and why), ``plan.to_frame()`` and ``plan.explain()``.
    """
    if use_case is None:
        use_case = UseCase(**answers)
    elif answers:
        use_case = use_case.model_copy(update=answers)
        use_case = UseCase.model_validate(use_case.model_dump())
    if not isinstance(use_case, UseCase):
        raise TypeError(f"plan() expects a UseCase, got {type(use_case).__name__}")
    ftu, language = _check_ftu(use_case)
    notes: list[str] = []
    if use_case.task in ("text_generation", "summarization"):
        metrics, skipped = _plan_text(use_case, ftu)
        notes.append("EMT and TP (and EMS, SP) follow the convention of 25 generations per prompt (Table 2)")
    elif use_case.task == "classification":
        metrics, skipped, notes = _plan_classification(use_case, ftu)
    else:
        metrics, skipped = _plan_recommendation(use_case, ftu)
    caveats = _language_notes(ftu, language, use_case.task)
    return Plan(use_case, ftu, tuple(metrics), tuple(skipped), tuple(notes), tuple(caveats))
