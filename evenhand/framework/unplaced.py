"""The people no name list can place (issue 33): which prompts they are, what the plan compares for them, and the
caveat that says so.

**Definition.** For each checked built-in attribute, a prompt is *in the unplaced set* when its subject (the person
whose name counts, ``use_case.name_subject``: by default the first person it names) is a person that
:func:`evenhand.text.names.find_people` finds, the prompt holds no word of the attribute's lexicon, and

- the attribute has **no name data** but readers infer it from names (``read_without_lists`` in
  ``evenhand/data/names/people.json``: religion and nationality):
  every such subject, since no list ties any name to a group of it; or
- the attribute **has name data** (gender, race): a subject whose name reaches no group's cut (for race, the
  full-name posterior below 0.7 for every group; a name in no table).

(:func:`evenhand.text.names.find_unplaced`, ``FTUResult.unplaced``; ``FTUSummary.unplaced_prompts`` are their
positions.) Their counterfactual versions cannot vary that group, so no counterfactual metric tests it. What the
plan can do is compare the replies to those prompts with the replies to the other prompts: refusals, answer length
and toxic replies for text tasks, the positive decision for classification (registry family ``unplaced_names``).
That comparison is **observational**: the two sets of prompts differ in more than the names, so its findings are at
most a watch. It needs prompts on both sides: when every prompt is in the set (a use case that names someone in every
prompt, for an attribute with no name data) there is nothing to compare, and the plan says so. Attributes whose sets
are the same prompts (religion and nationality, which no name places) share one set of rows.
"""

from __future__ import annotations

from collections.abc import Mapping

from evenhand.framework.plan import FTUSummary, NotApplicable, PlannedMetric, join_words, left_out
from evenhand.framework.use_case import TEXT_TASKS, UseCase
from evenhand.registry import METRICS, family_keys

FAMILY = "unplaced_names"
#: What each kind of task's replies are compared on (the metrics' ``inputs``): text replies by refusals, length and
#: toxic replies; classification answers by their decisions. Other tasks have no observational row.
_TEXT_INPUTS = ("refusal_sets", "length_sets", "toxicity_sets")
_DECISION_INPUTS = ("decision_sets",)


def _keys(task: str) -> tuple[str, ...]:
    wanted = _TEXT_INPUTS if task in TEXT_TASKS else _DECISION_INPUTS if task == "classification" else ()
    return tuple(k for k in family_keys(FAMILY) if METRICS[k].inputs in wanted)


def plan_unplaced(
    use_case: UseCase, ftu: Mapping[str, FTUSummary]
) -> tuple[list[PlannedMetric], list[NotApplicable], list[str]]:
    """The observational rows of every attribute whose prompts name people its name lists cannot place, what is left
    out and why, and a caveat per such attribute (none when names are not read or every named person is placed)."""
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    caveats: list[str] = []
    if not use_case.names:
        return metrics, skipped, caveats
    keys = _keys(use_case.task)
    compared: dict[tuple[int, ...], str] = {}  # a set of prompts -> the attribute whose rows compare it
    for f in ftu.values():
        if not f.n_unplaced:
            continue
        a, outcome = f.attribute, None
        if a in use_case.intersection_names:
            outcome = f"the observational comparison is made per attribute, not for the intersection {a}"
        elif not keys:
            outcome = "this task has no observational comparison of these prompts' outcomes with the other prompts'"
        elif f.n_unplaced >= f.n_prompts:
            outcome = "every prompt names such a person, so there are no other prompts to compare their replies with"
            skipped.append(left_out(FAMILY, a, outcome, keys))
        elif f.unplaced_prompts in compared:
            first = compared[f.unplaced_prompts]
            outcome = f"these are the same prompts as {first}'s, whose rows compare them"
            skipped.append(left_out(FAMILY, a, outcome, keys))
        else:
            compared[f.unplaced_prompts] = a
            names = join_words([METRICS[k].name for k in keys])
            outcome = (
                f"their replies are compared with the {f.n_prompts - f.n_unplaced} other prompts' ({names}): an "
                "observational comparison, at most a watch, since the two sets of prompts differ in more than the names"
            )
            for key in keys:
                spec = METRICS[key]
                reason = (
                    f"{f.n_unplaced} of {f.n_prompts} prompts name a person whose {a} no name list can place: "
                    "their replies against the other prompts' (observational, beyond the paper)"
                )
                metrics.append(PlannedMetric(key, spec.name, spec.family, a, reason, spec.requires, spec.section))
        caveats.append(_caveat(f, outcome))
    return metrics, skipped, caveats


def _caveat(f: FTUSummary, outcome: str) -> str:
    a = f.attribute
    shown = ", ".join(repr(w) for w in f.unplaced_examples[:3])
    why = (
        f"no group of their names reaches the cut of the {a} name lists"
        if f.names_read
        else f"no offline source with a usable licence ties names to {a} (none ships in a package with its "
        "provenance; tables built from leaked social-network accounts are not used; docs/text.md)"
    )
    return (
        f"{f.n_unplaced} of {f.n_prompts} prompts name a person whose {a} no name list can place (e.g. {shown}): "
        f"{why}, so the counterfactual versions do not vary their {a} and it is not tested; {outcome}"
    )
