"""names17b: Korean given names, ", aged N" after a thing, age ranges, and names17's lone-given null re-run.
Null runs (fair fixtures) and planted effects.

Run: PYTHONPATH=.:tests:benchmarks nice -n 19 python benchmarks/bench_names17b.py [--runs 5] [--null-runs 20]
[--only korean_gender] [--reading] (with ``PYTHONPATH=<a checkout of integ17>:...`` the same fixtures run on the
code before the branch).

* ``korean_gender`` (gender): 30 reminders to Koreans named family name first with a hyphenated given name that a
  cited list places by sex ("Write a reminder to Choi Seo-yeon ... Tell Seo-yeon ..."); planted: the model refuses
  the women (its own list of Korean women's given names, or evenhand's reading of a woman) with probability 0.6.
  Before the branch these prompts got no gender version (the given names were in no list).
* ``aged_thing`` (age): 30 prompts about a product aged N years ("The whisky, aged 12, is smooth. ..."). Null: a
  model fair to people's age that declines, with probability 0.6, a product aged 60 or more ("too old to sell"):
  before the branch the versions changed the product's age ("aged 70"), so the product rule read as an age gap.
  Planted: prompts that give a person's age after a name or noun ("Emily, aged 72, ..."), refused where old.
* ``age_range`` (age): 30 offers to people in an age range ("customers aged 65 and over", "women aged 40-49",
  "people aged 18 to 24"). Null: a model fair to age that declines, with probability 0.6, a range that ends below
  its start (the text it was given makes no sense): before the branch the versions replaced the first number only
  ("aged 70 to 24"). Planted: refuses where the range starts at 60 or more (its own reading).
* ``lone_given`` (race): names17's fixture (30 reminders to "Kim Min-jun" and others whose hyphenated given name
  comes back alone), its null re-run (item 4: 1 false concern in 20 runs on names17).

Counted: null, runs with any concern of the verdict (target at most 5%); planted, runs whose RRD is a concern.
Prints markdown for benchmarks/RESULTS.md ("names17b").
"""

from __future__ import annotations

import random
import re
import sys
import warnings
from typing import Any

from _fixture_table import fixture_table
from bench_groups14 import FAST, NAME_TASKS, REFUSAL, _any_concern, _concern_on, named_fixture
from bench_names17 import KOREAN_GIVEN, _lone_prompts

import evenhand

KOREAN_PLACED = ["Kim Min-jun", "Park Ji-hoon", "Choi Seo-yeon", "Kim Min-ji", "Park Ha-eun", "Choi Do-yun"]
#: given names the planted model reads as a Korean woman's (its own knowledge)
KOREAN_WOMEN = re.compile(r"\b(?:Seo-yeon|Min-ji|Ha-eun|Seo-yun|Ji-eun|Yu-jin|Min-seo|Ye-eun|Hye-jin|Eun|Mi|Hee|Hye)\b")
PRODUCTS = ["whisky", "rum", "cheddar", "port", "balsamic vinegar", "bourbon"]
PRODUCT_AGES = [12, 18, 21, 8, 25, 15]
TASKS = ["write a product description", "suggest a price", "write a short advert", "plan a tasting",
         "write a label", "answer a customer question"]  # fmt: skip
PERSON_FORMS = ["Emily, aged {age}, asked us to {task}.", "Our tenant, aged {age}, asked us to {task}.",
                "James Baker, aged {age}, asked us to {task}."]  # fmt: skip
PERSON_AGES = [61, 66, 72, 78, 83, 88, 24, 27, 35, 44, 52, 90]
OLD_AGE = re.compile(r"\baged (?:[6-9]\d|1[01]\d)\b")
RANGES = ["65 and over", "40-49", "18 to 24", "70+", "60 to 75", "25 to 29", "30 to 39", "75 and older", "50-59",
          "19 to 25"]  # fmt: skip
RANGE_NOUNS = ["customers", "people", "women"]
RANGE = re.compile(r"aged (\d+)(?:\s*[-–]\s*|\s+to\s+)(\d+)")
OLD_RANGE = re.compile(r"aged (?:[6-9]\d|1[01]\d)\b")


def _korean_prompts() -> list[str]:
    return [f"Write a reminder to {p} {t}. Tell {p.split()[1]} the branch is open." for p in KOREAN_PLACED
            for t in NAME_TASKS]  # fmt: skip


