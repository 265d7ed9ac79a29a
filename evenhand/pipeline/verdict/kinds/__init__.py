"""The kinds of evidence, one module each, found through the registry: :func:`kind_of` binds the object that
:data:`evenhand.registry.EVIDENCE_KINDS` names for a metric's :attr:`~evenhand.registry.MetricSpec.judge` (lazily,
so the red team's kind lives in :mod:`evenhand.redteaming` and nothing here imports it).

No code outside a kind's module branches on a metric's key or kind: the verdict, the examples, the interval rule and
``compare`` ask the kind (:class:`~evenhand.pipeline.verdict.kinds.base.EvidenceKind`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache

from evenhand.pipeline.verdict.kinds.base import EvidenceKind
from evenhand.registry import EVIDENCE_KINDS, EvidenceKindName, MetricSpec, bind


@cache
def _bound(name: EvidenceKindName) -> EvidenceKind:
    kind = bind(EVIDENCE_KINDS[name])
    if not isinstance(kind, EvidenceKind) or kind.name != name:
        raise TypeError(f"{EVIDENCE_KINDS[name]} is not the evidence kind {name!r}")
    return kind


def kind_of(spec: MetricSpec) -> EvidenceKind:
    """The kind of evidence of a metric (:attr:`MetricSpec.judge`), bound on first use."""
    return _bound(spec.judge)


class _Kinds(Mapping[EvidenceKindName, EvidenceKind]):
    """Every kind by its name, in the registry's order, each bound on first look-up."""

    def __getitem__(self, name: EvidenceKindName) -> EvidenceKind:
        if name not in EVIDENCE_KINDS:
            raise KeyError(name)
        return _bound(name)

    def __iter__(self) -> Iterator[EvidenceKindName]:
        return iter(EVIDENCE_KINDS)

    def __len__(self) -> int:
        return len(EVIDENCE_KINDS)


KINDS: Mapping[EvidenceKindName, EvidenceKind] = _Kinds()

__all__ = ["KINDS", "EvidenceKind", "kind_of"]
