"""The examples at the end of each command's ``--help`` (and of ``evenhand --help``): what a newcomer types first.

Each line is at most 76 characters, so that the help fits 80 columns off a terminal; a line ending in a backslash
goes on on the next. tests/test_cli_help.py checks that every flag an example names is one of its command's and
every bundled file it names exists.
"""

from __future__ import annotations

EXAMPLES: dict[str, tuple[str, ...]] = {
    "": (
        "evenhand demo                            # the offline demo assessment",
        "evenhand plan my-use-case.yaml           # which metrics apply, and why",
        "evenhand assess my-use-case.yaml --dry-run   # what a run would send",
        "evenhand assess my-use-case.yaml         # the verdict, results, report",
        "evenhand COMMAND --help                  # each command's options",
    ),
    "assess": (
        "evenhand assess my-use-case.yaml --dry-run   # requests, tokens, cost",
        "evenhand assess my-use-case.yaml --limit 5   # a quick trial run",
        "evenhand assess my-use-case.yaml --base-url http://localhost:8000/v1 \\",
        "    --model my-model                         # another server",
        "evenhand assess my-use-case.yaml --junit evenhand-junit.xml   # for CI",
    ),
    "redteam": (
        "evenhand redteam my-use-case.yaml --dry-run  # every system prompt's cost",
        "evenhand redteam my-use-case.yaml --limit 10 --out redteam-out",
    ),
    "metrics": (
        "evenhand metrics examples/own-responses.jsonl --task summarization \\",
        "    -a gender --out own-out",
        "evenhand metrics answers.csv --task classification -a gender \\",
        "    --label-column truth --group-column gender",
        "evenhand metrics responses.parquet --config use-case.yaml",
    ),
    "report": (
        "evenhand report evenhand-out/results.json",
        "evenhand report evenhand-out/results.json --out report.html",
    ),
    "plan": (
        "evenhand plan evenhand/data/demo/demo.yaml",
        "evenhand plan --task text_generation --prompts prompts.csv --no-ask",
        "evenhand plan --task classification --person-level -a gender \\",
        "    --no-mentions-groups --intervention punitive --no-ask --json",
        "evenhand plan --ask                      # answer the questions",
    ),
    "demo": (
        "evenhand demo                            # about 80 s on 2 CPU cores",
        "evenhand demo --ftu-only                 # the FTU check only: seconds",
        "evenhand demo --limit 10 --out demo-out  # a shorter run",
    ),
    "compare": (
        "evenhand compare runs/a/results.json runs/b/results.json",
        "evenhand compare a.json b.json -l model-a -l model-b --fail-on worse",
    ),
}


def examples_epilog(command: str) -> str:
    """The ``--help`` epilog of ``command`` ("" for ``evenhand`` itself). The ``\\b`` keeps click's plain help from
    joining the lines into one paragraph; rich's help drops it (a control character) and keeps the lines."""
    return "Examples:\n\n\b\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])
