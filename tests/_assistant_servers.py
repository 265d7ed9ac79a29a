"""Loopback OpenAI-compatible servers that play an LLM reader of identity cues and an LLM judge of paired replies.

Each reads the request evenhand sends (the quoted prompt or replies between their delimiters) and answers in the
fixed format, the way a model of a given quality would:

* readers: ``good`` (lists the labelled cues of the shipped set, and a few known cues elsewhere; rewrites cues
  faithfully), ``inventing`` (adds cues that are not in the prompt, and rewrites more than the cues), ``greedy``
  (claims real but meaningless words of every prompt: caught by the audit's precision), ``garbled`` (never answers
  in the format);
* judges (:class:`JudgeBehaviour`): ``good`` (reads the replies' markers), ``lazy`` (always "neither"),
  ``position`` (always the reply shown first), ``coin`` (random), ``garbled`` (never in the schema).

Replies in the judge tests carry what a good judge would see as a marker word (``[worse]``) or as the labelled set's
known worse side; the loopback judge reads them from the request. Everything is deterministic.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from evenhand.text.cue_audit import labelled_prompts
from tests._loopback import JsonHandler, serving

# cues a good reader knows outside the labelled set: word -> (attribute, group)
KNOWN_CUES: dict[str, tuple[str, str]] = {
    "hijab": ("religion", "muslim"),
    "synagogue": ("religion", "jewish"),
    "church": ("religion", "christian"),
    "temple": ("religion", "hindu"),
    "wheelchair": ("disability", "disabled"),
    "she": ("gender", "female"),
    "he": ("gender", "male"),
    "her": ("gender", "female"),
    "his": ("gender", "male"),
}
# what a good rewriter puts in place of a cue, per group
REPLACEMENT = {
    "muslim": "hijab", "jewish": "kippah", "christian": "cross", "hindu": "bindi", "buddhist": "mala",
    "atheist": "cap", "female": "she", "male": "he", "disabled": "wheelchair", "nondisabled": "bicycle",
}  # fmt: skip

_PROMPT = re.compile(r"<<PROMPT-(\w+)>>\n(.*?)\n<</PROMPT-\1>>", re.S)
_ATTRIBUTE = re.compile(r"^- (\w+): (.+)$", re.M)


def _labelled() -> dict[str, list[tuple[str, str, str | None]]]:
    return {item.prompt: list(item.cues) for item in labelled_prompts()}


def _cues_for(prompt: str, asked: dict[str, list[str]], labelled: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {a: [] for a in asked}
    if prompt in labelled:
        found = [(t, a, g) for t, a, g in labelled[prompt]]
    else:
        words = re.findall(r"\w+", prompt)
        found = [(w, *KNOWN_CUES[w.lower()]) for w in words if w.lower() in KNOWN_CUES]
    for text, attribute, group in found:
        if attribute in out:
            out[attribute].append({"cue": text, "group": group})
    return out


def _chat(contents: list[str], prompt_tokens: int = 10) -> dict[str, Any]:
    choices = [
        {"index": i, "message": {"role": "assistant", "content": c}, "finish_reason": "stop"}
        for i, c in enumerate(contents)
    ]
    completion = sum(max(1, len(c) // 4) for c in contents)
    return {
        "id": "chatcmpl-assistant",
        "object": "chat.completion",
        "choices": choices,
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion},
    }


def _rewrite(prompt: str, request: str, faithful: bool) -> str:
    cues = re.findall(r"'([^']+)'", request.split("by these cues:", 1)[1].split("\n", 1)[0])
    group = re.search(r"so that the person is (\w+) instead", request)
    target = REPLACEMENT.get(group.group(1) if group else "", "someone")
    text = prompt
    for cue in cues:
        text = re.sub(rf"(?<!\w){re.escape(cue)}(?!\w)", target, text)
    return text if faithful else text + " Please answer kindly."


def reader_answer(behaviour: str, system: str, request: str, counter: dict[str, int]) -> str:
    """What a reader of ``behaviour`` answers to one request."""
    found = _PROMPT.search(request)
    assert found, request
    key, prompt = found.group(1), found.group(2)
    if behaviour == "garbled":
        return "I think the prompt mentions a woman."
    if "counterfactual" in system:  # a rewrite
        return f"Sure.\n<<VERSION-{key}>>{_rewrite(prompt, request, behaviour == 'good')}<</VERSION-{key}>>"
    asked = {name: [g.strip() for g in groups.split(",")] for name, groups in _ATTRIBUTE.findall(request)}
    cues = _cues_for(prompt, asked, _labelled())
    if behaviour == "inventing":
        for attribute in cues:  # a cue for every attribute, never in any prompt
            cues[attribute].append({"cue": "headscarf of faith", "group": None})
    if behaviour == "greedy":  # real words, but no cue: the first and last word of every prompt, for every attribute
        words = re.findall(r"[A-Za-z]+", prompt)
        for attribute in cues:
            cues[attribute] += [{"cue": words[0], "group": None}, {"cue": words[-1], "group": None}]
    counter["requests"] = counter.get("requests", 0) + 1
    return f"<<CUES-{key}>>{json.dumps(cues)}<</CUES-{key}>>"


# ----------------------------------------------------------------------------------------------------------- judge
_REPLY = re.compile(r"<<REPLY-([12])-(\w+)>>\n(.*?)\n<</REPLY-\1-\2>>", re.S)
WORSE_MARK = "[worse]"


def labelled_judgement(reply_1: str, reply_2: str) -> str | None:
    """What a good judge sees in a pair of the shipped labelled set, in whichever order it is shown."""
    labels = _labelled_pairs()
    if (reply_1, reply_2) in labels:
        return {"a": "1", "b": "2", "neither": "neither"}[labels[(reply_1, reply_2)]]
    if (reply_2, reply_1) in labels:
        return {"a": "2", "b": "1", "neither": "neither"}[labels[(reply_2, reply_1)]]
    return None


@functools.lru_cache(maxsize=1)
def _labelled_pairs() -> dict[tuple[str, str], str]:
    from evenhand.generation.judge_audit import labelled_pairs

    return {(p.item.reply_a, p.item.reply_b): p.worse for p in labelled_pairs()}


def judge_answer(behaviour: str, request: str, known: Callable[[str, str], str | None] | None = None) -> str:
    """What a judge of ``behaviour`` answers: which of the two quoted replies is treated worse."""
    replies = {side: text for side, _, text in _REPLY.findall(request)}
    key = next(k for _, k, _ in _REPLY.findall(request))
    if behaviour == "garbled":
        return "I think reply 1 is better."
    if behaviour == "lazy":
        worse = "neither"
    elif behaviour == "position":
        worse = "1"
    elif behaviour == "coin":
        worse = ("1", "2", "neither")[int(hashlib.sha256(request.encode()).hexdigest(), 16) % 3]
    else:  # good: what it knows of the labelled pairs, the detail levels of the judged model, a marker word
        side = labelled_judgement(replies["1"], replies["2"]) or quality_judge(replies["1"], replies["2"])
        if known is not None:
            side = known(replies["1"], replies["2"]) or side
        if side is None:
            marked = [s for s, text in replies.items() if WORSE_MARK in text]
            side = marked[0] if len(marked) == 1 else "neither"
        worse = side
    answer = {"worse": worse, "harm": None if worse == "neither" else "less help", "reason": "replies compared"}
    if worse != "neither":
        answer["reason"] = f"reply {worse} gives less help than the other"
    return f"<<VERDICT-{key}>>{json.dumps(answer)}<</VERDICT-{key}>>"


# ------------------------------------------------------------------------------------------------ the judged model
_LEVEL = re.compile(r"detail level (\d)")
#: words that make a prompt the planted model's disfavoured version
PLANTED_CUES = re.compile(r"(?<!\w)(she|her|woman|Mrs\.)(?!\w)", re.I)


def _draw(*parts: object) -> float:
    return int(hashlib.sha256("\x00".join(map(str, parts)).encode()).hexdigest()[:12], 16) / 16**12


def model_answer(behaviour: str, prompt: str, seed: object, planted_rate: float = 0.4) -> str:
    """A judged model's reply: help at a "detail level" from 1 to 5 drawn from the prompt and the request's seed, the
    same way for every group (``fair``); ``planted``: a version with a female cue gets 3 levels less, at rate
    ``planted_rate``."""
    level = 1 + int(_draw(prompt, seed, "level") * 5)
    if behaviour == "planted" and PLANTED_CUES.search(prompt) and _draw(prompt, seed, "planted") < planted_rate:
        level = max(1, level - 3)
    return f"Here is my answer at detail level {level}: " + " ".join(["step"] * (3 * level)) + "."


def quality_judge(reply_1: str, reply_2: str) -> str | None:
    """A good judge of the model's replies: the one with clearly less detail (2 levels or more) is worse."""
    levels = [_LEVEL.search(r) for r in (reply_1, reply_2)]
    if levels[0] is None or levels[1] is None:
        return None
    one, two = int(levels[0].group(1)), int(levels[1].group(1))
    return "1" if two - one >= 2 else "2" if one - two >= 2 else "neither"


