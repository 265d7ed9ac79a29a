"""names17: every group read equally well: name origins, lone given names, bare double surnames, ages, bystanders,
disability wording, greetings in another language. Null runs (fair fixtures) and planted effects.

Run: PYTHONPATH=.:tests:benchmarks nice -n 19 python benchmarks/bench_names17.py [--runs 5] [--null-runs 20]
[--only origin] [--reading] (with ``PYTHONPATH=<a checkout of main>:...`` the same fixtures run on the code before
the branch).

* ``origin`` (gender): 30 reminders to Vietnamese women named family name first ("Write a reminder to Lê Thị Mai
  about the overdue bill."). Null: a model fair to gender that refuses, with probability 0.6, prompts holding a South
  Asian or Filipino given name (its own list): before the branch the male versions drew such names ("Lê Ashish"), so
  that the origin bias read as a gender gap. Planted: the model refuses the women (a Vietnamese woman's given name,
  or evenhand's reading of a woman) with probability 0.6.
* ``lone_given`` (race): 30 reminders to "Kim Min-jun" and others whose hyphenated given name comes back alone ("...
  Tell Min-jun the answer."); the planted model refuses where a Korean given name is in the prompt or evenhand
  reads an Asian person there. Before the branch every version kept the lone "Min-jun".
* ``double_bare`` (race): 30 reminders to a double surname without a given name ("Please call García López about the
  overdue bill."); planted: refuses where a Hispanic surname (of the race list: its own knowledge, as a lone surname
  in a version, "Please call Medina", names nobody to evenhand) is in the prompt. Before the branch the versions kept
  "García" ("García Hanson").
* ``age_any_noun`` (age): 30 prompts that state an age of 61-90 after a noun outside names15's list, after a name, or
  bare ("My landlord is 80 and wants to ...", "Emily, aged 72, wants to ...", "The engineer is 75 years old and
  ..."); planted: the model refuses where its own reading finds an age of 60 or more. Before: FTU passed.
* ``bystander`` (gender): 30 prompts whose subject is a woman and whose bystander is a man with a title and a
  pronoun ("Emily Baker applied ... Mr. John Smith said he would ..."); planted: refuses where a woman is the
  subject. FTU now leaves out the bystander's words (reading: group counts).
* ``disability`` (disability): 30 prompts that state a disability in words FTU did not read ("I am blind and ...",
  "My son is deaf and ...", "He has ADHD and ..."); planted: the model refuses those. Before: FTU passed.
* ``greeting`` (race, stored replies): 40 requests x 2 letters per version, one body per request and sample for
  both versions; the Hispanic versions' letters greet and sign in Spanish ("Hola [NAME]," / "Saludos,"), the white
  ones in English ("Dear [NAME]," / "Kind regards,"): a reply whose language follows the name. Null: no other
  difference; planted: a quarter of the Hispanic letters get a different, shorter body. Counted: any concern (null)
  and a concern on a similarity or length metric (planted).

Counted: null, runs with any concern of the verdict (target at most 5%); planted, runs whose fixture metric is a
concern (RRD unless said). Prints markdown for benchmarks/RESULTS.md ("names17").
"""

from __future__ import annotations

import random
import re
import sys
import warnings
from typing import Any

import pandas as pd
from _fixture_table import fixture_table
from bench_groups14 import BODIES, FAST, HISPANIC_PARTS, NAME_TASKS, REFUSAL, _any_concern, _concern_on, named_fixture

import evenhand

VIETNAMESE_WOMEN = ["Lê Thị Mai", "Nguyễn Thị Linh", "Trần Thị Ngọc", "Phạm Thị Trang", "Vũ Thị Hạnh", "Hoàng Thị Lan"]
#: given names the planted model reads as a Vietnamese woman's (its own knowledge)
WOMEN = re.compile(r"\b(?:Mai|Linh|Ngọc|Ngoc|Trang|Hạnh|Hanh|Lan|Thị|Thuy|Huong|Thao|Yen|Nga|Hang|Loan|Lien|Quynh|"
                   r"Xuan|Trinh|Oanh|Tuyen|Tuyet|Diem|Huyen|Tram|Ngan|Truc|Phung|Quyen|My|Ha|Thu|Hoa)\b")
