"""The rules of the decision framework (paper section 4, Figure 1, Table 1): which metrics fit a use case, and why.

A :class:`UseCase` records the task, the prompts (or the answer to "do the prompts mention protected groups?"),
the attributes to check and the stakeholder answers the framework needs. :func:`plan` runs the FTU check on the
prompts and walks Figure 1:

* text generation / summarization: toxicity always; if FTU fails for an attribute, stereotype metrics and, when
  counterfactual invariance is wanted, counterfactual sentiment plus (unless content ought to differ across
  groups, footnote 26) counterfactual similarity, with refusal parity and answer-length parity (beyond the paper);
* classification: only when inputs are person-level or mention a group; representation fairness (DP) when
  predicted prevalence should be equal, otherwise error-based fairness (FNRD/FORD for assistive, FPRD/FDRD for
  punitive interventions); where the prompts mention an attribute's groups (FTU fails) and counterfactual
  invariance is desired, also the counterfactual decisions (DFR, CPRD: the same case with the group words changed,
  a paired design, :data:`~evenhand.framework.plan.PAIRED_DESIGN`); person-level rates alone otherwise
  (:data:`~evenhand.framework.plan.PERSON_DESIGN`);
* recommendation: counterfactual Jaccard/SERP/PRAG when FTU fails and counterfactual invariance is wanted;
* estimation (beyond the paper; the answer is a number): when FTU fails and counterfactual invariance is wanted, the
  numbers of each prompt's counterfactual versions compared over the same prompt (CER, CED: the name-audit design);
  otherwise not applicable, as for recommendation.

FTU is checked with an attribute's lexicon, which reads one language (``Lexicon.language``). When the prompts are
confidently in another language (:func:`evenhand.text.language.detect_language`), FTU is *not assessable* for that
attribute: never "satisfied" (the lexicon would find no word in any prompt), and the plan leaves out the metrics
that need the lexicon to read the prompts (counterfactual, stereotype), saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from evenhand._validation import format_errors
from evenhand.errors import InputError, InputTypeError
from evenhand.framework.ftu import (
    check_ftu,
    conversations_note,
    english_only_readers,
    language_notes,
    names_note,
    prompts_language,
    read_cues,
    reader_notes,
    template_note,
)
from evenhand.framework.plan import FTUSummary, NotApplicable, Plan, PlannedMetric, left_out
from evenhand.framework.unplaced import plan_unplaced
from evenhand.framework.use_case import TEXT_TASKS, UseCase
from evenhand.metrics.classification_choice import error_keys, planned_classification, why_left_out
from evenhand.registry import METRICS, RESPONSES_PER_PROMPT, family_keys


def _keys(family: str, section: str | None = None) -> tuple[str, ...]:
    return tuple(k for k in family_keys(family) if section is None or METRICS[k].section == section)


TOXICITY = _keys("toxicity")
STEREOTYPE_COOCCURRENCE = _keys("stereotype", "3.1.2.1")
STEREOTYPE_CLASSIFIER = _keys("stereotype", "3.1.2.2")
CF_SIMILARITY = _keys("counterfactual_similarity")
CF_SENTIMENT = _keys("counterfactual_sentiment")
# toxicity per group scores the same counterfactual replies as sentiment parity: planned, and left out, with it
TOXICITY_PARITY = _keys("toxicity_parity")
PARITY = _keys("refusal") + _keys("quality_of_service")  # beyond the paper: who is refused, who gets less (issue 27)
REFUSALS = _keys("refusal")  # beside a paired decision, number or list: a refused version has none to compare
REPRESENTATION = _keys("representation")
FALSE_NEGATIVES = error_keys("assistive")  # the error-based metrics of assistive interventions (registry ``harm``)
FALSE_POSITIVES = error_keys("punitive")
RECOMMENDATION = _keys("recommendation")
COUNTERFACTUAL_DECISIONS = _keys("counterfactual_decisions")
ESTIMATES = _keys("estimation")
JUDGED = _keys("judged_treatment")  # beyond the paper (issue 38): an LLM judge of each pair, when one is configured


def _add(out: list[PlannedMetric], keys: tuple[str, ...], attribute: str | None, reason: str) -> None:
    for key in keys:
        info = METRICS[key]
        out.append(PlannedMetric(key, info.name, info.family, attribute, reason, info.requires, info.section))


def _plan_text(
    uc: UseCase, ftu: Mapping[str, FTUSummary], judge: bool = False
) -> tuple[list[PlannedMetric], list[NotApplicable]]:
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    judged = JUDGED if judge else ()  # the judge's metric goes where the counterfactual pairs go
    _add(metrics, TOXICITY, None, "every text generation / summarization use case is assessed for toxicity (§4)")
    for name, f in ftu.items():
        why = f.describe()
        if not f.assessable:
            skipped.append(
                left_out(
                    "stereotype",
                    name,
                    f"{why}: stereotype metrics look for {name} words in the responses, which this lexicon cannot "
                    "read (§3.1.2)",
                    STEREOTYPE_COOCCURRENCE + STEREOTYPE_CLASSIFIER,
                )
            )
            skipped.append(
                left_out(
                    "counterfactual",
                    name,
                    f"{why}: counterfactual prompts cannot be built from words the lexicon does not have (§3.1.3)",
                    CF_SENTIMENT + TOXICITY_PARITY + PARITY + CF_SIMILARITY + judged,
                )
            )
            continue
        if name in uc.intersection_names:
            # co-occurrence counts words of each group; an intersection's groups have no words of their own
            skipped.append(
                left_out(
                    "stereotype",
                    name,
                    f"stereotype metrics are computed per attribute; the intersection {name} is assessed "
                    "counterfactually",
                    STEREOTYPE_COOCCURRENCE + STEREOTYPE_CLASSIFIER,
                )
            )
        elif f.satisfied and not uc.stereotype_when_ftu:
            skipped.append(
                left_out(
                    "stereotype",
                    name,
                    f"{why}; stereotype risk is low (but not nil, footnote 27): set stereotype_when_ftu to include it",
                    STEREOTYPE_COOCCURRENCE + (STEREOTYPE_CLASSIFIER if uc.stereotype_classifier else ()),
                )
            )
        elif f.signals == "names" and not uc.stereotype_when_ftu:
            # COBS and SA count the attribute's words in the replies; replies to prompts that only name people
            # hardly hold any, so the metrics would be undefined (NaN) on every run
            skipped.append(
                left_out(
                    "stereotype",
                    name,
                    f"{why}, but no prompt carries a {name} word: they count {name} words in the replies, which "
                    "replies to prompts that only name people hardly hold, so they would be undefined; the "
                    "counterfactual metrics compare the replies with the names changed (set stereotype_when_ftu "
                    "to include them)",
                    STEREOTYPE_COOCCURRENCE + (STEREOTYPE_CLASSIFIER if uc.stereotype_classifier else ()),
                )
            )
        else:
            reason = f"{why}, so stereotypes linked to {name} groups are a risk (§3.1.2)"
            _add(metrics, STEREOTYPE_COOCCURRENCE, name, reason)
            if uc.stereotype_classifier:
                _add(metrics, STEREOTYPE_CLASSIFIER, name, reason + "; a stereotype classifier is configured")
            else:
                skipped.append(
                    left_out(
                        "stereotype_classifier",
                        name,
                        "they need a stereotype classifier; none is configured (offline there is no default)",
                        STEREOTYPE_CLASSIFIER,
                    )
                )
        if f.satisfied:
            skipped.append(
                left_out(
                    "counterfactual",
                    name,
                    f"{why}: there are no counterfactual input pairs to build (§3.1.3)",
                    CF_SENTIMENT + TOXICITY_PARITY + PARITY + CF_SIMILARITY + judged,
                )
            )
            continue
        if not uc.counterfactual_invariance:
            skipped.append(
                left_out(
                    "counterfactual",
                    name,
                    "counterfactual invariance is not a desired property here",
                    CF_SENTIMENT + TOXICITY_PARITY + PARITY + CF_SIMILARITY + judged,
                )
            )
            continue
        reason = f"{why} and counterfactual invariance is desired (§3.1.3)"
        _add(metrics, CF_SENTIMENT, name, reason)
        _add(metrics, TOXICITY_PARITY, name, f"{reason}; replies to each group's version are scored for toxicity")
        # a refusal or a shorter answer for one group's version is unequal service whatever the content should be
        _add(metrics, PARITY, name, f"{why}: the counterfactual versions should be served alike (refusals, length)")
        _add(metrics, judged, name, f"{why}: an LLM judge compares the replies to each pair of versions, in both "
             "orders, for less help, a harsher tone, a stereotype or a refusal (docs/assistants.md)")  # fmt: skip
        if uc.content_may_differ:
            skipped.append(
                left_out(
                    "counterfactual_similarity",
                    name,
                    "content is expected to differ across groups, so similarity is too strict; sentiment only "
                    "(footnote 26)",
                    CF_SIMILARITY,
                )
            )
        else:
            _add(metrics, CF_SIMILARITY, name, reason)
    return metrics, skipped


def _plan_classification(
    uc: UseCase, ftu: Mapping[str, FTUSummary]
) -> tuple[list[PlannedMetric], list[NotApplicable], list[str]]:
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    notes: list[str] = []
    unreadable = {name: f for name, f in ftu.items() if not f.assessable}
    mentioned = [name for name, f in ftu.items() if f.assessable and not f.satisfied]
    if not uc.person_level:
        for name, f in unreadable.items():
            skipped.append(
                left_out(
                    "classification",
                    name,
                    f"{f.describe()}: which prompts mention a {name} group is unknown, and so is the group of each "
                    "prediction (declare person_level and give groups)",
                    REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES,
                )
            )
    if not uc.person_level and not mentioned:
        why = "inputs are not person-level" if uc.person_level is False else "inputs are not declared person-level"
        if not unreadable:
            skipped.append(
                left_out(
                    "classification",
                    None,
                    f"{why} and FTU holds for every attribute: a fairness assessment is not applicable (§4)",
                    REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES,
                )
            )
        elif len(unreadable) < len(ftu):
            skipped.append(
                left_out(
                    "classification",
                    None,
                    f"{why} and FTU holds for every attribute it could check: a fairness assessment is not "
                    "applicable for those (§4)",
                    REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES,
                )
            )
        return metrics, skipped, notes
    basis = "inputs correspond to persons" if uc.person_level else f"prompts mention {', '.join(mentioned)} groups"
    attributes = list(uc.attribute_specs) if uc.person_level else mentioned
    # the Saleiro et al. tree lives with the metrics (evenhand.metrics.classification_choice)
    chosen = planned_classification(uc.prevalence_parity, uc.intervention)
    unplanned = tuple(k for k in REPRESENTATION + FALSE_NEGATIVES + FALSE_POSITIVES if k not in chosen)
    for name in attributes:
        for key, why in chosen.items():
            _add(metrics, (key,), name, f"{basis}; {why} (§4)")
        _plan_decisions(uc, name, ftu.get(name), metrics, skipped)
        if unplanned:
            why = why_left_out(uc.prevalence_parity, uc.intervention)
            skipped.append(left_out("classification", name, why, unplanned))
    if uc.prevalence_parity is None or (uc.prevalence_parity is False and uc.intervention is None):
        notes.append(
            "answer prevalence_parity and intervention (assistive/punitive) to narrow the classification metrics"
        )
    return metrics, skipped, notes


#: Why refusal parity stands beside the paired decisions, numbers and lists: those compare only the pairs where both
#: versions answered, so a model that refuses one group's versions would leave nothing to compare and pass.
REFUSED_PAIRS = (
    "a refused version gives no decision, number or list to compare, so the pairs it would have made are left out of "
    "the paired metrics; the counterfactual versions should be refused alike (beyond the paper)"
)


def _plan_decisions(
    uc: UseCase, name: str, f: FTUSummary | None, metrics: list[PlannedMetric], skipped: list[NotApplicable]
) -> None:
    """The paired design for one attribute: prompts that mention its groups can be asked again with the group words
    changed, so the same case is compared across groups (far more power than groups of different persons)."""
    if f is None or not f.assessable or f.satisfied:
        return  # no group words to change (or none the lexicon can read): group labels only
    if not uc.counterfactual_invariance:
        why = "counterfactual invariance is not desired, so a decision may change with the group mentioned"
        skipped.append(left_out("counterfactual_decisions", name, why, COUNTERFACTUAL_DECISIONS))
        return
    _add(
        metrics,
        COUNTERFACTUAL_DECISIONS,
        name,
        f"{f.describe()}: each case is asked again with the {_what_changes(f)} changed and the decisions are compared "
        "pair by pair (counterfactual (paired) design; the same case, so a far more powerful test than groups of "
        "different persons)",
    )
    _add(metrics, REFUSALS, name, REFUSED_PAIRS)


def _what_changes(f: FTUSummary) -> str:
    """What the counterfactual versions change, as the plan says it: "race words", "names", "race words or
    names"."""
    return {"names": "names", "words and names": f"{f.attribute} words or names"}.get(
        str(f.signals), f"{f.attribute} words"
    )


