"""The subject of a prompt: whose name decides FTU and is swapped in counterfactual versions.

A prompt can name several people: "Summarise the interview notes: Lakisha Gadson interviewed Ahmed Hassan; his
reference, Greg Baker, ..." names the interviewer, the candidate and a reference. Swapping all three together, or
flagging the prompt for race through a bystander, answers no question a practitioner asks. The ``subject`` setting
says whose name counts:

- ``"first"`` (the default): the first person the prompt names; the others are bystanders, kept as written;
- ``"every"``: every person named (each is swapped, the same way, in a version);
- a sequence, one entry per prompt: the subject's name as written in that prompt (a column of a table naming the
  subject), or None / "" when the prompt has no subject. A subject the name lists do not know is still found where
  the prompt writes it (its group then cannot be placed). An entry may be a :class:`TemplateSubject`: the subject
  of a prompt filled from a template (the person its placeholder stands for) with the spans the placeholders
  filled; its versions change those spans only, and keep the template's own words as written (people14).

Bystanders never decide FTU, and are never swapped, when the subject is "first" or given per prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from evenhand.errors import InputError
from evenhand.text._names_data import name_index, name_key
from evenhand.text.lexicon_model import TYPOGRAPHIC_APOSTROPHES
from evenhand.text.names import Mention, Person

__all__ = [
    "DEFAULT_SUBJECT",
    "SUBJECT_CHOICES",
    "Subject",
    "TemplateSubject",
    "check_subject",
    "select_subjects",
    "template_filled",
]

#: The settings of ``subject`` that are not a per-prompt list.
SUBJECT_CHOICES = ("first", "every")
#: The default: the first person a prompt names is its subject (what an instruction such as "Write a rejection email
#: to Lakisha Washington ..." is about); bystanders named later keep their names.
DEFAULT_SUBJECT = "first"


@dataclass(frozen=True)
class TemplateSubject:
    """The subject of a prompt filled from a template: ``name``, the person the placeholder stands for as the prompt
    writes them, and ``filled``, the character spans of the prompt that the template's placeholders filled (the
    name, the title and pronoun placeholders). The rest of the prompt is the template's own text: a bystander the
    template names, and every word it writes, are the same in every version, as in the template's fills for each
    group (:func:`~evenhand.text.fill_templates`)."""

    name: str
    filled: tuple[tuple[int, int], ...]


#: "first", "every", or per prompt the subject's name as written (None or "": no subject), or a
#: :class:`TemplateSubject`.
Subject: TypeAlias = "str | Sequence[str | TemplateSubject | None]"

_CAPITALISED = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def check_subject(subject: Subject, n_prompts: int) -> tuple[str | None, ...] | str:
    """``subject`` validated: one of :data:`SUBJECT_CHOICES`, or a tuple of one name (or None) per prompt."""
    if isinstance(subject, str):
        if subject not in SUBJECT_CHOICES:
            raise InputError(
                f"subject must be one of {list(SUBJECT_CHOICES)} or one name per prompt (a column naming the "
                f"subject), got {subject!r}"
            )
        return subject
    names = tuple(subject)
    if len(names) != n_prompts:
        raise InputError(
            f"subject names {len(names)} people for {n_prompts} prompts: give one name (or None) per prompt"
        )
    names = tuple(name.name if isinstance(name, TemplateSubject) else name for name in names)
    for i, name in enumerate(names):
        if name is not None and not isinstance(name, str):
            raise InputError(f"subject[{i}] must be a name or None, got {type(name).__name__}")
    return tuple(name.strip() if isinstance(name, str) and name.strip() else None for name in names)


def template_filled(subject: Subject, n_prompts: int) -> list[tuple[tuple[int, int], ...] | None]:
    """Per prompt, the spans its template's placeholders filled (:class:`TemplateSubject`), or None for a prompt
    not filled from a template (every prompt, unless ``subject`` gives them)."""
    if isinstance(subject, str):
        return [None] * n_prompts
    return [entry.filled if isinstance(entry, TemplateSubject) else None for entry in subject]


def _as_written(name: str) -> str:
    """A pattern for ``name`` as a prompt may write it: any apostrophe of it as any of the three (O'Brien, O’Brien,
    OʼBrien), the rest literally."""
    marks = ("'", *TYPOGRAPHIC_APOSTROPHES)
    return "".join(f"[{''.join(marks)}]" if ch in marks else re.escape(ch) for ch in name)


def _located(text: str, name: str) -> Person | None:
    """A person for a subject the lists did not find: the name's first and last word where the prompt writes them
    (capitalised, whole words); None when the prompt does not write the name."""
    words = _CAPITALISED.findall(name)
    if not words:
        return None
    first, last = (words[0], words[-1]) if len(words) > 1 else (None, words[0])
    whole = re.search(rf"(?<![\w'’-]){_as_written(name)}(?![\w-])", text)
    if whole is None:
        return None
    mentions: list[Mention] = []
    for part, word in (("first", first), ("last", last)):
        if word is None:
            continue
        for m in re.finditer(rf"(?<![\w'’-]){_as_written(word)}(?![\w-])", text):
            mentions.append(Mention(m.start(), m.end(), part, name_key(word)))
    mentions.sort(key=lambda m: m.start)
    return Person(
        whole.start(),
        whole.end(),
        None if first is None else name_key(first),
        name_key(last),
        tuple(mentions),
    )


def select_subjects(
    texts: Sequence[str], people: Sequence[tuple[Person, ...]], subject: Subject
) -> list[tuple[Person, ...]]:
    """Per text, the persons whose names count (:mod:`this module <evenhand.text.name_subjects>`)."""
    chosen = check_subject(subject, len(texts))
    if chosen == "every":
        return list(people)
    if chosen == "first":
        return [found[:1] for found in people]
    titles = name_index().titles
    out: list[tuple[Person, ...]] = []
    for text, found, name in zip(texts, people, chosen, strict=True):
        if name is None:
            out.append(())
            continue
        words = [name_key(w) for w in _CAPITALISED.findall(name)]
        words = [w for w in words if w not in titles] or words  # "Ms. Robinson": Robinson
        keys = [words[0], words[-1]] if len(words) > 1 else words
        match = next((p for p in found if keys and set(keys) <= {p.first, p.last}), None)
        if match is None:
            match = _located(text, name)
        out.append(() if match is None else (match,))
    return out
