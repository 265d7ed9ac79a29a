"""What every metric family of the pipeline provides, and the context a run hands to it.

A family owns one part of the paper's metrics from end to end: which responses it needs, how it prepares them
(scoring, parsing), how it computes its :class:`~evenhand.pipeline.evidence.records.MetricRecord` rows, and which tests
or baselines it adds beside the bootstrap intervals. The run loop (:mod:`evenhand.pipeline.run`) only walks the
families; it never branches on a task or a metric name.
"""

from __future__ import annotations

import abc
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.errors import InputError
from evenhand.framework import Plan
from evenhand.metrics._result import MetricResult, undefined
from evenhand.pipeline.evidence.records import ALL, Comparison, MetricRecord, pair
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.families.examples import ExampleSection
from evenhand.pipeline.families.figures import GroupMean, Histogram, PairScatter
from evenhand.pipeline.responses.frame import group_pairs, ok_rows
from evenhand.pipeline.responses.masked_replies import COMPARED
from evenhand.pipeline.responses.masked_replies import mask_swapped_words as masked_swapped
from evenhand.pipeline.responses.needs import Needs
from evenhand.registry import METRICS

if TYPE_CHECKING:
    from evenhand.scorers.audit import AuditKind
    from evenhand.scorers.engine import ScoringEngine, TextScorer


@dataclass
class RunContext:
    """What the families of one run share: the plan, the response frame, the settings and the scoring engine.

    Families add columns to ``frame`` (scores, parsed labels, item lists), caveats for the reader, descriptions of
    what they used (``described``, which results.json's ``settings`` records), the audits of their scorers
    (``audits``, results.json's ``scorer_audit``, which the verdict reads) and sections of results.json of their own
    (``sections``: ``numbers``, the numeric outcomes per group; ``impact_ratios``, the LL144 table), each written only
    by the run that has one.
    """

    plan: Plan
    frame: pd.DataFrame
    settings: RunSettings
    engine: ScoringEngine
    label_parser: Callable[[str], Any] | None = None  # classification: answer -> label (else settings' keywords)
    list_parser: Callable[[str, int], list[str]] | None = None  # recommendation: answer, K -> items
    caveats: list[str] = field(default_factory=list)
    described: dict[str, Any] = field(default_factory=dict)
    audits: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)
    #: what the run's LLM assistants found and their audits (results.json: the judge's under ``judge``)
    assistants: dict[str, Any] = field(default_factory=dict)
    _pairs: dict[str, list[tuple[str, str, pd.DataFrame]]] = field(default_factory=dict, repr=False)

    @property
    def specs(self) -> dict[str, Any]:
        """Attribute name -> what the text core takes (a built-in name or a custom group dict)."""
        return self.plan.use_case.attribute_specs

    def pairs(self, attribute: str) -> list[tuple[str, str, pd.DataFrame]]:
        """Counterfactual response pairs of every pair of groups of ``attribute`` (computed once per run)."""
        if attribute not in self._pairs:  # in the lexicon's group order: one orientation per attribute (issue 37)
            self._pairs[attribute] = list(group_pairs(self.frame, attribute, lexicon_order(self.specs, attribute)))
        return self._pairs[attribute]

    def pairs_for(self, record: MetricRecord) -> pd.DataFrame | None:
        """The response pairs behind a pairwise record, or None."""
        if record.attribute is None or record.groups is None:
            return None
        for a, b, found in self.pairs(record.attribute):
            if (a, b) == record.groups:
                return found
        return None

    def score(self, column: str, scorer: TextScorer, *, mask_swapped_words: bool = False) -> dict[str, Any]:
        """Score every response that exists into ``frame[column]`` through the run's engine (NaN elsewhere), as it
        is compared: a counterfactual reply with its versions' names masked (``_compared``, issue 33), and with
        ``mask_swapped_words`` the words of the attribute its versions swap masked too (for a scorer that reads the
        group word itself: :func:`~evenhand.pipeline.responses.masked_replies.mask_swapped_words`, whose account of
        what was masked this returns; ``{}`` when nothing was)."""
        rows = ok_rows(self.frame)
        values = np.full(len(self.frame), np.nan)
        masked: dict[str, Any] = {}
        if len(rows):
            texts = rows[COMPARED if COMPARED in rows else "response"].tolist()
            if mask_swapped_words:
                texts, masked = masked_swapped(self.frame, rows, texts, self.specs)
            scores = np.asarray(self.engine.map(scorer, texts), dtype=float)
            values[self.frame.index.get_indexer(rows.index)] = scores
        self.frame[column] = values
        return masked

    def metric(self, key: str, *args: Any, **kwargs: Any) -> MetricResult:
        """Compute one metric with the parameters the registry says it takes from the settings."""
        return call_metric(key, *args, settings=self.settings, **kwargs)


