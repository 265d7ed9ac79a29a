"""What a generation run will take, said before anything is sent: requests, prompt tokens, at most how many
completion tokens, and what that costs at the prices given (per 1M input and output tokens).

Requests are counted as the runner sends them: each prompt (each copy of a repeated prompt text) asks for its
samples that the store does not hold yet, up to the client's ``max_n`` per request. A server may ignore ``n``
(``n: auto`` finds out during the run); then every sample is its own request, which the estimate gives as the upper
bound. Prompt tokens are billed per request, so they follow the request count; completion tokens are at most
``max_tokens`` per sample. Retries of failed requests are not included. Nothing here sends a request or writes
to the store.
"""

from __future__ import annotations

import collections
import json
import math
import os
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from evenhand.conversation import (
    ContextPlacement,
    Conversation,
    Prompt,
    as_prompt_list,
    prompt_messages,
    request_key,
)
from evenhand.errors import InputError

from ._types import SamplingParams
from .clients.base import ChatClient, public_config
from .store import DEFAULT_STORE, ResponseStore, job_key, prompt_hash
from .tokens import TokenCounter, token_counter

#: OpenAI's chat format: each message is wrapped in about 3 tokens plus its role (1), and the reply is primed with
#: 3 more. Other servers' chat templates differ by a few tokens per message.
TOKENS_PER_MESSAGE = 4
TOKENS_PER_REQUEST = 3

Batch = tuple[Sequence[Prompt], int]  # the prompts of one generate() call, and the samples wanted of each


@dataclass(frozen=True)
class Prices:
    """Prices per 1M input (prompt) and output (completion) tokens, in the currency the user pays in."""

    input_per_1m: float
    output_per_1m: float

    def __post_init__(self) -> None:
        for name in ("input_per_1m", "output_per_1m"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InputError(f"prices.{name} must be a number >= 0, got {value!r}")

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_1m + completion_tokens * self.output_per_1m) / 1_000_000


@dataclass(frozen=True)
class GenerationEstimate:
    """The run's size before it starts. ``requests``/``prompt_tokens`` when the server honours ``n`` (or ``n`` is
    not used); ``requests_max``/``prompt_tokens_max`` when every sample is its own request."""

    samples: int  # samples to generate (the store's not counted)
    already_stored: int  # samples the store holds already: not asked again
    requests: int
    requests_max: int
    prompt_tokens: int
    prompt_tokens_max: int
    completion_tokens_max: int | None  # None: no max_tokens, no bound
    max_tokens: int | None
    token_method: str
    token_tolerance: str
    prices: Prices | None = None
    #: the LLM assistants' own estimates (issue 38: a second reader, a judge), by name; empty without them
    assistants: tuple[tuple[str, GenerationEstimate], ...] = ()

    @property
    def cost(self) -> float | None:
        """At most this much when ``n`` is honoured (None: no prices, or no max_tokens to bound the output)."""
        if self.prices is None or self.completion_tokens_max is None:
            return None
        return self.prices.cost(self.prompt_tokens, self.completion_tokens_max)

    @property
    def cost_max(self) -> float | None:
        """At most this much whatever the server does with ``n``."""
        if self.prices is None or self.completion_tokens_max is None:
            return None
        return self.prices.cost(self.prompt_tokens_max, self.completion_tokens_max)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cost"], out["cost_max"] = self.cost, self.cost_max
        out.pop("assistants")
        if self.assistants:  # only a run with assistants has the key
            out["assistants"] = {name: estimate.as_dict() for name, estimate in self.assistants}
        return out

    def lines(self) -> list[str]:
        """The estimate in a few lines (the CLI prints them before a run)."""
        n_note = ""
        if self.requests_max != self.requests:
            n_note = f" (up to {self.requests_max:,} if the server ignores n)"
        lines = [
            f"requests: {self.requests:,}{n_note}, for {self.samples:,} samples"
            + (f" ({self.already_stored:,} already in the store, not asked again)" if self.already_stored else "")
            + "; retries not included",
            f"prompt tokens: {self.prompt_tokens:,}"
            + (f" (up to {self.prompt_tokens_max:,})" if self.prompt_tokens_max != self.prompt_tokens else "")
            + f", by {self.token_method}: {self.token_tolerance}",
        ]
        if self.completion_tokens_max is None:
            lines.append("completion tokens: no bound (max_tokens is not set)")
        else:
            lines.append(
                f"completion tokens: at most {self.completion_tokens_max:,} ({self.max_tokens:,} max_tokens per sample)"
            )
        if self.prices is not None:
            p = self.prices
            at = f"at {p.input_per_1m:g} per 1M input and {p.output_per_1m:g} per 1M output tokens"
            if self.cost is None:
                lines.append(f"cost: no bound without max_tokens ({at})")
            else:
                upper = f" ({self.cost_max:,.4f} if the server ignores n)" if self.cost_max != self.cost else ""
                # the input part is as exact as the prompt-token count (a stand-in tokenizer can be ~10% low), the
                # output part is a bound (every sample using all of max_tokens): "about", not "at most"
                lines.append(f"cost: up to about {self.cost:,.4f}{upper} {at}")
        for name, estimate in self.assistants:
            lines.extend(f"{name}: {line}" for line in estimate.lines())
        return lines