@contextmanager
def assistant_server(
    reader: str = "good",
    judge: str = "good",
    known: Callable[[str, str], str | None] | None = None,
    model: str = "fair",
    planted_rate: float = 0.4,
) -> Iterator[tuple[str, dict[str, int]]]:
    """``(base_url, counter)`` of a loopback server that answers reader requests as ``reader``, judge requests as
    ``judge`` (``known(reply_1, reply_2)`` -> "1", "2", "neither" or None: a good judge's knowledge) and any other
    request as the judged ``model`` (``fair`` or ``planted``, :func:`model_answer`)."""
    counter: dict[str, int] = {}

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            messages = body["messages"]
            system = next((m["content"] for m in messages if m["role"] == "system"), "")
            user = messages[-1]["content"]
            counter["total"] = counter.get("total", 0) + 1
            if "<<REPLY-" in user:
                contents = [judge_answer(judge, user, known)]
            elif "<<PROMPT-" in user:
                contents = [reader_answer(reader, system, user, counter)]
            else:  # the judged model: n samples, each its own draw
                n = int(body.get("n") or 1)
                contents = [model_answer(model, user, (body.get("seed"), i), planted_rate) for i in range(n)]
            self.reply(200, _chat(contents, prompt_tokens=len(user) // 4))

    with serving(Handler) as url:
        yield url, counter


def client_spec(url: str) -> dict[str, Any]:
    return {"provider": "openai", "base_url": url, "model": "loopback-assistant", "api_key_env": "NO_KEY_NEEDED"}


# ------------------------------------------------------------------------------------- the same, as Python functions
def good_judge(prompt: str) -> str:
    """A good judge as a callable client (``{"provider": "callable", "options": {"function": good_judge}}``)."""
    return judge_answer("good", prompt)


def good_reader(prompt: str, system_prompt: str | None = None) -> str:
    """A good reader (and rewriter) as a callable client."""
    return reader_answer("good", system_prompt or "", prompt, {})


#: the assistants as model sections, for assess(judge=..., reader=...)
JUDGE: dict[str, Any] = {"provider": "callable", "options": {"function": good_judge}}
READER: dict[str, Any] = {"provider": "callable", "options": {"function": good_reader}}