#: The persistent score caches this process has opened, by resolved path: one connection per file, shared by every
#: scorer of every run (``ScoreCache`` is thread-safe; two connections to one file would only contend for locks).
_OPEN_CACHES: dict[str, Any] = {}


def score_cache(setting: bool | os.PathLike[str] | str | None) -> Any:
    """The run's persistent score cache from ``scoring.cache`` (None when off): ``True`` is the default file
    (:func:`evenhand.scorers._cache.default_cache_path`), a path that file. Scores, embeddings included, are keyed
    by the scorer's identity and the text, so a re-run, or a run after an interruption, computes only what is new."""
    if setting is None or setting is False:
        return None
    from evenhand.scorers._cache import ScoreCache, default_cache_path

    path = default_cache_path() if setting is True else Path(setting).expanduser()
    where = str(path.resolve())
    if where not in _OPEN_CACHES:
        try:
            _OPEN_CACHES[where] = ScoreCache(path)
        except (OSError, sqlite3.Error) as exc:  # a folder in the way, no permission, not a SQLite file
            raise InputError(f"scoring.cache: cannot open {path} as a score cache ({exc})") from None
    return _OPEN_CACHES[where]


def build_scorer(
    factory: Callable[..., Any], spec: Any, *, key: str, device: str | None, cache: Any = None, **options: Any
) -> Any:
    """A scorer from a config value: a spec, or ``{spec: ..., <option>: ...}`` with the factory's options; the
    run's ``scoring.device`` unless the value sets its own, and the run's score ``cache`` (a ``ScoreCache``, from
    :func:`score_cache`) unless it sets its own. Errors name the config key (``scoring.toxicity: ...``)."""
    if isinstance(spec, Mapping):
        options = {**options, **{k: v for k, v in spec.items() if k != "spec"}}
        spec = spec.get("spec")
    if cache is not None and "cache" not in options and (spec is None or isinstance(spec, (str, os.PathLike))):
        options["cache"] = cache  # a scorer object of the caller's keeps its own cache settings
    if device is not None and "device" not in options and (spec is None or isinstance(spec, (str, os.PathLike))):
        options["device"] = device
    try:
        scorer = factory(spec, **options)
    except (ValueError, TypeError, OSError) as exc:  # OSError: a model that cannot be loaded
        raise InputError(f"{key}: {exc}") from exc
    if spec is None or isinstance(spec, (str, os.PathLike)):  # a named model: a Ray GPU worker can build it again
        from evenhand.scorers._base import BatchedModel

        if isinstance(scorer, BatchedModel):
            scorer.recipe = (factory, spec, {k: v for k, v in options.items() if k != "cache"})
            if "batch_size" not in options:  # none given: the device's (larger on a GPU)
                from evenhand.scorers._base import adapt_batch_size

                adapt_batch_size(scorer)
    return scorer


def run_scorer(kind: str, settings: RunSettings) -> Any:
    """The run's scorer of ``kind`` (``"refusal"``, ``"sentiment"``, ...: a key of
    :data:`evenhand.scorer_registry.SCORERS`) as every family builds it: the config value ``scoring.<kind>``, with the
    run's device and score cache (:func:`build_scorer`; errors name ``scoring.<kind>``)."""
    from evenhand.registry import bind
    from evenhand.scorer_registry import SCORERS

    sc = settings.scoring
    factory = bind(SCORERS[kind].factory)
    cache = score_cache(sc.cache)
    return build_scorer(factory, getattr(sc, kind), key=f"scoring.{kind}", device=sc.device, cache=cache)


