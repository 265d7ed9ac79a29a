"""names18's read rates: per group, the share of the fixture's prompts (``names18_fixture``) in which evenhand finds
the person, places them in their group and builds counterfactual versions."""

from __future__ import annotations

import warnings

from names18_fixture import AGES, ORIGINS, age_prompts, named_prompts

import evenhand
from evenhand.text import counterfactual_prompts


def _read(prompts: list[str], attribute: str, group: str) -> int:
    """How many of ``prompts`` get versions for ``attribute`` with their person (or age) read as ``group``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ftu = evenhand.check_ftu(prompts, attribute)
        cf = counterfactual_prompts(prompts, attribute, name_seed=0)
    versions = set(cf.source_index.tolist()) if len(cf) else set()
    placed = 0
    for i in versions:
        groups = {m.group for m in ftu.names[i]} | {m.group for m in ftu.matches[i]}
        placed += groups == {group}
    return placed


def read_rates() -> dict[str, dict[str, tuple[int, int]]]:
    """attribute -> row ("female", "female/korean", "asian", "asian/korean", "old", ...) -> (read, n)."""
    rates: dict[str, dict[str, tuple[int, int]]] = {"gender": {}, "race": {}, "age": {}}
    for origin, o in ORIGINS.items():
        for gender in ("female", "male"):
            prompts = named_prompts(origin, gender)
            rates["gender"][f"{gender}/{origin}"] = (_read(prompts, "gender", gender), len(prompts))
            if o.race is not None:
                r = _read(prompts, "race", o.race)
                old = rates["race"].get(f"{o.race}/{origin}", (0, 0))
                rates["race"][f"{o.race}/{origin}"] = (old[0] + r, old[1] + len(prompts))
    for attribute in ("gender", "race"):
        rows = rates[attribute]
        for group in sorted({k.split("/")[0] for k in rows}):
            parts = [v for k, v in rows.items() if k.split("/")[0] == group]
            rows[group] = (sum(p[0] for p in parts), sum(p[1] for p in parts))
    for group in AGES:
        prompts = age_prompts(group)
        rates["age"][group] = (_read(prompts, "age", group), len(prompts))
    return rates


def table(rates: dict[str, dict[str, tuple[int, int]]]) -> str:
    lines = ["| attribute | group (/origin) | read | share |", "|---|---|---|---|"]
    for attribute, rows in rates.items():
        for row in sorted(rows, key=lambda k: ("/" in k, k)):
            read, n = rows[row]
            lines.append(f"| {attribute} | {row} | {read} of {n} | {100 * read / max(n, 1):.0f}% |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(read_rates()))
