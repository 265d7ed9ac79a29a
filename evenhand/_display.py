"""The one door from a core object to its rendering, which lives in the presentation layer.

Core objects (``MetricResult``, ``Plan``, ``Verdict``, ``Assessment``) expose their data as documents
(``to_dict()``) and never render them. Jupyter still calls their ``_repr_html_``, and ``Assessment.to_html`` still
writes the report, so those delegate here: the facade (``evenhand/__init__.py``) registers which presentation
function renders each kind of output, named as a ``"module:function"`` string. This module imports nothing of
evenhand, so a core object that calls it depends on nothing above it.
"""

from __future__ import annotations

import importlib
from typing import Any

#: kind of output -> ``"module:function"`` that renders it (registered by the facade).
_RENDERERS: dict[str, str] = {}

#: The kind the notebook display asks for (``_repr_html_``).
NOTEBOOK = "notebook"
#: The kind ``Assessment.to_html`` asks for (the HTML report of a results document).
REPORT = "report"


def register(kind: str, target: str) -> None:
    """Render ``kind`` with ``target``, a ``"package.module:function"`` imported when first needed."""
    if ":" not in target:
        raise ValueError(f"a renderer is named 'module:function', not {target!r}")
    _RENDERERS[kind] = target


def renderer(kind: str) -> Any:
    """The function registered for ``kind``, or None when nothing is (a core module used without the facade)."""
    target = _RENDERERS.get(kind)
    if target is None:
        return None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def render_html(obj: Any) -> str | None:
    """The notebook HTML of ``obj``, or None (Jupyter then shows ``repr(obj)``) when no renderer is registered."""
    render = renderer(NOTEBOOK)
    if render is None:
        return None
    html: str | None = render(obj)
    return html


def report_html(doc: dict[str, Any]) -> str:
    """The self-contained HTML report of a results document (``to_dict()`` of an assessment or a red team), by the
    registered report renderer; raises when none is (a core module used without the facade)."""
    render = renderer(REPORT)
    if render is None:
        raise RuntimeError("no report renderer is registered: import evenhand (its __init__ registers it)")
    html: str = render(doc)
    return html
