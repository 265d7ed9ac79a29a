"""The impact-ratio table of a bias audit under New York City's Local Law 144 of 2021 and the rules of its Department
of Consumer and Worker Protection (DCWP, 6 RCNY 5-300 and 5-301), for a tool that selects or classifies candidates
(classification) or scores them (estimation).

For each category of sex, of race/ethnicity and of their intersection (or any dimensions given):

* **selection rate**: the share of the category's individuals selected (moved forward, or given the classification);
  for a tool that scores, the **scoring rate**: the share of the category's individuals whose score is above the
  median score of the full sample;
* **impact ratio**: the category's rate divided by the rate of the category with the highest rate;
* the counts behind them, and each category's share of the data. The rules let an independent auditor leave a
  category under 2% of the data out of the impact-ratio calculations; such a category keeps its count and its rate
  in the table, with ``excluded`` set, and is not the reference of the other ratios;
* the number of individuals whose category is unknown, per dimension (left out of that dimension's rows).

:func:`impact_ratio_table` computes the numbers. It is not a bias audit: see :data:`AUDIT_CAVEAT`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from evenhand._validation import as_float_array
from evenhand.errors import InputError

Kind = Literal["selection", "scoring"]

#: What a reader of the table must know: the numbers are what a bias audit reports, not the audit.
AUDIT_CAVEAT = (
    "This table computes the numbers a bias audit under NYC Local Law 144 reports (selection or scoring rates and "
    "impact ratios per sex, race/ethnicity and intersectional category); it is not a bias audit. The law requires "
    "the audit to be done by an independent auditor, on the tool's historical data from its use (test data only "
    "where historical data are insufficient, with an explanation in the published summary). Replies to constructed "
    "prompts are test data, and the groups here are the groups the prompts signal (words, names), not the "
    "self-reported categories of real candidates."
)

#: The rules' threshold for leaving a small category out of the impact-ratio calculations (6 RCNY 5-301).
SMALL_CATEGORY_SHARE = 0.02

_COLUMNS = ["dimension", "category", "individuals", "favourable", "rate", "impact_ratio", "share_of_data", "excluded"]


@dataclass(frozen=True)
class ImpactRatioTable:
    """The table of :func:`impact_ratio_table`.

    Attributes:
        frame: one row per (dimension, category): ``individuals`` (with an outcome and a known category),
            ``favourable`` (selected, or scoring above the median), ``rate``, ``impact_ratio`` (NaN for an excluded
            category, or when no included category has a favourable outcome), ``share_of_data`` (of the
            dimension's individuals with a known category) and ``excluded`` (under ``min_share``).
        kind: ``"selection"`` or ``"scoring"``.
        median: the full sample's median score (scoring; NaN for selection).
        assessed: individuals with an outcome (a decision or a score).
        no_outcome: individuals without one (an answer that parsed into no decision or no number), left out.
        unknown: per dimension, the individuals with an outcome whose category is unknown (left out of its rows).
        min_share: the share under which a category was excluded (0: none is).
        highest: per dimension, the category with the highest rate among the included ones (the ratios' reference).
    """

    frame: pd.DataFrame
    kind: Kind
    median: float
    assessed: int
    no_outcome: int
    unknown: Mapping[str, int]
    min_share: float
    highest: Mapping[str, str | None] = field(default_factory=dict)

    @property
    def rate_name(self) -> str:
        return "selection rate" if self.kind == "selection" else "scoring rate"

    @property
    def excluded(self) -> pd.DataFrame:
        """The categories left out of the impact ratios, with their counts and rates."""
        return self.frame[self.frame["excluded"]]

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN -> None)."""
        rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                for row in self.frame.to_dict(orient="records")]  # fmt: skip
        return {
            "kind": self.kind,
            "rate": self.rate_name,
            "median": None if math.isnan(self.median) else self.median,
            "assessed": self.assessed,
            "no_outcome": self.no_outcome,
            "unknown": dict(self.unknown),
            "min_share": self.min_share,
            "highest": dict(self.highest),
            "rows": rows,
            "caveat": AUDIT_CAVEAT,
        }


def _categories(values: Any, name: str, n: int) -> pd.Series:
    """Category labels as text; None, NaN and blank are unknown (NaN)."""
    column = pd.Series(list(values.tolist() if hasattr(values, "tolist") else values), dtype=object)
    if len(column) != n:
        raise InputError(f"categories[{name!r}] has {len(column)} labels for {n} individuals; give one per individual")
    text = column.astype(str).str.strip()
    return text.where(column.notna() & (text != ""))


def _outcomes(selected: Any, scores: Any) -> tuple[Kind, np.ndarray[Any, np.dtype[np.float64]], float]:
    """1.0 / 0.0 per individual (NaN: no outcome), the kind, and the median score (scoring)."""
    if (selected is None) == (scores is None):
        raise InputError("give selected= (a tool that selects or classifies) or scores= (a tool that scores), not both")
    if selected is not None:
        chosen = as_float_array(selected, "selected", allow_empty=True, allow_nan=True, bounds=(0.0, 1.0))
        present = chosen[~np.isnan(chosen)]
        if not np.isin(present, (0.0, 1.0)).all():
            raise InputError("selected: 1 (or True) where the individual was selected, 0 where not, NaN for no outcome")
        return "selection", chosen, math.nan
    values = as_float_array(scores, "scores", allow_empty=True, allow_nan=True)
    scored = ~np.isnan(values)
    median = float(np.median(values[scored])) if scored.any() else math.nan
    # the scoring rate counts scores above the median of the full sample (6 RCNY 5-300, "scoring rate")
    return "scoring", np.where(scored, (values > median).astype(np.float64), np.nan), median


def impact_ratio_table(
    categories: Mapping[str, Any],
    *,
    selected: Any = None,
    scores: Any = None,
    intersection: bool = True,
    min_share: float = SMALL_CATEGORY_SHARE,
) -> ImpactRatioTable:
    """Selection (or scoring) rates and impact ratios per category, per NYC Local Law 144 and the DCWP rules.

    Args:
        categories: dimension name -> each individual's category, e.g. ``{"sex": sexes, "race/ethnicity": races}``
            (lists, arrays or Series; None, NaN or blank: unknown).
        selected: 1 (or True) where the individual was selected or given the classification, 0 where not, NaN for
            no outcome (a tool that selects). Rate: ``selected / individuals`` per category.
        scores: each individual's score (NaN: none; a tool that scores). Rate: the share of the category scoring
            strictly above the median of every score given.
        intersection: also the intersectional categories of all the dimensions given ("female+black"), when two or
            more are given; an individual with any part unknown is unknown there.
        min_share: a category with less than this share of its dimension's individuals (with a known category and
            an outcome) is excluded from the impact ratios, its counts and rate kept (0: exclude none).

    Returns:
        :class:`ImpactRatioTable`. ``impact_ratio = rate / highest rate`` among the included categories of the
        dimension, in [0, 1]; NaN (for every row) when that highest rate is 0.

    >>> t = impact_ratio_table({"sex": ["f", "f", "m", "m"]}, selected=[1, 0, 1, 1], min_share=0)
    >>> t.frame[["category", "rate", "impact_ratio"]].values.tolist()
    [['f', 0.5, 0.5], ['m', 1.0, 1.0]]
    """
    if not isinstance(categories, Mapping) or not categories:
        raise InputError("categories: give a mapping of dimension name to each individual's category, e.g. "
                         "{'sex': [...], 'race/ethnicity': [...]}")  # fmt: skip
    if not 0.0 <= float(min_share) < 1.0:
        raise InputError(f"min_share must lie in [0, 1), got {min_share!r}")
    kind, outcome, median = _outcomes(selected, scores)
    n = outcome.size
    columns = {str(name): _categories(values, str(name), n) for name, values in categories.items()}
    if intersection and len(columns) >= 2:
        first, *others = columns.values()
        columns["+".join(columns)] = first.str.cat(pd.concat(others, axis=1), sep="+")  # unknown where any part is
    has_outcome = ~np.isnan(outcome)
    rows, unknown, highest = [], {}, {}
    for dimension, labels in columns.items():
        known = has_outcome & labels.notna().to_numpy()
        unknown[dimension] = int((has_outcome & ~known).sum())
        codes, found = pd.factorize(labels[known], sort=True)  # hashing: several times faster than a sort of texts
        names = np.asarray(found, dtype=object)
        size = np.bincount(codes, minlength=names.size).astype(np.float64)
        favourable = np.bincount(codes, weights=outcome[known], minlength=names.size)
        total = size.sum()
        share = size / total if total else size
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = favourable / size
        excluded = share < float(min_share)
        top = float(rate[~excluded].max()) if (~excluded).any() else math.nan
        highest[dimension] = str(names[~excluded][np.argmax(rate[~excluded])]) if top > 0 else None
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(~excluded & (top > 0), rate / top, np.nan)
        rows += [[dimension, str(names[k]), int(size[k]), int(favourable[k]), float(rate[k]), float(ratio[k]),
                  float(share[k]), bool(excluded[k])] for k in range(names.size)]  # fmt: skip
    table = pd.DataFrame(rows, columns=_COLUMNS)
    return ImpactRatioTable(
        frame=table,
        kind=kind,
        median=median,
        assessed=int(has_outcome.sum()),
        no_outcome=int((~has_outcome).sum()),
        unknown=unknown,
        min_share=float(min_share),
        highest=highest,
    )

