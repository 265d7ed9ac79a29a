"""Red-teaming a use case (issue 29; docs/redteam.md): the use case's prompts and their counterfactual versions
under its benign system prompt and under adversarial ones (built-in, in ``evenhand/data/redteam``, and the user's
own), each condition assessed as ``evenhand assess`` does, and each adversarial condition compared with the benign
one, prompt by prompt and slot by slot.

One module per job: the conditions (``conditions``), running them (``running``), the paired comparison
(``shifts``), the result and its document (``result``) and the entry points (``api``). A layer of its own between
the pipeline and the presentation (docs/architecture.md).

``evenhand.redteam(config)`` is the documented entry point. The package and the function share that name, and
Python binds a package to its parent's attribute as soon as any of its modules is imported, so the package itself
is callable (it calls :func:`~evenhand.redteam.api.redteam`): ``evenhand.redteam(...)`` works whichever of the two
the name is bound to.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from evenhand.redteam.api import redteam, redteam_config
from evenhand.redteam.conditions import Condition
from evenhand.redteam.result import RedTeam

__all__ = ["Condition", "RedTeam", "redteam", "redteam_config"]


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`redteam` (see the module docstring)."""

    def __call__(self, *args: Any, **kwargs: Any) -> RedTeam:
        return redteam(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
