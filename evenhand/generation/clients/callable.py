"""Any Python function (sync or async) as a chat model."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
from collections.abc import Callable
from typing import Any

from evenhand.errors import InputError, InputTypeError

from .._types import Completion, GenerationError, Message, SamplingParams
from .base import ChatClient

_OPTIONAL_ARGS = ("system_prompt", "temperature", "max_tokens", "seed", "messages", "tools", "tool_choice",
                  "response_format")  # fmt: skip

#: The environment variable that allows a config or client spec to name Python code to import ("1" allows it).
ALLOW_CODE_ENV = "EVENHAND_ALLOW_CODE"
_TRUE = frozenset({"1", "true", "yes", "on"})


def code_allowed(allow_code: bool | None = None) -> bool:
    """Whether importing code named in a config / client spec is allowed: ``allow_code`` when given, else the
    environment variable :data:`ALLOW_CODE_ENV` (``EVENHAND_ALLOW_CODE=1``). Never read from the config itself:
    a config that could allow itself would defeat the purpose."""
    if allow_code is not None:
        return bool(allow_code)
    return os.environ.get(ALLOW_CODE_ENV, "").strip().lower() in _TRUE


def code_refusal(key: str, target: str) -> str:
    """The message that explains why code named at ``key`` is not imported, and how to allow it."""
    return (
        f"{key} names Python code to import and run ({target!r}); a config is data and runs no code unless you "
        f"allow it from outside the config: `evenhand assess --allow-code CONFIG`, or set {ALLOW_CODE_ENV}=1 "
        "(Python: assess_config(config, allow_code=True), get_client(spec, allow_code=True), or pass the function "
        "itself instead of its name)"
    )


def load_function(target: str, *, allow_code: bool | None = None, key: str = "function") -> Callable[..., Any]:
    """Import ``"package.module:name"`` (refused unless :func:`code_allowed`)."""
    if not code_allowed(allow_code):
        raise InputError(code_refusal(key, target))
    module, sep, name = str(target).partition(":")
    if not sep or not module or not name:
        raise InputError(f"{key} must be 'package.module:name', got {target!r}")
    try:
        fn = importlib.import_module(module)
        for part in name.split("."):
            fn = getattr(fn, part)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"{key}: cannot import {target!r}: {exc}") from None
    if not callable(fn):
        raise InputError(f"{key}: {target!r} is not callable")
    return fn


class CallableClient(ChatClient):
    """Wrap ``fn(prompt, **optional) -> str | Completion | None``.

    ``fn`` gets the user prompt first (a conversation's last user turn, with its documents when they go there),
    plus whichever of ``system_prompt``, ``temperature``, ``max_tokens``, ``seed``, ``messages`` (the whole
    conversation as sent) and, when the run sets them, ``tools``, ``tool_choice`` and ``response_format`` it
    declares (or all of them when it takes ``**kwargs``). Returning None records a content-filter refusal; a reply
    that calls tools is returned as :func:`evenhand.structured.tool_reply_text` writes it. Sync functions run in
    worker threads so they do not block other calls; raise :class:`~evenhand.generation.RetryableError` to ask for
    a retry with backoff.
    """

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None, concurrency: int | None = None) -> None:
        if not callable(fn):
            raise InputTypeError(f"CallableClient needs a callable, got {type(fn).__name__}")
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
        self.calls_tools = "tools" in self._accepts
        self.formats_replies = "response_format" in self._accepts
        self.takes_tool_turns = True  # ``messages`` holds them as sent
        self.takes_images = "messages" in self._accepts  # the prompt alone is the last turn's text

    def describe(self) -> str:
        return self.name

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "callable", "name": self.name}

    async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        system = next((_text(m["content"]) for m in messages if m["role"] == "system"), None)
        available = {"system_prompt": system, "messages": messages, **params.as_dict()}
        kwargs = {k: v for k, v in available.items() if k in self._accepts}
        prompt = _text(messages[-1]["content"])
        if self._is_async:
            value = await self.fn(prompt, **kwargs)
        else:
            value = await asyncio.to_thread(self.fn, prompt, **kwargs)
        if inspect.isawaitable(value):
            value = await value
        return [_as_completion(value)]


def _text(content: Any) -> Any:
    """A message's words: content parts beside images (in any turn) are their text parts joined."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content


def _as_completion(value: Any) -> Completion:
    if isinstance(value, Completion):
        return value
    if value is None:
        return Completion(text=None, status="filtered", finish_reason="content_filter")
    if isinstance(value, str):
        return Completion(text=value, finish_reason="stop")
    raise GenerationError(f"the callable returned {type(value).__name__}; expected str, Completion or None")