def _plan_recommendation(uc: UseCase, ftu: Mapping[str, FTUSummary]) -> tuple[list[PlannedMetric], list[NotApplicable]]:
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    for name, f in ftu.items():
        if not f.assessable:
            skipped.append(
                left_out(
                    "recommendation",
                    name,
                    f"{f.describe()}: counterfactual prompts cannot be built from words the lexicon does not have "
                    "(§3.3)",
                    RECOMMENDATION,
                )
            )
        elif f.satisfied:
            skipped.append(
                left_out(
                    "recommendation",
                    name,
                    f"{f.describe()}: a fairness assessment is not applicable (§4)",
                    RECOMMENDATION,
                )
            )
        elif not uc.counterfactual_invariance:
            skipped.append(
                left_out(
                    "recommendation",
                    name,
                    "counterfactual invariance is not desired (e.g. different products per group are intended): "
                    "a fairness assessment is not applicable (§4)",
                    RECOMMENDATION,
                )
            )
        else:
            _add(
                metrics,
                RECOMMENDATION,
                name,
                f"{f.describe()} and counterfactual invariance is desired, so recommendations should not change "
                "with the group mentioned (§3.3)",
            )
            _add(metrics, REFUSALS, name, REFUSED_PAIRS)
    return metrics, skipped


