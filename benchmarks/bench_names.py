"""Personal names (issue 28): precision and recall of name detection, the speed of FTU with names, the name data's
memory.

Detection is measured on tests/data/name_detection.json (prompts labelled with the persons they name; half name
none, many of those with look-alikes: "Washington approved the new rule", "Georgia Power", "Morgan Stanley"). A
person counts as found when :func:`evenhand.text.names.find_people` returns exactly the labelled name as written
(title excluded); a prompt counts as flagged when it finds any person.

Speed: ``check_ftu`` on 10,000 prompts of ~40 words (the bench_text.py prompts, with a personal name in about a
third of them), gender and race, names on and off; memory: the bytes the name index takes (tracemalloc).

    .venv/bin/python benchmarks/bench_names.py [--n 10000] [--repeats 5]

Issue 33's speed goals only (``--issue33``): FTU with names (gender and race) on 2,500 prompts against LangFair's
word-only FTU in one run (at least 30x), and race FTU with full-name evidence per 10,000 prompts (at most 1 s); the
fastest of ``--repeats`` runs, wall and CPU time, with the load average before and after each figure. LangFair 0.8.0
runs in the Python given by ``--langfair`` (default ``.venv-langfair/bin/python``, from benchmarks/setup_langfair.sh;
or ``EVENHAND_LANGFAIR_PYTHON``).

    .venv/bin/python benchmarks/bench_names.py --issue33 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evenhand.text import check_ftu  # noqa: E402
from evenhand.text._names_data import name_index  # noqa: E402
from evenhand.text.names import clear_people_cache, find_people  # noqa: E402

LABELLED = ROOT / "tests" / "data" / "name_detection.json"
RACE_LABELLED = ROOT / "tests" / "data" / "name_race_labelled.json"
_FILLER = (
    "the customer asked about an account and we will review the billing statement today please call back soon "
    "with details on the order shipping delay because the product arrived damaged yesterday our team can help "
    "resolve this issue quickly for you"
).split()
_NAMES = ["Jamal Washington", "Emily Baker", "Ms. Robinson", "Wei Zhang", "Jose Garcia", "Latoya", "Mr. Nguyen"]
_LOOKALIKES = ["Washington", "May", "Grace", "Jordan", "Ford", "Brown", "Georgia", "Will"]


def measure_detection(path: Path = LABELLED) -> dict[str, Any]:
    """Person-level and prompt-level precision and recall of :func:`find_people` on the labelled prompts."""
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    tp = fp = fn = 0
    prompt_tp = prompt_fp = prompt_fn = 0
    misses: list[str] = []
    false_alarms: list[str] = []
    for item in items:
        text, expected = item["text"], set(item["persons"])
        found = {text[p.start : p.end] for p in find_people(text)}
        tp += len(found & expected)
        fp += len(found - expected)
        fn += len(expected - found)
        misses += [f"{text!r}: {name}" for name in sorted(expected - found)]
        false_alarms += [f"{text!r}: {name}" for name in sorted(found - expected)]
        prompt_tp += bool(found) and bool(expected)
        prompt_fp += bool(found) and not expected
        prompt_fn += not found and bool(expected)
    return {
        "prompts": len(items),
        "with_names": sum(1 for i in items if i["persons"]),
        "persons": tp + fn,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "prompt_precision": prompt_tp / (prompt_tp + prompt_fp) if prompt_tp + prompt_fp else 1.0,
        "prompt_recall": prompt_tp / (prompt_tp + prompt_fn) if prompt_tp + prompt_fn else 1.0,
        "misses": misses,
        "false_alarms": false_alarms,
    }


def measure_race_recall(path: Path = RACE_LABELLED) -> dict[str, Any]:
    """Per group, how many of the labelled full names race FTU reads as that group (each name in a prompt, the
    templates in turn), how many it reads as another group, and how many look-alikes (prompts that name nobody) it
    flags."""
    data = json.loads(path.read_text(encoding="utf-8"))
    templates = data["templates"]
    texts = [templates[i % len(templates)].format(name=item["name"]) for i, item in enumerate(data["items"])]
    result = check_ftu(texts, "race")
    groups: dict[str, dict[str, Any]] = {}
    for item, found in zip(data["items"], result.names, strict=True):
        row = groups.setdefault(item["group"], {"n": 0, "read": 0, "wrong": 0, "missed": []})
        row["n"] += 1
        read = {n.group for n in found}
        if item["group"] in read:
            row["read"] += 1
        elif read:
            row["wrong"] += 1
            row["missed"].append(f"{item['name']} (read as {', '.join(sorted(read))})")
        else:
            row["missed"].append(item["name"])
    for row in groups.values():
        row["recall"] = row["read"] / row["n"]
    lookalikes = check_ftu(data["lookalikes"], "race")
    return {"groups": groups, "lookalikes": len(data["lookalikes"]), "lookalikes_flagged": lookalikes.n_flagged}


def prompts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = [rng.choice(_FILLER) for _ in range(40)]
        if rng.random() < 0.33:
            words.insert(rng.randrange(len(words)), "to " + rng.choice(_NAMES))
        if rng.random() < 0.33:
            words.insert(rng.randrange(len(words)), rng.choice(_LOOKALIKES))
        words[0] = words[0].capitalize()
        out.append(" ".join(words) + ".")
    return out


_ROLES = ["data analyst", "nurse", "warehouse lead", "software engineer", "account manager", "teacher"]
_CANDIDATES = [
    "Lakisha Washington",
    "Greg Baker",
    "Jamal Jones",
    "Emily Walsh",
    "Mohammed Rahman",
    "Wei Zhang",
    "Jose Garcia",
    "DeShawn Jackson",
    "Fatima Al-Sayed",
    "Priya Patel",
    "Tyrone Robinson",
    "Anne Murphy",
]
_TASKS = [
    "Write a short rejection email to {name} for the {role} role.",
    "Draft a follow-up to {name} about the interview for the {role} role next week.",
    "Summarise the interview notes below and recommend whether to invite {name} to a second round.",
    "Write a reference request for {name}, who applied as {role}.",
    "Answer the applicant's question about the {role} role: when will the decision be made?",
    "Rewrite the job ad for a {role} so that it reads well and stays short.",
    "Write a welcome message for a new Black {role} joining the team on Monday.",
    "Draft a note to the hiring manager that the {role} shortlist is ready.",
]


def recruiting_prompts(n: int, seed: int = 11) -> list[str]:
    """Prompts of a recruiting assistant (the issue's use case): an instruction, often naming a candidate, and in
    half of them retrieved notes of ~40 words that may name an interviewer."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = rng.choice(_TASKS).format(name=rng.choice(_CANDIDATES), role=rng.choice(_ROLES))
        if rng.random() < 0.5:
            notes = " ".join(rng.choice(_FILLER) for _ in range(40))
            interviewer = rng.choice(["Ms. Robinson", "Dr. Chen", "Karen Olson", "the panel"])
            text += f" Notes from {interviewer}: {notes}."
        out.append(text)
    return out


_LANGFAIR_FTU = r"""
import contextlib, io, json, sys, time
from langfair.generator.counterfactual import CounterfactualGenerator
prompts = json.load(open(sys.argv[1]))
cg = CounterfactualGenerator()
times, cpu = [], []
for _ in range(int(sys.argv[2])):
    start, start_cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        flagged = [cg.check_ftu(prompts, attribute=a)["metadata"]["n_prompts_with_attribute_words"]
                   for a in ("gender", "race")]
    times.append(time.perf_counter() - start)
    cpu.append(time.process_time() - start_cpu)
print("RESULT " + json.dumps({"seconds": sorted(times)[len(times) // 2], "min": min(times), "cpu_min": min(cpu),
                              "flagged": flagged}))
"""
LANGFAIR_PYTHON = Path(os.environ.get("EVENHAND_LANGFAIR_PYTHON", ROOT / ".venv-langfair" / "bin" / "python"))


def ftu_against_langfair(texts: list[str], repeats: int, langfair: Path = LANGFAIR_PYTHON) -> dict[str, Any] | None:
    """FTU for gender and race on ``texts``: evenhand with names (one check per attribute, as the plan runs it, the
    memory of persons per prompt cleared first) against LangFair 0.8.0's word-only FTU, in one run (LangFair in the
    Python ``langfair``, a subprocess, ``repeats`` runs between two rounds of evenhand's, which make ``repeats`` or one
    more). ``ratio``: LangFair's median over evenhand's median; ``ratio_min`` and ``ratio_cpu``: the same of the
    fastest wall and CPU times."""
    import subprocess
    import tempfile

    def ours() -> None:
        clear_people_cache()
        for a in ("gender", "race"):
            check_ftu(texts, a)

    def words() -> None:
        for a in ("gender", "race"):
            check_ftu(texts, a, names=False)

    half = (repeats + 1) // 2  # evenhand: half its runs before LangFair's, half after (as many runs as LangFair)
    first, words_times = times(ours, half), times(words, repeats)
    flagged = [check_ftu(texts, a).n_flagged for a in ("gender", "race")]
    out: dict[str, Any] = {"evenhand flagged": flagged}
    theirs = None
    if not langfair.exists():
        print(f"(LangFair skipped: {langfair} not found; run benchmarks/setup_langfair.sh)", file=sys.stderr)
    else:
        from bench_text import _write_punkt_tab  # LangFair's NLTK tables, offline

        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "prompts.json"
            data.write_text(json.dumps(texts))
            _write_punkt_tab(Path(tmp) / "nltk_data")
            env = {**os.environ, "NLTK_DATA": str(Path(tmp) / "nltk_data"), "PYTHONWARNINGS": "ignore"}
            done = subprocess.run(
                [str(langfair), "-c", _LANGFAIR_FTU, str(data), str(repeats)],
                capture_output=True,
                text=True,
                check=False,
                env=env,
            )
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line is None:
            print(f"(LangFair failed: {done.stderr[-500:]})", file=sys.stderr)
        else:
            theirs = json.loads(line[len("RESULT ") :])
    wall, cpu = (a + b for a, b in zip(first, times(ours, half), strict=True))
    out |= {
        "evenhand names": statistics.median(wall),
        "evenhand names min": min(wall),
        "evenhand names cpu min": min(cpu),
        "evenhand words": statistics.median(words_times[0]),
        "evenhand words min": min(words_times[0]),
    }
    if theirs is not None:
        out |= {
            "langfair words": theirs["seconds"],
            "langfair words min": theirs["min"],
            "langfair words cpu min": theirs["cpu_min"],
            "langfair flagged": theirs["flagged"],
            "ratio": theirs["seconds"] / out["evenhand names"],
            "ratio_min": theirs["min"] / out["evenhand names min"],
            "ratio_cpu": theirs["cpu_min"] / out["evenhand names cpu min"],
        }
    return out


def times(fn: Any, repeats: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``repeats`` calls of ``fn``."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def timed(fn: Any, repeats: int) -> float:
    return statistics.median(times(fn, repeats)[0])


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def full_name_evidence_speed(texts: list[str], repeats: int) -> dict[str, Any]:
    """``check_ftu`` for race with names (the full-name rule: first name and surname) on ``texts``, a first reading
    each time (the memory of persons cleared): the fastest wall and CPU seconds, scaled to 10,000 prompts."""
    check_ftu(texts[:10], "race")  # name data and lexicon loaded once per process
    wall, cpu = times(lambda: (clear_people_cache(), check_ftu(texts, "race")), repeats)
    result = check_ftu(texts, "race")
    scale = 10_000 / len(texts)
    return {
        "prompts": len(texts),
        "flagged": result.n_flagged,
        "by name": result.n_named,
        "seconds per 10,000 (min)": min(wall) * scale,
        "seconds per 10,000 (median)": statistics.median(wall) * scale,
        "cpu seconds per 10,000 (min)": min(cpu) * scale,
    }


def ftu_stages(texts: list[str], repeats: int) -> dict[str, float]:
    """CPU milliseconds (fastest of ``repeats``) of the stages of FTU with names for gender and race: the lexicon
    words, a first reading of the persons, their names' signals, the unplaced subjects, and the whole check."""
    from evenhand.text import names
    from evenhand.text._engine import find_matches
    from evenhand.text.ftu import _names, _unplaced, resolve_lexicons
    from evenhand.text.name_subjects import select_subjects

    read = getattr(names, "find_people_many", None) or (lambda ts: [find_people(t) for t in ts])  # (before it)
    lexicons = {a: resolve_lexicons(a) for a in ("gender", "race")}
    check_ftu(texts[:10], "gender")
    subjects = select_subjects(texts, read(texts), "first")
    words = {a: [find_matches(lex[0], texts)] for a, lex in lexicons.items()}

    def cpu_ms(fn: Any) -> float:
        return round(min(times(fn, repeats)[1]) * 1000, 1)

    return {
        "lexicon words": cpu_ms(lambda: [find_matches(lex[0], texts) for lex in lexicons.values()]),
        "persons, first reading": cpu_ms(lambda: (clear_people_cache(), read(texts))),
        "name signals": cpu_ms(lambda: [_names(texts, lex, subjects) for lex in lexicons.values()]),
        "unplaced subjects": cpu_ms(lambda: [_unplaced(texts, lex, subjects, words[a]) for a, lex in lexicons.items()]),
        "check_ftu, names": cpu_ms(lambda: (clear_people_cache(), [check_ftu(texts, a) for a in lexicons])),
        "check_ftu, words only": cpu_ms(lambda: [check_ftu(texts, a, names=False) for a in lexicons]),
    }


def issue33_speed(repeats: int, langfair: Path = LANGFAIR_PYTHON) -> None:
    """Issue 33's speed goals: FTU with names on 2,500 prompts against LangFair's word-only FTU in one run (goal:
    at least 30x), and the seconds per 10,000 prompts of race FTU with full-name evidence (goal: at most 1 s)."""
    model = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                  if ln.startswith("model name")), "unknown")  # fmt: skip
    print(f"machine: {model}, {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for label, sample in (("bench prompts", prompts(2500)), ("recruiting prompts", recruiting_prompts(2500))):
        check_ftu(sample[:10], "gender")
        before = load_average()
        versus = ftu_against_langfair(sample, repeats, langfair)
        print(f"FTU gender + race, 2,500 {label} (load {before} -> {load_average()}):")
        print(" ", json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in (versus or {}).items()}))
        print(f"  stages, CPU ms (gender + race; load {load_average()}):", json.dumps(ftu_stages(sample, 9)))
    for label, sample in (("bench prompts", prompts(10_000)), ("recruiting prompts", recruiting_prompts(10_000))):
        before = load_average()
        speed = full_name_evidence_speed(sample, repeats)
        print(f"race FTU with full-name evidence, 10,000 {label} (load {before} -> {load_average()}):")
        print(" ", json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in speed.items()}))


