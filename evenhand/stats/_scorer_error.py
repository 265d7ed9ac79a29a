"""Rates corrected for the scorer's own error (issue 37): the Rogan-Gladen estimator, per group, with the audit's
uncertainty carried into the interval.

A share of replies flagged by a scorer mixes what the model said with what the scorer gets wrong. If the scorer
flags a truly toxic reply with probability ``Se`` (sensitivity) and a benign one with probability ``1 - Sp``
(``Sp``: specificity), the flagged share is ``p = Se pi + (1 - Sp)(1 - pi)`` for a true toxic share ``pi``, so
(Rogan and Gladen 1978, *American Journal of Epidemiology* 107: 71-76)

    ``pi = (p + Sp - 1) / (Se + Sp - 1)``,   clipped to [0, 1],

defined when ``Se + Sp > 1`` (the scorer tells toxic from benign better than chance). A gap between two groups is
corrected with each group's own ``Se`` and ``Sp``: ``pi_a - pi_b``. Replies about group A are read with the
scorer's error on statements about group A: a scorer that flags 4% of benign statements about one group and 1%
about the other makes a 3-point gap between two equally (non-)toxic models.

``Se`` and ``Sp`` come from the scorer audit (:mod:`evenhand.scorers.audit`: insulting and benign identity
statements per group, at the run's threshold), which is itself a sample. The interval carries both
uncertainties, by simulation (``n_draws``):

* the flagged share of each group from its confidence distribution on the effective number of trials (the
  Clopper-Pearson one behind :func:`~evenhand.stats.rate_interval`: the lower bound reads the draws of
  Beta(x*, n* - x* + 1), the upper those of Beta(x* + 1, n* - x*)), the two groups' draws correlated as their
  estimates are (a Gaussian copula with the correlation of their units' residuals: counterfactual pairs of one
  prompt);
* each group's ``Se`` and ``1 - Sp`` from Jeffreys' Beta(f + 1/2, n - f + 1/2) for ``f`` flagged of ``n`` audit
  statements, independently (different statements);
* the corrected rate, or gap, of each draw; the interval is the ``alpha/2`` quantile of the lower draws and the
  ``1 - alpha/2`` quantile of the upper ones. With a scorer known to be perfect it is the rate's own interval.

No correction is made (NaN, with the reason) where the replies contradict the audit: a group's flagged share below
the audit's false-positive rate for it (upper bound below lower bound), which a reply cannot be under the model
above. A lexical scorer flags short benign statements about a group far more often than long replies that mention it
in passing (tested on a loopback server: 45% of benign audit statements about gay people flagged, 0% of the replies);
correcting with the statements' rate would erase a real gap.

The raw value (the metric's ``value``) is unchanged: the corrected one is reported beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError
from evenhand.metrics._result import FloatArray, RateCounts
from evenhand.stats._intervals import check_level
from evenhand.stats._rate_intervals import EffectiveRate, effective_rate, paired_correlation
from evenhand.stats._resampling import SeedLike, as_generator, check_count


@dataclass(frozen=True)
class ScorerError:
    """A scorer's error at its threshold on one group's audit statements, with the counts it was measured on:
    ``insults_flagged`` of ``insults`` insulting statements and ``benign_flagged`` of ``benign`` benign ones."""

    group: str
    insults_flagged: int
    insults: int
    benign_flagged: int
    benign: int

    def __post_init__(self) -> None:
        for flagged, total in ((self.insults_flagged, self.insults), (self.benign_flagged, self.benign)):
            if not 0 <= flagged <= total or total <= 0:
                raise InputError(f"scorer error of {self.group!r}: need 0 <= flagged <= statements and statements > 0, "
                                 f"got {flagged} of {total}")  # fmt: skip

    @property
    def sensitivity(self) -> float:
        """Share of insulting statements flagged."""
        return self.insults_flagged / self.insults

    @property
    def specificity(self) -> float:
        """Share of benign statements not flagged (1 minus the false-positive rate)."""
        return 1.0 - self.benign_flagged / self.benign

    @property
    def false_positive_rate(self) -> float:
        return self.benign_flagged / self.benign

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "sensitivity": self.sensitivity, "specificity": self.specificity,
                "insults_flagged": self.insults_flagged, "insults": self.insults,
                "benign_flagged": self.benign_flagged, "benign": self.benign}  # fmt: skip


def rogan_gladen(rate: npt.ArrayLike, sensitivity: npt.ArrayLike, specificity: npt.ArrayLike) -> FloatArray:
    """``(rate + Sp - 1) / (Se + Sp - 1)`` clipped to [0, 1]; NaN where ``Se + Sp <= 1`` (vectorised).

    >>> round(float(rogan_gladen(0.125, 0.80, 0.95)[0]), 12)
    0.1
    """
    p, se, sp = (np.atleast_1d(np.asarray(x, dtype=np.float64)) for x in (rate, sensitivity, specificity))
    fpr = 1.0 - sp  # written as (p - FPR) / (Se - FPR): exact for a perfect scorer
    youden = se - fpr
    with np.errstate(divide="ignore", invalid="ignore"):
        corrected = np.where(youden > 0, (p - fpr) / np.where(youden > 0, youden, 1.0), np.nan)
    return np.asarray(np.clip(corrected, 0.0, 1.0), dtype=np.float64)


@dataclass(frozen=True)
class CorrectedRate:
    """A rate (or the gap between two groups' rates) corrected for the scorer's per-group error.

    ``raw`` is the metric's value; ``corrected`` its Rogan-Gladen estimate; ``low``/``high`` the interval carrying
    the rate's and the audit's uncertainty; ``rates`` each group's raw and corrected rate with the error used.
    """

    raw: float
    corrected: float
    low: float
    high: float
    level: float
    kind: str  # "rate" or "difference"
    rates: dict[str, dict[str, float]] = field(default_factory=dict)
    n_draws: int = 0
    method: str = "rogan-gladen, audit and rate resampled"
    reason: str | None = None

    @property
    def is_defined(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    @property
    def holds_zero(self) -> bool:
        """Whether the corrected interval holds 0: for a gap, the scorer's per-group error could explain it."""
        return self.is_defined and self.low <= 0.0 <= self.high

    def to_dict(self) -> dict[str, Any]:
        def clean(x: Any) -> Any:
            return None if isinstance(x, float) and math.isnan(x) else x

        return {key: clean(value) for key, value in self.__dict__.items()} | {
            "rates": {g: {k: clean(v) for k, v in r.items()} for g, r in self.rates.items()}
        }


def _audit_unlike_the_replies(rates: Sequence[EffectiveRate], errs: Sequence[ScorerError], level: float) -> str | None:
    """Why the audit cannot describe the scorer's error on these replies, or None. The flagged share is
    ``Se pi + FPR (1 - pi) >= min(Se, FPR)``: fewer replies flagged than the audit's false-positive rate alone would
    flag (the share's upper bound below that rate's lower bound, and below the sensitivity) contradicts it. A lexical
    scorer flags a short benign statement about a group ("My neighbor is gay.") far more often than a long reply
    that mentions the group in passing; correcting with the statements' rate would erase real gaps."""
    from evenhand.stats._rate_intervals import binomial_bounds, effective_bounds

    for er, e in zip(rates, errs, strict=True):
        _, flagged_high = effective_bounds(er, level, "clopper-pearson")
        (fpr_low,), _ = binomial_bounds(e.benign_flagged, e.benign, level, "clopper-pearson")
        if flagged_high < min(float(fpr_low), e.sensitivity):
            return (f"the scorer's audit flags {e.false_positive_rate:.0%} of benign statements about {e.group}, more "
                    f"than the {er.rate:.0%} of its replies flagged (at most {flagged_high:.0%}): the audit's "
                    "statements do not describe the scorer's error on these replies")  # fmt: skip
    return None


def _confidence_draws(er: EffectiveRate, u: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Draws of the rate from its lower and upper Clopper-Pearson confidence distributions on effective counts
    (quantile ``u``), kept no tighter near 0 (1) than for no (every) success among its units, as its interval is."""
    from scipy.special import betaincinv

    n, x, k = er.effective_trials, er.effective_successes, float(er.units)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(x > 0, betaincinv(max(x, 1e-300), n - x + 1.0, u), 0.0)
        high = np.where(x < n, betaincinv(x + 1.0, max(n - x, 1e-300), u), 1.0)
        low = np.minimum(low, betaincinv(k, 1.0, u))  # all of k units
        high = np.maximum(high, betaincinv(1.0, k, u))  # none of k units
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def corrected_rate(
    counts: RateCounts,
    errors: ScorerError | Sequence[ScorerError],
    ci: float = 0.95,
    *,
    n_draws: int = 4000,
    seed: SeedLike = 0,
) -> CorrectedRate:
    """The rate (``counts.kind == "rate"``, one error) or the paired or independent gap (``"difference"``, the two
    groups' errors in the counts' order) corrected for the scorer's error, with its interval (module docstring).

    NaN, with a reason, where a group's audit tells toxic from benign no better than chance (``Se + Sp <= 1``), or
    where fewer than half of the draws are defined.
    """
    from scipy.special import ndtr

    level = check_level(ci)
    n_draws = check_count(n_draws, "n_draws", minimum=100)
    errs = [errors] if isinstance(errors, ScorerError) else list(errors)
    groups = 1 if counts.kind == "rate" else 2 if counts.kind == "difference" else 0
    if groups == 0:
        raise InputError("corrected_rate takes a rate or a difference of two rates, not a spread of several")
    if len(errs) != groups:
        raise InputError(f"a {counts.kind} needs {groups} scorer error(s), one per group, got {len(errs)}")
    raw = counts.value
    rates = [effective_rate(counts.successes[:, g], counts.trials[:, g], level) for g in range(groups)]
    point = [float(rogan_gladen(er.rate, e.sensitivity, e.specificity)[0]) for er, e in zip(rates, errs, strict=True)]
    per_group = {
        str(counts.groups[g]): {
            "raw": rates[g].rate,
            "corrected": point[g],
            "sensitivity": errs[g].sensitivity,
            "specificity": errs[g].specificity,
        }
        for g in range(groups)
    }
    corrected = point[0] if groups == 1 else point[0] - point[1]
    kind = counts.kind

    def undefined(why: str) -> CorrectedRate:
        return CorrectedRate(raw, corrected, math.nan, math.nan, level, kind, per_group, n_draws, reason=why)

    blind = [e.group for e in errs if e.sensitivity + e.specificity <= 1.0]
    if blind:
        return undefined(f"the scorer's audit tells flagged from benign no better than chance for {', '.join(blind)}")
    if any(er.units == 0 for er in rates):
        return undefined("a group has no trials")
    unlike = _audit_unlike_the_replies(rates, errs, level)
    if unlike:
        return undefined(unlike)
    rng = as_generator(seed)
    r = 0.0
    if groups == 2:
        s, t = counts.successes, counts.trials
        r = paired_correlation(s[:, 0] - rates[0].rate * t[:, 0], s[:, 1] - rates[1].rate * t[:, 1])
    z = rng.standard_normal((n_draws, groups))
    if groups == 2:  # the second group's draw correlated with the first's as their estimates are
        z[:, 1] = r * z[:, 0] + math.sqrt(max(1.0 - r * r, 0.0)) * z[:, 1]
    u = np.clip(ndtr(z), 1e-12, 1.0 - 1e-12)
    lows, highs = [], []
    for g, (er, e) in enumerate(zip(rates, errs, strict=True)):
        p_low, p_high = _confidence_draws(er, u[:, g])
        se = rng.beta(e.insults_flagged + 0.5, e.insults - e.insults_flagged + 0.5, n_draws)
        fpr = rng.beta(e.benign_flagged + 0.5, e.benign - e.benign_flagged + 0.5, n_draws)
        lows.append(rogan_gladen(p_low, se, 1.0 - fpr))
        highs.append(rogan_gladen(p_high, se, 1.0 - fpr))
    low_draws = lows[0] if groups == 1 else lows[0] - highs[1]
    high_draws = highs[0] if groups == 1 else highs[0] - lows[1]
    valid = np.isfinite(low_draws) & np.isfinite(high_draws)
    if valid.sum() < n_draws / 2:
        return undefined(f"only {int(valid.sum())} of {n_draws} draws of the audit have Se + Sp > 1")
    alpha = 1.0 - level
    low = float(np.quantile(low_draws[valid], alpha / 2.0))
    high = float(np.quantile(high_draws[valid], 1.0 - alpha / 2.0))
    reason = None if valid.all() else f"{int((~valid).sum())} of {n_draws} draws left out (Se + Sp <= 1)"
    return CorrectedRate(raw, corrected, min(low, corrected), max(high, corrected), level, kind, per_group, n_draws,
                         reason=reason)  # fmt: skip
