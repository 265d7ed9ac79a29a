"""Asking an LLM many questions whose answers must follow a fixed format: the machinery the cue reader and the pair
judge share.

Every question is one request through the generation runner (:func:`~evenhand.generation.runner.generate_items`):
concurrent, paced, retried on transport faults, stopped by the circuit breaker, stored in the resumable SQLite store.
An answer that does not parse is asked again, with the next seed and some temperature (the same seed and
temperature 0 would give the same answer), at most ``max_attempts`` times in all; after that
:class:`AssistantFormatError` names how many questions failed and why. Each attempt is its own job in the store
(its seed is part of the job key), so a re-run reads every earlier attempt back and asks only what is missing.

Each question is framed by delimiters unique to it (:func:`tag`), which the text it quotes cannot contain: a prompt
or a reply that holds instructions or fake delimiters cannot forge an answer.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from evenhand.conversation import Prompt
from evenhand.errors import InputError, RunFailure

from ._sync import run_sync
from .clients.base import ChatClient
from .clients.factory import get_client
from .cost import Prices
from .runner import generate_items
from .settings import GenerationSettings

T = TypeVar("T")

#: Answers that did not parse are asked again up to this many attempts in all (the first one included).
MAX_ATTEMPTS = 3
#: The temperature of a second or later attempt when the first one's is lower: a retry must be able to differ.
RETRY_TEMPERATURE = 0.7


class AssistantFormatError(RunFailure):
    """An assistant (reader or judge) gave no usable answer to some questions after every attempt."""


class AnswerFormatError(ValueError):
    """One answer does not follow the fixed format (the message says how); it is asked again."""


def tag(*texts: str) -> str:
    """A short tag, from the texts a question quotes, that none of them contains: the question's delimiters
    (``<<CUES-{tag}>>``) cannot occur in what it quotes. The same texts give the same tag (the store can resume)."""
    digest = hashlib.sha256("\x00".join(texts).encode("utf-8")).hexdigest()
    for start in range(0, len(digest) - 8):
        candidate = digest[start : start + 8]
        if not any(candidate in text for text in texts):
            return candidate
    raise InputError("cannot find a delimiter that the quoted texts do not contain")  # 57 tries: never in practice


def block(answer: str, name: str, key: str) -> str:
    """The text of the last ``<<NAME-key>> ... <</NAME-key>>`` block of an answer (a model may think aloud first)."""
    found = re.findall(rf"<<{name}-{key}>>(.*?)<</{name}-{key}>>", answer, flags=re.S)
    if not found:
        raise AnswerFormatError(f"no <<{name}-{key}>> ... <</{name}-{key}>> block")
    text = found[-1].strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, flags=re.S)
    return fenced.group(1) if fenced else text


def json_object_block(answer: str, name: str, key: str) -> dict[str, Any]:
    """The JSON object in the last ``<<NAME-key>>`` block of an answer; :class:`AnswerFormatError` when there is no
    such block or it holds something else."""
    try:
        data = json.loads(block(answer, name, key))
    except json.JSONDecodeError as exc:
        raise AnswerFormatError(f"the <<{name}-{key}>> block is not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise AnswerFormatError(f"the <<{name}-{key}>> block is not a JSON object")
    return data


@dataclass
class Asked(Generic[T]):
    """The parsed answers, in question order, and what asking took."""

    answers: list[T]
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: list[int] = field(default_factory=list)  # per question, the attempt whose answer was used (1-based; 0:
    # none was usable)


def ask(
    questions: Sequence[str],
    parse: Callable[[int, str], T],
    client: ChatClient,
    settings: GenerationSettings,
    *,
    system_prompt: str,
    what: str,
    max_attempts: int = MAX_ATTEMPTS,
    required: bool = True,
) -> Asked[T | None]:
    """Ask every question, parse each answer with ``parse(index, text)`` (raising :class:`AnswerFormatError` when
    it does not follow the format), and ask the failed ones again up to ``max_attempts`` attempts in all.

    ``settings``: how to generate (store, pace, retries, seed, temperature, max_tokens); one sample per question.
    ``what`` names the questions in progress bars and errors ("reading cues"). ``required``: a question without a
    usable answer after every attempt raises :class:`AssistantFormatError` (True) or is answered None (False).
    """
    if max_attempts < 1:
        raise InputError(f"max_attempts must be >= 1, got {max_attempts}")
    answers: dict[int, T] = {}
    used: dict[int, int] = {}
    problems: dict[int, str] = {}
    pending = list(range(len(questions)))
    asked = Asked[T | None](answers=[])
    seed = settings.seed if settings.seed is not None else 0
    for attempt in range(max_attempts):
        if not pending:
            break
        temperature = settings.temperature if attempt == 0 else max(settings.temperature, RETRY_TEMPERATURE)
        chosen = settings.replace(count=1, system_prompt=system_prompt, seed=seed + attempt, temperature=temperature)
        texts: list[Prompt] = [questions[i] for i in pending]  # every question a bare text
        label = what if attempt == 0 else f"{what} (attempt {attempt + 1})"
        result = run_sync(generate_items(texts, [None] * len(texts), list(range(len(texts))), client, chosen, label))
        still: list[int] = []
        for i, record in zip(pending, result.records, strict=True):
            asked.requests += not record.from_store
            if not record.from_store:
                asked.prompt_tokens += record.prompt_tokens or 0
                asked.completion_tokens += record.completion_tokens or 0
            if record.status != "ok" or record.response is None:
                problems[i] = f"no answer ({record.status}: {record.error or 'filtered'})"
                still.append(i)
                continue
            try:
                answers[i] = parse(i, record.response)
                used[i] = attempt + 1
            except AnswerFormatError as exc:
                problems[i] = f"{exc} (answer began {record.response[:80]!r})"
                still.append(i)
        pending = still
    if pending and required:
        first = pending[0]
        raise AssistantFormatError(
            f"{what}: {len(pending)} of {len(questions)} questions got no usable answer after {max_attempts} attempts "
            f"each (question {first}: {problems[first]}); the answers so far are in the store, so running again "
            "resumes"
        )
    asked.answers = [answers.get(i) for i in range(len(questions))]
    asked.attempts = [used.get(i, 0) for i in range(len(questions))]
    return asked


class LLMAssistant:
    """What the LLM reader and the LLM judge share: the client, how it is asked (one sample per question; by default
    temperature 0, seed 0 and ``max_tokens`` of the kind), and what asking has cost (requests sent, not read back from
    the store, and their tokens, over every call)."""

    #: Tokens an answer may take when the settings do not say (a subclass sets its own).
    max_tokens: int = 256

    def __init__(
        self,
        client: Any = None,
        settings: GenerationSettings | None = None,
        *,
        max_attempts: int = MAX_ATTEMPTS,
        prices: Prices | None = None,
    ) -> None:
        self.client: ChatClient = get_client(client)
        base = settings or GenerationSettings(temperature=0.0, seed=0, max_tokens=self.max_tokens)
        self.settings = base.replace(count=1)
        self.max_attempts = max_attempts
        self.prices = prices
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def usage(self) -> dict[str, Any]:
        """What asking has cost so far: requests sent (answers read back from the store are free), the tokens the
        server reported for them, and their cost at ``prices`` (None without prices)."""
        cost = self.prices.cost(self.prompt_tokens, self.completion_tokens) if self.prices is not None else None
        return {
            "model": self.describe(),
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": cost,
        }

    def describe(self) -> str:
        return self.client.describe()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"

    def ask(
        self,
        questions: Sequence[str],
        parse: Callable[[int, str], T],
        *,
        system_prompt: str,
        what: str,
        max_attempts: int | None = None,
        required: bool = True,
    ) -> list[T | None]:
        """:func:`ask` with this assistant's client and settings, counting what it sent."""
        asked = ask(
            questions, parse, self.client, self.settings, system_prompt=system_prompt, what=what,
            max_attempts=max_attempts or self.max_attempts, required=required,
        )  # fmt: skip
        self.requests += asked.requests
        self.prompt_tokens += asked.prompt_tokens
        self.completion_tokens += asked.completion_tokens
        return asked.answers