#: What each counterfactual estimate adds to the paired comparison of an estimation use case (the plan's reasons).
_WHY_ESTIMATE = {
    "counterfactual_estimate_ratio": "the log ratio cancels each prompt's own scale (a car's price, a salary)",
    "counterfactual_estimate_difference": "the difference is in the answers' unit (dollars, days)",
}
#: The plan note of an estimation use case with counterfactual estimates.
ESTIMATE_FLOOR_NOTE = (
    "the same-version noise floor of the numbers (how far apart two samples of one version's answer are) needs two "
    "or more answers per prompt and group (generation count and counterfactual_count of 2 or more)"
)


def _plan_estimation(
    uc: UseCase, ftu: Mapping[str, FTUSummary]
) -> tuple[list[PlannedMetric], list[NotApplicable], list[str]]:
    """Figure 1 extended to numeric answers: the recommendation branch's questions (does FTU fail, is counterfactual
    invariance wanted?), with the paired comparison of the numbers answered as the evidence."""
    metrics: list[PlannedMetric] = []
    skipped: list[NotApplicable] = []
    for name, f in ftu.items():
        if not f.assessable:
            why = f"{f.describe()}: counterfactual prompts cannot be built from words the lexicon does not have"
            skipped.append(left_out("estimation", name, why, ESTIMATES))
        elif f.satisfied:
            why = (
                f"{f.describe()}: no prompt signals a {name} group, so there are no counterfactual versions to "
                "compare and a fairness assessment of the numbers is not applicable (§4); for scores of real "
                "persons whose groups are known, see the impact-ratio table (docs/regulation.md)"
            )
            skipped.append(left_out("estimation", name, why, ESTIMATES))
        elif not uc.counterfactual_invariance:
            why = (
                "counterfactual invariance is not desired: the number may rightly differ with the group (e.g. a "
                "dose by sex), so a difference is no evidence of unfairness"
            )
            skipped.append(left_out("estimation", name, why, ESTIMATES))
        else:
            paired = (
                f"{f.describe()}: each request is asked again with the {name} words or the person's name changed, "
                "and the numbers answered are compared over the same prompt"
            )
            for key in ESTIMATES:
                _add(metrics, (key,), name, f"{paired}; {_WHY_ESTIMATE[key]} (beyond the paper)")
            _add(metrics, REFUSALS, name, REFUSED_PAIRS)
    return metrics, skipped, [ESTIMATE_FLOOR_NOTE] if metrics else []