def audit_scorer_into(
    ctx: RunContext,
    scorer: Any,
    *,
    kind: AuditKind,
    attributes: Mapping[str, Any],
    threshold: float,
    name: str,
    key: str | None = None,
    prompts: Sequence[str] | None = None,
) -> None:
    """Audit ``scorer`` on identity statements about the groups of ``attributes`` (``scoring.audit``; see
    :mod:`evenhand.scorers.audit`) and keep the result for results.json, the report and the verdict, under ``key``
    (default: ``kind``; a family with one scorer per attribute names each audit after its attribute). ``prompts``:
    the use case's, for a toxicity audit's false alarms on the nearest domain's benign sentences."""
    if not ctx.settings.scoring.audit or not attributes:
        return
    from evenhand.scorers.audit import audit_scorer

    found = audit_scorer(
        scorer, attributes, threshold=threshold, kind=kind, engine=ctx.engine, name=name, prompts=prompts
    )
    ctx.audits[key or kind] = found.to_dict()


def record(key: str, attribute: str | None, comparison: Comparison, result: MetricResult) -> MetricRecord:
    return MetricRecord(key, attribute, comparison, result)


def undefined_record(
    key: str, attribute: str | None, comparison: Comparison, reason: str, *, unread: bool = False
) -> MetricRecord:
    """A row with no value, and why; ``unread``: because none of the replies behind it could be read."""
    return MetricRecord(key, attribute, comparison, undefined(METRICS[key].name, reason), unread=unread)


NO_PAIRS = "no counterfactual response pairs"
NO_GROUPS = "fewer than two groups have counterfactual responses"


def pair_column_records(ctx: RunContext, attribute: str, keys: Sequence[str]) -> list[MetricRecord]:
    """Every metric of ``keys`` for each pair of ``attribute``'s groups, from the per-response column the registry
    names (``pair_column``: "toxicity" reads ``toxicity_a`` and ``toxicity_b``), with the prompt as the resampling
    unit: the one loop behind toxicity per group, refusal and answer-length parity."""
    pairs = ctx.pairs(attribute)
    if not pairs:
        return [undefined_record(key, attribute, ALL, NO_GROUPS) for key in keys]
    out: list[MetricRecord] = []
    for a, b, found in pairs:
        comparison = pair(a, b)
        if found.empty:
            out.extend(undefined_record(key, attribute, comparison, NO_PAIRS) for key in keys)
            continue
        prompts = found["prompt_id"].to_numpy()  # a prompt with all its pairs
        for key in keys:
            column = METRICS[key].pair_column
            sides = (found[f"{column}_{side}"].to_numpy(dtype=float) for side in ("a", "b"))
            out.append(record(key, attribute, comparison, ctx.metric(key, *sides, prompts=prompts)))
    return out


