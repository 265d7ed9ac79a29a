"""The four public ways to generate: :func:`generate` and :func:`generate_counterfactual`, and their coroutines
:func:`agenerate` and :func:`agenerate_counterfactual`.

Each takes its settings as keywords (declared once, as the fields of
:class:`~evenhand.generation.settings.GenerationSettings`) or as ``settings=`` (keywords given as well win), and
hands one settings object to the runner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..conversation import as_prompt_list
from ._sync import run_sync
from .inputs import counterfactual_inputs
from .result import GenerationResult
from .runner import generate_items
from .settings import GenerationSettings, with_setting_keywords

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .settings import GenerationKeywords


@with_setting_keywords
async def agenerate(
    prompts: Any,
    client: Any = None,
    *,
    settings: GenerationSettings | None = None,
    **keywords: Unpack[GenerationKeywords],
) -> GenerationResult:
    """Async version of :func:`generate` (same arguments)."""
    chosen = GenerationSettings.from_keywords(settings, keywords, "agenerate")
    items = as_prompt_list(prompts, "prompts")
    return await generate_items(items, [None] * len(items), list(range(len(items))), client, chosen, "generating")


@with_setting_keywords
def generate(
    prompts: Any,
    client: Any = None,
    *,
    settings: GenerationSettings | None = None,
    **keywords: Unpack[GenerationKeywords],
) -> GenerationResult:
    """Generate ``count`` responses for every prompt and return them with their status.

    Parameters
    ----------
    prompts : list, tuple, NumPy array or pandas Series of texts or conversations
        (:class:`~evenhand.conversation.Conversation`, or lists of ``{"role", "content"}`` messages): a
        conversation is sent as its messages (its own system turn instead of ``system_prompt``, its retrieved
        documents where ``context_placement`` says), and the reply to its last user turn is the response.
    client : anything :func:`get_client` accepts: a client object, a LangChain chat model, a callable, a config
        dict, ``"local"`` or None (the bundled SmolLM2).
    settings : a :class:`~evenhand.generation.GenerationSettings` holding every argument below at once (from a
        config: :meth:`GenerationSettings.from_sections`); keywords given as well override it.
    count : samples per prompt (25 is the paper's convention for toxicity metrics).
    system_prompt, temperature, max_tokens, seed : sent with every request; with ``seed`` each separate request
        uses ``seed + sample`` so that samples differ.
    tools, tool_choice, response_format : what the reply may be, sent with every request (OpenAI-compatible
        servers, LangChain models, callables that take them): function definitions the model may call (a reply
        that calls tools is kept as the text :func:`evenhand.structured.tool_reply_text` writes), which of them
        (``"required"``, ...), and e.g. ``{"type": "json_object"}``. Part of the job key.
    context_placement : where a conversation's retrieved documents go: ``"user"`` (default: numbered, before the
        request in the last user message) or ``"system"`` (at the end of the system message).
    store : SQLite file (default ``./evenhand_generations.sqlite``), a :class:`ResponseStore`, or None to keep
        nothing on disk. Re-running the same job with the same store requests only what is missing.
    concurrency : a fixed number of requests in flight. None (default): the client's default (16 for an
        OpenAI-compatible server), and for a server client a limit that adapts to the server's pace
        (:mod:`evenhand.generation.pacing`): it rises while answers come back clean and halves on 429/503 (honouring
        ``Retry-After``), between 1 and ``max_concurrency``.
    max_concurrency : the most requests in flight, ever (default 64 for the adaptive limit; a fixed
        ``concurrency`` above it is an error).
    requests_per_minute, tokens_per_minute : client-side rate limits.
    max_retries, backoff, max_retry_delay : retries of a transient failure (429, 5xx, 408/409/425, timeout,
        dropped connection, malformed body, an answer with zero choices, or an empty answer: no text, "" or only
        whitespace) wait ``backoff * 2**k`` seconds with jitter, or the server's ``Retry-After``, both capped at
        ``max_retry_delay``; after ``max_retries`` retries the sample is recorded as an error whose text says
        why (``"gave up after 9 attempts: HTTP 503 Service Unavailable from ..."``, ``"... empty response"``).
        The defaults (8 retries, backoff 0.25 s) lose 0.3**9 = 0.002 % of samples when 30 % of requests fail.
    progress : show a rich progress bar.
    retry_failed : request stored errors again on a re-run (successful and filtered samples never are).
    max_consecutive_failures : the run-wide circuit breaker (:mod:`evenhand.generation.breaker`). The run stops
        with :class:`GenerationStoppedError` after this many units (requests, after their retries) in a row got no
        answer or a 5xx, or after the same refusal for 3 different prompts in a row (401/402/404/407 or a
        redirect at any time; another 4xx with the same message before any request succeeded), or the same 403
        for 10 different prompts in a row after a success (a withdrawn permission). ``"auto"`` (default) is
        ``max(10, concurrency)``: a dead server fails every unit in flight at once, so this is about one retry
        budget (from 10 in flight on), whatever the number of prompts left. None never stops early (every unit
        spends its own budget).

    Returns
    -------
    GenerationResult
        ``.to_frame()`` has one row per prompt × sample; failed samples (including empty answers) have status
        ``"error"`` and their error text, refusals by a content filter ``"filtered"``; ``.responses`` is None for
        both, so neither is ever scored.

    Raises
    ------
    ServerUnreachableError
        when not a single request succeeded and the server stayed unreachable after all retries, or, when
        nothing has answered at all, after 4 refused connections of a request (a closed port fails in seconds);
        the message names the URL, never the key. Everything finished before is in the store.
    GenerationStoppedError
        when the circuit breaker stopped the run (see ``max_consecutive_failures``): one line with the cause (the
        status and the server's message, secrets redacted) and the samples done / failed / not attempted. What
        finished is in the store; units cut short are not, so running the same job again asks only for those,
        the failed and the missing samples.
    """
    chosen = GenerationSettings.from_keywords(settings, keywords, "generate")
    return run_sync(agenerate(prompts, client, settings=chosen))


@with_setting_keywords
async def agenerate_counterfactual(
    cf: Any,
    client: Any = None,
    *,
    settings: GenerationSettings | None = None,
    **keywords: Unpack[GenerationKeywords],
) -> GenerationResult:
    """Async version of :func:`generate_counterfactual` (same arguments)."""
    chosen = GenerationSettings.from_keywords(settings, keywords, "agenerate_counterfactual")
    prompts, groups, ids, _ = counterfactual_inputs(cf)
    return await generate_items(prompts, groups, ids, client, chosen, "counterfactual")


@with_setting_keywords
def generate_counterfactual(
    cf: Any,
    client: Any = None,
    *,
    settings: GenerationSettings | None = None,
    **keywords: Unpack[GenerationKeywords],
) -> GenerationResult:
    """Generate ``count`` responses for each counterfactual version of each prompt.

    ``cf`` is an :class:`evenhand.text.counterfactual.CounterfactualPrompts` (``cf.groups``, ``cf[group]``,
    ``cf.source_index``) or a ``{group: [prompts...]}`` dict with equally long lists. Responses are aligned by
    (prompt, sample): row ``i`` of ``result.by_group()[g]`` answers the same original prompt and sample index for
    every group ``g``, so response pairs are well defined. ``prompt_id`` is the index in the original prompt list
    (``cf.source_index``) when available. Other arguments as in :func:`generate`; the non-completion rate per
    group is ``result.non_completion_rate(by_group=True)``.
    """
    chosen = GenerationSettings.from_keywords(settings, keywords, "generate_counterfactual")
    return run_sync(agenerate_counterfactual(cf, client, settings=chosen))
