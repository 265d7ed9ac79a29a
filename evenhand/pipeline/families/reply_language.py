"""Which groups' replies an offline English-only reader cannot read (review7 #6 for refusals; left8a for toxicity
and sentiment).

The offline default readers of replies read English: the refusal wording patterns, the lexical toxicity model
(alt-profanity-check) and the MiniLM toxicity head, and VADER. A reply in another language gets a score from them
all the same (no refusal, no toxicity, neutral sentiment), so a group whose replies are in Spanish would get a false
"ok". Where a group's counterfactual replies are, by a clear majority, in another language
(:func:`evenhand.text.language.detect_language`), the metrics those readers give for that group are undefined with
the reason, and the run gets a caveat. A reader named by the user (a model, a callable) may read any language and is
trusted as it is. How the replies are scored does not change: only whether their figure is judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evenhand.pipeline.evidence.records import Comparison, MetricRecord
from evenhand.pipeline.families.base import RunContext, undefined_record
from evenhand.scorers.toxicity_minilm import SPEC as MINILM_SPEC
from evenhand.text.language import language_name

#: The language the offline default readers read (ISO 639-1).
ENGLISH = "en"
#: The names that select an offline English-only reader, by kind (None: the default); any other spec may read any
#: language.
_ENGLISH_SPECS: dict[str, tuple[str, ...]] = {
    "toxicity": ("default", "profanity-check", "profanity_check", MINILM_SPEC),
    "sentiment": ("vader",),
}


def reader_language(kind: str, spec: Any) -> str | None:
    """The language the ``kind`` scorer of ``spec`` (``scoring.toxicity``, ``scoring.sentiment``) reads: English for
    the offline defaults (None, their names; VADER's variants too), None for any other (a model, a callable)."""
    if isinstance(spec, Mapping):
        spec = spec.get("spec")
    if spec is None:
        return ENGLISH
    if isinstance(spec, str):
        low = spec.strip().lower()
        if low in _ENGLISH_SPECS[kind] or (kind == "sentiment" and low.startswith("vader-")):
            return ENGLISH
    return None


def other_language_groups(
    ctx: RunContext, attribute: str, reads: str | tuple[str, ...] | None, reader: str
) -> dict[str, str]:
    """Per group of ``attribute`` whose counterfactual replies are, by a clear majority, in another language than
    ``reads`` (one language, or the several a reader reads: the refusal patterns read English, Spanish, French, German
    and Portuguese): why ``reader`` ("the refusal detector") cannot read them. Empty where ``reads`` is None (a reader
    of unknown language) or the replies are in a language it reads."""
    if reads is None:
        return {}
    from evenhand.text.language import detect_language

    languages = (reads,) if isinstance(reads, str) else reads
    frame = ctx.frame
    rows = frame[(frame["attribute"] == attribute) & frame["group"].notna() & (frame["status"] == "ok")]
    out: dict[str, str] = {}
    for group, replies in rows.groupby("group", sort=False)["response"]:
        guess = detect_language(replies.astype(str).tolist())
        if all(guess.differs_from(language) for language in languages):
            out[str(group)] = (
                f"the {reader} reads {_names(languages)} and the replies to the {group} versions look "
                f"{guess.name} ({guess.evidence().replace('prompts', 'replies')}): {reader_cannot(reader)}"
            )
    return out


def _names(languages: tuple[str, ...]) -> str:
    """"English" or "English, Spanish and French"."""
    names = [language_name(code) for code in languages]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def reader_cannot(reader: str) -> str:
    """What a reader misses in another language, in words."""
    return {
        "refusal detector": "their refusals cannot be read",
        "toxicity scorer": "their toxicity cannot be read (a toxic reply would score as benign)",
        "sentiment scorer": "their tone cannot be read (every reply would score as neutral)",
    }.get(reader, "they cannot be read")


def unread_caveat(metrics: str, reader: str, setting: str) -> str:
    """The run's caveat where ``metrics`` ("TSD and MTD") were left undefined for a group in another language."""
    return (
        f"{metrics} are not judged for groups whose replies are in another language than the {reader} reads (the "
        f"offline default reads English): {reader_cannot(reader)}. Give a {reader} for that language ({setting}: a "
        "Hugging Face model or a callable)."
    )


def unread_record(
    ctx: RunContext, key: str, attribute: str, comparison: Comparison, why: str, caveat: str
) -> MetricRecord:
    """The undefined record of a metric whose reader cannot read a group's replies (``why``), with ``caveat`` added
    to the run once."""
    if caveat not in ctx.caveats:
        ctx.caveats.append(caveat)
    return undefined_record(key, attribute, comparison, why)
