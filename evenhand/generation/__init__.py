"""Response generation: many samples per prompt from any chat model, concurrent, rate-limited and resumable.

Light on import (no torch, no aiohttp until a client needs it): names load lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY: dict[str, str] = {
    "generate": "evenhand.generation.runner",
    "agenerate": "evenhand.generation.runner",
    "generate_counterfactual": "evenhand.generation.runner",
    "agenerate_counterfactual": "evenhand.generation.runner",
    "GenerationResult": "evenhand.generation.result",
    "SampleRecord": "evenhand.generation.result",
    "ResponseStore": "evenhand.generation.store",
    "DEFAULT_STORE": "evenhand.generation.store",
    "ChatClient": "evenhand.generation.clients.base",
    "OpenAIClient": "evenhand.generation.clients.openai",
    "LangChainClient": "evenhand.generation.clients.langchain",
    "LocalModelClient": "evenhand.generation.clients.local",
    "CallableClient": "evenhand.generation.clients.callable",
    "get_client": "evenhand.generation.clients.factory",
    "Completion": "evenhand.generation._types",
    "SamplingParams": "evenhand.generation._types",
    "GenerationError": "evenhand.generation._types",
    "RetryableError": "evenhand.generation._types",
    "ContentFilteredError": "evenhand.generation._types",
    "ServerUnreachableError": "evenhand.generation._types",
    "RateLimits": "evenhand.generation.limits",
    "RetryPolicy": "evenhand.generation.limits",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'evenhand.generation' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
