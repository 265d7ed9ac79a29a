"""The run-wide circuit breaker: stop a generation run once every further request is bound to fail.

Retries handle faults of one request; they cannot tell that the whole server is gone or that every request will be
refused. Two patterns stop a run (outcomes are counted per unit, i.e. per request after its retries):

- **refusal**: the same non-retryable HTTP status for ``refusal_limit`` (3) *different* prompts in a row, with
  nothing in between proving the server accepts requests. Only for statuses that are about the account or the
  endpoint, never about a prompt (401, 402, 404, 407, and a redirect, 3xx, which is not followed), or, for any
  other status (a 400, 403 or 422), when no request of the run has succeeded yet and the server's message is the
  same each time (a bad setting, not a bad prompt). A
  prompt refused several times (its samples, one request each) counts once, so a single bad prompt never trips.
- **withdrawn permission**: after requests have succeeded, a 403 may be a content firewall refusing one sensitive
  prompt (bias probes send exactly those, and counterfactual versions of one prompt come one after another), or a
  key whose permission was withdrawn mid-run, which refuses every prompt left. The same 403 (same message) for
  ``permission_limit`` (10) different prompts in a row, with no answered request in between, is the latter: a
  firewall lets the prompts around a sensitive one through, and those answers restart the count.
- **outage**: ``outage_limit`` units in a row whose retries all ended without an HTTP answer (refused, dropped,
  timed out) or with a 5xx. With ``concurrency`` units in flight a dead server fails them all in one wave, so the
  automatic limit is ``max(10, concurrency)``: from 10 units in flight on, it stops after about one retry budget
  instead of one per unit left. (A flaky but living server does not trip it: 10 units in a row would each have to
  fail ``max_retries + 1`` times with no request succeeding in between.) A 2xx that is not a chat completion (not
  JSON, no choices: a proxy, or a base_url that is not the API's) counts the same: it never depends on the prompt.

Proof of life (a 2xx with choices, or a content-filter refusal: the server read the prompt) resets every streak.
Other outcomes (a 429 or an empty answer after all retries, a bug in a callable) neither count nor reset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evenhand.errors import InputError

from ._types import GenerationError, MalformedAnswerError, NoAnswerError, RetryableError

MaxFailures = int | Literal["auto"] | None

# Statuses that describe the account or the endpoint, so they recur for every prompt.
_ACCOUNT_HINTS = {
    401: "check the API key and the environment variable api_key_env names",
    402: "check the account's quota or billing",
    403: "check the key's permissions",
    404: "check base_url and the model name",
    407: "check the proxy credentials",
}
_REDIRECT_HINT = "check base_url: the server redirects requests, and a POST is not redirected with the credentials"
# Of those, the statuses that never depend on the prompt. 403 is left out: a gateway or a content firewall may
# answer 403 to single sensitive prompts (bias probes send exactly those), so after a success it takes
# PERMISSION_LIMIT prompts in a row (a withdrawn permission), not REFUSAL_LIMIT.
_ACCOUNT_WIDE = frozenset({401, 402, 404, 407})
REFUSAL_LIMIT = 3  # different prompts refused the same way in a row
PERMISSION_LIMIT = 10  # the same after a success, for 403 (a firewall may refuse a few neighbouring prompts)
AUTO_OUTAGE_FLOOR = 10
#: Attempts a unit makes while connections are refused and nothing has answered yet (a closed port, a wrong host or
#: port): then the runner stops with ServerUnreachableError in about 1-2 s at the default backoff, not after the
#: whole retry budget (about a minute).
UNREACHABLE_ATTEMPTS = 4


def resolve_limit(value: MaxFailures, concurrency: int) -> int | None:
    """The outage limit for a ``max_consecutive_failures`` setting: ``"auto"`` is ``max(10, concurrency)``; None
    switches the breaker off."""
    if value is None:
        return None
    if value == "auto":
        return max(AUTO_OUTAGE_FLOOR, concurrency)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"max_consecutive_failures must be a positive int, 'auto' or None, got {value!r}")
    return value


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines included) as one space: errors are one line."""
    return " ".join(str(text).split())


