"""Any Python function (sync or async) as a chat model."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from .._types import Completion, GenerationError, Message, SamplingParams
from .base import ChatClient

_OPTIONAL_ARGS = ("system_prompt", "temperature", "max_tokens", "seed", "messages")


class CallableClient(ChatClient):
    """Wrap ``fn(prompt, **optional) -> str | Completion | None``.

    ``fn`` gets the user prompt first, plus whichever of ``system_prompt``, ``temperature``, ``max_tokens``,
    ``seed`` and ``messages`` it declares (or all of them when it takes ``**kwargs``). Returning None records a
    content-filter refusal. Sync functions run in worker threads so they do not block other calls; raise
    :class:`~evenhand.generation.RetryableError` to ask for a retry with backoff.
    """

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None, concurrency: int | None = None) -> None:
        if not callable(fn):
            raise TypeError(f"CallableClient needs a callable, got {type(fn).__name__}")
        self.fn = fn
        self.name = name or f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__name__)}"
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)
        self.default_concurrency = concurrency or (16 if self._is_async else 4)
        try:
            sig = inspect.signature(fn)
            takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
            self._accepts = {a for a in _OPTIONAL_ARGS if takes_kwargs or a in sig.parameters}
        except (TypeError, ValueError):
            self._accepts = set()

    def describe(self) -> str:
        return self.name

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "callable", "name": self.name}

    async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        system = next((m["content"] for m in messages if m["role"] == "system"), None)
        available = {"system_prompt": system, "messages": messages, **params.as_dict()}
        kwargs = {k: v for k, v in available.items() if k in self._accepts}
        prompt = messages[-1]["content"]
        if self._is_async:
            value = await self.fn(prompt, **kwargs)
        else:
            value = await asyncio.to_thread(self.fn, prompt, **kwargs)
        if inspect.isawaitable(value):
            value = await value
        return [_as_completion(value)]


def _as_completion(value: Any) -> Completion:
    if isinstance(value, Completion):
        return value
    if value is None:
        return Completion(text=None, status="filtered", finish_reason="content_filter")
    if isinstance(value, str):
        return Completion(text=value, finish_reason="stop")
    raise GenerationError(f"the callable returned {type(value).__name__}; expected str, Completion or None")