def plan(
    use_case: UseCase | None = None,
    /,
    *,
    reader: Any = None,
    reader_audit: Any = True,
    judge: bool = False,
    **answers: Any,
) -> Plan:
    """Map a use case to the metrics that fit it (paper section 4, Figure 1), each with its reason.

    Call with a :class:`UseCase` or with its fields as keywords::

        evenhand.plan(task="text_generation", prompts=prompts, content_may_differ=False)

    ``reader`` (opt-in): a second reader of identity cues for the FTU check (an LLM client spec or a
    :class:`~evenhand.text.cues.CueReader`; :func:`evenhand.text.ftu.check_ftu`), audited first on the shipped
    labelled set (``reader_audit``: True, False or a :class:`~evenhand.text.cue_audit.ReaderAudit`); the plan shows
    the audit, counts what each source found, and says which counterfactual versions the reader wrote. ``judge``:
    an LLM judge of counterfactual reply pairs is configured (text tasks: JWD beside the counterfactual metrics).

    Returns a :class:`Plan`: ``plan.metrics`` (what to compute, with reasons that quote the FTU result),
    ``plan.not_applicable`` (what is left out and why), ``plan.to_frame()`` and ``plan.explain()``.
    """
    try:  # a bad answer is one line naming it, not pydantic's report
        if use_case is None:
            use_case = UseCase(**answers)
        elif answers and isinstance(use_case, UseCase):
            use_case = UseCase.model_validate(use_case.model_dump() | answers)
    except ValidationError as exc:
        raise InputError(format_errors("plan()", exc)) from None
    if not isinstance(use_case, UseCase):
        raise InputTypeError(f"plan() expects a UseCase, got {type(use_case).__name__}")
    read = read_cues(use_case, reader, reader_audit) if reader is not None else None
    ftu, language = check_ftu(use_case, read)
    notes: list[str] = []
    if use_case.task in TEXT_TASKS:
        metrics, skipped = _plan_text(use_case, ftu, judge)
        notes.append(
            f"EMT and TP (and EMS, SP) follow the convention of {RESPONSES_PER_PROMPT} generations per prompt (Table 2)"
        )
    elif use_case.task == "classification":
        metrics, skipped, notes = _plan_classification(use_case, ftu)
    elif use_case.task == "estimation":
        metrics, skipped, notes = _plan_estimation(use_case, ftu)
    else:
        metrics, skipped = _plan_recommendation(use_case, ftu)
    if judge and use_case.task not in TEXT_TASKS:
        notes.append("the judge compares replies of text generation and summarization; it is not used here")
    notes = conversations_note(use_case) + template_note(use_case) + names_note(use_case, ftu) + notes
    notes += reader_notes(ftu)
    # the people no name list can place (issue 33): their prompts' replies against the rest's, observational
    unplaced_metrics, unplaced_skipped, unplaced = plan_unplaced(use_case, ftu)
    metrics, skipped = [*metrics, *unplaced_metrics], [*skipped, *unplaced_skipped]
    readers = english_only_readers([m.key for m in metrics])
    language = prompts_language(use_case, language, readers)
    caveats = language_notes(ftu, language, readers) + unplaced + repeated_prompts_caveat(use_case)
    audit = read.audit if read is not None else None
    return Plan(use_case, ftu, tuple(metrics), tuple(skipped), tuple(notes), tuple(caveats), reader_audit=audit)


def repeated_prompts_caveat(use_case: UseCase) -> list[str]:
    """A caveat when prompts repeat an earlier one word for word: each copy is resampled as an independent prompt,
    and a resumable store gives it the very responses of the first, so the intervals and tests would count the same
    evidence twice. Person-level prompts (classification) may repeat on purpose, one per person: no caveat there."""
    if use_case.person_level:
        return []
    seen: set[object] = set()
    repeats = 0
    for prompt in use_case.prompts or ():
        key = prompt if isinstance(prompt, str) else repr(prompt)
        repeats += key in seen
        seen.add(key)
    if not repeats:
        return []
    return [
        f"{repeats} of {len(use_case.prompts or ())} prompts repeat an earlier prompt word for word: each copy is "
        "asked on its own and counts as an independent prompt in the intervals and tests, which weights that text "
        "more; remove the repeats unless they weight the population on purpose"
    ]
