"""The generation runner: ``count`` samples per prompt (and per counterfactual group), concurrent, rate-limited,
retried, and stored as it goes so that a re-run resumes where the last one stopped.

The public functions (:mod:`evenhand.generation.api`) flatten their prompts and pass one
:class:`~evenhand.generation.settings.GenerationSettings` to :func:`generate_items`.
"""

from __future__ import annotations

import asyncio
import collections
import random
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evenhand.conversation import (
    ContextPlacement,
    Conversation,
    Prompt,
    prompt_messages,
    request_key,
    with_images,
)
from evenhand.errors import InputError

from ._types import (
    Completion,
    ConnectionFailedError,
    ContentFilteredError,
    GenerationError,
    GenerationStoppedError,
    Message,
    RetryableError,
    SamplingParams,
    ServerUnreachableError,
)
from .breaker import UNREACHABLE_ATTEMPTS, CircuitBreaker, Trip, resolve_limit
from .clients.base import ChatClient, public_config
from .clients.factory import get_client
from .pacing import Pacing, choose_pacing
from .progress import RunProgress
from .result import GenerationResult, SampleRecord
from .settings import GenerationSettings
from .store import ResponseStore, StoredOutcome, job_key, open_store, prompt_hash

_EST_OUTPUT_TOKENS = 256  # token-budget estimate per sample when max_tokens is not set (corrected by usage)
# An empty answer is asked again with another seed when the run has one (the same seed would reproduce it on a
# server that honours seeds): seed + sample + stride x (empty answers so far).
_EMPTY_SEED_STRIDE = 1_000_003
EMPTY_RESPONSE = "empty response"


@dataclass(frozen=True)
class _Item:
    """One prompt to sample: its position, group and the key parts that identify it in the store (``key``: the
    prompt's text, or a conversation's messages as JSON; :func:`~evenhand.conversation.request_key`)."""

    prompt_id: int
    prompt: Prompt
    group: str | None
    occurrence: int
    key: str
    phash: str


@dataclass
class _Unit:
    """One request: some missing samples of one item, and the attempts already spent on them (a part of an answer
    that came back empty is asked again with the rest of the same budget)."""

    item: _Item
    samples: list[int]
    attempts: int = 0


@dataclass
class _RunState:
    records: dict[tuple[int, int], SampleRecord]  # (item index, sample) -> record
    item_index: dict[_Item, int]
    successes: int = 0
    answered: bool = False  # any HTTP answer at all (a 4xx or 5xx too): the server is there
    unreachable: str | None = None
    stopped: Trip | None = None  # set by the circuit breaker
    store_error: BaseException | None = None
    pending: list[tuple[_Item, StoredOutcome, bool]] = field(default_factory=list)
    flush_scheduled: bool = False


def _is_blank(text: str | None) -> bool:
    """An answer that is no response: no text, "" or only whitespace (a literal "NaN" or "null" is text)."""
    return text is None or (isinstance(text, str) and not text.strip())


def _items(
    prompts: list[Prompt], groups: list[str | None], prompt_ids: list[int], placement: ContextPlacement
) -> list[_Item]:
    seen: collections.Counter[tuple[str | None, str]] = collections.Counter()
    out = []
    for prompt, group, pid in zip(prompts, groups, prompt_ids, strict=True):
        key = request_key(prompt, placement)
        occurrence = seen[(group, key)]
        seen[(group, key)] += 1
        out.append(_Item(pid, prompt, group, occurrence, key, prompt_hash(key)))
    return out


def _record(item: _Item, sample: int, values: Mapping[str, Any], from_store: bool) -> SampleRecord:
    """A result record from a stored row or a fresh outcome (both carry the same column names)."""
    return SampleRecord(
        prompt_id=item.prompt_id,
        prompt=item.prompt,
        group=item.group,
        sample=sample,
        response=values["response"],
        status=values["status"],
        error=values["error"],
        finish_reason=values["finish_reason"],
        prompt_tokens=values["prompt_tokens"],
        completion_tokens=values["completion_tokens"],
        attempts=values["attempts"],
        latency_s=values["latency_s"],
        from_store=from_store,
    )


