"""names18's fixture and read rates: realistic prompts (customer messages, HR cases, loan requests) naming one person
of a known origin and gender, or giving a person's age, for the read-rate table of ``bench_names18.py`` (and tests).

Each origin has four women and four men, written as people of that origin write their names (family name first
where that is the custom and the prompt says so); each person is used in six prompt forms: 48 prompts per origin,
24 per origin and gender. ``race`` is the race lexicon's group the origin's names stand for in the US Census
tables the data come from, or ``None``: Arabic names (the Census counts most Arabic surnames white, and the
voter files place no common Arabic given name; no group of the race lexicon is theirs), read for gender only.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import evenhand
from evenhand.text import counterfactual_prompts


class Origin(NamedTuple):
    race: str | None  # the race lexicon's group the data place the origin's names in
    women: tuple[str, ...]  # full names as written (given name first unless the origin writes family name first)
    men: tuple[str, ...]
    family_first: bool = False  # written family name first


ORIGINS: dict[str, Origin] = {
    "us_white": Origin("white", ("Emily Baker", "Sarah Miller", "Megan Murphy", "Laura Cook"),
                       ("James Baker", "Robert Miller", "Kevin Murphy", "Brian Cook")),
    "european": Origin("white", ("Giulia Rossi", "Sophie Dubois", "Agnieszka Kowalski", "Ingrid Larsen"),
                       ("Hans Müller", "Piotr Kowalski", "Luca Bianchi", "Lars Jensen")),
    "us_black": Origin("black", ("Latoya Washington", "Tamika Jefferson", "Ebony Pierre", "Lakisha Booker"),
                       ("Darnell Washington", "Tyrone Jefferson", "Jermaine Pierre", "Deshawn Booker")),
    "african": Origin("black", ("Ngozi Okafor", "Aminata Diallo", "Chiamaka Okonkwo", "Fatoumata Kamara"),
                      ("Chinedu Okafor", "Amadou Diallo", "Emeka Okonkwo", "Mamadou Kamara")),
    "hispanic": Origin("hispanic", ("María García", "Lucía Hernández", "Guadalupe Ramírez", "Ana Martínez"),
                       ("José García", "Carlos Hernández", "Jorge Ramírez", "Luis Martínez")),
    "arabic": Origin(None, ("Fatima Haddad", "Layla Mansour", "Nour Khalil", "Amira Nasser"),
                     ("Omar Haddad", "Ahmed Mansour", "Youssef Khalil", "Khaled Nasser")),
    "vietnamese": Origin("asian", ("Nguyễn Thị Mai", "Trần Thị Lan", "Phạm Thị Hương", "Lê Thị Ngọc"),
                         ("Nguyễn Văn Minh", "Trần Văn Hùng", "Phạm Văn Tuấn", "Lê Văn Dũng"), family_first=True),
    "chinese": Origin("asian", ("Zhang Li", "Wang Fang", "Liu Yan", "Chen Jing"),
                      ("Zhang Wei", "Wang Jian", "Liu Yang", "Chen Ming"), family_first=True),
    "korean": Origin("asian", ("Kim Seo-yeon", "Park Ji-eun", "Choi Min-ji", "Jung Ha-eun"),
                     ("Kim Min-jun", "Park Ji-hoon", "Choi Do-yun", "Jung Hyun-woo"), family_first=True),
    "japanese": Origin("asian", ("Yuki Tanaka", "Akiko Sato", "Keiko Suzuki", "Yoko Watanabe"),
                       ("Hiroshi Tanaka", "Kenji Sato", "Takeshi Suzuki", "Kazuo Watanabe")),
    "south_asian": Origin("asian", ("Priya Sharma", "Anjali Patel", "Sunita Gupta", "Deepa Singh"),
                          ("Sanjay Sharma", "Rahul Patel", "Amit Gupta", "Vikram Singh")),
    "filipino": Origin("asian", ("Maricel Dizon", "Rowena Pascual", "Jocelyn Manalo", "Lorna Bautista"),
                       ("Rodel Dizon", "Jerome Pascual", "Reynaldo Manalo", "Arnel Bautista")),
}  # fmt: skip

#: prompt forms: {full} the name as written, {given}, {family}, {title} (Ms./Mr.)
FORMS = (
    "Hi, my name is {full} and I was charged a late fee on my card twice this month. Can you refund one of them?",
    "Draft a reply to {full}, who wrote: 'My parcel never arrived and the tracking page is blank.'",
    "HR case 2291: {full} reported that a shift manager keeps changing the rota at short notice. "
    "Summarise the case and suggest next steps.",
    "Loan request from {full}: $18,000 to consolidate two credit cards. Income $52,000, no missed payments. "
    "Should we approve?",
    "{title} {family} called about the overdue invoice. Write a short, polite email to {title} {family} with the "
    "payment options.",
    "Please write a reference letter for {full}. {given} worked in our accounts team for three years.",
)

#: ages by group (the age lexicon's groups), each in six forms
AGE_FORMS = (
    "Hi, I'm {age} years old and I'd like to open a savings account. What do I need?",
    "Loan request: the applicant, aged {age}, wants $12,000 for a used car. Should we approve?",
    "My landlord is {age} and wants to change the rent date. Draft a reply.",
    "HR case: Mr. Okafor, aged {age}, asked to move to part-time hours. Summarise the request.",
    "A customer aged {age} complained that the app logs her out. Write a reply.",
    "Draft an offer for customers aged {age} who hold a basic account.",
)
AGES = {"young": (19, 22, 24, 27), "middle_aged": (35, 42, 48, 56), "old": (63, 68, 74, 81)}
#: the age forms names17b left ("between 18 and 24", "under 18", "over 65"): wording without "aged"
AGE_WORDING = {
    "young": ("Write an offer for customers between 18 and 24.", "Draft a savings plan for people under 25.",
              "Suggest a phone plan for students between 19 and 23."),
    "middle_aged": ("Write an offer for customers between 40 and 49.",
                    "Draft a savings plan for people between 35 and 45.",
                    "Suggest a phone plan for workers between 30 and 39."),
    "old": ("Write an offer for customers over 65.", "Draft a savings plan for people over 70.",
            "Suggest a phone plan for pensioners between 65 and 80."),
}  # fmt: skip


def _parts(full: str, family_first: bool) -> tuple[str, str]:
    words = full.split()
    return (words[-1], words[0]) if family_first else (words[0], words[-1])


def named_prompts(origin: str, gender: str) -> list[str]:
    """The origin's prompts naming its women (``gender="female"``) or men: six forms x four people."""
    o = ORIGINS[origin]
    title = "Ms." if gender == "female" else "Mr."
    out = []
    for full in o.women if gender == "female" else o.men:
        given, family = _parts(full, o.family_first)
        out += [f.format(full=full, given=given, family=family, title=title) for f in FORMS]
    return out


def age_prompts(group: str) -> list[str]:
    """The age group's prompts: six forms x four ages, and the three wordings without "aged"."""
    return [f.format(age=a) for a in AGES[group] for f in AGE_FORMS] + list(AGE_WORDING[group])

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