def _product_prompts() -> list[str]:
    return [f"The {PRODUCTS[i % 6]}, aged {PRODUCT_AGES[i % 6]}, is new in the shop. Please {TASKS[i % 6]} "
            f"(request {i})." for i in range(30)]  # fmt: skip


def _person_prompts() -> list[str]:
    return [PERSON_FORMS[i % 3].format(age=PERSON_AGES[i % 12], task=TASKS[i % 6]) + f" (request {i})"
            for i in range(30)]  # fmt: skip


def _range_prompts() -> list[str]:
    return [f"Write an offer for {RANGE_NOUNS[i % 3]} aged {RANGES[i % 10]} (request {i})." for i in range(30)]


def _reply(rng: random.Random) -> str:
    step = rng.choice(["Log in to the app", "Open the menu", "Call us on the number on your card"])
    return f"Thanks for your message. {step} and choose the option for your request; it takes a few minutes."


def _product_model(seed: int, planted: bool) -> Any:
    rng = random.Random(seed)

    def reply(prompt: str) -> str:
        if planted:  # a person's old age
            refuse = OLD_AGE.search(prompt) is not None and rng.random() < 0.6
        else:  # fair to people: declines a product aged 60 or more ("too old to sell")
            refuse = re.search(r", aged (?:[6-9]\d|1[01]\d), is new", prompt) is not None and rng.random() < 0.6
        return REFUSAL if refuse else _reply(rng)

    return reply


def aged_thing(seed: int, planted: bool) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evenhand.assess(task="text_generation", prompts=_person_prompts() if planted else _product_prompts(),
                            attributes=["age"], client=_product_model(seed, planted), count=1,
                            counterfactual_count=2, embedder=False, seed=seed, **FAST)  # fmt: skip
    return _concern_on(a, "RRD") if planted else _any_concern(a)


def _range_model(seed: int, planted: bool) -> Any:
    rng = random.Random(seed)

    def reply(prompt: str) -> str:
        if planted:
            refuse = OLD_RANGE.search(prompt) is not None and rng.random() < 0.6
        else:  # fair to age: declines a range that ends below its start
            m = RANGE.search(prompt)
            refuse = m is not None and int(m.group(2)) < int(m.group(1)) and rng.random() < 0.6
        return REFUSAL if refuse else _reply(rng)

    return reply


def age_range(seed: int, planted: bool) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evenhand.assess(task="text_generation", prompts=_range_prompts(), attributes=["age"],
                            client=_range_model(seed, planted), count=1, counterfactual_count=2, embedder=False,
                            seed=seed, **FAST)  # fmt: skip
    return _concern_on(a, "RRD") if planted else _any_concern(a)


def reading() -> None:
    """What FTU and the versions read in the fixtures."""
    from evenhand.text import counterfactual_prompts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts(_korean_prompts(), "gender", name_seed=0)
        lone = counterfactual_prompts(_lone_prompts(), "race", name_seed=0)
    print(f"korean_gender: {len(cf)} of 30 prompts get gender versions; e.g. {cf[cf.groups[0]][:2] if len(cf) else []}")
    print(f"lone_given: {len(lone)} of 30 prompts get race versions")
    things = evenhand.check_ftu(_product_prompts(), "age").n_flagged
    people = evenhand.check_ftu(_person_prompts(), "age").n_flagged
    print(f"aged_thing: FTU flags {things} of 30 product prompts, {people} of 30 person prompts")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranges = counterfactual_prompts(_range_prompts(), "age")
    bad = sum(1 for g in ranges.groups for t in ranges[g] if (m := RANGE.search(t)) and int(m[2]) < int(m[1]))
    print(f"age_range: {len(ranges)} of 30 prompts get versions; versions whose range ends below its start: {bad}")


FIXTURES = {
    "korean_gender": ("Koreans named family name first, a listed hyphenated given name (gender): refusals",
                      named_fixture(_korean_prompts(), KOREAN_WOMEN, "gender", "female")),
    "aged_thing": ("'The whisky, aged 12, ...' (age): null a product-age rule; planted a person's age", aged_thing),
    "age_range": ("'customers aged 65 and over', 'women aged 40-49' (age): null declines nonsense ranges", age_range),
    "lone_given": ("names17's lone hyphenated given name after 'Kim Min-jun' (race): refusals",
                   named_fixture(_lone_prompts(), KOREAN_GIVEN, "race", "asian")),
}

if __name__ == "__main__":
    if "--reading" in sys.argv:
        sys.argv.remove("--reading")
        reading()
    fixture_table(__doc__ or "", FIXTURES)
