"""What the second reader and the pair judge will send, said before anything is sent (issue 38).

Both ask one question per request (:mod:`evenhand.generation.structured`), so their requests are counted as the
runner sends them, with the token counter of the generation estimate (:mod:`evenhand.generation.cost`):

* the **reader**: its audit (one request per labelled prompt, :mod:`evenhand.text.cue_audit`) and one request per
  prompt of the run, with their exact texts; what the store already holds is not asked again. The rewrites of the
  prompts only the reader flags are known only after reading: at most one request per such prompt and group.
* the **judge**: its audit (both orders of the 150 labelled pairs, exact texts) and both orders of every pair of
  replies of the run, counterfactual and same-version; a pair's question quotes two replies that do not exist yet,
  so its prompt tokens count each reply at the model's ``max_tokens`` (an upper bound).

Retries of answers that break the format are not included (as generation retries are not).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ._types import SamplingParams
from .clients.factory import get_client
from .cost import TOKENS_PER_MESSAGE, TOKENS_PER_REQUEST, GenerationEstimate, Prices, estimate_for_client
from .cue_reader import READER_MAX_TOKENS, READER_SYSTEM, cue_request
from .pair_judge import JUDGE_MAX_TOKENS, JUDGE_SYSTEM, judge_request
from .settings import GenerationSettings
from .tokens import token_counter

_UNBOUNDED_REPLY = 256  # tokens of a reply without max_tokens, as the runner estimates one (runner._EST_OUTPUT_TOKENS)


def _built(client: Any) -> Any:
    """The client to count with: built, except a spec that names code to import (counted as one sample per request,
    never imported: :func:`~evenhand.generation.cost.estimate_for_client` takes a mapping so)."""
    if isinstance(client, Mapping) and isinstance(client.get("function"), str):
        return client
    return get_client(client)


def _settings(settings: GenerationSettings | None, max_tokens: int) -> GenerationSettings:
    return settings or GenerationSettings(temperature=0.0, seed=0, max_tokens=max_tokens)


def _estimate(questions: Sequence[str], client: Any, settings: GenerationSettings, system: str,
              prices: Prices | None) -> GenerationEstimate:  # fmt: skip
    params = SamplingParams(float(settings.temperature), settings.max_tokens, settings.seed or 0)
    return estimate_for_client(
        [(list(questions), 1)], client, system_prompt=system, temperature=params.temperature,
        max_tokens=params.max_tokens, seed=params.seed, store=settings.store, prices=prices,
    )  # fmt: skip


def added(first: GenerationEstimate, second: GenerationEstimate) -> GenerationEstimate:
    """Two estimates of the same client as one (requests, samples and tokens add up)."""
    completion = (
        None
        if first.completion_tokens_max is None or second.completion_tokens_max is None
        else first.completion_tokens_max + second.completion_tokens_max
    )
    return replace(
        first,
        samples=first.samples + second.samples,
        already_stored=first.already_stored + second.already_stored,
        requests=first.requests + second.requests,
        requests_max=first.requests_max + second.requests_max,
        prompt_tokens=first.prompt_tokens + second.prompt_tokens,
        prompt_tokens_max=first.prompt_tokens_max + second.prompt_tokens_max,
        completion_tokens_max=completion,
    )


def estimate_reader(
    prompts: Sequence[str],
    attributes: Mapping[str, Sequence[str]],
    client: Any = None,
    *,
    settings: GenerationSettings | None = None,
    audit: bool = True,
    prices: Prices | None = None,
) -> GenerationEstimate:
    """The reader's requests and tokens for ``prompts`` and ``attributes`` (``{attribute: groups}``), its audit
    included (``audit=True``), as :class:`~evenhand.generation.LLMCueReader` with ``settings`` sends them."""
    from evenhand.text.cue_audit import audit_attributes, labelled_prompts

    chosen = _settings(settings, READER_MAX_TOKENS)
    built = _built(client)
    questions = [cue_request(p, attributes) for p in prompts]
    if audit:
        audited, _ = audit_attributes(attributes)
        questions = [cue_request(item.prompt, audited) for item in labelled_prompts()] + questions
    return _estimate(questions, built, chosen, READER_SYSTEM, prices)


def estimate_judge(
    pairs: Sequence[tuple[str, str]],
    client: Any = None,
    *,
    samples: int = 1,
    same_version: int = 0,
    reply_max_tokens: int | None = None,
    settings: GenerationSettings | None = None,
    audit: bool = True,
    prices: Prices | None = None,
) -> GenerationEstimate:
    """The judge's requests and tokens: both orders of ``samples`` reply pairs for each counterfactual prompt pair
    in ``pairs`` (``(version A, version B)``), both orders of ``same_version`` pairs of two replies to one version,
    and its audit (``audit=True``). A reply quoted in a question counts at ``reply_max_tokens`` (the judged model's
    ``max_tokens``; None: 256 tokens, what the runner assumes of an unbounded reply)."""
    from .judge_audit import labelled_pairs

    chosen = _settings(settings, JUDGE_MAX_TOKENS)
    built = _built(client)
    model = built.get("model") if isinstance(built, Mapping) else getattr(built, "model", None)
    counter = token_counter(model if isinstance(model, str) else None)
    asked = [(p.item.prompt_a, p.item.reply_a, p.item.prompt_b, p.item.reply_b) for p in labelled_pairs()]
    questions = [judge_request(*q) for a, ra, b, rb in asked for q in ((a, ra, b, rb), (b, rb, a, ra))]
    audit_part = _estimate(questions if audit else [], built, chosen, JUDGE_SYSTEM, prices)
    n_pairs = len(pairs) * samples + same_version
    overhead = TOKENS_PER_REQUEST + 2 * TOKENS_PER_MESSAGE + counter.count(JUDGE_SYSTEM)
    template = counter.count(judge_request("", "", "", ""))
    reply = reply_max_tokens if reply_max_tokens is not None else _UNBOUNDED_REPLY
    per_version = [counter.count(a) + counter.count(b) for a, b in pairs]
    mean_versions = sum(per_version) / len(per_version) if per_version else 0.0
    prompt_tokens = math.ceil(2 * n_pairs * (overhead + template + mean_versions + 2 * reply))
    run_part = replace(
        audit_part, samples=2 * n_pairs, already_stored=0, requests=2 * n_pairs, requests_max=2 * n_pairs,
        prompt_tokens=prompt_tokens, prompt_tokens_max=prompt_tokens,
        completion_tokens_max=None if chosen.max_tokens is None else 2 * n_pairs * chosen.max_tokens,
    )  # fmt: skip
    return added(audit_part, run_part)
