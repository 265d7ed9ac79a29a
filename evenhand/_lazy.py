"""Lazy public names for package ``__init__`` modules (PEP 562), so imports stay light (no torch, no models)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, MutableMapping
from typing import Any


def load_lazy(package: str, names: Mapping[str, str], namespace: MutableMapping[str, Any], name: str) -> Any:
    """Import ``name`` from the module ``names[name]`` (or that module itself when it is ``package.name``)."""
    module_name = names.get(name)
    if module_name is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if module_name == f"{package}.{name}" else getattr(module, name)
    namespace[name] = value  # cache: later look-ups skip __getattr__
    return value