def name_data_bytes() -> int:
    name_index.cache_clear()
    tracemalloc.start()
    name_index()
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--issue33", action="store_true", help="only issue 33's two speed figures")
    parser.add_argument("--langfair", type=Path, default=LANGFAIR_PYTHON, help="the Python that has LangFair 0.8.0")
    args = parser.parse_args()
    if args.issue33:
        issue33_speed(args.repeats, args.langfair)
        return
    detection = measure_detection()
    print(json.dumps({k: v for k, v in detection.items() if k not in ("misses", "false_alarms")}, indent=1))
    print("missed:", *detection["misses"], sep="\n  ")
    print("false alarms:", *detection["false_alarms"], sep="\n  ")
    race = measure_race_recall()
    print("| group | names | read as the group | read as another | recall |")
    print("|---|---:|---:|---:|---:|")
    for group, row in race["groups"].items():
        print(f"| {group} | {row['n']} | {row['read']} | {row['wrong']} | {row['recall']:.1%} |")
    print(f"look-alikes flagged for race: {race['lookalikes_flagged']} of {race['lookalikes']}")
    print("missed:", *(m for row in race["groups"].values() for m in row["missed"]), sep="\n  ")
    for label, sample in (("bench prompts", prompts(2500)), ("recruiting prompts", recruiting_prompts(2500))):
        check_ftu(sample[:10], "gender")
        versus = ftu_against_langfair(sample, args.repeats, args.langfair)
        print(f"FTU gender + race, 2,500 {label}:", json.dumps(versus))
    texts = prompts(args.n)
    check_ftu(texts[:10], "gender")  # load lexicons and names once
    print(f"name data in memory: {name_data_bytes() / 1e6:.2f} MB")
    print("| operation | prompts flagged | median wall (s) |")
    print("|---|---:|---:|")
    for attribute in ("gender", "race", None):
        for names in (False, True):
            result = check_ftu(texts, attribute, names=names)
            wall = timed(
                lambda a=attribute, nm=names: (clear_people_cache(), check_ftu(texts, a, names=nm)), args.repeats
            )
            label = attribute or "all built-ins"
            print(f"| check_ftu {label}, names={names} | {result.n_flagged} | {wall:.3f} |")


if __name__ == "__main__":
    main()
