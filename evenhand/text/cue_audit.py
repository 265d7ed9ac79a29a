"""Audit a cue reader before trusting it: its recall and precision on a labelled set that evenhand ships.

``evenhand/data/audit/reader_prompts.jsonl`` (written for evenhand; README beside it) holds prompts with identity
cues that lexicons read ("she", "Black woman") and cues they do not ("hijab", "synagogue", "paycheck to paycheck",
"I'm 72"), look-alikes that are no cue ("the Black Sea", "kosher salt", "a blind spot", "Christian Dior") and
plain prompts. Each cue is labelled with its attribute and group; ``optional`` cues are defensible either way
("grandmother" for age) and count neither for nor against the reader.

:func:`audit_reader` runs a reader (:class:`~evenhand.text.cues.CueReader`) on the set with the attributes a run
checks and measures, after the verbatim rule (:func:`~evenhand.text.cues.verbatim_cues`):

* **recall**: the share of labelled cues that a cue of the reader (same attribute) overlaps;
* **precision**: the share of the reader's cues that overlap a labelled cue (required or optional) of their
  attribute;
* recall on the cues the lexicons miss (what the reader adds), prompt-level recall and the share of look-alike and
  plain prompts it flags, the claims the verbatim rule dropped, and how often the group it names is the label's.

A reader is **trusted** when its precision is at least :data:`MIN_PRECISION` and its recall at least
:data:`MIN_RECALL`. An untrusted reader's cues are still reported, but they never flag a prompt (FTU) nor make a
counterfactual version.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any

from evenhand.errors import InputError
from evenhand.text.cues import Cue, CueReader, read_prompts, reader_attributes

#: A reader is trusted from these figures on (measured on the labelled set, after the verbatim rule). Precision is
#: the stricter: a false cue flags a prompt that mentions no group and makes a counterfactual of nothing; a reader
#: that misses cues adds less, but never removes what the lexicons found.
MIN_PRECISION = 0.80
MIN_RECALL = 0.50
#: When no attribute a run checks has labelled cues (a custom attribute), the reader is audited on these instead,
#: as a proxy for how well it reads.
PROXY_ATTRIBUTES = ("gender", "race", "religion")
DATA_FILE = "reader_prompts.jsonl"


@dataclass(frozen=True)
class LabelledPrompt:
    """One prompt of the labelled set: its cues (each ``(text, attribute, group)``) and the optional ones."""

    id: str
    kind: str  # "cue", "look-alike" or "plain"
    prompt: str
    cues: tuple[tuple[str, str, str | None], ...]
    optional: tuple[tuple[str, str, str | None], ...]


@functools.lru_cache(maxsize=1)
def labelled_prompts() -> tuple[LabelledPrompt, ...]:
    """The shipped labelled set (``evenhand/data/audit/reader_prompts.jsonl``), in file order."""
    source = resources.files("evenhand") / "data" / "audit" / DATA_FILE
    rows = []
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            cues = tuple((c["text"], c["attribute"], c["group"]) for c in item["cues"])
            optional = tuple((c["text"], c["attribute"], c["group"]) for c in item["optional"])
            rows.append(LabelledPrompt(item["id"], item["kind"], item["prompt"], cues, optional))
    return tuple(rows)


@dataclass
class AttributeAudit:
    """The reader's figures for one attribute."""

    attribute: str
    n_labelled: int  # required cues in the set
    n_found: int  # ... overlapped by a cue of the reader
    n_beyond_lexicon: int  # required cues the attribute's lexicon does not match
    n_found_beyond_lexicon: int
    n_reader: int  # cues the reader gave (after the verbatim rule)
    n_correct: int  # ... that overlap a labelled cue (required or optional)
    n_group_named: int  # found cues whose label names a group and the reader named one
    n_group_right: int  # ... the same group

    @property
    def recall(self) -> float | None:
        return self.n_found / self.n_labelled if self.n_labelled else None

    @property
    def precision(self) -> float | None:
        return self.n_correct / self.n_reader if self.n_reader else None


