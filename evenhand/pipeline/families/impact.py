"""The NYC Local Law 144 impact-ratio table of a run (results.json ``impact_ratios``; docs/regulation.md), from the
response frame: who the individuals are, their categories and their outcomes.

The sex and race/ethnicity categories are the groups of two attributes (``impact_ratios.sex_attribute`` and
``race_attribute``: gender and race by default). The individuals are the persons of person-level data (the original
prompts' rows, with the ``group_<attribute>`` columns classification attaches), else the counterfactual
versions: each reply to a version counts once, in its version's group (a gender version has a sex and no known
race/ethnicity; an intersection's version, "female+black", both). The outcome is the family's: a decision (1 when
selected) or a number (scores: the scoring rate).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evenhand.config import ImpactRatiosConfig
from evenhand.framework import Plan
from evenhand.metrics.impact_ratio import ImpactRatioTable, impact_ratio_table

SEX, RACE = "sex", "race/ethnicity"


def wanted(plan: Plan, config: ImpactRatiosConfig, *, by_default: bool) -> bool:
    """Whether the run makes the table: asked for (``table: true``), or by default (``null``) for the tasks that
    make it unasked, and only when the use case checks the sex or the race attribute."""
    if config.table is False or (config.table is None and not by_default):
        return False
    return bool({config.sex_attribute, config.race_attribute} & set(plan.use_case.attribute_specs))


def _categories(frame: pd.DataFrame, config: ImpactRatiosConfig) -> tuple[pd.Series, dict[str, pd.Series]]:
    """The rows that are the individuals, and their sex and race/ethnicity categories (None: unknown)."""
    sex_attr, race_attr = config.sex_attribute, config.race_attribute
    own = [f"group_{a}" for a in (sex_attr, race_attr)]  # the person's group, as classification attaches it
    if any(c in frame for c in own):  # person-level data: the persons (the original prompts' rows)
        rows = frame["group"].isna()
        return rows, {
            name: frame.loc[rows, column] if column in frame else pd.Series(None, index=frame.index[rows], dtype=object)
            for name, column in zip((SEX, RACE), own, strict=True)
        }
    rows = frame["group"].notna()
    versions = frame.loc[rows, ["attribute", "group"]].astype(str)
    joined = f"{sex_attr}+{race_attr}"
    sex = versions["group"].where(versions["attribute"] == sex_attr)
    race = versions["group"].where(versions["attribute"] == race_attr)
    both = versions["attribute"] == joined  # an intersection's version: "female+black"
    if both.any():
        parts = versions.loc[both, "group"].str.split("+", n=1, expand=True)
        sex[both], race[both] = parts[0], parts[1]
    return rows, {SEX: sex, RACE: race}


def impact_ratios(
    frame: pd.DataFrame, config: ImpactRatiosConfig, *, scores: str | None = None, selected: Any = None
) -> ImpactRatioTable | None:
    """The table of the run's individuals (see the module docstring): ``scores`` names the frame's column of numbers
    (a tool that scores), ``selected`` is one value per frame row (1 selected, 0 not, NaN no outcome). None when no
    individual has a known category."""
    rows, categories = _categories(frame, config)
    if not any(c.notna().any() for c in categories.values()):
        return None
    outcome = frame.loc[rows, scores] if scores is not None else pd.Series(selected, index=frame.index)[rows]
    answered = (frame.loc[rows, "status"] == "ok").to_numpy()
    values = np.where(answered, outcome.to_numpy(dtype=float), np.nan)  # a request without a reply has no outcome
    if scores is not None:
        return impact_ratio_table(categories, scores=values, min_share=config.min_share)
    return impact_ratio_table(categories, selected=values, min_share=config.min_share)
