"""Response generation: many samples per prompt from any chat model, concurrent, rate-limited and resumable.

Light on import (no torch, no aiohttp until a client needs it): names load lazily.
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy

_LAZY: dict[str, str] = {
    "generate": "evenhand.generation.api",
    "agenerate": "evenhand.generation.api",
    "generate_counterfactual": "evenhand.generation.api",
    "agenerate_counterfactual": "evenhand.generation.api",
    "GenerationSettings": "evenhand.generation.settings",
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
    "GenerationStoppedError": "evenhand.generation._types",
    "NoAnswerError": "evenhand.generation._types",
    "RateLimits": "evenhand.generation.limits",
    "RetryPolicy": "evenhand.generation.limits",
    "estimate_generation": "evenhand.generation.cost",
    "GenerationEstimate": "evenhand.generation.cost",
    "Prices": "evenhand.generation.cost",
    "LLMCueReader": "evenhand.generation.cue_reader",
    "LLMPairJudge": "evenhand.generation.pair_judge",
    "JudgeItem": "evenhand.generation.pair_judge",
    "AssistantFormatError": "evenhand.generation.structured",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