class _Runner:
    def __init__(
        self,
        items: list[_Item],
        client: ChatClient,
        settings: GenerationSettings,
        *,
        store: ResponseStore,
        concurrency: int,
        description: str,
        breaker: CircuitBreaker,
        pacing: Pacing,
    ) -> None:
        self.items = items
        self.pacing = pacing  # how many of the ``concurrency`` workers' requests are on the wire at once
        self.breaker = breaker
        self.client = client
        self.count = settings.count
        self.system_prompt = settings.system_prompt
        self.context_placement = settings.context_placement
        self.params = settings.sampling_params()
        self.store = store
        self.concurrency = concurrency
        self.limits = settings.rate_limits()
        self.policy = settings.retry_policy()
        self.show_progress = settings.progress
        self.retry_failed = settings.retry_failed
        self.description = description
        self.rng = random.Random()
        self.config = {
            "client": public_config(client.identity),
            "system_prompt": self.system_prompt,
            "params": self.params.as_dict(),
        }
        self.job = job_key(self.config)

    async def run(self) -> GenerationResult:
        start = time.perf_counter()
        self.store.register_job(self.job, self.config)
        stored = self.store.load(self.job)
        state = _RunState(records={}, item_index={it: i for i, it in enumerate(self.items)})
        queue: collections.deque[_Unit] = collections.deque()
        for idx, item in enumerate(self.items):
            missing = []
            for s in range(self.count):
                row = stored.get((item.phash, item.occurrence, item.group or "", s))
                if row is not None and (row["status"] != "error" or not self.retry_failed):
                    state.records[(idx, s)] = _record(item, s, dict(row), from_store=True)
                else:
                    missing.append(s)
            if missing:
                queue.append(_Unit(item, missing))
        total = len(self.items) * self.count
        self.state = state
        self.queue = queue
        self.workers: set[asyncio.Task[None]] = set()
        try:
            with RunProgress(total, self.description, self.show_progress, already_done=len(state.records)) as bar:
                self.bar = bar
                self._spawn_workers()
                try:
                    while self.workers:  # workers started while waiting (more queued work) are waited for too
                        # return_exceptions: workers the circuit breaker cancels must not cancel this run
                        outcomes = await asyncio.gather(*list(self.workers), return_exceptions=True)
                        for outcome in outcomes:
                            if isinstance(outcome, Exception):
                                raise outcome
                finally:
                    for w in list(self.workers):
                        w.cancel()
                    self._flush()
        finally:
            await self.client.aclose()
        if state.store_error is not None:
            raise GenerationError(f"could not write to {self.store.path}: {state.store_error}") from state.store_error
        if state.unreachable is not None:
            raise ServerUnreachableError(state.unreachable)
        if state.stopped is not None:
            raise self._stopped_error(state.stopped, total)
        records = [state.records[(i, s)] for i in range(len(self.items)) for s in range(self.count)]
        groups = None
        if any(it.group is not None for it in self.items):
            groups = tuple(dict.fromkeys(it.group for it in self.items if it.group is not None))
        return GenerationResult(
            records=records,
            count=self.count,
            groups=groups,
            job=self.job,
            client=public_config(self.client.identity),
            elapsed_s=time.perf_counter() - start,
            store_path=self.store.path,
        )

    def _stopped_error(self, trip: Trip, total: int) -> GenerationStoppedError:
        statuses = collections.Counter(r.status for r in self.state.records.values())
        done, failed = statuses["ok"] + statuses["filtered"], statuses["error"]
        not_attempted = total - done - failed
        if self.store.path == ":memory:":
            kept = "nothing was kept (store=None)"
        else:
            kept = f"completed samples are kept in {self.store.path}: running the same job again resumes from them"
        summary = (
            f"generation stopped early: {trip.cause}. {done} of {total} samples done, {failed} failed, "
            f"{not_attempted} not attempted"
        )
        return GenerationStoppedError(
            f"{summary}; {kept}", summary=summary, cause=trip.cause, status=trip.status, done=done, failed=failed,
            not_attempted=not_attempted, store_path=self.store.path,
        )  # fmt: skip

    def _halted(self) -> bool:
        return self.state.unreachable is not None or self.state.stopped is not None

    def _trip(self, trip: Trip | None) -> None:
        """Stop the run: no new units, and the units in flight are cancelled (what they finished is already
        emitted; what they had not is missing from the store, so a re-run asks for it)."""
        if trip is None or self.state.stopped is not None:
            return
        self.state.stopped = trip
        current = asyncio.current_task()
        for worker in list(self.workers):
            if worker is not current:
                worker.cancel()

    def _spawn_workers(self) -> None:
        """Start workers for queued units, up to ``concurrency`` in all (units can be queued mid-run)."""
        if self._halted():
            return
        while len(self.workers) < min(self.concurrency, len(self.workers) + len(self.queue)):
            task = asyncio.create_task(self._worker())
            self.workers.add(task)
            task.add_done_callback(self.workers.discard)

    def _enqueue(self, unit: _Unit) -> None:
        self.queue.appendleft(unit)
        self._spawn_workers()

    async def _worker(self) -> None:
        while self.queue and not self._halted():
            unit = self.queue.popleft()
            max_n = max(1, self.client.max_n)
            if len(unit.samples) > max_n:  # split lazily: max_n can drop when a server ignores ``n``
                self._enqueue(_Unit(unit.item, unit.samples[max_n:], unit.attempts))
                unit = _Unit(unit.item, unit.samples[:max_n], unit.attempts)
            await self._request(unit)

    def _params(self, first_sample: int, empty_answers: int) -> SamplingParams:
        params = self.params
        if params.seed is not None and self.client.vary_seed_per_sample:
            seed = params.seed + first_sample + _EMPTY_SEED_STRIDE * empty_answers
            params = params.with_seed(seed)
        return params

    async def _rate_limited(
        self, estimate: int, messages: list[Message], n: int, params: SamplingParams
    ) -> list[Completion]:
        """``client.complete`` once the client-side rate limits (requests and tokens per minute) allow it."""
        await self.limits.acquire(estimate)
        return await self.client.complete(messages, n, params)

    async def _request(self, unit: _Unit) -> None:
        """Ask for ``unit``'s samples until each has an outcome: retry transient faults and empty answers within the
        retry budget, record what came back, queue the rest when the server returned fewer choices than asked."""
        item, samples, attempts = unit.item, list(unit.samples), unit.attempts
        messages = prompt_messages(item.prompt, self.system_prompt, self.context_placement, self.client.takes_images)
        empty_answers = 0
        while samples:
            n = len(samples)
            params = self._params(samples[0], empty_answers)
            estimate = (len(item.key) + len(self.system_prompt or "")) // 4 + n * (
                params.max_tokens or _EST_OUTPUT_TOKENS
            )
            attempts += 1
            t0 = time.perf_counter()
            try:
                # a place on the wire first, then the rate budget: budget taken by a request that then waits for a
                # place (a Retry-After pause) would all be spent at once when the places open, past the burst
                completions = await self.pacing.call(self._rate_limited, estimate, messages, n, params)
                if not completions:
                    raise RetryableError(f"{self.client.describe()} answered with zero choices")
            except RetryableError as exc:
                self.limits.settle(estimate, 0)
                self.state.answered |= exc.status is not None
                if isinstance(exc, ConnectionFailedError) and self._unreachable(attempts):
                    self.state.unreachable = f"{self.client.describe()} is unreachable after {attempts} attempts: {exc}"
                if await self._gave_up(item, samples, attempts, exc):
                    self._trip(self.breaker.gave_up(exc))
                    return
                continue
            except ContentFilteredError as exc:
                self.state.answered = True
                self.breaker.alive()  # the server read the prompt: it is up and accepts the requests
                filtered = Completion(None, "filtered", "content_filter")
                self._finish(item, [(s, filtered) for s in samples], str(exc), attempts, t0)
                return
            except GenerationError as exc:
                self.state.answered |= exc.status is not None
                self._fail(item, samples, str(exc), attempts)
                self._trip(self.breaker.refused(item.phash, exc))
                return
            except Exception as exc:  # a bug in user code must not kill the run
                self._fail(item, samples, f"{type(exc).__name__}: {exc}", attempts)
                return
            self.state.successes += 1
            self.breaker.alive()
            used = sum((c.prompt_tokens or 0) + (c.completion_tokens or 0) for c in completions)
            self.limits.settle(estimate, used)
            got = list(zip(samples, completions[:n], strict=False))
            if len(got) < n:  # the server ignored ``n`` (or capped it): ask again for the rest, which keep the
                # failed attempts they have had so far (this one answered other samples)
                self._enqueue(_Unit(item, samples[len(got) :], attempts - 1))
            empty = {s: c for s, c in got if c.status == "ok" and _is_blank(c.text)}
            self._finish(item, [(s, c) for s, c in got if s not in empty], None, attempts, t0)
            if not empty:
                return
            # An empty answer is not a response: ask again for those samples, within the same retry budget.
            samples = list(empty)
            empty_answers += 1
            reason = EMPTY_RESPONSE
            if all(c.text is None for c in empty.values()):
                reason += " (the answer had no message content)"
            if await self._gave_up(item, samples, attempts, RetryableError(reason)):
                return

    def _unreachable(self, attempts: int) -> bool:
        """Whether a unit whose attempt number ``attempts`` could not connect means the server is not there: when
        nothing has answered yet, from ``UNREACHABLE_ATTEMPTS`` on (a closed port fails in seconds, not after the
        whole retry budget); after an HTTP answer but before any success, once the retry budget is spent."""
        if self.state.successes:
            return False
        if not self.state.answered:
            return attempts >= min(UNREACHABLE_ATTEMPTS, self.policy.max_retries + 1)
        return attempts > self.policy.max_retries

    async def _gave_up(self, item: _Item, samples: list[int], attempts: int, exc: RetryableError) -> bool:
        """Record ``samples`` as failed once the retry budget is spent (True), else wait before the next attempt."""
        if attempts > self.policy.max_retries or self._halted():
            self._fail(item, samples, f"gave up after {attempts} attempts: {exc}", attempts)
            return True
        await asyncio.sleep(self.policy.delay(attempts, exc.retry_after, self.rng))
        if self.state.unreachable is not None:  # found unreachable while this unit waited: send nothing more
            self._fail(item, samples, f"gave up after {attempts} attempts: {exc}", attempts)
            return True
        return False

    def _fail(self, item: _Item, samples: list[int], error: str, attempts: int) -> None:
        for s in samples:
            self._emit(item, s, None, "error", error, None, None, None, attempts, None)

    def _finish(
        self, item: _Item, got: list[tuple[int, Completion]], note: str | None, attempts: int, t0: float
    ) -> None:
        latency = time.perf_counter() - t0
        for s, c in got:
            status, error = c.status, note
            if status == "ok" and _is_blank(c.text):  # never reached: empty answers are retried before
                status, error = "error", EMPTY_RESPONSE
            self._emit(
                item, s, c.text if status != "error" else None, status, error, c.finish_reason, c.prompt_tokens,
                c.completion_tokens, attempts, latency,
            )  # fmt: skip

    def _emit(
        self,
        item: _Item,
        sample: int,
        text: str | None,
        status: str,
        error: str | None,
        finish: str | None,
        ptok: int | None,
        ctok: int | None,
        attempts: int,
        latency: float | None,
    ) -> None:
        outcome = StoredOutcome(
            self.job, item.phash, item.occurrence, item.group or "", sample, item.key, text, status, error,
            finish, ptok, ctok, attempts, latency,
        )  # fmt: skip
        self.state.pending.append((item, outcome, status != "ok"))
        if not self.state.flush_scheduled:
            # Group commit: everything finished in this loop iteration goes into one transaction.
            self.state.flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        state = self.state
        state.flush_scheduled = False
        batch, state.pending = state.pending, []
        if not batch:
            return
        try:
            self.store.write([o for _, o, _ in batch])
        except Exception as exc:  # e.g. disk full: stop the run instead of reporting unsaved results
            state.store_error = exc
            state.unreachable = state.unreachable or ""
            return
        for item, o, _ in batch:
            state.records[(state.item_index[item], o.sample)] = _record(item, o.sample, o.__dict__, from_store=False)
        self.bar.advance(len(batch), sum(failed for _, _, failed in batch))


