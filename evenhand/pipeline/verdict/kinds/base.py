"""What a kind of evidence is (:class:`EvidenceKind`): how it judges and words a metric record, how it picks the pair
of replies that shows a finding, and how ``compare`` recomputes its metric from a run's stored responses.

A kind is one module of :mod:`evenhand.pipeline.verdict.kinds` (the red team's: :mod:`evenhand.redteaming`) with one
instance of its class, named in :data:`evenhand.registry.EVIDENCE_KINDS`; a metric names its kind in
:attr:`~evenhand.registry.MetricSpec.judge`. docs/architecture.md says how to add one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import pandas as pd

from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.verdict.evidence import Evidence, base_evidence
from evenhand.pipeline.verdict.kinds.pair_reading import EXTREME, PairReading, picked_pairs
from evenhand.registry import MetricSpec

if TYPE_CHECKING:
    from evenhand.config import RunSettings

#: A reply is a refusal at this score or more, in facts made without a run's settings (scoring.refusal_threshold's
#: default)
REFUSAL_THRESHOLD = 0.5


@dataclass(frozen=True)
class RunFacts:
    """What a kind needs to know of the run beyond a record: the sentiment scorer's scale (named in sentiment
    sentences), what :func:`evenhand.neutralize` takes for each attribute (similarity examples), the refusal
    threshold (refusal examples) and the positive decision with the model's words for the labels (decision
    examples)."""

    sentiment_scale: str | None = None
    attribute_specs: Mapping[str, Any] = field(default_factory=dict)
    refusal_threshold: float = REFUSAL_THRESHOLD
    #: the decision a classification run counts as positive (decision examples), and the model's words for each
    #: label (``classification.labels``: the first pattern of each)
    positive_label: str | None = None
    label_words: Mapping[str, str] = field(default_factory=dict)
    #: the run compared its replies with the persons' names masked (results.json ``names.masked``): a kind that reads
    #: pairs from their text reads them masked the same way (similarity)
    names_masked: bool = False
    #: the run's responses, every version of each prompt (set by
    #: :func:`~evenhand.pipeline.verdict.examples.examples_by_finding`): the similarity masks a pair's replies as its
    #: metric did, over all versions of the prompt, not only the pair's two
    responses: pd.DataFrame | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of_run(
        cls,
        settings: RunSettings,
        described: Mapping[str, Any],
        *,
        attribute_specs: Mapping[str, Any] | None = None,
        names_masked: bool = False,
    ) -> RunFacts:
        """The facts of a run from its typed settings and what its families described of what they used
        (``RunContext.described``: the sentiment scorer's scale, the positive decision and the labels' words, as
        the classification families read them)."""
        positive = described.get("positive_label")  # sensitive classes or the positive label, as the family read it
        if isinstance(positive, (list, tuple)):
            positive = positive[0] if len(positive) == 1 else None
        words = described.get("label_words")
        return cls(
            sentiment_scale=described.get("sentiment_scorer"),
            attribute_specs=attribute_specs or {},
            refusal_threshold=settings.scoring.refusal_threshold,
            positive_label=positive,
            label_words=dict(words) if isinstance(words, Mapping) else {},
            names_masked=names_masked,
        )


class StoredRun(Protocol):
    """A finished run as ``compare`` reads it (:class:`evenhand.comparison.runs.Run`): its label, its results
    document, its stored responses (None, and why, when it kept none) and its settings."""

    label: str
    doc: dict[str, Any]
    responses: pd.DataFrame | None
    responses_note: str

    @property
    def settings(self) -> dict[str, Any]: ...


class EvidenceKind:
    """One kind of evidence. A subclass sets :attr:`name` (its :data:`~evenhand.registry.EvidenceKindName`) and
    :attr:`rules`, and overrides :meth:`judge`; a kind whose findings are shown by a pair of replies sets
    :attr:`example_columns` and overrides :meth:`read_pairs`; one that ``compare`` can rebuild overrides
    :meth:`stored_items` and :meth:`recompute`."""

    #: the name a metric's :attr:`~evenhand.registry.MetricSpec.judge` gives
    name: ClassVar[str] = ""
    #: the rules in words, as results.json's ``verdict.rules`` lists them (two kinds may share one rule)
    rules: ClassVar[tuple[str, ...]] = ()
    #: its value is a distance from "no difference" (0): after the tests its interval is joined with 0 unless its
    #: test rejects (:mod:`evenhand.pipeline.verdict.intervals_agree_with_tests`)
    distance: ClassVar[bool] = False
    #: the response-frame columns its example pair reads (``{column}_a`` and ``_b``); None: its findings get none
    example_columns: ClassVar[tuple[str, ...] | None] = None
    #: its rules are in every results file's ``verdict.rules``; False: only in the runs that judge one of its metrics
    #: (a kind only some tasks have, added after the rules were first written: other runs' files stay as they were)
    always_listed: ClassVar[bool] = True

    # ------------------------------------------------------------------------------------------------ judging
    def evidence(self, rec: MetricRecord, facts: RunFacts) -> Iterator[tuple[tuple[str, str] | None, Evidence]]:
        """The record's evidence, per pair of groups it is about (one piece for most kinds; none when undefined)."""
        if not rec.result.is_defined:
            return
        e = base_evidence(rec)
        self.judge(rec, e, facts)
        yield rec.groups, e

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        """Set ``e.severity`` and ``e.claim`` (plain words first, numbers after), and note qualifiers that belong to
        the kind's own rule (:func:`~evenhand.pipeline.verdict.evidence.note_few_units`)."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------------ example
    def read_pairs(
        self, spec: MetricSpec, attribute: str, groups: tuple[str, str], pairs: pd.DataFrame, facts: RunFacts
    ) -> PairReading | None:
        """How each pair of replies (a row of ``pairs``, the counterfactual pairs of the finding's attribute and two
        groups) shows a concern or watch: its strength and whether it is of the finding's kind
        (:class:`~.pair_reading.PairReading`); None when no pair can show it."""
        return None

    def examples(
        self, spec: MetricSpec, attribute: str, groups: tuple[str, str], pairs: pd.DataFrame, facts: RunFacts
    ) -> list[dict[str, Any]]:
        """The pairs that show a concern or watch, as results.json's ``example`` and ``extreme_example``: the typical
        pair (labelled ``"typical"``) and, when it is another pair, the most extreme one (``"most extreme"``), each
        with the words that say why it was picked (``caption``; :mod:`.pair_reading`)."""
        reading = self.read_pairs(spec, attribute, groups, pairs, facts)
        if reading is None:
            return []
        a, b = groups
        n = int(reading.defined.sum())
        out = []
        for label, i, caption in picked_pairs(reading, pairs["prompt_id"].to_numpy()):
            value = float(reading.shown[i])
            if label == EXTREME:
                caption += f" ({reading.measure} {value:.3g})"
            out.append({**example_row(spec, pairs.iloc[i], a, b, n), "kind": reading.kind, "measure": reading.measure,
                        "value": value, **reading.extras(i), "label": label, "caption": caption})  # fmt: skip
        return out

    # ------------------------------------------------------------------------------------------------ compare
    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        """What the metric of ``row`` reads from ``run``'s stored responses, one line per item with its pairing key
        ``_key`` and ``prompt_id``, sorted by the key; or a string saying why it cannot be rebuilt."""
        return f"{spec.name} ({spec.inputs.replace('_', ' ')}) is not recomputed from stored responses yet"

    def recompute(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
        """The metric of ``row`` on ``table`` (from :meth:`stored_items`), with the run's own settings."""
        raise NotImplementedError(f"{spec.name} is not recomputed from stored responses")


def example_row(spec: MetricSpec, row: Any, a: str, b: str, n_pairs: int) -> dict[str, Any]:
    """The keys every example has: the metric, how many pairs it was picked from, and the pair's prompts and
    replies."""
    return {
        "metric": spec.name,
        "n_pairs": n_pairs,
        "prompt_id": row["prompt_id"],
        "sample": row["sample"],
        "group_a": a,
        "prompt_a": row["prompt_a"],
        "response_a": row["response_a"],
        "group_b": b,
        "prompt_b": row["prompt_b"],
        "response_b": row["response_b"],
    }
