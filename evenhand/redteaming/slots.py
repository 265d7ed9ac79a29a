"""The request slot a red team pairs on: what makes two replies the same request apart from the system prompt
(prompt, attribute, group or version, sample), and the join of a condition's requests with the benign ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

#: The columns of a request slot
SLOT = ["prompt_id", "attribute", "group", "sample"]
#: What a record's paired test swaps: per joined slot, the condition's side, the benign side, and the slot's prompt
Sides = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]


def join_keys(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (a copy) whose attribute and group join: originals have none, so they get a value that joins with
    itself."""
    rows = rows.copy()
    for column in ("attribute", "group"):
        rows[column] = rows[column].astype(object).where(rows[column].notna(), "")
    return rows


def answered(frame: pd.DataFrame) -> pd.Series:
    """Which requests got a reply (not an error, a content filter or an empty reply)."""
    return (frame["status"] == "ok") & frame["response"].notna()


def sent_under_both(
    benign: pd.DataFrame, condition: pd.DataFrame, side: Callable[[pd.DataFrame], pd.DataFrame]
) -> pd.DataFrame:
    """One row per request sent under both prompts, answered or not: the slot, then ``side(frame)``'s columns of
    each prompt (suffixed ``_b`` for the benign one, ``_c`` for the condition's), in slot order."""
    left, right = (join_keys(frame[SLOT]).join(side(frame)) for frame in (benign, condition))
    joined = left.merge(right, on=SLOT, suffixes=("_b", "_c"))
    return joined.sort_values(SLOT, kind="stable").reset_index(drop=True)
