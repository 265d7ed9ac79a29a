"""What a plan says: the FTU result per attribute, the metrics to compute with their reasons, what is left out and
why (:class:`Plan`, the output of :func:`evenhand.framework.plan`), in data and in plain text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evenhand._display import render_html
from evenhand.errors import InputError
from evenhand.framework.use_case import UseCase
from evenhand.registry import METRICS
from evenhand.text.language import language_name


@dataclass(frozen=True)
class PartCounts:
    """Where in conversations an attribute is mentioned: how many prompts mention it in their system prompt, in
    earlier turns (history), in the last user turn (the request), in retrieved documents (context), and only
    there (``context_only``). A bare text counts as its request."""

    system: int = 0
    history: int = 0
    request: int = 0
    context: int = 0
    context_only: int = 0

    def describe(self) -> str:
        parts = [
            f"{label} of {n}"
            for label, n in (
                ("the last user turn", self.request),
                ("earlier turns", self.history),
                ("the system prompt", self.system),
                ("retrieved documents", self.context),
            )
            if n
        ]
        only = f"; {self.context_only} only in their retrieved documents" if self.context_only else ""
        return f"mentioned in {join_words(parts)}{only}" if parts else ""


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
    names_read: bool = False  # personal names were read for this attribute (use_case.names and it has name lists)
    n_named: int = 0  # prompts that name a person whose name signals a group of the attribute
    n_named_only: int = 0  # ... of them, those with no attribute word (flagged by the name alone)
    name_examples: tuple[str, ...] = ()  # such names as written, for the reason text
    n_unplaced: int = 0  # prompts whose subject's group for this attribute no name list can place (issue 33)
    unplaced_examples: tuple[str, ...] = ()  # such names as written
    unplaced_prompts: tuple[int, ...] = ()  # the positions of those prompts (the observational rows compare them)
    # a second reader (opt-in, evenhand.text.cues): none of these is shown or written unless one was used
    reader_used: bool = False
    reader_trusted: bool = True  # it passed its audit: its cues flag prompts
    source_counts: Mapping[str, int] = field(default_factory=dict)  # prompts per source, and "reader_only"
    reader_examples: tuple[str, ...] = ()  # cues it found, as written
    reader_rejected: int = 0  # its claims not found verbatim in their prompt (dropped)
    reader_versions: Any = None  # ReaderVersions of the prompts only it flags, when it wrote them
    reader_reasons: tuple[tuple[int, str], ...] = ()  # per prompt it flags: (index, what flags it, source by source)
    parts: PartCounts | None = None  # conversations: where the prompts mention the attribute (None: bare texts)
    # conversations: (prompt position, the turns that mention the attribute, whether its documents do) per flagged
    # prompt; empty for bare texts
    located: tuple[tuple[int, tuple[int, ...], bool], ...] = ()

    @property
    def signals(self) -> str | None:
        """How the flagged prompts signal the attribute's groups: ``"words"``, ``"names"`` (personal names only),
        ``"words and names"``; None when no prompt was flagged (or FTU was answered, not checked)."""
        if self.source != "prompts" or not self.n_flagged:
            return None
        if not self.n_named:
            return "words"
        return "names" if self.n_named_only == self.n_flagged else "words and names"

    def where(self) -> str:
        """Conversations: where the flagged prompts mention the attribute ("mentioned in the last user turn of 12,
        retrieved documents of 9; 3 only in their retrieved documents"); "" for bare texts."""
        return self.parts.describe() if self.parts is not None and self.n_flagged else ""

    def describe(self) -> str:
        if self.reader_used and self.source == "prompts" and self.assessable:
            return self._describe_with_reader()
        return self._describe_words()

    def _describe_with_reader(self) -> str:
        """The FTU result source by source: lexicon words, personal names and the reader's cues."""
        a, counts = self.attribute, self.source_counts
        cues = f" (e.g. {', '.join(repr(w) for w in self.reader_examples[:4])})" if self.reader_examples else ""
        if not self.reader_trusted:
            n = counts.get("reader", 0)
            failed = "but failed its audit, so they count for nothing"
            return f"{self._describe_words()}; the reader flags {n} prompts{cues} {failed}"
        if self.satisfied:
            none = f"none of the {self.n_prompts} prompts mentions a {a} term"
            return f"FTU holds for {a}: {none}, and the reader found no {a} cue"
        parts = []
        if counts.get("lexicon"):
            words = f" (e.g. {', '.join(repr(w) for w in self.examples[:4])})" if self.examples else ""
            parts.append(f"{counts['lexicon']} by {a} words{words}")
        if counts.get("names"):
            named = f" (e.g. {', '.join(repr(w) for w in self.name_examples[:4])})" if self.name_examples else ""
            parts.append(f"{counts['names']} by a personal name{named}")
        only = counts.get("reader_only", 0)
        parts.append(f"{counts.get('reader', 0)} by the reader's cues{cues}, {only} of them by nothing else")
        return f"FTU fails for {a}: {self.n_flagged} of {self.n_prompts} prompts mention {a} ({'; '.join(parts)})"

    def _describe_words(self) -> str:
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
        if self.n_named_only:  # say how many prompts only a personal name flags: "9 of 40 ... race words" would hide it
            a = self.attribute
            named = f" (e.g. {', '.join(repr(w) for w in self.name_examples[:4])})" if self.name_examples else ""
            n_worded = self.n_flagged - self.n_named_only
            by_name = f"name{'s' if self.n_named_only == 1 else ''} a person whose name signals {a}"
            if not n_worded:
                return f"FTU fails for {a}: {self.n_flagged} of {self.n_prompts} prompts {by_name}{named}"
            verb = "mentions" if n_worded == 1 else "mention"
            # the counts add up: prompts with a word (some also name a person) and prompts flagged by a name alone
            return (
                f"FTU fails for {a}: {self.n_flagged} of {self.n_prompts} prompts mention {a}: {n_worded} {verb} "
                f"{a} words{words} and {self.n_named_only} {by_name}, with no {a} word{named}"
            )
        return (
            f"FTU fails for {self.attribute}: {self.n_flagged} of {self.n_prompts} prompts mention "
            f"{self.attribute} words{words}"
        )

    def reader_dict(self) -> dict[str, Any]:
        """The reader's part of the plan's ``ftu`` entry (only when a reader was used)."""
        versions = self.reader_versions
        return {
            "sources": dict(self.source_counts),
            "reader_trusted": self.reader_trusted,
            "reader_examples": list(self.reader_examples),
            "reader_rejected": self.reader_rejected,
            "reader_versions": versions.to_dict() if versions is not None else None,
            "reader_flagged": [{"prompt_index": i, "reason": why} for i, why in self.reader_reasons],
        }


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
        raise InputError(f"a not-applicable line for {family} names no metric")
    verb = "is" if len(names) == 1 else "are"
    return NotApplicable(family, attribute, f"{join_words(names)} {verb} left out: {why}", tuple(dict.fromkeys(keys)))


#: How a plan and results.json name the two designs of a classification assessment: the counterfactual versions of
#: each prompt compared pair by pair (decision flips, a paired test), or persons' group labels compared as groups.
PAIRED_DESIGN = "counterfactual (paired)"
PERSON_DESIGN = "group labels (person-level)"
_DESIGN_OF_FAMILY = {"counterfactual_decisions": PAIRED_DESIGN, "representation": PERSON_DESIGN,
                     "error_based": PERSON_DESIGN}  # fmt: skip


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
    #: The audit of a second reader of identity cues (evenhand.text.cue_audit.ReaderAudit), when one read the
    #: prompts: shown before what it found.
    reader_audit: Any = None

    def reader_versions(self) -> dict[str, Any]:
        """Per attribute, the counterfactual versions a reader wrote of the prompts only it flags, as
        :class:`~evenhand.text.counterfactual.CounterfactualPrompts` (empty without a reader)."""
        return {
            name: f.reader_versions.as_counterfactual_prompts()
            for name, f in self.ftu.items()
            if f.reader_versions is not None and f.reader_versions.n_made
        }

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

    @property
    def classification_design(self) -> dict[str, str]:
        """Per attribute of a classification plan, the design its findings rest on: :data:`PAIRED_DESIGN` where the
        counterfactual decisions are planned (person-level rates beside them, if any, are described as such in
        their reasons), else :data:`PERSON_DESIGN`. Empty for other tasks."""
        out: dict[str, str] = {}
        for m in self.metrics:
            design = _DESIGN_OF_FAMILY.get(m.family)
            if design is not None and m.attribute is not None and out.get(m.attribute) != PAIRED_DESIGN:
                out[m.attribute] = design
        return out

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
            "use_case": self.use_case.dump() | {"n_prompts": len(self.use_case.prompts)},
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
                    "names_read": v.names_read,
                    "n_named": v.n_named,
                    "n_named_only": v.n_named_only,
                    "name_examples": list(v.name_examples),
                    "signals": v.signals,
                    "description": v.describe(),
                    # only when some subject could not be placed: a run that names nobody writes what it wrote before
                    **(
                        {"n_unplaced": v.n_unplaced, "unplaced_examples": list(v.unplaced_examples)}
                        if v.n_unplaced
                        else {}
                    ),
                    **(v.reader_dict() if v.reader_used else {}),
                    **(
                        {
                            "parts": v.parts.__dict__.copy(),
                            "where": v.where(),
                            "flagged": [
                                {"prompt_id": i, "turns": list(turns), "in_context": in_context}
                                for i, turns, in_context in v.located
                            ],
                        }
                        if v.parts is not None
                        else {}
                    ),
                }
                for k, v in self.ftu.items()
            },
            **({"reader_audit": self.reader_audit.to_dict()} if self.reader_audit is not None else {}),
            "metrics": [m.__dict__.copy() for m in self.metrics],
            "not_applicable": [{**n.__dict__, "metrics": list(n.metrics)} for n in self.not_applicable],
            **self._conversations(),
            "notes": list(self.notes),
            "caveats": list(self.caveats),
            **({"classification_design": self.classification_design} if self.classification_design else {}),
        }

    def _conversations(self) -> dict[str, Any]:
        """``{"conversations": {...}}``: how many prompts are conversations, with earlier turns, a system prompt or
        retrieved documents; nothing when every prompt is a bare text."""
        from evenhand.conversation import Conversation

        conversations = [p for p in self.use_case.prompts if isinstance(p, Conversation)]
        if not conversations:
            return {}
        return {
            "conversations": {
                "n": len(conversations),
                "with_history": sum(sum(t.role != "system" for t in p.turns) > 1 for p in conversations),
                "with_system_prompt": sum(p.system_prompt is not None for p in conversations),
                "with_context": sum(bool(p.context) for p in conversations),
                "change_system_prompt": self.use_case.change_system_prompt,
            }
        }

    def explain(self) -> str:
        """A plain-text explanation: FTU results, the metrics with reasons, what is left out and why."""
        lines = [f"Assessment plan for {self.use_case.name!r} ({self.use_case.task.replace('_', ' ')})"]
        if self.reader_audit is not None:  # audit before trust: shown before what the reader found
            lines.append(f"Reader: {self.reader_audit.summary()}")
        lines += [f"  - {s.describe()}" + (f" ({s.where()})" if s.where() else "") for s in self.ftu.values()]
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
        lines += [f"Design ({attribute}): {design}" for attribute, design in self.classification_design.items()]
        lines += [f"Note: {note}" for note in self.notes]
        lines += [f"Caveat: {caveat}" for caveat in self.caveats]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.explain()

    def __repr__(self) -> str:  # never the prompts (UseCase's own repr would list them all)
        """``Plan(text_generation, 40 prompts, 23 metrics: TF, EMT, TP, COBS, ...)``: at most 8 names."""
        names = list(dict.fromkeys(m.name for m in self.metrics))
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        what = f"{len(self.metrics)} metrics" + (f": {shown}" if names else "")
        return f"Plan({self.use_case.task}, {len(self.use_case.prompts)} prompts, {what})"

    def _repr_html_(self) -> str | None:  # Jupyter: rendered by the presentation layer (evenhand._display)
        return render_html(self)


def join_words(words: list[str]) -> str:
    """``["a"]`` -> ``"a"``; ``["a", "b", "c"]`` -> ``"a, b and c"``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