class Family(abc.ABC):
    """One metric family of the pipeline (see the module docstring)."""

    #: The registry families (``MetricSpec.family``) whose planned metrics this family computes.
    metric_families: ClassVar[tuple[str, ...]]

    # What the family shows in results.json and the report, as data: the assessment and the report read these and
    # never branch on a family's name or a score column.
    #: The worst examples it picks (results.json ``worst_examples``; the report's "Worst examples").
    example_sections: ClassVar[tuple[ExampleSection, ...]] = ()
    #: How ``Assessment.tests`` names the method of a record's own test (``{method}``: the test's own name).
    test_method: ClassVar[str] = "{method}"
    #: Whether its records' per-item values are per-group rates, drawn as bars by group (results.json ``groups``).
    group_rates: ClassVar[bool] = False
    #: The registry families whose report table shows the noise-floor columns even when no row has a floor.
    noise_floor_families: ClassVar[tuple[str, ...]] = ()
    #: A bar chart of its pairwise rows' values, one per attribute: (title, with ``{attribute}``; caption).
    pair_value_chart: ClassVar[tuple[str, str] | None] = None
    #: The response-frame columns it summarises per counterfactual group (results.json ``groups``; bar charts).
    group_means: ClassVar[tuple[GroupMean, ...]] = ()
    #: The score columns it histograms (results.json ``distributions``).
    histograms: ClassVar[tuple[Histogram, ...]] = ()
    #: The counterfactual pair scores it scatters (results.json ``pairs``); one family at most declares one.
    pair_scatter: ClassVar[PairScatter | None] = None

    @property
    def name(self) -> str:
        """What progress messages call the family ("counterfactual")."""
        return type(self).__name__.lower()

    def planned(self, plan: Plan, attribute: str | None = None) -> tuple[str, ...]:
        """The planned metric keys of this family (optionally for one attribute), in plan order."""
        return tuple(
            dict.fromkeys(
                m.key
                for m in plan.metrics
                if m.family in self.metric_families and (attribute is None or m.attribute == attribute)
            )
        )

    def attributes(self, plan: Plan) -> tuple[str, ...]:
        """The attributes this family has planned metrics for, in plan order."""
        return tuple(dict.fromkeys(a for f in self.metric_families for a in plan.attributes_for(f)))

    def applies(self, plan: Plan) -> bool:
        return bool(self.planned(plan))

    def needs(self, plan: Plan) -> Needs:
        """The responses this family needs; by default those to the original prompts."""
        return Needs(originals=True)

    def build(self, plan: Plan, settings: RunSettings) -> None:  # noqa: B027 - most families build no model
        """Build the scorers the family will use, before any response is generated, so that a bad model id or
        path fails at once (naming its config key) rather than after the generation."""

    def check_reachable(self, plan: Plan, settings: RunSettings) -> None:  # noqa: B027 - most ask no server
        """Probe a server the family will ask (the judge), before any scorer loads: a dead one fails at once with
        its one line (faults18), not after the scorers have loaded."""

    def check_inputs(  # noqa: B027 - most families take whatever the source gives
        self, plan: Plan, settings: RunSettings, source: Any, per_prompt: Mapping[str, Sequence[Any]]
    ) -> None:
        """Refuse inputs the family cannot use, before any response is generated: ``source`` is the run's
        :class:`~evenhand.pipeline.responses.sources.ResponseSource`, ``per_prompt`` the columns given once per
        prompt."""

    def prepare(self, ctx: RunContext) -> None:  # noqa: B027 - most families need no preparation
        """Add what the metrics need to ``ctx.frame`` (scores, parsed answers)."""

    @abc.abstractmethod
    def records(self, ctx: RunContext) -> list[MetricRecord]:
        """Every planned metric of the family, one record per attribute (and pair of groups or class)."""

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:  # noqa: B027
        """Add tests and baselines beside the bootstrap intervals (noise floors, permutation tests)."""


def lexicon_rank(order: Sequence[str]) -> Callable[[Any], tuple[int, str]]:
    """A sort key for groups in ``order`` (the lexicon's, :func:`lexicon_order`), compared case-insensitively; groups
    it does not name come after those it does, as text."""
    rank = {str(g).casefold(): i for i, g in enumerate(order)}

    def key(group: Any) -> tuple[int, str]:
        return rank.get(str(group).casefold(), len(rank)), str(group)

    return key


def lexicon_order(specs: Mapping[str, Any], attribute: str) -> tuple[str, ...]:
    """The attribute's groups in its lexicon's order (one orientation per attribute, issue 37: "white vs black" in
    the counterfactual rows, the rate tests and compare alike); () when no lexicon gives them."""
    from evenhand.errors import InputError
    from evenhand.text.counterfactual import attribute_groups

    try:
        return attribute_groups(specs[attribute])
    except (KeyError, InputError, TypeError, ValueError):
        return ()
