"""Stereotype scorers that return a table of category scores: the shared base and its one-category view.

A backend returns one column per stereotype category and, last, P(stereotype of any category). Both the Hugging Face
classifier (:mod:`evenhand.scorers.stereotype`) and the experimental MiniLM scorer
(:mod:`evenhand.scorers.stereotype_minilm`) build on :class:`CategoryTableScorer`; it lives apart from both so that
neither imports the other's module to get it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._validation import FloatArray
from evenhand.errors import InputError
from evenhand.scorers._base import Scorer

#: The experimental offline scorer (MiniLM fine-tuned on StereoSet, built on first use): opt-in, never the default.
MINILM_SPEC = "evenhand-minilm-stereoset"
CATEGORIES = ("gender", "race", "religion", "profession")

__all__ = ["CATEGORIES", "MINILM_SPEC", "CategoryTableScorer"]


class CategoryTableScorer(Scorer):
    """A stereotype classifier whose backend returns one column per category and, last, P(stereotype of any
    category): ``scorer(texts)`` is the last column, :meth:`category` one column (sharing the model and its cache).
    Subclasses set ``categories`` and implement ``_run``."""

    categories: Sequence[str]

    def _finish(self, values: FloatArray) -> FloatArray:
        """``scorer(texts)``: P(stereotype of any category) per text, the last column of the table."""
        return values[:, -1] if values.ndim == 2 else values

    def score_categories(self, texts: Any) -> dict[str, FloatArray]:
        """``{category: scores}``, one float64 array in [0, 1] per category."""
        table = self._compute(texts)
        if table.ndim == 1:  # empty input
            return {c: np.empty(0, dtype=np.float64) for c in self.categories}
        return {c: table[:, j] for j, c in enumerate(self.categories)}

    def category(self, name: str) -> Scorer:
        """A scorer for one category, sharing this model (and its cache)."""
        key = name.lower()
        if key not in self.categories:
            raise InputError(f"unknown stereotype category {name!r}; this scorer has {list(self.categories)}")
        return _CategoryScorer(self, key)


class _CategoryScorer(Scorer):
    """One column of a :class:`CategoryTableScorer` (the parent de-duplicates and caches)."""

    description = "Stereotype"

    def __init__(self, parent: CategoryTableScorer, category: str) -> None:
        super().__init__(batch_size=max(parent.batch_size, 1024))
        self.parent = parent
        self.name = category
        self.notice = getattr(parent, "notice", None)  # an experimental parent's notice reaches the report

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        return self.parent.score_categories(texts)[self.name]

    def __repr__(self) -> str:
        return f"{self.parent!r}.category({self.name!r})"
