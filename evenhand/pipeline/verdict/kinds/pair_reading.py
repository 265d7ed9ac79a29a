"""Which pairs of replies show a finding (issue 37): the typical one first, the most extreme second.

The most extreme pair is rarely what a finding is about: for a similarity concern it was a baseline refusal ("I'm
sorry, I can't help with that.") against a normal reply, while the replies differed, pair after pair, by the name
they echoed. A kind of evidence reads each counterfactual pair (:class:`PairReading`: how strongly it shows the
finding, and which pairs are of the finding's kind: in its direction, refused against answered, flipped); this module
picks

* **typical**: among the pairs of the finding's kind, the pair whose strength is nearest the median, over prompts, of
  each prompt's mean strength (the per-prompt differences that drive the finding: a prompt counts once, however many
  samples it has);
* **most extreme**: the strongest such pair (shown second, and only when it is another pair).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

TYPICAL = "typical"
EXTREME = "most extreme"


def _no_extras(_: int) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class PairReading:
    """How each counterfactual pair of a finding's two groups shows it (one entry per pair, in ``pairs`` order).

    ``shown``: the value an example reports (a signed gap ``a - b``, a similarity, ...); ``strength``: how strongly
    the pair shows the finding (larger: more; NaN: undefined); ``eligible``: the pairs of the finding's kind;
    ``measure``: what is read off a pair (``"sentiment gap"``); ``what``: how captions name an eligible pair
    (``"pairs whose female version is refused and whose male version is answered"``); ``extras``: the kind's own
    keys for a picked pair (scores, notes, items); ``ranked_by``: what the strength is, when not the measure
    (``"length ratio"``)."""

    kind: str
    measure: str
    shown: npt.NDArray[np.float64]
    strength: npt.NDArray[np.float64]
    eligible: npt.NDArray[np.bool_]
    what: str = "pairs"
    extras: Callable[[int], Mapping[str, Any]] = field(default=_no_extras)
    ranked_by: str | None = None  # what ``strength`` is, in a caption's words (default: the measure)

    @property
    def defined(self) -> npt.NDArray[np.bool_]:
        return np.isfinite(self.strength)


def typical_and_extreme(
    strength: npt.ArrayLike, eligible: npt.ArrayLike, prompts: npt.ArrayLike
) -> tuple[int, int, float] | None:
    """``(typical, extreme, median)``: the eligible pair nearest the median over prompts of the prompts' mean
    strength (ties: the first in order), the strongest eligible pair (ties: the first), and that median; None when
    no pair is eligible."""
    s = np.asarray(strength, dtype=np.float64)
    ok = np.asarray(eligible, dtype=bool) & np.isfinite(s)
    if not ok.any():
        return None
    chosen = np.flatnonzero(ok)
    per_prompt = pd.Series(s[chosen]).groupby(pd.factorize(np.asarray(prompts, dtype=object)[chosen])[0]).mean()
    median = float(np.median(per_prompt.to_numpy()))
    typical = int(chosen[np.argmin(np.abs(s[chosen] - median))])
    extreme = int(chosen[np.argmax(s[chosen])])
    return typical, extreme, median


def picked_pairs(reading: PairReading, prompts: npt.ArrayLike) -> list[tuple[str, int, str]]:
    """``[(label, index, caption), ...]``: the typical pair and, when it is another pair, the most extreme one."""
    found = typical_and_extreme(reading.strength, reading.eligible, prompts)
    if found is None:
        return []
    typical, extreme, median = found
    n = int(reading.defined.sum())
    k = int((reading.eligible & reading.defined).sum())
    among = f"the {n:,} pairs" if k == n and reading.what == "pairs" else f"the {k:,} {reading.what} of the {n:,} pairs"
    shown = _measure_median(reading, median)
    ranked = reading.ranked_by or reading.measure
    picks = [(TYPICAL, typical, f"a typical pair: its {ranked} is the nearest to the median over prompts{shown} "
                                f"among {among}")]  # fmt: skip
    if extreme != typical:
        picks.append((EXTREME, extreme, f"the most extreme of {among}"))
    return picks


def _measure_median(reading: PairReading, median: float) -> str:
    """`` (0.42)``: the median in the measure's own units, when strength is the shown value (or its negative)."""
    defined = reading.defined
    if not defined.any():
        return ""
    for sign in (1.0, -1.0):
        if np.allclose(sign * reading.shown[defined], reading.strength[defined], equal_nan=True):
            return f" ({sign * median:.3g})"
    return ""
