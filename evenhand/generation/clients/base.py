"""The one small async interface every backend implements."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any

from ..._redact import redact_mapping
from .._types import Completion, Message, SamplingParams

_SECRET_HINTS = ("key", "token", "secret", "password", "authorization", "credential")


def public_config(config: dict[str, Any]) -> dict[str, Any]:
    """Drop anything that looks like a credential and make values JSON-friendly (used in job keys and results)."""
    out: dict[str, Any] = {}
    # Nested values (a custom client's identity) may hold secrets under harmless-looking outer keys: redact first.
    config = redact_mapping(config)
    for name, value in sorted(config.items()):
        if any(h in name.lower() for h in _SECRET_HINTS):
            continue
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[name] = value
        elif isinstance(value, (list, tuple)):
            out[name] = [v if isinstance(v, (str, int, float, bool)) or v is None else repr(v) for v in value]
        else:
            out[name] = repr(value)
    return out


def model_name_of(client: Any) -> str:
    """The model's name on a client or model object: ``model_name``, ``model`` or ``model_id`` (the spellings of
    LangChain's chat model classes, which keep the name under any of the three), the first that is a non-blank
    string; "" when none is (an object's ``model`` may be the network itself, not a name)."""
    for attribute in ("model_name", "model", "model_id"):
        try:
            value = getattr(client, attribute, None)
        except Exception:  # a property that fails on a half-configured object: no name from it
            continue
        if isinstance(value, str) and value.strip():
            return value
    return ""


class ChatClient(ABC):
    """A chat model behind ``complete(messages, n, params) -> list[Completion]``.

    ``max_n`` is how many samples one call may return (the runner folds samples of a prompt into one call when it
    is above 1); ``default_concurrency`` is the runner's default number of calls in flight, where the adaptive limit
    starts when ``adaptive_concurrency`` (a server that may refuse with 429/503 when sent too much; see
    :mod:`evenhand.generation.pacing`).
    """

    max_n: int = 1
    default_concurrency: int = 16
    adaptive_concurrency: bool = False
    # Whether ``params.tools`` / ``params.response_format`` reach the model (a client that cannot send them is
    # refused them before a run, rather than silently answering without them).
    calls_tools: bool = False
    formats_replies: bool = False
    # Whether a conversation's tool turns (an assistant turn's ``tool_calls``, ``role: tool`` results) reach the
    # model as the API carries them (a client that cannot send them is refused such prompts before a run).
    takes_tool_turns: bool = False
    # Whether a conversation's image parts reach the model (a client that reads text only is sent the text, with a
    # warning that the images were not read).
    takes_images: bool = False
    # Derive the seed of each request from the run's seed and the sample index, so separate requests for the
    # same prompt do not all return the same "random" sample on servers that honour ``seed``.
    vary_seed_per_sample: bool = True

    @property
    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """What defines the model configuration (never credentials): part of the resume key."""

    @abstractmethod
    async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        """Return up to ``n`` completions (fewer means the backend ignored ``n``), or raise a generation error."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most clients hold nothing
        """Release connections; the runner calls it at the end of each run."""

    def describe(self) -> str:
        """Short human-readable name used in errors and progress bars."""
        return type(self).__name__

    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(public_config(self.identity), sort_keys=True).encode()).hexdigest()[:16]