async def generate_items(
    prompts: list[Prompt],
    groups: list[str | None],
    prompt_ids: list[int],
    client: Any,
    settings: GenerationSettings,
    description: str,
) -> GenerationResult:
    """Run ``settings`` on the flattened prompts (``groups`` and ``prompt_ids`` aligned with them): what the four
    public functions of :mod:`evenhand.generation.api` share."""
    settings.check()
    chat_client = get_client(client)
    for setting, supported in (("tools", chat_client.calls_tools), ("response_format", chat_client.formats_replies)):
        if getattr(settings, setting) is not None and not supported:
            raise InputError(
                f"{setting}: {chat_client.describe()} cannot be sent {setting}: use an OpenAI-compatible server, a "
                f"LangChain chat model or a callable that takes {setting}; or ask for JSON in the prompt and read "
                "the decision with a JSON field"
            )
    agents = sum(isinstance(p, Conversation) and p.has_tool_turns for p in prompts)
    if agents and not chat_client.takes_tool_turns:
        raise InputError(
            f"{chat_client.describe()} cannot be sent a conversation's tool calls and tool results ({agents} prompt(s) "
            "are agent transcripts): use an OpenAI-compatible server, a LangChain chat model or a callable"
        )
    pictured = with_images(prompts)
    if pictured and not chat_client.takes_images:
        warnings.warn(
            f"{pictured} prompt(s) hold images; {chat_client.describe()} reads text only: it is sent their text, "
            "and the images were not read",
            UserWarning,
            stacklevel=2,
        )
    in_flight = settings.concurrency or chat_client.default_concurrency
    pacing = choose_pacing(
        settings.concurrency, settings.max_concurrency, chat_client.default_concurrency,
        chat_client.adaptive_concurrency, settings.max_retry_delay,
    )  # fmt: skip
    # a bad value fails before the store is opened
    breaker = CircuitBreaker(resolve_limit(settings.max_consecutive_failures, in_flight))
    opened, owned = open_store(settings.store)
    try:
        runner = _Runner(
            _items(prompts, groups, prompt_ids, settings.context_placement),
            chat_client,
            settings,
            store=opened,
            concurrency=pacing.workers,
            description=description,
            breaker=breaker,
            pacing=pacing,
        )
        return await runner.run()
    finally:
        if owned:
            opened.close()