def estimate_batches(
    batches: Sequence[Batch],
    *,
    counter: TokenCounter,
    system_prompt: str | None = None,
    max_tokens: int | None = None,
    max_n: int = 1,
    n_may_be_ignored: bool = False,
    stored: Mapping[tuple[str, int], set[int]] | None = None,
    persistent: bool = True,
    prices: Prices | None = None,
    tools: Sequence[Any] | None = None,
    context_placement: ContextPlacement = "user",
) -> GenerationEstimate:
    """The estimate for ``batches`` (pure: counts only).

    A conversation counts each of its messages (and its documents where they go); ``tools`` are counted once per
    request, as their definitions are sent with each.
    ``stored``: the samples the store already holds, by (request key, occurrence of that key in its batch), which
    are not asked again. ``persistent``: the batches share one store, so a later batch finds what an earlier one
    generated for the same text (a counterfactual prompt equal to an original one). ``max_n``: samples one request
    may ask for; ``n_may_be_ignored``: the server may turn out to ignore ``n`` (then one request per sample).
    """
    max_n = max(1, int(max_n))
    initial = stored or {}
    done: dict[tuple[str, int], set[int]] = {key: set(samples) for key, samples in initial.items()}
    held: set[tuple[str, int, int]] = set()  # (text, occurrence, sample) found in the store before the run
    overhead = TOKENS_PER_REQUEST + TOKENS_PER_MESSAGE * (2 if system_prompt is not None else 1)
    system_tokens = counter.count(system_prompt or "")
    if tools:
        overhead += counter.count(json.dumps(list(tools), ensure_ascii=False))
    prompt_tokens_of: dict[str, int] = {}
    samples = requests = requests_max = prompt_tokens = prompt_tokens_max = 0
    for prompts, count in batches:
        seen: collections.Counter[str] = collections.Counter()
        fresh: dict[tuple[str, int], set[int]] = {}
        for item in prompts:
            prompt = request_key(item, context_placement)
            key = (prompt, seen[prompt])
            seen[prompt] += 1
            have = done.get(key, set())
            missing = sum(1 for s in range(count) if s not in have)
            held.update((*key, s) for s in initial.get(key, ()) if s < count)
            fresh[key] = set(range(count))
            if not missing:
                continue
            if prompt not in prompt_tokens_of and isinstance(item, Conversation):
                messages = prompt_messages(item, system_prompt, context_placement)
                prompt_tokens_of[prompt] = (
                    overhead - TOKENS_PER_MESSAGE * (2 if system_prompt is not None else 1)
                    + sum(TOKENS_PER_MESSAGE + counter.count(_message_words(m)) for m in messages)
                )  # fmt: skip
            elif prompt not in prompt_tokens_of:
                prompt_tokens_of[prompt] = overhead + system_tokens + counter.count(prompt)
            asked = math.ceil(missing / max_n)
            asked_max = missing if n_may_be_ignored else asked
            samples += missing
            requests += asked
            requests_max += asked_max
            prompt_tokens += asked * prompt_tokens_of[prompt]
            prompt_tokens_max += asked_max * prompt_tokens_of[prompt]
        if persistent:
            for key, got in fresh.items():
                done.setdefault(key, set()).update(got)
    return GenerationEstimate(
        samples=samples,
        already_stored=len(held),
        requests=requests,
        requests_max=requests_max,
        prompt_tokens=prompt_tokens,
        prompt_tokens_max=prompt_tokens_max,
        completion_tokens_max=None if max_tokens is None else samples * max_tokens,
        max_tokens=max_tokens,
        token_method=counter.method,
        token_tolerance=counter.tolerance,
        prices=prices,
    )


def stored_samples(path: str | os.PathLike[str] | None, job: str) -> dict[str, dict[int, set[int]]] | None:
    """The samples of ``job`` the store at ``path`` holds and a run would not ask again (ok and filtered; errors are
    asked again), as {prompt hash: {occurrence: samples}}. Read-only: a missing file is an empty store, and a file
    that cannot be read gives None (unknown)."""
    if path is None or str(path) == ":memory:" or not Path(path).is_file():
        return {}
    try:
        db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        rows = db.execute(
            "SELECT prompt_hash, occurrence, sample FROM responses WHERE job = ? AND grp = '' AND status != 'error'",
            (job,),
        ).fetchall()
    except sqlite3.Error:  # not an evenhand store yet, or locked: count nothing as stored
        return None
    finally:
        db.close()
    out: dict[str, dict[int, set[int]]] = {}
    for phash, occurrence, sample in rows:
        out.setdefault(phash, {}).setdefault(int(occurrence), set()).add(int(sample))
    return out


