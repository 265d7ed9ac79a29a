"""Bring-your-own LangChain chat model (any ``BaseChatModel``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from evenhand.errors import InputTypeError

from ..._optional import require
from ..._redact import CONTAINER_KEYS, redact_mapping, redact_text, secret_values
from ...structured import ToolCall, tool_reply_text
from .._types import (
    Completion,
    ContentFilteredError,
    GenerationError,
    Message,
    NoAnswerError,
    RetryableError,
    SamplingParams,
)
from .base import ChatClient, model_name_of

_TRANSIENT_NAMES = (
    "ratelimit",
    "timeout",
    "connection",
    "apierror",
    "internalserver",
    "serviceunavailable",
    "overload",
)


def classify_exception(exc: BaseException, secrets: Iterable[str] = ()) -> GenerationError:
    """Map a provider SDK's exception onto retryable / filtered / fatal by status code, name and message; the
    message is scrubbed of ``secrets`` (the model's keys, header and body values) and of URL credentials."""
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    name = type(exc).__name__.lower()
    text = redact_text(exc, secrets)
    if "content_filter" in text or "content management policy" in text:
        return ContentFilteredError(text[:300])
    if isinstance(status, int):  # the status lets the run-wide circuit breaker tell a 401 or a 5xx outage apart
        if status in (408, 409, 425, 429) or status >= 500:
            return RetryableError(f"{type(exc).__name__}: {text[:300]}", status=status)
        return GenerationError(f"{type(exc).__name__}: {text[:300]}", status=status, detail=text[:300])
    if isinstance(exc, (TimeoutError, ConnectionError)):  # no answer at all: counts towards an outage
        return NoAnswerError(f"{type(exc).__name__}: {text[:300]}")
    if any(h in name for h in _TRANSIENT_NAMES):
        return RetryableError(f"{type(exc).__name__}: {text[:300]}")
    return GenerationError(f"{type(exc).__name__}: {text[:300]}")


class LangChainClient(ChatClient):
    """Adapter for a LangChain ``BaseChatModel``: the model object keeps its own sampling settings.

    ``temperature``/``max_tokens``/``seed`` given to :func:`generate` are not forced onto the model (LangChain has
    no portable way to override them); the model's identifying parameters go into the job key instead.
    """

    default_concurrency = 8

    def __init__(self, chat_model: Any) -> None:
        lc_models = require("langchain_core.language_models", feature="LangChain chat models")
        if not isinstance(chat_model, lc_models.BaseChatModel):
            raise InputTypeError(
                f"LangChainClient needs a langchain_core BaseChatModel, got {type(chat_model).__name__}"
            )
        self.chat_model = chat_model
        self._secrets = secret_values(_fields(chat_model))
        # a model class that implements bind_tools can be sent tools (BaseChatModel's own raises NotImplementedError)
        self.calls_tools = type(chat_model).bind_tools is not lc_models.BaseChatModel.bind_tools
        self.formats_replies = True  # bound as a keyword of the request (response_format=...), as providers take it
        self.takes_tool_turns = True  # AIMessage carries tool calls, ToolMessage their results
        self.takes_images = True  # a message's content may be a list of parts, image parts as OpenAI writes them

    @property
    def model(self) -> str:
        """The model's name (``model_name``, ``model`` or ``model_id`` of the LangChain object), "" if it has none."""
        return model_name_of(self.chat_model)

    def describe(self) -> str:
        name = self.model
        return f"LangChain {type(self.chat_model).__name__}" + (f" ({name})" if name else "")

    @property
    def identity(self) -> dict[str, Any]:
        """The model's identifying parameters, redacted (they are stored with every job): credentials, header and
        body values never appear; a hash of the request-body options (``extra_body``, ``model_kwargs``) keeps runs
        with different bodies apart."""
        try:
            params = dict(self.chat_model._identifying_params)
        except Exception:  # identifying params are best effort; the class name still separates jobs
            params = {}
        bodies = {k: params[k] for k in sorted(params) if str(k).lower() in _HASHED_KEYS and params[k]}
        identity = {"backend": "langchain", "class": type(self.chat_model).__qualname__, **redact_mapping(params)}
        if bodies:
            canonical = json.dumps(bodies, sort_keys=True, separators=(",", ":"), default=str)
            identity["body_sha256"] = hashlib.sha256(canonical.encode()).hexdigest()
        return identity

    async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        converted = [_langchain_message(m) for m in messages]
        try:
            reply = await self._bound(params).ainvoke(converted)
        except Exception as exc:
            raise classify_exception(exc, self._secrets) from None
        content = reply.content
        if isinstance(content, list):  # content blocks
            content = "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)
        calls = [c for c in getattr(reply, "tool_calls", None) or () if isinstance(c, dict) and c.get("name")]
        if calls:  # kept as one text, as every backend keeps a reply that calls tools
            content = tool_reply_text(content or None, [ToolCall(c["name"], c.get("args") or {}) for c in calls])
        meta = getattr(reply, "response_metadata", None) or {}
        usage = getattr(reply, "usage_metadata", None) or {}
        finish = meta.get("finish_reason")
        return [
            Completion(
                text=content,
                status="filtered" if finish == "content_filter" else "ok",
                finish_reason=finish,
                prompt_tokens=usage.get("input_tokens"),
                completion_tokens=usage.get("output_tokens"),
            )
        ]

    def _bound(self, params: SamplingParams) -> Any:
        """The model with the request's tools and response format bound (the model itself when there are none)."""
        options = params.request_options()
        model = self.chat_model
        if "tools" in options:
            choice = {"tool_choice": options["tool_choice"]} if "tool_choice" in options else {}
            model = model.bind_tools(options["tools"], **choice)
        if "response_format" in options:
            model = model.bind(response_format=options["response_format"])
        return model


#: Request-body options whose values are hidden in the identity but hashed into it (they change the answers).
_HASHED_KEYS = frozenset({"extra_body", "model_kwargs"}) & CONTAINER_KEYS


def _langchain_message(message: Message) -> Any:
    """An OpenAI-style message as LangChain's message type: an agent's tool calls on the ``AIMessage`` (arguments
    parsed, ids kept) and each tool result a ``ToolMessage`` naming the call it answers."""
    lc_messages = require("langchain_core.messages", feature="LangChain chat models")
    role, content = message["role"], message.get("content") or ""
    if role == "tool":
        return lc_messages.ToolMessage(content=content, tool_call_id=message["tool_call_id"])
    if role == "assistant" and message.get("tool_calls"):
        calls = [{"name": c["function"]["name"], "args": _arguments(c["function"]["arguments"]), "id": c["id"]}
                 for c in message["tool_calls"]]  # fmt: skip
        return lc_messages.AIMessage(content=content, tool_calls=calls)
    kinds = {"system": lc_messages.SystemMessage, "user": lc_messages.HumanMessage, "assistant": lc_messages.AIMessage}
    named = {"name": message["name"]} if message.get("name") else {}  # a participant's name, as a chat API takes it
    return kinds[role](content=content, **named)


def _arguments(text: str) -> dict[str, Any]:
    """A call's arguments as LangChain's tool call holds them (a dict); text that is not a JSON object is kept under
    ``"input"``."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        value = text
    return value if isinstance(value, dict) else {"input": value}


def _fields(chat_model: Any) -> dict[str, Any]:
    """The model object's fields (pydantic models: declared fields and extras), for :func:`secret_values`."""
    fields: dict[str, Any] = {}
    try:
        fields.update(vars(chat_model))
    except TypeError:
        pass
    extra = getattr(chat_model, "__pydantic_extra__", None)
    if isinstance(extra, dict):
        fields.update(extra)
    return {k: v for k, v in fields.items() if not str(k).startswith("__")}
