"""Build tests/data/name_race_labelled.json: full names labelled with the race readers take them to signal (issue 33).

Run by hand (never at run time): ``python scripts/build_name_race_labels.py names_race_perception.csv``, the file of
Crabtree, Kim, Gaddis, Holbein, Guage & Marx (2023), "Validated names for experimental studies on race and
ethnicity", Scientific Data 10:130 (the authors' replication repository, ``data_outputs/names_race_perception.csv``:
per full name, the share of survey respondents who perceived each race). Only facts are kept: the names and the
group most respondents perceived. The labelled set holds:

- Crabtree et al. (2023): the names whose intended group is also the group most respondents perceived (90 of 100
  Black names; every 60th-part sample of the White, Hispanic and Asian ones, 60 each);
- Bertrand & Mullainathan (2004), "Are Emily and Greg more employable than Lakisha and Jamal?", AER 94(4): their 36
  first names (9 per race and sex) and 14 surnames, each first name with a surname of the same race in turn;
- the issue's examples of Black names an earlier version missed ("DeShawn Jackson", "Tremayne Banks", "Rasheed
  Booker", ...: first names and surnames of the kind Gaddis (2017), "How Black are Lakisha and Jamal?", Sociological
  Science 4, tested).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "name_race_labelled.json"
PERCEIVED = {
    "White": "white_pct",
    "Black or African American": "black_pct",
    "Hispanic": "latino_pct",
    "Asian or Pacific Islander": "asian_pct",
}
GROUP = {
    "White": "white",
    "Black or African American": "black",
    "Hispanic": "hispanic",
    "Asian or Pacific Islander": "asian",
}
SHARES = ["white_pct", "asian_pct", "black_pct", "latino_pct", "other_pct"]
PER_GROUP = 60
BM_FIRST = {
    "white": [
        "Allison",
        "Anne",
        "Carrie",
        "Emily",
        "Jill",
        "Laurie",
        "Kristen",
        "Meredith",
        "Sarah",
        "Brad",
        "Brendan",
        "Geoffrey",
        "Greg",
        "Brett",
        "Jay",
        "Matthew",
        "Neil",
        "Todd",
    ],
    "black": [
        "Aisha",
        "Ebony",
        "Keisha",
        "Kenya",
        "Lakisha",
        "Latonya",
        "Latoya",
        "Tamika",
        "Tanisha",
        "Darnell",
        "Hakim",
        "Jamal",
        "Jermaine",
        "Kareem",
        "Leroy",
        "Rasheed",
        "Tremayne",
        "Tyrone",
    ],
}
BM_LAST = {
    "white": ["Baker", "Kelly", "McCarthy", "Murphy", "Murray", "O'Brien", "Ryan", "Sullivan", "Walsh"],
    "black": ["Jackson", "Jones", "Robinson", "Washington", "Williams"],
}
ISSUE = ["DeShawn Jackson", "Tyrone Robinson", "Keisha Williams", "Jamal Jones", "Tremayne Banks", "Rasheed Booker"]


def main(perception_csv: str) -> None:
    table = pd.read_csv(perception_csv)
    items: list[dict[str, str]] = []
    for identity, column in PERCEIVED.items():
        rows = table[table.identity == identity]
        rows = rows[rows[SHARES].idxmax(axis=1) == column].reset_index(drop=True)
        group = GROUP[identity]
        if group != "black":
            rows = rows.iloc[:: max(1, len(rows) // PER_GROUP)].head(PER_GROUP)
        items += [{"name": name, "group": group, "source": "crabtree2023"} for name in rows.name]
    for group, firsts in BM_FIRST.items():
        surnames = BM_LAST[group]
        for i, first in enumerate(firsts):
            items.append(
                {
                    "name": f"{first} {surnames[i % len(surnames)]}",
                    "group": group,
                    "source": "bertrand_mullainathan2004",
                }
            )
    items += [{"name": name, "group": "black", "source": "issue33"} for name in ISSUE]
    document = {
        "comment": "Full names labelled with the race readers take them to signal; built by "
        "scripts/build_name_race_labels.py (its docstring names the studies). Facts only: names and labels.",
        "items": items,
    }
    OUT.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
