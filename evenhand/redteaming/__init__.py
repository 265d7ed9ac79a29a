"""Red-teaming a use case (issue 29; docs/redteam.md): the use case's prompts and their counterfactual versions
under its benign system prompt and under adversarial ones (built-in, in ``evenhand/data/redteam``, and the user's
own), each condition assessed as ``evenhand assess`` does, and each adversarial condition compared with the benign
one, prompt by prompt and slot by slot; and, on request, model-level template probes (``probes``).

One module per job: the conditions (``conditions``), running them (``running``), the replies' missing scores
(``replies``), the request slot the comparison pairs on (``slots``), the paired comparison (``shifts``, and
``decision_shifts`` for a classification use case), the result and its document (``result``), the entry points
(``api``) and the template probes (``probe_data``, ``probe_stats``, ``probes``). A layer of its own between the
pipeline and the presentation (docs/architecture.md). The public entry point is ``evenhand.redteam(config)``
(:func:`~evenhand.redteaming.api.redteam`); the package is named ``redteaming`` so that this name stays a function.
Its kind of evidence, the adversarial shift (``adversarial_shift``), is the verdict's (named lazily by the
registry), so the package loads its entry points lazily: finding that kind imports nothing else of the red team.
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy

_LAZY: dict[str, str] = {
    "Condition": "evenhand.redteaming.conditions",
    "RedTeam": "evenhand.redteaming.result",
    "redteam": "evenhand.redteaming.api",
    "redteam_config": "evenhand.redteaming.api",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
