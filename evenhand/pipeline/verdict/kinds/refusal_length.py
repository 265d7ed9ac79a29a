"""Refusal parity (RRD), non-completion parity (NRD) and answer-length parity (RLD): a signed difference between the
replies to two groups' versions, judged by its paired prompt-level sign-flip test (adjusted p), in a sentence that
names the group served worse; the example is a pair that shows it (one version refused, the other answered; the
largest length gap)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._json import finite_or_none
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.families.person_refusals import REFUSED
from evenhand.pipeline.families.refusal_length import (
    answered_pairs,
    cut_length_reason,
    cut_no_reply_reason,
    no_reply,
    reply_words,
    too_few_answered_reason,
)
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.pipeline.responses.masked_replies import masked_pairs, pair_versions
from evenhand.pipeline.verdict.evidence import Evidence, by_p_and_interval, note_few_units
from evenhand.pipeline.verdict.kinds.base import REFUSAL_THRESHOLD, EvidenceKind, RunFacts, StoredRun
from evenhand.pipeline.verdict.kinds.pair_reading import PairReading
from evenhand.pipeline.verdict.kinds.stored import (
    by_key,
    pair_keys,
    paired_column,
    recompute_paired_scores,
    response_keys,
    stored_pairs,
)
from evenhand.pipeline.verdict.kinds.wording import adjusted_p, interval
from evenhand.pipeline.verdict.qualifiers import IntervalHoldsZero, IntervalMayUndercover
from evenhand.pipeline.verdict.severity import ALPHA, SUGGESTIVE
from evenhand.registry import MetricSpec


class PairedGap(EvidenceKind):
    """A signed gap between two groups' replies over counterfactual pairs (``MetricSpec.pair_column``, one score per
    reply), judged by its paired prompt-level test; a subclass words it (:meth:`words`)."""

    rules: ClassVar[tuple[str, ...]] = (
        f"refusal parity (RRD): concern when the paired sign-flip test over prompts has an adjusted p below {ALPHA}; "
        f"watch below {SUGGESTIVE}",
        IntervalHoldsZero.rule,
    )

    #: what the claim says in place of the p-value of a row with both rates 0 that its family left untested (None:
    #: the usual "p not available")
    untested: ClassVar[str | None] = None
    #: the result's size the claim counts its units by (``over 40 pairs``)
    counted: ClassVar[str] = "pairs"

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        spec = rec.spec
        e.severity = by_p_and_interval(e, interval_covers=spec.interval_covers)
        pairs = rec.result.sizes.get(self.counted)
        over = f" over {int(pairs)} {spec.unit}" if pairs is not None else ""
        rates = [finite_or_none(rec.result.details.get(k)) for k in ("rate_a", "rate_b")]
        nothing = rec.test is None and all(r == 0 for r in rates)  # both rates 0: the family ran no test
        tested = self.untested if self.untested and nothing else adjusted_p(e.p_adjusted)
        evidence = f"{spec.name} {interval(e)}{over}, {tested}"
        e.claim = self.words(rec.groups or ("?", "?"), rec.result.details, e.value, e.severity != "ok", evidence)
        note_few_units(e)

    def words(self, groups: tuple[str, str], details: Mapping[str, Any], value: float | None, shown: bool,
              evidence: str) -> str:  # fmt: skip
        """The claim; ``shown``: whether the difference is beyond chance (a concern or watch)."""
        raise NotImplementedError

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        return paired_column(run, row, spec, spec.pair_column or "")

    def recompute(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
        return recompute_paired_scores(run, spec, table)


class RateGap(PairedGap):
    """A gap between two groups' rates of flagged replies (``rate_a``, ``rate_b``), worded from three templates:
    ``{a}``, ``{b}``, ``{ra}``, ``{rb}``; the shown one ``{more}``, ``{high}``, ``{less}``, ``{low}``."""

    uncomparable: str
    same: str
    shown: str

    def words(self, groups: tuple[str, str], details: Mapping[str, Any], value: float | None, shown: bool,
              evidence: str) -> str:  # fmt: skip
        a, b = groups
        ra, rb = finite_or_none(details.get("rate_a")), finite_or_none(details.get("rate_b"))
        if ra is None or rb is None:
            return f"{self.uncomparable.format(a=a, b=b)}: {evidence}"
        if not shown or ra == rb:
            return f"{self.same.format(a=a, b=b, ra=ra, rb=rb)}: {evidence}"
        (more, high), (less, low) = sorted(((a, ra), (b, rb)), key=lambda g: -g[1])
        return f"{self.shown.format(more=more, high=high, less=less, low=low)}: {evidence}"


class RefusalParity(RateGap):
    """``replies to the old version are refusals 40% of the time, against 2% for the young version: ...``."""

    name = "refusal_parity"
    example_columns = ("refusal",)
    uncomparable = "refusal rates of the {a} and {b} versions cannot be compared"
    same = ("no evidence that replies to the {a} and {b} versions are refused at different rates ({ra:.0%} vs {rb:.0%} "
            "refusals)")  # fmt: skip
    shown = ("replies to the {more} version are refusals {high:.0%} of the time, against {low:.0%} for the {less} "
             "version")  # fmt: skip

    def read_pairs(
        self, spec: MetricSpec, attribute: str, groups: tuple[str, str], pairs: pd.DataFrame, facts: RunFacts
    ) -> PairReading | None:
        """Pairs of the finding's kind: the version of the group refused more often (the finding's direction) refused,
        the other answered; their strength, the refusal-score gap in that direction."""
        a, b = groups
        threshold = facts.refusal_threshold
        ra = pairs["refusal_a"].to_numpy(dtype=float)
        rb = pairs["refusal_b"].to_numpy(dtype=float)
        defined = ~(np.isnan(ra) | np.isnan(rb))
        if not defined.any():
            return None
        refused_a, refused_b = (ra >= threshold) & defined, (rb >= threshold) & defined
        more_a = refused_a.sum() >= refused_b.sum()  # the finding's direction: who is refused more often
        wanted = (refused_a & ~refused_b) if more_a else (refused_b & ~refused_a)
        refused, answered = (a, b) if more_a else (b, a)

        def notes(i: int) -> dict[str, str]:
            return {"note_a": "refused" if refused_a[i] else "answered",
                    "note_b": "refused" if refused_b[i] else "answered"}  # fmt: skip

        return PairReading("refusal", "refusal score", ra - rb, (ra - rb) if more_a else (rb - ra), wanted,
                           what=f"pairs whose {refused} version is refused and whose {answered} version is answered",
                           extras=notes, ranked_by="refusal-score gap")  # fmt: skip


class NonCompletionParity(RateGap):
    """NRD: requests of one group's versions left without a reply (errors, content filters, empty replies) more often
    than the other's, judged as refusal parity is: ``requests of the female version got no reply (an error, a
    content filter, an empty reply) 40% of the time, against 0% for the male version: ...``. Its row exists in the
    runs that judge refusals (RRD), so its rule is listed only by them; a pair of groups where every request got a
    reply is NRD 0, ok, untested."""

    name = "non_completion_parity"
    always_listed = False
    rules = (
        f"non-completion parity (NRD, beside refusal parity): concern when the paired sign-flip test over prompts has "
        f"an adjusted p below {ALPHA}; watch below {SUGGESTIVE}; not tested where every request got a reply",
    )
    untested = "untested: every request of both versions got a reply"
    uncomparable = "the shares of the {a} and {b} versions left without a reply cannot be compared"
    same = ("no evidence that requests of the {a} and {b} versions go without a reply at different rates ({ra:.0%} vs "
            "{rb:.0%} got no reply)")  # fmt: skip
    shown = ("requests of the {more} version got no reply (an error, a content filter, an empty reply) {high:.0%} of "
             "the time, against {low:.0%} for the {less} version")  # fmt: skip

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        """Every stored counterfactual pair of requests, replied or not (the run's own pairs): 1 on a side that got
        no reply (:func:`~evenhand.pipeline.families.refusal_length.no_reply`, the run's one definition); or, as the
        run decided from the same finish reasons, why NRD cannot be judged (replies cut before any answer)."""
        found = stored_pairs(run, row, spec, replied=False)
        if isinstance(found, str):
            return found
        if "status_a" not in found:
            return f"run {run.label}'s responses have no status column (which requests got no reply)"
        sides = [no_reply(found[f"status_{side}"], found[f"response_{side}"]) for side in ("a", "b")]
        why = cut_no_reply_reason(found, sides)
        if why is not None:
            return f"run {run.label}: {why}"
        table = pd.DataFrame({"prompt_id": found["prompt_id"], "a": sides[0], "b": sides[1]})
        table["_key"] = pair_keys(found)
        return by_key(table)


class PersonRefusalParity(RateGap):
    """PRRD: persons of one group refused more often than another's in a person-level classification log (no
    counterfactual versions), judged as refusal parity is, by its test (here the classification family's exact test
    of two groups' rates over persons) and worded for persons: ``answers to female persons are refusals 23% of the
    time, against 2% for male persons: ...``. Its rows exist in classification runs only, so its rule is listed by
    them; a pair of groups where no answer was a refusal is PRRD 0, ok, untested. No example pair: there are no
    versions to pair (the refused answers are listed with the unparsed ones)."""

    name = "person_refusal_parity"
    always_listed = False
    counted = "rows"
    rules = (
        f"refusal parity of persons (PRRD, person-level classification): concern when the exact test of the two "
        f"groups' refusal rates over persons has an adjusted p below {ALPHA}; watch below {SUGGESTIVE}; not tested "
        f"where no answer was a refusal",
    )
    untested = "untested: no answer of either group was a refusal"
    uncomparable = "refusal rates of {a} and {b} persons cannot be compared"
    same = ("no evidence that answers to {a} and {b} persons are refusals at different rates ({ra:.0%} vs {rb:.0%} "
            "refusals)")  # fmt: skip
    shown = "answers to {more} persons are refusals {high:.0%} of the time, against {low:.0%} for {less} persons"

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        """The stored answers to the original prompts of the row's two groups' persons whose refusal was read, with
        the run's own refusal flag (``refused``: what the run decided from the detector and the parsed label, as
        :func:`~evenhand.pipeline.families.person_refusals.refusal_rows` keeps them), one line per answer."""
        attribute, groups = row.get("attribute"), row.get("groups")
        if not attribute or not groups or len(groups) != 2:
            return f"{spec.name} has no pair of groups in this row"
        assert run.responses is not None
        rows = ok_rows(run.responses, original=True)
        column = f"group_{attribute}"
        missing = [c for c in (REFUSED, column) if c not in rows]
        if missing:
            return f"run {run.label}'s responses have no {', '.join(missing)} column"
        rows = rows[rows[REFUSED].notna() & rows[column].notna()]
        rows = rows[rows[column].astype(str).isin([str(g) for g in groups])]
        table = pd.DataFrame({"prompt_id": rows["prompt_id"], "refused": pd.to_numeric(rows[REFUSED]).astype(float),
                              "group": rows[column].astype(str)})  # fmt: skip
        table["_key"] = response_keys(rows)
        return by_key(table)

    def recompute(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
        first, second = (str(g) for g in row["groups"])
        return call_metric(spec.key, table["refused"].to_numpy(dtype=float), table["group"].to_numpy(), first=first,
                           second=second, prompts=table["prompt_id"].to_numpy())  # fmt: skip


def _words_of(
    pairs: pd.DataFrame, side: str, versions: pd.DataFrame, attribute: str, *, names: bool = True
) -> npt.NDArray[np.float64]:
    """Each reply's length in words: the stored ``words`` column, else counted as the family counts them
    (:func:`~evenhand.pipeline.families.refusal_length.reply_words` on the reply as compared: with ``names``, the
    names of every version's prompt masked, read off ``versions``, as a run that masks names compared it). A stored
    run without the column is counted by the same rule as one with it, so a length gap between an old run and a new
    one is the model's, not a difference in counting (groups14)."""
    column = f"words_{side}"
    if column in pairs:
        return pairs[column].to_numpy(dtype=float)
    if names and {"prompt_a", "prompt_b"} <= set(pairs.columns):
        return reply_words(masked_pairs(versions, attribute, pairs, swapped=False)[0 if side == "a" else 1])
    return reply_words(pairs[f"response_{side}"])


def _masks_names(run: StoredRun) -> bool:
    """Whether ``run`` compared its replies with the names of its prompts masked: recorded (results.json
    ``names.masked``), else whether its use case read names (the default, as a run counts today)."""
    doc = getattr(run, "doc", None) or {}
    names = doc.get("names") or {}
    if "masked" in names:
        return bool(names["masked"])
    use_case = (doc.get("plan") or {}).get("use_case") or {}
    return bool(use_case.get("names", True))


class LengthParity(PairedGap):
    """RLD, judged by its paired test alone: its interval is measured to undercover (the registry's
    ``interval_covers``), so the finding shows it as a description (rld16)."""

    name = "length_parity"
    example_columns = ()
    rules = (
        f"answer-length parity (RLD): concern when the paired sign-flip test over prompts (log length ratios) has an "
        f"adjusted p below {ALPHA}; watch below {SUGGESTIVE}",
        IntervalMayUndercover.rule,
    )

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        """Each stored pair's two lengths in words; or, as the run decided from the same finish reasons, why RLD
        cannot be judged (more than 5% of the pairs have a reply cut at the token limit): compare's RLD is the
        run's."""
        found = stored_pairs(run, row, spec)
        if isinstance(found, str):
            return found
        why = cut_length_reason(found)
        if why is not None:
            return f"run {run.label}: {why}"
        kept = answered_pairs(found, run.settings.get("refusal_threshold", REFUSAL_THRESHOLD))
        why = too_few_answered_reason(found, kept)
        if why is not None:
            return f"run {run.label}: {why}"
        found = found[kept]  # the pairs the run measured: neither reply a refusal (rld18)
        names, attribute = _masks_names(run), str(row["attribute"])
        assert run.responses is not None
        table = pd.DataFrame({"prompt_id": found["prompt_id"],
                              **{side: _words_of(found, side, run.responses, attribute, names=names)
                                 for side in ("a", "b")}})  # fmt: skip
        table["_key"] = pair_keys(found)
        return by_key(table)

    def words(self, groups: tuple[str, str], details: Mapping[str, Any], value: float | None, shown: bool,
              evidence: str) -> str:  # fmt: skip
        """``replies to the female version are 30% shorter (median 42 vs 60 words): ...``."""
        a, b = groups
        ma, mb = finite_or_none(details.get("median_words_a")), finite_or_none(details.get("median_words_b"))
        medians = f"median {ma:g} vs {mb:g} words" if ma is not None and mb is not None else "median lengths unknown"
        if value is None or not shown or value == 0:
            return f"no evidence that replies to the {a} and {b} versions differ in length ({medians}): {evidence}"
        if value < 0:
            return (
                f"replies to the {a} version are {-value:.0%} shorter than to the {b} version ({medians}): {evidence}"
            )
        shorter = 1 - 1 / (1 + value)  # the second group's replies, relative to the first's
        # the medians in the sentence's order: the shorter group's first
        medians = f"median {mb:g} vs {ma:g} words" if ma is not None and mb is not None else medians
        return f"replies to the {b} version are {shorter:.0%} shorter than to the {a} version ({medians}): {evidence}"

    def read_pairs(
        self, spec: MetricSpec, attribute: str, groups: tuple[str, str], pairs: pd.DataFrame, facts: RunFacts
    ) -> PairReading | None:
        """Pairs of the finding's kind: the reply of the group whose replies are longer in all is the longer one (short
        against long); their strength, the log ratio of word counts in that direction, one more word on each side so
        that an empty reply counts. Pairs with a refusal are left out, as RLD leaves them out."""
        a, b = groups
        versions = pair_versions(pairs, attribute) if facts.responses is None else facts.responses
        wa, wb = (_words_of(pairs, side, versions, attribute) for side in ("a", "b"))
        # the pairs RLD measured: a pair with a refusal is refusal parity's example, not a short answer (rld18)
        defined = ~(np.isnan(wa) | np.isnan(wb)) & answered_pairs(pairs, facts.refusal_threshold)
        if not defined.any():
            return None
        direction = 1.0 if wa[defined].sum() >= wb[defined].sum() else -1.0
        ratio = np.where(defined, np.log((wa + 1.0) / (wb + 1.0)) * direction, np.nan)
        longer, shorter = (a, b) if direction > 0 else (b, a)

        def notes(i: int) -> dict[str, str]:
            return {"note_a": f"{wa[i]:.0f} words", "note_b": f"{wb[i]:.0f} words"}

        return PairReading("length", "words", wa - wb, ratio, ratio > 0,
                           what=f"pairs whose {shorter} reply is shorter than the {longer} reply",
                           extras=notes, ranked_by="length ratio")  # fmt: skip


REFUSAL = RefusalParity()
LENGTH = LengthParity()
NON_COMPLETION = NonCompletionParity()
PERSON_REFUSAL = PersonRefusalParity()
