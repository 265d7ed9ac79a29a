"""What responses the families of a run need (:class:`Needs`): the one word between the families, which declare it,
and the response sources, which collect it; kept below both so a source needs nothing of the families."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Needs:
    """The responses a family needs: to the original prompts, and to the counterfactual prompts of attributes."""

    originals: bool = False
    counterfactual: tuple[str, ...] = ()

    @staticmethod
    def merge(needs: Iterable[Needs]) -> Needs:
        items = list(needs)
        attributes = dict.fromkeys(a for n in items for a in n.counterfactual)
        return Needs(any(n.originals for n in items), tuple(attributes))
