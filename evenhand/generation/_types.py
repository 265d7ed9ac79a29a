"""Values passed between clients, the runner and the store, and the errors clients raise."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from evenhand.errors import RunFailure

Status = Literal["ok", "error", "filtered"]
#: An OpenAI-style chat message: ``role`` and ``content``; an agent's assistant turn also ``tool_calls``, a tool turn
#: ``tool_call_id`` (:meth:`evenhand.conversation.Turn.message`).
Message = dict[str, Any]


@dataclass(frozen=True)
class SamplingParams:
    """Settings sent with every request (part of the job key, so changing one starts a new job): sampling, and
    what the reply may be: ``tools`` the model may call (OpenAI's function definitions), ``tool_choice``, and
    ``response_format`` (e.g. ``{"type": "json_object"}``)."""

    temperature: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    tools: tuple[Any, ...] | None = field(default=None, hash=False)
    tool_choice: Any = field(default=None, hash=False)
    response_format: Any = field(default=None, hash=False)

    def as_dict(self) -> dict[str, Any]:
        """The settings as the job key holds them; the reply's shape only when it is asked for (so the job of a
        run without it is the one it always was)."""
        out: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        out.update(self.request_options())
        return out

    def request_options(self) -> dict[str, Any]:
        """``tools``, ``tool_choice`` and ``response_format`` where set, as a request body takes them."""
        options = {"tools": list(self.tools) if self.tools is not None else None, "tool_choice": self.tool_choice,
                   "response_format": self.response_format}  # fmt: skip
        return {k: v for k, v in options.items() if v is not None}

    def with_seed(self, seed: int | None) -> SamplingParams:
        return dataclasses.replace(self, seed=seed)


@dataclass(frozen=True)
class Completion:
    """One returned sample. ``text`` is None when the provider's content filter withheld it (or the answer had no
    content). The runner never records an ``"ok"`` sample whose text is None, empty or only whitespace: such an
    answer is retried like a transient fault and, after the retry budget, recorded as an error ("empty response").
    """

    text: str | None
    status: Status = "ok"
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class GenerationError(RunFailure):
    """A request failed and should not be retried (bad request, authentication, a bug in a callable).

    ``status`` is the HTTP status when there was one; ``detail`` and ``param`` the server's error message and the
    request parameter it names (OpenAI's ``error.param``), when it said so.
    """

    def __init__(
        self, message: str, *, status: int | None = None, detail: str | None = None, param: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail
        self.param = param


class RetryableError(GenerationError):
    """A transient failure: 429, 5xx, timeout, dropped connection, malformed or empty body, an answer without
    choices or text. ``retry_after`` in seconds (the server's ``Retry-After``, when it sent one)."""

    def __init__(
        self,
        message: str,
        retry_after: float | None = None,
        *,
        status: int | None = None,
        detail: str | None = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message, status=status, detail=detail, param=param)
        self.retry_after = retry_after


class NoAnswerError(RetryableError):
    """The request got no HTTP answer at all: the connection was refused, dropped or cut off, or timed out. Like a
    5xx, it says nothing about the prompt: the run-wide circuit breaker counts units that ended on these."""


class MalformedAnswerError(RetryableError):
    """A 2xx that is not a chat completion: not JSON, no ``choices`` list, or zero choices. It says nothing about the
    prompt (a proxy, a server under load, or a base_url that is not the API's): the circuit breaker counts units
    that ended on it, like an outage."""


class ConnectionFailedError(NoAnswerError):
    """The server could not be reached at all (refused, DNS, reset before any answer)."""


class ContentFilteredError(GenerationError):
    """The provider refused the prompt for policy reasons; recorded with status ``"filtered"``."""


class ServerUnreachableError(RunFailure, ConnectionError):
    """Raised by the runner when no request has ever succeeded and the server stays unreachable after retries (after
    a few refused connections when nothing has answered at all: a closed port or a wrong address)."""


class GenerationStoppedError(RunFailure):
    """Raised by the runner when its run-wide circuit breaker stops a run early: the same refusal (401, 403, 404 ...)
    for several different prompts in a row, or a sustained outage (``max_consecutive_failures`` units in a row that
    got no answer or a 5xx after all their retries). Everything finished before is in the store: a re-run resumes.

    ``summary`` is the cause and the counts in one line (secrets redacted), without the advice on resuming (the CLI
    words its own); ``cause`` the reason alone; ``status`` the HTTP status behind it when there was one; ``done`` /
    ``failed`` / ``not_attempted`` count the job's samples (``done`` includes filtered ones and those stored by
    earlier runs); ``store_path`` is where they are kept (``":memory:"``: nowhere).
    """

    def __init__(
        self,
        message: str,
        *,
        summary: str,
        cause: str,
        status: int | None,
        done: int,
        failed: int,
        not_attempted: int,
        store_path: str,
    ) -> None:
        super().__init__(message)
        self.summary = summary
        self.cause = cause
        self.status = status
        self.done = done
        self.failed = failed
        self.not_attempted = not_attempted
        self.store_path = store_path