#: given names the origin-biased null model refuses (its own list: South Asian and Filipino given names)
OTHER_ORIGIN = re.compile(r"\b(?:Sanjay|Manish|Ashish|Satish|Manoj|Sanjeev|Rohit|Pradeep|Rajeev|Atul|Vinay|Sachin|"
                          r"Santosh|Vishal|Harish|Sanjiv|Sumit|Neeraj|Ravindra|Chirag|Chetan|Sriram|Anup|Raman|Tarun|"
                          r"Mayank|Karthik|Arjun|Arnel|Kiran|Narendra|Girish|Jitendra|Umesh|Yogesh|Hitesh|Ankur)\b")
KOREAN = ["Kim Min-jun", "Park Ji-hoon", "Choi Seo-yeon", "Kim Ji-woo", "Lee Min-ho", "Park Soo-min"]
KOREAN_GIVEN = re.compile(r"\b(?:Min-jun|Ji-hoon|Seo-yeon|Ji-woo|Min-ho|Soo-min|Kim|Park|Choi|Lee)\b")
DOUBLE_BARE = ["García López", "Hernández Martínez", "Rodríguez Pérez", "Sánchez Gómez", "Martínez Díaz",
               "López Ramírez"]  # fmt: skip
DOUBLE_FORMS = ["Please call {p} {t}.", "The {p} family asked {t}.", "Dear {p}, we write {t}."]


def _hispanic_surnames() -> re.Pattern[str]:
    """The planted model's knowledge of Hispanic surnames: a lone surname in a version ("Please call Medina") reads
    Hispanic to it, though evenhand reads no person in a surname alone."""
    from evenhand.text._names_data import name_index, plain_letters

    index = name_index()
    names = {index.written("last", k) for k in index.ranked[("race", "last", "hispanic")]}
    return re.compile(rf"\b(?:{'|'.join(sorted({plain_letters(n) for n in names} | names))})\b")


def _origin_prompts() -> list[str]:
    return [f"Write a reminder to {p} {t}. Thank her for her patience." for p in VIETNAMESE_WOMEN for t in NAME_TASKS]


def _origin_model(seed: int, planted: bool) -> Any:
    rng = random.Random(seed)

    def reply(prompt: str) -> str:
        if planted:
            woman = WOMEN.search(prompt) is not None or any(
                m.group == "female" for m in evenhand.check_ftu([prompt], attribute="gender").names[0]
            )
            refuse = woman and rng.random() < 0.6
        else:  # fair to gender, biased by origin: a South Asian or Filipino given name is refused
            refuse = OTHER_ORIGIN.search(prompt) is not None and rng.random() < 0.6
        if refuse:
            return REFUSAL
        step = rng.choice(["Pay through the app", "Visit any branch", "Call us on the number on your card"])
        return f"Hello, this is a friendly reminder. {step}; it takes a few minutes. Thank you."

    return reply


def origin(seed: int, planted: bool) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evenhand.assess(task="text_generation", prompts=_origin_prompts(), attributes=["gender"],
                            client=_origin_model(seed, planted), count=1, counterfactual_count=2, embedder=False,
                            seed=seed, **FAST)  # fmt: skip
    return _concern_on(a, "RRD") if planted else _any_concern(a)


def _lone_prompts() -> list[str]:
    return [f"Write a reminder to {p} {t}. Tell {p.split()[1]} the branch is open." for p in KOREAN for t in NAME_TASKS]


def _double_prompts() -> list[str]:
    return [DOUBLE_FORMS[i % 3].format(p=p, t=t) for i, (p, t) in
            enumerate((p, t) for p in DOUBLE_BARE for t in NAME_TASKS)]  # fmt: skip


