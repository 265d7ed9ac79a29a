"""Every setting of a generation run in one object: what :func:`~evenhand.generation.generate` and its three siblings
take as keywords, what a config file's ``model`` and ``generation`` sections say, and what the runner reads.

The public functions keep their keywords (``generate(prompts, count=5, temperature=0.7)``); each builds one
:class:`GenerationSettings` and passes it down, so a keyword is declared once, here. A config section gives its
values by sharing the field names (:meth:`GenerationSettings.from_sections`): no key is mapped by hand.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from evenhand.conversation import CONTEXT_PLACEMENTS, ContextPlacement
from evenhand.errors import InputError, InputTypeError

from ._types import SamplingParams
from .breaker import MaxFailures
from .limits import RateLimits, RetryPolicy
from .store import DEFAULT_STORE, ResponseStore

StoreArg = ResponseStore | str | os.PathLike[str] | None
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class GenerationSettings:
    """How to generate: samples per prompt, sampling, where results are kept, pace, retries and when to stop.

    Each field is the keyword of the same name of :func:`evenhand.generation.generate` (documented there). Values
    are checked when a run starts (:meth:`check`), as the keywords always were.
    """

    count: int = 25
    system_prompt: str | None = None
    temperature: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    tools: Sequence[Mapping[str, Any]] | None = None
    tool_choice: Any = None
    response_format: Mapping[str, Any] | None = None
    context_placement: ContextPlacement = "user"
    store: StoreArg = DEFAULT_STORE
    concurrency: int | None = None
    max_concurrency: int | None = None
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    max_retries: int = 8
    backoff: float = 0.25
    max_retry_delay: float = 60.0
    progress: bool = True
    retry_failed: bool = True
    max_consecutive_failures: MaxFailures = "auto"

    def replace(self, **changes: Any) -> GenerationSettings:
        """A copy with ``changes`` (field names; an unknown one is a ``TypeError`` naming it)."""
        return self.merged(changes, "GenerationSettings.replace")

    def merged(self, keywords: Mapping[str, Any], caller: str) -> GenerationSettings:
        """These settings with ``keywords`` on top; an unknown keyword fails as Python says it for ``caller``."""
        for name in keywords:
            if name not in FIELD_NAMES:
                raise TypeError(f"{caller}() got an unexpected keyword argument {name!r}")
        return dataclasses.replace(self, **keywords) if keywords else self

    @classmethod
    def from_keywords(
        cls, settings: GenerationSettings | None, keywords: Mapping[str, Any], caller: str
    ) -> GenerationSettings:
        """What a public function runs with: ``settings`` (default: the defaults) and its keywords on top."""
        if settings is not None and not isinstance(settings, GenerationSettings):
            raise InputTypeError(f"settings must be a GenerationSettings, got {type(settings).__name__}")
        return (settings or cls()).merged(keywords, caller)

    @classmethod
    def from_sections(cls, *sections: Any, **overrides: Any) -> GenerationSettings:
        """Settings from config sections (pydantic models): every section field that has a setting's name gives that
        setting (a later section wins), then ``overrides``. This is the one mapping from a config to generation."""
        values: dict[str, Any] = {}
        for section in sections:
            names = getattr(type(section), "model_fields", {})
            values.update({name: getattr(section, name) for name in names if name in FIELD_NAMES})
        return cls().merged(values | overrides, "GenerationSettings.from_sections")

    def sampling_params(self) -> SamplingParams:
        """What every request is sent with (part of the store's job key)."""
        tools = None if self.tools is None else tuple(self.tools)
        return SamplingParams(
            float(self.temperature), self.max_tokens, self.seed, tools, self.tool_choice, self.response_format
        )

    def rate_limits(self) -> RateLimits:
        return RateLimits(self.requests_per_minute, self.tokens_per_minute)

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(max_retries=self.max_retries, base_delay=self.backoff, max_delay=self.max_retry_delay)

    def check(self) -> None:
        """Raise on a value no run can use (before the client is built or the store opened); warn on
        ``temperature=0`` with several samples. Called by the runner, two frames below the public function."""
        count, temperature, max_tokens, concurrency = self.count, self.temperature, self.max_tokens, self.concurrency
        if isinstance(count, bool) or not isinstance(count, int):
            raise InputTypeError(f"count must be an int, got {type(count).__name__}")
        if count < 1:
            raise InputError(f"count must be >= 1, got {count}")
        if not isinstance(temperature, (int, float)) or not math.isfinite(temperature) or temperature < 0:
            raise InputError(f"temperature must be a finite number >= 0, got {temperature!r}")
        if temperature == 0 and count > 1:
            warnings.warn(
                f"temperature=0 with count={count}: samples of a prompt will be (near) identical, so per-prompt "
                "metrics such as expected maximum toxicity see no variation; use a temperature > 0",
                UserWarning,
                stacklevel=3,
            )
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
            raise InputError(f"max_tokens must be a positive int or None, got {max_tokens!r}")
        if concurrency is not None and (not isinstance(concurrency, int) or concurrency < 1):
            raise InputError(f"concurrency must be a positive int, got {concurrency!r}")
        if self.system_prompt is not None and not isinstance(self.system_prompt, str):
            raise InputTypeError(f"system_prompt must be a str or None, got {type(self.system_prompt).__name__}")
        if self.max_retries < 0:
            raise InputError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.backoff < 0:
            raise InputError(f"backoff must be >= 0 seconds, got {self.backoff}")
        if not self.max_retry_delay > 0:
            raise InputError(f"max_retry_delay must be > 0 seconds, got {self.max_retry_delay}")
        if self.context_placement not in CONTEXT_PLACEMENTS:
            raise InputError(
                f"context_placement must be one of {list(CONTEXT_PLACEMENTS)}, got {self.context_placement!r}"
            )
        check_reply_shape(self.tools, self.tool_choice, self.response_format)


def check_reply_shape(tools: Any, tool_choice: Any, response_format: Any) -> None:
    """Tools are OpenAI function definitions (``{"type": "function", "function": {"name": ..., ...}}``), each name
    once; ``tool_choice`` needs tools; ``response_format`` is a mapping with a ``type``."""
    if tools is not None:
        if isinstance(tools, (str, Mapping)) or not isinstance(tools, Sequence) or not tools:
            raise InputTypeError("tools must be a non-empty list of function definitions")
        names = []
        for i, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, Mapping) else None
            name = function.get("name") if isinstance(function, Mapping) else None
            if not isinstance(tool, Mapping) or tool.get("type", "function") != "function" or not isinstance(name, str):
                raise InputError(
                    f"tools[{i}] must be a function definition: {{'type': 'function', 'function': {{'name': ..., "
                    "'parameters': {...}}}"
                )
            if name in names:
                raise InputError(f"tools[{i}]: the function {name!r} is declared twice")
            names.append(name)
    if tool_choice is not None and tools is None:
        raise InputError("tool_choice needs tools to choose from")
    if response_format is not None and not (isinstance(response_format, Mapping) and "type" in response_format):
        raise InputError("response_format must be a mapping with a type, e.g. {'type': 'json_object'}")


FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(GenerationSettings))


class GenerationKeywords(TypedDict, total=False):
    """The settings as keywords, for type checkers (``**keywords: Unpack[GenerationKeywords]``); a test holds it
    equal to :class:`GenerationSettings`."""

    count: int
    system_prompt: str | None
    temperature: float
    max_tokens: int | None
    seed: int | None
    tools: Sequence[Mapping[str, Any]] | None
    tool_choice: Any
    response_format: Mapping[str, Any] | None
    context_placement: ContextPlacement
    store: StoreArg
    concurrency: int | None
    max_concurrency: int | None
    requests_per_minute: float | None
    tokens_per_minute: float | None
    max_retries: int
    backoff: float
    max_retry_delay: float
    progress: bool
    retry_failed: bool
    max_consecutive_failures: MaxFailures


def with_setting_keywords(function: F) -> F:
    """Show every setting as a keyword of ``function`` (``help()``, ``inspect.signature``, IDEs), with its default,
    in place of its ``**keywords``: the signature is written once, on :class:`GenerationSettings`."""
    signature = inspect.signature(function)
    params = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    for f in dataclasses.fields(GenerationSettings):
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type))
    function.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return function