def run_job(client: ChatClient, system_prompt: str | None, params: SamplingParams) -> str:
    """The store's job key of a run, as the runner computes it (tests hold the two equal)."""
    config = {"client": public_config(client.identity), "system_prompt": system_prompt, "params": params.as_dict()}
    return job_key(config)


def estimate_for_client(
    batches: Sequence[Batch],
    client: Any,
    *,
    system_prompt: str | None = None,
    temperature: float = 1.0,
    max_tokens: int | None = None,
    seed: int | None = None,
    store: ResponseStore | str | os.PathLike[str] | None = DEFAULT_STORE,
    prices: Prices | None = None,
    tools: Sequence[Any] | None = None,
    tool_choice: Any = None,
    response_format: Any = None,
    context_placement: ContextPlacement = "user",
) -> GenerationEstimate:
    """The estimate for running ``batches`` with ``client`` (a built :class:`ChatClient`; anything else counts as
    a client of one sample per request whose store rows are unknown), subtracting what ``store`` already holds.
    ``tools``, ``tool_choice``, ``response_format``, ``context_placement``: as the run sends them (they are part of
    its job key and of the prompt tokens)."""
    model: str | None = None
    max_n, undecided = 1, False
    stored: dict[tuple[str, int], set[int]] = {}
    if isinstance(client, ChatClient):
        model = _model_name(client.identity)
        max_n = max(1, int(client.max_n))
        undecided = max_n > 1 and getattr(client, "n_supported", False) is None  # n: auto, not decided yet
        path = store.path if isinstance(store, ResponseStore) else store
        params = SamplingParams(
            float(temperature), max_tokens, seed, None if tools is None else tuple(tools), tool_choice, response_format
        )
        job = run_job(client, system_prompt, params)
        held = stored_samples(path, job) or {}
        if held:
            texts = {request_key(prompt, context_placement) for prompts, _ in batches for prompt in prompts}
            by_hash = {prompt_hash(t): t for t in texts}
            stored = {
                (by_hash[h], occ): samples
                for h, occurrences in held.items()
                if h in by_hash
                for occ, samples in occurrences.items()
            }
    elif isinstance(client, Mapping):
        model = client.get("model")
    return estimate_batches(
        batches,
        counter=token_counter(model if isinstance(model, str) else None),
        system_prompt=system_prompt,
        max_tokens=max_tokens,
        max_n=max_n,
        n_may_be_ignored=undecided,
        stored=stored,
        persistent=store is not None,
        prices=prices,
        tools=tools,
        context_placement=context_placement,
    )


def _model_name(identity: Mapping[str, Any]) -> str | None:
    for key in ("model", "model_name", "model_id"):
        value = identity.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def estimate_generation(
    prompts: Sequence[Any],
    client: Any = None,
    *,
    count: int = 25,
    system_prompt: str | None = None,
    temperature: float = 1.0,
    max_tokens: int | None = None,
    seed: int | None = None,
    store: ResponseStore | str | os.PathLike[str] | None = DEFAULT_STORE,
    prices: Prices | Mapping[str, float] | None = None,
    tools: Sequence[Any] | None = None,
    tool_choice: Any = None,
    response_format: Any = None,
    context_placement: ContextPlacement = "user",
) -> GenerationEstimate:
    """What :func:`evenhand.generation.generate` with the same arguments would send, before it sends anything.

    ``prompts``: texts or conversations, as :func:`generate` takes them. ``prices``: ``Prices(input_per_1m,
    output_per_1m)`` or ``{"input_per_1m": ..., "output_per_1m": ...}``. The client is built (``get_client``) but
    not called; the store is only read.
    """
    from .clients.factory import get_client

    if isinstance(prices, Mapping):
        prices = Prices(**prices)
    return estimate_for_client(
        [(as_prompt_list(prompts, "prompts"), count)], get_client(client), system_prompt=system_prompt,
        temperature=temperature, max_tokens=max_tokens, seed=seed, store=store, prices=prices, tools=tools,
        tool_choice=tool_choice, response_format=response_format, context_placement=context_placement,
    )  # fmt: skip


def _message_words(message: dict[str, Any]) -> str:
    """What a message sends the model as words: its content and its tool calls' names and arguments."""
    calls = message.get("tool_calls") or ()
    called = " ".join(f"{c['function']['name']} {c['function']['arguments']}" for c in calls)
    content = message.get("content") or ""
    if isinstance(content, list):  # text beside images: the text (an image's tokens are the provider's to count)
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return f"{content} {called}".strip()
