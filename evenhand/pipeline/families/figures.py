"""What a family summarises of the response frame for results.json and the report's figures, declared as data.

A family lists the score columns it adds to the response frame that the figures show: :class:`GroupMean` (the mean
per counterfactual group, results.json ``groups``, and a bar chart of it per attribute), :class:`Histogram`
(results.json ``distributions``, one histogram per score) and :class:`PairScatter` (results.json ``pairs``, a scatter
of the two groups' scores of each counterfactual pair). The assessment and the report walk these declarations; neither
names a family or a score column.

``order`` places a declaration among every family's declarations of its kind: it fixes the order of the keys in each
``groups`` entry and of the ``distributions`` entries, which is not the families' order (results.json's form does
not change when a family moves).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GroupMean:
    """The mean of a response-frame column per counterfactual group (results.json ``groups``: ``mean_<column>``).

    ``of_lengths``: the mean length of the column's list cells (item lists) rather than of its values. ``chart``:
    (title, caption) of the report's bar chart of the means, one per attribute, or None for no chart; both may name
    ``{attribute}``, ``{scale}`` (the setting ``scale_setting`` of results.json ``settings``: how the scores read),
    ``{direction}`` (which way the bars point, from that scale) and ``{axis_note}`` (where the zoomed axis ends).
    """

    column: str
    order: int
    of_lengths: bool = False
    chart: tuple[str, str] | None = None
    scale_setting: str | None = None

    @property
    def key(self) -> str:
        """Its key in a results.json ``groups`` entry."""
        return f"mean_{self.column}"


@dataclass(frozen=True)
class Histogram:
    """A histogram over [0, 1] of a response-frame score column, for the original prompts and each counterfactual
    group (results.json ``distributions``); with ``prefix``, of every column whose name starts with ``column``, in
    the frame's order (a family that scores each attribute into its own column)."""

    column: str
    order: int
    prefix: bool = False

    def columns(self, names: Iterable[Any]) -> list[str]:
        """The columns among ``names`` (the response frame's) that this histogram covers."""
        names = list(names)
        if self.prefix:
            return [str(c) for c in names if str(c).startswith(self.column)]
        return [self.column] if self.column in names else []


@dataclass(frozen=True)
class PairScatter:
    """A scatter of the counterfactual pairs' ``<column>_a`` and ``<column>_b`` scores (results.json ``pairs``: the
    first pair of groups of each attribute). ``title`` may name ``{attribute}``; ``xlabel`` and ``ylabel``
    ``{group_a}`` and ``{group_b}``. results.json's ``pairs`` entries carry no column, so one family at most declares
    a scatter."""

    column: str
    title: str
    xlabel: str
    ylabel: str
    caption: str