@dataclass(frozen=True)
class Trip:
    """Why the breaker stopped the run: ``cause`` in one line, and the HTTP status behind it if any."""

    cause: str
    status: int | None


class CircuitBreaker:
    """Counts unit outcomes (see the module docstring); a method returns a :class:`Trip` once the run must stop."""

    def __init__(self, outage_limit: int | None) -> None:
        self.outage_limit = outage_limit
        self.refusal_limit = None if outage_limit is None else min(REFUSAL_LIMIT, outage_limit)
        self.permission_limit = None if outage_limit is None else min(PERMISSION_LIMIT, outage_limit)
        self.any_success = False
        self._refusal: tuple[int, str] | None = None  # (status, server message) of the current streak
        self._refused_prompts: set[str] = set()
        self._outages = 0

    def alive(self) -> None:
        """The server answered a request properly: both streaks start again."""
        self.any_success = True
        self._refusal, self._refused_prompts, self._outages = None, set(), 0

    def refused(self, prompt_key: str, exc: GenerationError) -> Trip | None:
        """A non-retryable error for the prompt identified by ``prompt_key``."""
        if self.refusal_limit is None or exc.status is None:  # a bug in a callable, a local model's error
            return None
        account_wide = exc.status in _ACCOUNT_WIDE or 300 <= exc.status < 400
        limit = self._limit(exc.status, account_wide)
        if limit is None:  # a 400 after successes is about this prompt: neither counts nor resets
            return None
        signature = (exc.status, "" if account_wide else one_line(exc.detail or exc))
        if signature != self._refusal:
            self._refusal, self._refused_prompts = signature, set()
        self._refused_prompts.add(prompt_key)
        if len(self._refused_prompts) < limit:
            return None
        if 300 <= exc.status < 400:
            hint = _REDIRECT_HINT
        elif exc.status == 403 and self.any_success:
            hint = "earlier requests succeeded: the key may have lost its permission mid-run"
        else:
            hint = _ACCOUNT_HINTS.get(exc.status, "no request has succeeded: check the model settings and options")
        prompts = len(self._refused_prompts)
        return Trip(f"{prompts} different prompts in a row were refused with {one_line(exc)} ({hint})", exc.status)

    def _limit(self, status: int, account_wide: bool) -> int | None:
        """How many different prompts refused with ``status`` in a row stop the run (None: they never do)."""
        if account_wide or not self.any_success:
            return self.refusal_limit
        return self.permission_limit if status == 403 else None

    def gave_up(self, exc: RetryableError) -> Trip | None:
        """A unit spent its retry budget; ``exc`` is its last failure."""
        if self.outage_limit is None or not is_outage(exc):
            return None
        self._outages += 1
        if self._outages < self.outage_limit:
            return None
        if isinstance(exc, MalformedAnswerError):
            return Trip(
                f"the server's answers are not chat completions: {self._outages} requests in a row got a "
                f"{exc.status} that is not a chat completion (not JSON or no choices) after all their retries "
                f"(last: {one_line(exc)}); check base_url: it should be the API's root, e.g. http://host:8000/v1",
                exc.status,
            )
        cause = (
            f"the server stopped answering: {self._outages} requests in a row got no answer or a 5xx after all their "
            f"retries (last: {one_line(exc)})"
        )
        return Trip(cause, exc.status)


def is_outage(exc: RetryableError) -> bool:
    """A failure that says the server is down or is not the API, not that the prompt was bad: no HTTP answer, a 5xx,
    or a 2xx that is not a chat completion."""
    return isinstance(exc, (NoAnswerError, MalformedAnswerError)) or (exc.status is not None and exc.status >= 500)