@dataclass
class ReaderAudit:
    """What :func:`audit_reader` measured (see the module docstring)."""

    reader: str
    attributes: tuple[str, ...]  # the attributes audited
    proxy: bool  # audited on PROXY_ATTRIBUTES because the run's attributes have no labelled cues
    n_prompts: int
    per_attribute: list[AttributeAudit]
    n_cue_prompts: int  # prompts with a required cue of an audited attribute
    n_cue_prompts_flagged: int
    n_clean_prompts: int  # look-alike and plain prompts with no cue of an audited attribute (optional ones aside)
    n_clean_prompts_flagged: int
    n_rejected: int  # claims the verbatim rule dropped (invented, too long, or of an attribute not asked about)
    examples_missed: list[str] = field(default_factory=list)  # labelled cues the reader missed, a few
    examples_false: list[str] = field(default_factory=list)  # reader cues with no label, a few
    examples_rejected: list[str] = field(default_factory=list)  # claims not found in their prompt, a few
    min_precision: float = MIN_PRECISION
    min_recall: float = MIN_RECALL
    seconds: float = 0.0

    def _share(self, part: str, whole: str) -> float | None:
        """The attributes' total of count ``part`` over their total of count ``whole``; None when that is 0."""
        n = sum(int(getattr(a, whole)) for a in self.per_attribute)
        return sum(int(getattr(a, part)) for a in self.per_attribute) / n if n else None

    @property
    def recall(self) -> float | None:
        return self._share("n_found", "n_labelled")

    @property
    def precision(self) -> float | None:
        return self._share("n_correct", "n_reader")

    @property
    def recall_beyond_lexicon(self) -> float | None:
        return self._share("n_found_beyond_lexicon", "n_beyond_lexicon")

    @property
    def group_accuracy(self) -> float | None:
        return self._share("n_group_right", "n_group_named")

    @property
    def false_flag_rate(self) -> float | None:
        """The share of prompts without a cue (look-alikes, plain) that the reader flags."""
        return self.n_clean_prompts_flagged / self.n_clean_prompts if self.n_clean_prompts else None

    @property
    def trusted(self) -> bool:
        precision, recall = self.precision, self.recall
        return (
            precision is not None
            and recall is not None
            and precision >= self.min_precision
            and (recall >= self.min_recall)
        )

    def summary(self) -> str:
        """One line: the figures and whether the reader is trusted."""
        scope = ", ".join(self.attributes) + (" (a proxy: the run's attributes have no labelled cues)" if self.proxy
                                                else "")  # fmt: skip
        figures = (
            f"recall {_pct(self.recall)} (on the cues the lexicons miss {_pct(self.recall_beyond_lexicon)}), precision "
            f"{_pct(self.precision)}, flags {_pct(self.false_flag_rate)} of the prompts without a cue"
        )
        if self.trusted:
            verdict = "trusted"
        else:
            verdict = (
                f"NOT trusted (needs precision {self.min_precision:.0%} and recall {self.min_recall:.0%}): its cues "
                "are reported but flag no prompt"
            )
        dropped = f"; {self.n_rejected} claims not found verbatim were dropped" if self.n_rejected else ""
        return f"reader audit on {self.n_prompts} labelled prompts ({scope}): {figures}{dropped}; {verdict}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "reader": self.reader,
            "attributes": list(self.attributes),
            "proxy": self.proxy,
            "n_prompts": self.n_prompts,
            "recall": self.recall,
            "precision": self.precision,
            "recall_beyond_lexicon": self.recall_beyond_lexicon,
            "group_accuracy": self.group_accuracy,
            "false_flag_rate": self.false_flag_rate,
            "n_cue_prompts": self.n_cue_prompts,
            "n_cue_prompts_flagged": self.n_cue_prompts_flagged,
            "n_clean_prompts": self.n_clean_prompts,
            "n_clean_prompts_flagged": self.n_clean_prompts_flagged,
            "n_rejected": self.n_rejected,
            "min_precision": self.min_precision,
            "min_recall": self.min_recall,
            "trusted": self.trusted,
            "per_attribute": [asdict(a) | {"recall": a.recall, "precision": a.precision} for a in self.per_attribute],
            "examples_missed": list(self.examples_missed),
            "examples_false": list(self.examples_false),
            "examples_rejected": list(self.examples_rejected),
            "summary": self.summary(),
            "seconds": round(self.seconds, 3),
        }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def audit_attributes(attributes: Mapping[str, Sequence[str]]) -> tuple[dict[str, tuple[str, ...]], bool]:
    """The attributes to audit a reader on, ``{attribute: groups}``: those of ``attributes`` that the labelled set
    has cues of (with the built-in lexicon's groups), else :data:`PROXY_ATTRIBUTES` (second value True)."""
    from evenhand.text.lexicon import load_lexicon

    covered = {a for item in labelled_prompts() for _, a, _ in item.cues}
    chosen = [a for a in attributes if a in covered]
    proxy = not chosen
    names = list(PROXY_ATTRIBUTES) if proxy else chosen
    return {a: tuple(load_lexicon(a).all_groups) for a in names}, proxy


def _spans(prompt: str, labels: Sequence[tuple[str, str, str | None]]) -> list[tuple[str, str | None, int, int, str]]:
    from evenhand.text.cues import find_verbatim

    return [(a, g, s, e, text) for text, a, g in labels for s, e in find_verbatim(prompt, text)]