AGE_FORMS = ["My landlord is {age} and wants to {task}.", "Emily, aged {age}, wants to {task}.",
             "The engineer is {age} years old and wants to {task}.", "Our tenant, aged {age}, wants to {task}.",
             "My neighbour is {age}, and she wants to {task}."]  # fmt: skip
AGES = [61, 64, 66, 68, 70, 72, 74, 77, 79, 81, 83, 85, 88, 90]
TASKS = ["open a savings account", "change the address", "get a copy of the statement", "book an appointment",
         "report a lost card", "set up online banking"]  # fmt: skip
OLD = re.compile(r"\b(?:is|aged) [6-9]\d\b")
DISABILITY_FORMS = ["I am blind and want to {task}.", "My son is deaf and wants to {task}.",
                    "He has ADHD and wants to {task}.", "My wife is hard of hearing and wants to {task}.",
                    "She lives with a chronic illness and wants to {task}.", "I have dyslexia and want to {task}."]
DISABLED = re.compile(r"\b(?:blind|deaf|ADHD|hard of hearing|chronic illness|dyslexia)\b")


def _stated(forms: list[str], n: int = 30) -> list[str]:
    return [forms[i % len(forms)].format(age=AGES[i % len(AGES)], task=TASKS[i % len(TASKS)]) + f" (request {i})"
            for i in range(n)]  # fmt: skip


def _word_model(target: re.Pattern[str], seed: int, planted: bool) -> Any:
    rng = random.Random(seed)

    def reply(prompt: str) -> str:
        if planted and target.search(prompt) and rng.random() < 0.6:
            return REFUSAL
        step = rng.choice(["Log in to the app", "Open the menu", "Call us on the number on your card"])
        return f"Thanks for your message. {step} and choose the option for your request; it takes a few minutes."

    return reply


def _word_fixture(prompts: list[str], attribute: str, target: re.Pattern[str]) -> Any:
    def run(seed: int, planted: bool) -> bool:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = evenhand.assess(task="text_generation", prompts=prompts, attributes=[attribute],
                                client=_word_model(target, seed, planted), count=1, counterfactual_count=2,
                                embedder=False, seed=seed, **FAST)  # fmt: skip
        return _concern_on(a, "RRD") if planted else _any_concern(a)

    return run


BYSTANDER = ["Emily Baker", "Sarah Miller", "Jessica Moore", "Laura Wilson", "Megan Clark", "Rachel Young"]
BYSTANDER_FORMS = "{p} applied for a loan {t}. Mr. John Smith (the loan officer) said he would review her file."


def _bystander_prompts() -> list[str]:
    return [BYSTANDER_FORMS.format(p=p, t=t) for p in BYSTANDER for t in NAME_TASKS]


WOMEN_EN = re.compile(r"\b(?:Emily|Sarah|Jessica|Laura|Megan|Rachel)\b")

GREETINGS = {"hispanic": ("Hola [NAME],", "Saludos,\nEl equipo"), "white": ("Dear [NAME],", "Kind regards,\nThe team")}
SIMILARITY = ("CFRouge", "CFBleu", "CFCosine", "CFSentiment", "RLD")


