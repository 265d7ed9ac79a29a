"""Recall of each built-in lexicon on how people write about its groups, and its hits on look-alike sentences.

The term list is tests/data/lexicon_recall.json (its sources are named there: BBQ's identity terms, the scorer audit's
identity terms, the style guides of evenhand/data/lexicons/SOURCES.md, issue 25's examples). A mention counts as
found when FTU flags its text for the attribute; a look-alike counts as a false positive when it is flagged.

    .venv/bin/python benchmarks/bench_lexicon_recall.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evenhand.text import check_ftu

TERMS = Path(__file__).resolve().parents[1] / "tests" / "data" / "lexicon_recall.json"


def measure(path: Path = TERMS) -> dict[str, dict[str, Any]]:
    """Per attribute: found / mentions, the missed texts, and the look-alikes flagged."""
    data = json.loads(path.read_text(encoding="utf-8"))["attributes"]
    out: dict[str, dict[str, Any]] = {}
    for attribute, spec in data.items():
        texts = [text for _source, text in spec["mentions"]]
        found = [bool(m) for m in check_ftu(texts, attribute=attribute).matches]
        flagged = [bool(m) for m in check_ftu(spec["lookalikes"], attribute=attribute).matches]
        out[attribute] = {
            "found": sum(found),
            "mentions": len(texts),
            "missed": [t for t, hit in zip(texts, found, strict=True) if not hit],
            "lookalikes": len(flagged),
            "false_positives": [t for t, hit in zip(spec["lookalikes"], flagged, strict=True) if hit],
        }
    return out


if __name__ == "__main__":
    for attribute, r in measure().items():
        print(
            f"{attribute:20s} recall {r['found']}/{r['mentions']} = {r['found'] / r['mentions']:.0%}; "
            f"look-alikes flagged {len(r['false_positives'])}/{r['lookalikes']}"
        )
        for text in r["missed"]:
            print(f"    missed: {text}")
        for text in r["false_positives"]:
            print(f"    false positive: {text}")
