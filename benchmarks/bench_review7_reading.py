"""review7: decisions and answers of replies that reason first, on the planted pre-screen of issue 27.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_review7_reading.py [--null-runs 10] [--planted-runs 5]

The counterfactual loan table of ``tests/test_pipeline_decisions.py`` (32 matched female/male applicants x 5 answers):
fair (both versions approved alike, ``loan_table(seed, biased=False)``) or planted (approval 35% vs 56%). Each answer
is written as a reasoning model writes it, in two forms:

* ``marker``: after a checklist, "Stable income? Yes. Missed payments? No.\\n\\nFinal answer: <answer>";
* ``think``: after a deliberation block, "<think>Is there any reason to say no? ...</think>\\n\\n<answer>".

Counted per form: runs with any concern (null: target at most 5%), and runs whose counterfactual decision finding
is a concern (planted: target all). Prints markdown for benchmarks/RESULTS.md ("review7").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import pandas as pd
from test_pipeline_decisions import _finding, _paired, loan_table

FORMS: dict[str, Callable[[pd.Series], pd.Series]] = {
    "marker": lambda r: "Stable income? Yes. Missed payments? No.\n\nFinal answer: " + r,
    "think": lambda r: "<think>Is there any reason to say no? Let me check the record.</think>\n\n" + r,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--null-runs", type=int, default=10)
    parser.add_argument("--planted-runs", type=int, default=5)
    args = parser.parse_args()
    started = time.time()
    print("| form | fair runs with any concern | planted runs found (CPRD/DFR concern) |")
    print("|---|---|---|")
    for form, write in FORMS.items():
        false = 0
        for seed in range(args.null_runs):
            table = loan_table(seed, biased=False)
            table["response"] = write(table["response"])
            false += _paired(table).verdict.count("concern") > 0
        found = 0
        for seed in range(args.planted_runs):
            table = loan_table(seed)
            table["response"] = write(table["response"])
            found += _finding(_paired(table)).severity == "concern"
        print(f"| {form} | {false} of {args.null_runs} | {found} of {args.planted_runs} |")
    print(f"\n({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
