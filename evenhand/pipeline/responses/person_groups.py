"""The person's group columns of a response frame (``classification.group_columns``): the one step an own responses
table (``sources.OwnTable``) and the classification family (``families/classification.py``) share, kept below both
so the source needs nothing of the family."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from evenhand.pipeline.responses.tables import column


def person_group_column(attribute: str) -> str:
    """The response frame's column holding the person's group of ``attribute`` (``classification.group_columns``)."""
    return f"person_group_{attribute}"


def attach_group_columns(
    frame: pd.DataFrame, table: pd.DataFrame, group_columns: Mapping[str, str] | None, *, source: str
) -> pd.DataFrame:
    """``frame`` (the response frame read from ``table``, row for row) with the person's group of each attribute
    named in ``group_columns`` (``{attribute: column of table}``) as :func:`person_group_column`."""
    if not group_columns:
        return frame
    frame = frame.copy()
    for attribute, name in group_columns.items():
        values = column(
            table, name, source=source, role=f"each person's {attribute} group",
            named_by=f"classification.group_columns.{attribute} or evenhand metrics --group-columns",
        )  # fmt: skip
        frame[person_group_column(attribute)] = pd.Series(values, index=frame.index, dtype=object)
    return frame
