"""Bystanders' attribute words kept in a counterfactual version (left10b).

A prompt that names its subject and a bystander ("Mr. John Smith, the loan officer, said he would review the file
of Emily Baker; her income ...") is asked about the subject: its versions change the subject's name, and, by the
lexicon, every attribute word, so the officer became "Mrs. John Smith ... she" in the female version of a male
subject: two people changed where one was meant to. Where the prompt names its subject (the person
:mod:`~evenhand.text.name_subjects` selects: the first person named, or the one a subject column names, or in a
prompt filled from a template the person its placeholder stands for), the words that belong to a bystander are kept
as written:

- a bystander's title (the lexicon word right before the bystander's name: "Mr." of "Mr. John Smith");
- a word of a group that is a bystander's (by that title, or by the bystander's name) and not the subject's: "he"
  in a prompt whose subject is Emily Baker and whose bystander is Mr. John Smith.

Every other attribute word changes as before, the subject's own pronouns and title included. Where it cannot tell
(the subject's group unknown, or the subject and a bystander of the same group, so that "he" could be either's), it
keeps today's behaviour: the word changes. Prompts that name nobody, or only their subject, and the word-only path
(``names=False``, which the LangFair-conformant outputs use) are unchanged.

A prompt filled from a template (:class:`~evenhand.text.name_subjects.TemplateSubject`) says more: the words its
placeholders filled are the subject's, and every other attribute word is the template's own, kept as written
(:func:`template_word_spans`), the bystander's "he" beside a man's fill included. Intersections (gender x race) keep a
bystander's words by the same rule, each attribute's words by its own name lists (people14; before, they changed
every word).

The words are kept by masking them, length for length, before the names and words are substituted, and restoring
them after, so offsets of the names found in the original text stay valid.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from evenhand.text._engine import AttributeMatch
from evenhand.text.name_subjects import Subject, template_filled
from evenhand.text.names import Person, find_name_matches, name_attributes

if TYPE_CHECKING:
    from evenhand.text.lexicon_model import Lexicon

__all__ = ["BystanderMask", "bystander_spans", "template_word_spans", "without_bystander_words"]

#: a letter no lexicon word or name is made of (U+01C2, a click letter): a masked word still reads as a word to the
#: substitution's look at the next word ("her brother" stays "his brother", not "him brother")
_MASK = "\u01c2"
_MASKED = re.compile(f"{_MASK}+")


def bystander_spans(
    text: str,
    matches: Sequence[AttributeMatch],
    people: Sequence[Person],
    subjects: Sequence[Person],
    name_attribute: str | None,
) -> list[tuple[int, int]]:
    """The character spans of ``text``'s attribute words (``matches``) that belong to a bystander: a person of
    ``people`` who is not one of ``subjects``; see the module docstring. ``name_attribute``: the attribute whose name
    lists place a person's group (None: titles only)."""
    chosen = {(p.start, p.end) for p in subjects}
    bystanders = [p for p in people if (p.start, p.end) not in chosen]
    if not subjects or not bystanders:
        return []
    titles = {_key(p): m for p in people for m in matches if _titles(text, m, p)}

    def group_of(person: Person) -> str | None:
        title = titles.get(_key(person))
        if title is not None and title.group is not None:
            return title.group
        if name_attribute is None:
            return None
        found = find_name_matches(name_attribute, [text], [(person,)])[0]
        return found[0].group if found else None

    subject_groups = {group_of(p) for p in subjects}
    theirs = {g for g in (group_of(p) for p in bystanders) if g is not None}
    kept = [titles[_key(p)] for p in bystanders if _key(p) in titles]
    if None not in subject_groups:
        owned = {id(m) for m in titles.values()}
        kept += [m for m in matches if id(m) not in owned and m.group in theirs - subject_groups]
    return sorted({(m.start, m.end) for m in kept})


def without_bystander_words(
    texts: Sequence[str],
    lexicons: Sequence[Lexicon],
    per_lexicon: Sequence[Sequence[tuple[AttributeMatch, ...]]],
    people: Sequence[tuple[Person, ...]],
    subjects: list[tuple[Person, ...]],
    subject: Subject,
) -> list[list[tuple[AttributeMatch, ...]]]:
    """The matches less the words the counterfactual versions keep as written (names17): a bystander's title and
    pronouns (:func:`bystander_spans`) and a template's own words
    (:func:`template_word_spans`). They are not the subject's, so they do not make the
    prompt mention the attribute, as a bystander's name does not (``subject``); every word whose owner the rule
    cannot tell still counts."""
    filled = template_filled(subject, len(texts))
    usable = name_attributes({lex.name: lex.all_groups for lex in lexicons})
    out: list[list[tuple[AttributeMatch, ...]]] = []
    for lex, found in zip(lexicons, per_lexicon, strict=True):
        row_out: list[tuple[AttributeMatch, ...]] = []
        for i, matches in enumerate(found):
            if not matches or (not filled[i] and len(people[i]) < 2):
                row_out.append(matches)
                continue
            kept = {
                *bystander_spans(texts[i], matches, people[i], subjects[i], usable.get(lex.name)),
                *template_word_spans(matches, filled[i]),
            }
            row_out.append(tuple(m for m in matches if (m.start, m.end) not in kept) if kept else matches)
        out.append(row_out)
    return out


def template_word_spans(
    matches: Sequence[AttributeMatch], filled: Sequence[tuple[int, int]] | None
) -> list[tuple[int, int]]:
    """The spans of the attribute words (``matches``) a prompt filled from a template has from the template's own
    text, outside the spans its placeholders ``filled`` (None: not filled from a template, nothing). The template
    says whose they are: not the placeholder's person ("The manager Mr. John Smith ... he will call {them}": "he"
    is the manager's even in a man's fill, where the rule above cannot tell), so they are kept as written, as the
    template's fills for each group write them."""
    if filled is None:
        return []
    return sorted({(m.start, m.end) for m in matches if not any(a <= m.start and m.end <= b for a, b in filled)})


def _key(person: Person) -> tuple[int, int]:
    return person.start, person.end


def _titles(text: str, match: AttributeMatch, person: Person) -> bool:
    """Whether ``match`` is the person's title: right before their name, a space or two apart."""
    return 0 < person.start - match.end <= 2 and not text[match.end : person.start].strip()


class BystanderMask:
    """The texts with their bystanders' words masked (length for length), and the way back."""

    def __init__(self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]) -> None:
        self.words = [[text[a:b] for a, b in row] for text, row in zip(texts, spans, strict=True)]
        self.texts = [_masked(text, row) for text, row in zip(texts, spans, strict=True)]

    def restore(self, texts: Sequence[str]) -> list[str]:
        """``texts`` (versions of the masked texts, in the same order) with each masked word back as written."""
        out = []
        for text, words in zip(texts, self.words, strict=True):
            out.append(_restored(text, words) if words else text)
        return out


def _restored(text: str, words: Sequence[str]) -> str:
    """``text`` with its masked runs replaced by ``words``, in order."""
    kept = iter(words)
    return _MASKED.sub(lambda _: next(kept, ""), text)


def _masked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    for a, b in spans:
        text = text[:a] + _MASK * (b - a) + text[b:]
    return text