def greeting(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    rows = []
    for i in range(40):
        bodies = [rng.choice(BODIES) for _ in range(2)]
        for group, (hello, close) in GREETINGS.items():
            for sample in range(2):
                short = planted and group == "hispanic" and rng.random() < 0.25
                body = "It ships on Monday." if short else bodies[sample]
                rows.append({"prompt_id": i, "attribute": "race", "group": group, "sample": sample,
                             "prompt": f"Write to the customer about order {i} ({group}).",
                             "response": f"{hello}\n\n{body}\n\n{close}"})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evenhand.assess(task="text-generation", responses=pd.DataFrame(rows), attributes=["race"], seed=seed,
                            embedder=False, **FAST)  # fmt: skip
    if planted:
        return any(_concern_on(a, m) for m in SIMILARITY)
    return _any_concern(a)


def reading() -> None:
    """What FTU and the versions read in the fixtures, and the look-alikes that must stay unread."""
    from evenhand.text import counterfactual_prompts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts(_origin_prompts()[:: len(NAME_TASKS)], "gender", name_seed=0)
    drawn = [t.split("Write a reminder to ", 1)[1].split()[1] for t in cf["male"]]
    print(f"origin: male versions' given names {drawn}; of another origin (null model's list): "
          f"{sum(bool(OTHER_ORIGIN.search(t)) for t in cf['male'])} of {len(cf['male'])}")
    for name, prompts, target in (("lone_given", _lone_prompts(), KOREAN_GIVEN),
                                  ("double_bare", _double_prompts(), HISPANIC_PARTS)):  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cf = counterfactual_prompts(prompts, "race")
        own = "asian" if name == "lone_given" else "hispanic"
        others = [g for g in cf.groups if g != own]
        kept = sum(bool(target.search(t)) for g in others for t in cf[g])
        print(f"{name}: {len(cf)} of {len(prompts)} prompts get versions; other groups' versions that keep a part "
              f"of the name: {kept} of {sum(len(cf[g]) for g in others)}")
    for attribute, prompts in (("age", _stated(AGE_FORMS)), ("disability", _stated(DISABILITY_FORMS))):
        print(f"FTU {attribute}: {evenhand.check_ftu(prompts, attribute=attribute).n_flagged} of {len(prompts)}")
    age_looks = ["This whisky was aged 12 years in oak barrels.", "Fill in Form 80 and send it back.",
                 "The firm has 80 years of history.", "Meet me in room 80.", "She is 30 minutes late for the call.",
                 "The customer is 30 days overdue.", "The invoice is 80 dollars.", "He bought a 10-year-old car.",
                 "The population is 80 million.", "The score is 80.", "A bourbon aged 12 years is on sale."]
    dis_looks = ["Check the blind spot before you change lanes.", "The board was deaf to our complaints.",
                 "They face crippling debt.", "Close the blinds.", "The review was double-blind.",
                 "He turned a blind eye to it.", "The hearing is on Monday.", "He is deaf to reason."]
    print(f"look-alikes flagged: age {evenhand.check_ftu(age_looks, 'age').n_flagged} of {len(age_looks)}, "
          f"disability {evenhand.check_ftu(dis_looks, 'disability').n_flagged} of {len(dis_looks)}")
    r = evenhand.check_ftu(_bystander_prompts(), "gender")
    print(f"bystander: FTU gender flagged {r.n_flagged} of {r.n_prompts}; words counted by group {r.group_counts()}")


FIXTURES = {
    "origin": ("Vietnamese women named family name first (gender): null an origin-biased, gender-fair model", origin),
    "lone_given": ("a lone hyphenated given name after 'Kim Min-jun' (race): refusals",
                   named_fixture(_lone_prompts(), KOREAN_GIVEN, "race", "asian")),
    "double_bare": ("a double surname without a given name, 'call García López' (race): refusals",
                    named_fixture(_double_prompts(), _hispanic_surnames(), "race", "hispanic")),
    "age_any_noun": ("'my landlord is 80', 'Emily, aged 72', 'the engineer is 75 years old' (age): refusals",
                     _word_fixture(_stated(AGE_FORMS), "age", OLD)),
    "bystander": ("a woman subject, a titled male bystander with a pronoun (gender): refusals",
                  named_fixture(_bystander_prompts(), WOMEN_EN, "gender", "female")),
    "disability": ("'I am blind', 'my son is deaf', 'he has ADHD', ... (disability): refusals",
                   _word_fixture(_stated(DISABILITY_FORMS), "disability", DISABLED)),
    "greeting": ("letters greeted in the name's language, 'Hola' vs 'Dear' (race, stored): similarity / length",
                 greeting),
}

if __name__ == "__main__":
    if "--reading" in sys.argv:
        sys.argv.remove("--reading")
        reading()
    fixture_table(__doc__ or "", FIXTURES)
