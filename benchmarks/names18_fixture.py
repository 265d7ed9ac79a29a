"""names18's fixture: realistic prompts (customer messages, HR cases, loan requests) naming one person of a known
origin and gender, or giving a person's age, for the read-rate table of ``bench_names18.py`` (and its tests).

Each origin has four women and four men, written as people of that origin write their names (family name first
where that is the custom and the prompt says so); each person is used in six prompt forms: 48 prompts per origin,
24 per origin and gender. ``race`` is the race lexicon's group the origin's names stand for in the US Census
tables the data come from, or ``None``: Arabic names (the Census counts most Arabic surnames white, and the
voter files place no common Arabic given name; no group of the race lexicon is theirs), read for gender only.
"""

from __future__ import annotations

from typing import NamedTuple


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