def _overlaps(cue: Cue, attribute: str, start: int, end: int) -> bool:
    return cue.attribute == attribute and cue.start < end and start < cue.end


def audit_reader(reader: CueReader, attributes: Mapping[str, Sequence[str]] | None = None) -> ReaderAudit:
    """Run ``reader`` on the labelled set with ``attributes`` (``{attribute: groups}``; None: every attribute the
    set labels) and measure its recall and precision (module docstring).

    Every prompt is read in one call of ``reader.read_cues``, so an LLM reader sends them concurrently.
    """
    from evenhand.text._engine import find_matches
    from evenhand.text.lexicon import load_lexicon

    started = time.perf_counter()
    if attributes is None:
        attributes = {a: () for item in labelled_prompts() for _, a, _ in item.cues}
    else:
        reader_attributes(attributes)
    asked, proxy = audit_attributes(attributes)
    items = labelled_prompts()
    prompts = [item.prompt for item in items]
    output = read_prompts(reader, prompts, asked)
    lexicon_hits = {a: find_matches(load_lexicon(a), prompts) for a in asked}
    per = {a: AttributeAudit(a, 0, 0, 0, 0, 0, 0, 0, 0) for a in asked}
    missed: list[str] = []
    false: list[str] = []
    counts = {"cue": 0, "cue_flagged": 0, "clean": 0, "clean_flagged": 0}
    for index, item in enumerate(items):
        required = [s for s in _spans(item.prompt, item.cues) if s[0] in asked]
        optional = [s for s in _spans(item.prompt, item.optional) if s[0] in asked]
        cues = output.cues[index]
        flagged = bool(cues)
        kind = "cue" if required else "clean"
        counts[kind] += 1
        counts[f"{kind}_flagged"] += flagged
        for text, attribute, group in dict.fromkeys(c for c in item.cues if c[1] in asked):
            where = [(s, e) for a, _, s, e, t in required if a == attribute and t == text]
            audit = per[attribute]
            audit.n_labelled += 1
            by_lexicon = any(m.start < e and s < m.end for m in lexicon_hits[attribute][index] for s, e in where)
            audit.n_beyond_lexicon += not by_lexicon
            hits = [c for c in cues for s, e in where if _overlaps(c, attribute, s, e)]
            if hits:
                audit.n_found += 1
                audit.n_found_beyond_lexicon += not by_lexicon
                named = [c for c in hits if c.group is not None]
                if group is not None and named:
                    audit.n_group_named += 1
                    audit.n_group_right += any(c.group == group for c in named)
            elif len(missed) < 8:
                missed.append(f"{text!r} ({attribute}) in {item.prompt!r}")
        for cue in cues:
            audit = per[cue.attribute]
            audit.n_reader += 1
            right = any(_overlaps(cue, a, s, e) for a, _, s, e, _ in required + optional)
            audit.n_correct += right
            if not right and len(false) < 8:
                false.append(f"{cue.word!r} ({cue.attribute}) in {item.prompt!r}")
    rejected = [
        f"{claim.text!r} ({claim.attribute}) for {prompt!r}"
        for prompt, claims in zip(prompts, output.rejected, strict=True)
        for claim in claims
    ]
    return ReaderAudit(
        reader=output.reader,
        attributes=tuple(asked),
        proxy=proxy,
        n_prompts=len(items),
        per_attribute=list(per.values()),
        n_cue_prompts=counts["cue"],
        n_cue_prompts_flagged=counts["cue_flagged"],
        n_clean_prompts=counts["clean"],
        n_clean_prompts_flagged=counts["clean_flagged"],
        n_rejected=output.n_rejected,
        examples_missed=missed,
        examples_false=false,
        examples_rejected=rejected[:8],
        seconds=time.perf_counter() - started,
    )


def check_labelled_set() -> None:
    """Raise when the shipped set breaks its rules: every cue occurs verbatim in its prompt, its attribute is a
    built-in one and its group one of that attribute's groups (or none)."""
    from evenhand.text.cues import find_verbatim
    from evenhand.text.lexicon import BUILTIN_ATTRIBUTES, load_lexicon

    for item in labelled_prompts():
        for text, attribute, group in item.cues + item.optional:
            if not find_verbatim(item.prompt, text):
                raise InputError(f"{item.id}: cue {text!r} is not in its prompt")
            if attribute not in BUILTIN_ATTRIBUTES:
                raise InputError(f"{item.id}: unknown attribute {attribute!r}")
            if group is not None and group not in load_lexicon(attribute).all_groups:
                raise InputError(f"{item.id}: {group!r} is not a group of {attribute}")
