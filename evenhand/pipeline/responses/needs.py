"""What responses the families of a run need (:class:`Needs`): the one word between the families, which declare it,
and the response sources, which collect it; kept below both so a source needs nothing of the families."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Needs:
    """The responses a family needs: to the original prompts, and to the counterfactual prompts of attributes.

    ``versions``: counterfactual versions written elsewhere (a reader's, of the prompts only it flags;
    :meth:`evenhand.framework.Plan.reader_versions`), per attribute, generated beside the lexicon's."""

    originals: bool = False
    counterfactual: tuple[str, ...] = ()
    versions: Mapping[str, Any] = field(default_factory=dict)

    @staticmethod
    def merge(needs: Iterable[Needs]) -> Needs:
        items = list(needs)
        attributes = dict.fromkeys(a for n in items for a in n.counterfactual)
        return Needs(any(n.originals for n in items), tuple(attributes))

    def with_versions(self, versions: Mapping[str, Any]) -> Needs:
        """These needs with the versions of the attributes whose counterfactual responses are needed."""
        chosen = {a: v for a, v in versions.items() if a in self.counterfactual}
        return replace(self, versions=chosen) if chosen else self
