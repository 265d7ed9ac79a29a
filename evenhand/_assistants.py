"""The one door from a core module to an LLM assistant built from a client spec, which lives in the generation layer.

A second reader of identity cues (``check_ftu(prompts, reader=client)``) or a judge of paired replies runs an LLM,
and the text core may not import the generation layer that runs one. So the facade (``evenhand/__init__.py``)
registers which function turns a client spec into each kind of assistant, named as a ``"module:function"`` string,
and the core asks here. This module imports nothing of evenhand.
"""

from __future__ import annotations

import importlib
from typing import Any

#: kind of assistant -> ``"module:function"`` that builds one from a client spec (registered by the facade).
_BUILDERS: dict[str, str] = {}

#: A reader of identity cues (:class:`evenhand.text.cues.CueReader`).
CUE_READER = "cue_reader"


def register(kind: str, target: str) -> None:
    """Build ``kind`` with ``target``, a ``"package.module:function"`` imported when first needed."""
    if ":" not in target:
        raise ValueError(f"an assistant builder is named 'module:function', not {target!r}")
    _BUILDERS[kind] = target


def build(kind: str, spec: Any) -> Any:
    """The assistant of ``kind`` for a client ``spec`` (anything ``evenhand.generation.get_client`` takes)."""
    target = _BUILDERS.get(kind)
    if target is None:
        raise RuntimeError(f"no {kind.replace('_', ' ')} builder is registered: import evenhand (its __init__ does)")
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)(spec)
