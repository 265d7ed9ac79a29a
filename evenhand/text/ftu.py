"""Fairness through unawareness (FTU): do any prompts mention a protected attribute?

The paper (section 2.2): given a protected-attribute lexicon A, a use case satisfies FTU iff no prompt X in the
population contains a word of A (X ∩ A = ∅ for every X). When FTU fails, counterfactual and stereotype metrics
apply (paper section 4, Figure 1).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt

from evenhand.conversation import Prompt, as_prompt_list, has_conversations
from evenhand.errors import InputError
from evenhand.text._engine import AttributeMatch, find_matches
from evenhand.text.bystanders import without_bystander_words
from evenhand.text.cues import LEXICON, NAMES, READER, Cue, CueReader, ReaderOutput
from evenhand.text.language import LanguageGuess, detect_prompt_language, language_name
from evenhand.text.lexicon import Lexicon, builtin_attributes, load_lexicon
from evenhand.text.name_subjects import DEFAULT_SUBJECT, Subject, select_subjects
from evenhand.text.names import (
    NameMatch,
    Person,
    UnplacedName,
    find_name_matches,
    find_people_many,
    find_unplaced,
    name_attributes,
)
from evenhand.text.turns import BARE, Layout, Location, layouts_of

if TYPE_CHECKING:
    import pandas as pd

    from evenhand.text.cue_audit import ReaderAudit

# a built-in attribute ("gender", "race", ...) | None (all built-ins) | {"group": [aligned words]} | a Lexicon |
# a list or tuple of those (an intersection: the attributes together, groups such as "female+black")
SingleAttribute: TypeAlias = "str | Mapping[str, Sequence[str]] | Lexicon"
AttributeSpec: TypeAlias = "SingleAttribute | list[SingleAttribute] | tuple[SingleAttribute, ...] | None"

__all__ = [
    "AttributeMatch",
    "AttributeSpec",
    "FTUResult",
    "Location",
    "NameMatch",
    "UnplacedName",
    "check_ftu",
    "resolve_lexicons",
]


def resolve_lexicons(attribute: AttributeSpec) -> tuple[Lexicon, ...]:
    """The lexicons an attribute spec stands for (``None``: every built-in one; a list or tuple of specs: those
    attributes together, an intersection such as ``("gender", "race")``)."""
    if attribute is None:
        return tuple(load_lexicon(name) for name in builtin_attributes())
    if isinstance(attribute, (list, tuple)):
        return tuple(load_lexicon(a) for a in attribute)
    return (load_lexicon(attribute),)


@dataclass(frozen=True, eq=False)
class FTUResult:
    """Outcome of :func:`check_ftu`.

    Attributes:
        attribute: the lexicon(s) checked, e.g. ``"gender"`` or ``"gender+race"``.
        prompts: the prompts, as given.
        matches: per prompt, the attribute words found (:class:`AttributeMatch`: word, start, end, term, group,
            attribute), in order of position.
        lexicon_language: the language of the lexicon(s) checked (``"en"``), or None when unknown (a custom dict)
            or when they differ.
        names: per prompt, the persons whose names signal a group (:class:`~evenhand.text.names.NameMatch`: word,
            start, end, group, attribute, name, share), in order of position; empty tuples when names were not
            checked.
        names_checked: True when personal names were read (``check_ftu(..., names=True)``, the default); a prompt
            counts as mentioning the attribute when it has an attribute word or such a name.
        unplaced: per prompt, the subjects named whose group no name list can place for a built-in attribute
            checked (:class:`~evenhand.text.names.UnplacedName`: word, start, end, attribute): the attribute has
            no name data (religion, nationality), or no group of the name reaches the cut ("Fatima Al-Sayed" for
            race); empty tuples when names were not checked.
        subject: whose names were read: ``"first"`` (the first person each prompt names), ``"every"``, or
            ``"given"`` (one name per prompt; :mod:`evenhand.text.name_subjects`).
        reader: what a second reader (``check_ftu(..., reader=...)``) found, after the verbatim rule: per prompt its
            cues (:class:`~evenhand.text.cues.Cue`) and the claims it dropped; None when no reader was used.
        reader_audit: the reader's audit on the shipped labelled set (:class:`~evenhand.text.cue_audit.ReaderAudit`),
            when it was audited. A reader flags prompts only when ``reader_trusted``: its audit passed (or it was
            not audited, ``audit=False``); an untrusted reader's cues are reported and flag nothing.
        locations: per prompt, where each of ``matches`` was found (:class:`~evenhand.text.turns.Location`: a turn
            and its role, or a retrieved document), when the prompts hold conversations; the offsets of a match (and
            of an unplaced name) are then those inside its turn or document. Empty when every prompt is a bare text.
        name_locations: the same for ``names``.

    A prompt is a text or a :class:`~evenhand.conversation.Conversation`: every turn (the system prompt too) and
    every retrieved document is read. ``flagged`` counts a prompt whose request or context mentions the
    attribute; ``in_context`` and ``context_only`` tell the documents apart, ``flagged_turns`` says which turns.

    ``satisfied`` is the paper's check as run: no prompt contains a lexicon word. It says nothing when the prompts
    are in another language than the lexicon: see ``assessable`` and ``language``.
    """

    attribute: str
    prompts: tuple[Prompt, ...]
    matches: tuple[tuple[AttributeMatch, ...], ...]
    lexicon_language: str | None = None
    names: tuple[tuple[NameMatch, ...], ...] = ()
    names_checked: bool = False
    unplaced: tuple[tuple[UnplacedName, ...], ...] = ()
    subject: str = DEFAULT_SUBJECT
    reader: ReaderOutput | None = None
    reader_audit: ReaderAudit | None = None

    @property
    def reader_trusted(self) -> bool:
        """Whether the reader's cues flag prompts: a reader was used and passed its audit (or was not audited)."""
        return self.reader is not None and (self.reader_audit is None or self.reader_audit.trusted)

    @property
    def reader_cues(self) -> tuple[tuple[Cue, ...], ...]:
        """Per prompt, the reader's cues found verbatim (empty tuples without a reader)."""
        return self.reader.cues if self.reader is not None else ((),) * len(self.prompts)
    locations: tuple[tuple[Location, ...], ...] = ()
    name_locations: tuple[tuple[Location, ...], ...] = ()

    def _mentions(self) -> list[bool]:
        """Per prompt: an attribute word, a name that signals a group, or a cue of a trusted reader."""
        names = self.names or ((),) * len(self.matches)
        cues = self.reader_cues if self.reader_trusted else ((),) * len(self.matches)
        return [bool(m) or bool(n) or bool(c) for m, n, c in zip(self.matches, names, cues, strict=True)]

    def sources(self) -> list[dict[str, list[str]]]:
        """Per prompt, what flags it by source: ``{"lexicon": words, "names": names, "reader": cues}`` (each
        distinct, in order of position; a source that found nothing is left out)."""
        names = self.names or ((),) * len(self.matches)
        out = []
        for words, named, cues in zip(self.matches, names, self.reader_cues, strict=True):
            found = {
                LEXICON: list(dict.fromkeys(m.word for m in words)),
                NAMES: list(dict.fromkeys(n.word for n in named)),
                READER: list(dict.fromkeys(c.word for c in cues)),
            }
            out.append({source: listed for source, listed in found.items() if listed})
        return out

    def reasons(self) -> list[str]:
        """Per prompt, why it is flagged, source by source: ``"flagged by the lexicon: 'She'; by the reader:
        'hijab'"`` ("" when nothing flags it; an untrusted reader's cues are said to flag nothing)."""
        out = []
        for found in self.sources():
            parts = []
            for source, listed in found.items():
                words = ", ".join(repr(w) for w in listed)
                if source == READER and not self.reader_trusted:
                    parts.append(f"by the reader (not trusted, flags nothing): {words}")
                else:
                    parts.append(f"by the {'names' if source == NAMES else source}: {words}")
            out.append("flagged " + "; ".join(parts) if parts else "")
        return out

    def source_counts(self) -> dict[str, int]:
        """Prompts each source flags, and those only the reader flags (``reader_only``; 0 for an untrusted
        reader): ``{"lexicon": 12, "names": 3, "reader": 15, "reader_only": 4}``."""
        names = self.names or ((),) * len(self.matches)
        counts = {LEXICON: 0, NAMES: 0, READER: 0, "reader_only": 0}
        for words, named, cues in zip(self.matches, names, self.reader_cues, strict=True):
            counts[LEXICON] += bool(words)
            counts[NAMES] += bool(named)
            counts[READER] += bool(cues)
            counts["reader_only"] += bool(cues) and not words and not named and self.reader_trusted
        return counts

    @property
    def reader_only_index(self) -> tuple[int, ...]:
        """Prompts a trusted reader flags and neither the lexicon nor a name does: their counterfactual versions
        must come from the reader (:func:`evenhand.text.cue_counterfactual.reader_counterfactuals`)."""
        if not self.reader_trusted:
            return ()
        names = self.names or ((),) * len(self.matches)
        rows = zip(self.matches, names, self.reader_cues, strict=True)
        return tuple(i for i, (words, named, cues) in enumerate(rows) if cues and not words and not named)

    @functools.cached_property
    def language(self) -> LanguageGuess:
        """The prompts' language (:func:`evenhand.text.language.detect_prompt_language`), detected on first access."""
        return detect_prompt_language(self.prompts)

    @property
    def assessable(self) -> bool:
        """False when the prompts are confidently in another language than the lexicon's (then a satisfied check
        only means that the lexicon cannot read the prompts). Detects the prompts' language only when the
        lexicon's is known."""
        return self.lexicon_language is None or not self.language.differs_from(self.lexicon_language)

    @property
    def n_prompts(self) -> int:
        return len(self.prompts)

    @property
    def flagged(self) -> npt.NDArray[np.bool_]:
        """Boolean mask: True where the prompt mentions an attribute word (or a name that signals a group)."""
        return np.fromiter(self._mentions(), dtype=bool, count=len(self.matches))

    @property
    def flagged_index(self) -> tuple[int, ...]:
        """Indices of the prompts that mention an attribute word (or a name that signals a group)."""
        return tuple(i for i, m in enumerate(self._mentions()) if m)

    @property
    def flagged_prompts(self) -> list[Prompt]:
        """The prompts that mention an attribute word or a name that signals a group (the paper's P_X|A)."""
        return [p for p, m in zip(self.prompts, self._mentions(), strict=True) if m]

    def group_counts(self) -> dict[str, int]:
        """Number of prompts that mention each group (a prompt can count for several)."""
        counts: dict[str, int] = {}
        names = self.names or ((),) * len(self.matches)
        cues = self.reader_cues if self.reader_trusted else ((),) * len(self.matches)
        for found, named, read in zip(self.matches, names, cues, strict=True):
            groups = [m.group for m in found if m.group is not None] + [n.group for n in named]
            groups += [c.group for c in read if c.group is not None]
            for group in dict.fromkeys(groups):
                counts[group] = counts.get(group, 0) + 1
        return counts

    @property
    def n_flagged(self) -> int:
        """Number of prompts that mention an attribute word (or a name that signals a group)."""
        return sum(self._mentions())

    @property
    def satisfied(self) -> bool:
        """True iff no prompt mentions any attribute word (the paper's FTU definition)."""
        return self.n_flagged == 0

    def attribute_words(self) -> list[list[str]]:
        """Per prompt, the distinct lexicon terms found, in order of first appearance."""
        return [list(dict.fromkeys(m.term for m in found)) for found in self.matches]

    @property
    def n_named(self) -> int:
        """Number of prompts with a name that signals a group."""
        return sum(1 for n in self.names if n)

    @property
    def n_named_with_words(self) -> int:
        """Number of prompts with both a name that signals a group and an attribute word."""
        return sum(1 for m, n in zip(self.matches, self.names, strict=False) if m and n)

    @property
    def n_unplaced(self) -> int:
        """Number of prompts that name a subject whose group no name list can place (:attr:`unplaced`)."""
        return sum(1 for u in self.unplaced if u)

    def unplaced_words(self) -> list[str]:
        """The distinct unplaced subjects' names, as written, in order of first appearance."""
        return list(dict.fromkeys(u.word for found in self.unplaced for u in found))

    def _where(self) -> list[set[Location]]:
        """Per prompt, every place an attribute word or a signalling name was found."""
        out: list[set[Location]] = []
        for i, found in enumerate(self.matches):
            named = self.names[i] if self.names else ()
            if not self.locations:
                out.append({BARE} if found or named else set())
                continue
            places = set(self.locations[i])
            if self.name_locations:
                places.update(self.name_locations[i])
            out.append(places)
        return out

    def flagged_turns(self) -> list[tuple[int, ...]]:
        """Per prompt, the turns (positions in the conversation, from 0; a bare text is turn 0) that mention the
        attribute (in their words, their participant names or their tool calls' arguments), in order: where its words
        are, and where a person whose name signals a group is first named."""
        in_turns = ("turn", "call", "name")
        return [tuple(sorted({w.position for w in places if w.kind in in_turns})) for places in self._where()]

    @property
    def in_turns(self) -> npt.NDArray[np.bool_]:
        """True where a turn of the prompt (its last user turn, an earlier one or its system prompt) mentions the
        attribute."""
        return np.fromiter((bool(t) for t in self.flagged_turns()), dtype=bool, count=len(self.matches))

    @property
    def in_context(self) -> npt.NDArray[np.bool_]:
        """True where a retrieved document of the prompt mentions the attribute."""
        places = self._where()
        return np.fromiter(
            (any(w.kind == "context" for w in p) for p in places), dtype=bool, count=len(self.matches)
        )

    @property
    def context_only(self) -> npt.NDArray[np.bool_]:
        """True where only the retrieved documents mention the attribute: no turn does."""
        return self.in_context & ~self.in_turns

    @property
    def n_context_only(self) -> int:
        return int(self.context_only.sum())

    def name_words(self) -> list[list[str]]:
        """Per prompt, the distinct names (as written) that signal a group, in order of first appearance."""
        return (
            [list(dict.fromkeys(n.word for n in found)) for found in self.names]
            if self.names
            else [[] for _ in self.prompts]
        )

    def names_frame(self) -> pd.DataFrame:
        """One row per name that signals a group: ``prompt_index, word, start, end, group, attribute, name,
        share``."""
        import pandas as pd  # only here: importing the text core stays light

        rows = [(i, *n) for i, found in enumerate(self.names) for n in found]
        return pd.DataFrame(rows, columns=["prompt_index", *NameMatch._fields])

    def to_frame(self) -> pd.DataFrame:
        """One row per prompt: ``prompt_index, prompt, flagged, n_matches, attribute_words, groups``."""
        import pandas as pd  # only here: importing the text core stays light

        frame = pd.DataFrame(
            {
                "prompt_index": np.arange(self.n_prompts),
                "prompt": list(self.prompts),
                "flagged": self.flagged,
                "n_matches": [len(m) for m in self.matches],
                "attribute_words": self.attribute_words(),
                "groups": [sorted({g for g in (x.group for x in m) if g is not None}) for m in self.matches],
            }
        )
        if self.locations:  # conversations: which turns, and whether the retrieved documents, mention it
            frame["flagged_turns"] = self.flagged_turns()
            frame["in_context"] = self.in_context
        return frame

    def matches_frame(self) -> pd.DataFrame:
        """One row per match: ``prompt_index, word, start, end, term, group, attribute``."""
        import pandas as pd  # only here: importing the text core stays light

        rows = [(i, *m) for i, found in enumerate(self.matches) for m in found]
        frame = pd.DataFrame(rows, columns=["prompt_index", *AttributeMatch._fields])
        if self.locations:  # the offsets are then those inside the turn or document named here
            places = [w for found in self.locations for w in found]
            frame["part"] = [w.kind for w in places]
            frame["part_position"] = [w.position for w in places]
            frame["role"] = [w.role for w in places]
        return frame

    def summary(self) -> str:
        if not self.assessable:
            return (
                f"FTU ({self.attribute}) not assessable: the prompts look {self.language.name} "
                f"({self.language.evidence()}) and the lexicon reads {language_name(self.lexicon_language)}"
            )
        verdict = "satisfied" if self.satisfied else "not satisfied"
        line = f"FTU ({self.attribute}) {verdict}: {self.n_flagged} of {self.n_prompts} prompts mention the attribute"
        if self.n_named:
            shown = list(dict.fromkeys(n.word for found in self.names for n in found))
            more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
            both = self.n_named_with_words
            also = f", {both} of them with attribute words too" if both else ""
            line += f" ({self.n_named} name a person whose name signals a group{also}: {', '.join(shown[:5])}{more})"
        if self.reader is not None:
            counts = self.source_counts()
            cues = list(dict.fromkeys(c.word for found in self.reader.cues for c in found))
            listed = ", ".join(repr(c) for c in cues[:5]) + (f" and {len(cues) - 5} more" if len(cues) > 5 else "")
            line += f"; the reader flags {counts[READER]} prompts" + (f" (cues: {listed})" if cues else "")
            if self.reader_trusted:
                line += f", {counts['reader_only']} of them only by the reader"
            else:
                line += ", but it is not trusted (its audit failed), so they count for nothing"
            if self.reader.n_rejected:
                line += f"; {self.reader.n_rejected} of its claims were not in their prompt and were dropped"
        if self.n_context_only:
            line += f"; {self.n_context_only} only in their retrieved context"
        return line

    def __repr__(self) -> str:
        return (
            f"FTUResult(attribute={self.attribute!r}, satisfied={self.satisfied}, n_flagged={self.n_flagged}, "
            f"n_prompts={self.n_prompts})"
        )


def check_ftu(
    prompts: Any,
    attribute: AttributeSpec = None,
    *,
    names: bool = True,
    subject: Subject = DEFAULT_SUBJECT,
    reader: Any = None,
    audit: bool | ReaderAudit = True,
) -> FTUResult:
    """Check fairness through unawareness: does any prompt mention a protected-attribute word?

    FTU holds iff ``X ∩ A = ∅`` for every prompt ``X`` and the attribute lexicon ``A``. Matching is whole-word and
    case-insensitive ("whitespace" and "shepherd" are not attribute words); "black", "white", "asian" and
    "indian" count only before a person noun ("a black woman", not "a black car").

    Args:
        prompts: list, tuple, NumPy array or pandas Series of strings (empty strings match nothing) or
            conversations (:class:`~evenhand.conversation.Conversation`, or lists of ``{"role", "content"}``
            messages): every turn and retrieved document is read, and the result says where
            (``flagged_turns()``, ``in_context``).
        attribute: a built-in attribute (``"gender"``, ``"race"``, ...: see
            :func:`~evenhand.text.lexicon.builtin_attributes`), ``None`` (every built-in lexicon), a custom dict of
            aligned word lists ``{"group_a": [...], "group_b": [...]}``, or a :class:`~evenhand.text.lexicon.Lexicon`.
        names: also read personal names that signal a group where they read as a person ("Jamal Washington",
            "Ms. Robinson", "thank Emily"; never "Washington approved the rule"): gender and race have name lists
            (``evenhand/data/names/``). ``names=False`` reads attribute words only; the result's ``names_checked``
            records which was used.
        subject: whose names count (:mod:`evenhand.text.name_subjects`): ``"first"`` (default: the first person a
            prompt names; bystanders named after them never decide FTU), ``"every"``, or one name (or None) per
            prompt, the subject as written (a column naming the subject).
        reader: a second reader of identity cues (opt-in): anything :func:`evenhand.generation.get_client` takes
            (an LLM: a client, ``{"provider": "openai", ...}``, ``"local"``), an object with ``read_cues`` (a
            :class:`~evenhand.text.cues.CueReader`), or a :class:`~evenhand.text.cues.ReaderOutput` already read
            for these prompts (used as it is).
            It lists the cues of each prompt per attribute ("hijab", "synagogue", "paycheck to paycheck"); only
            cues found verbatim in the prompt count, and each prompt's sources are kept (``sources()``,
            ``reasons()``: "flagged by the lexicon: 'She'; by the reader: 'hijab'").
        audit: with a reader, audit it first on the shipped labelled set (:func:`evenhand.text.cue_audit.
            audit_reader`; ``True``, the default), or take this :class:`~evenhand.text.cue_audit.ReaderAudit`;
            ``False`` trusts it unaudited. A reader below the audit's bar is reported and flags nothing.

    Returns:
        :class:`FTUResult` with ``satisfied``, ``n_flagged``, per-prompt ``matches`` and ``to_frame()``;
        ``assessable`` is False when the prompts are confidently in another language than the lexicon's
        (``lexicon_language``; the prompts' ``language`` is detected when first read).

    >>> r = check_ftu(["Summarise the call.", "She asked about her bill."], attribute="gender")
    >>> r.satisfied, r.n_flagged, [m.word for m in r.matches[1]]
    (False, 1, ['She', 'her'])
    >>> es = check_ftu(["Mi madre quiere saber si su seguro cubre los daños.", "Él es el padre de dos niños."],
    ...                "gender")
    >>> es.satisfied, es.assessable, es.language.code
    (True, False, 'es')
    """
    items = as_prompt_list(prompts, "prompts")
    layouts = layouts_of(items, "the FTU check reads") if has_conversations(items) else None
    texts = [shape.text for shape in layouts] if layouts is not None else [str(p) for p in items]
    lexicons = resolve_lexicons(attribute)
    per_lexicon = [find_matches(lex, texts) for lex in lexicons]
    found_people = find_people_many(texts) if names else None
    people = select_subjects(texts, found_people, subject) if found_people is not None else None
    if found_people is not None and people is not None:
        per_lexicon = without_bystander_words(texts, lexicons, per_lexicon, found_people, people, subject)
    if len(per_lexicon) == 1:
        matches = tuple(per_lexicon[0])
    else:
        matches = tuple(
            tuple(sorted((m for found in row for m in found), key=lambda m: (m.start, m.end, m.attribute)))
            for row in zip(*per_lexicon, strict=True)
        )
    name = "+".join(lex.name for lex in lexicons)
    languages = {lex.language for lex in lexicons}
    language = languages.pop() if len(languages) == 1 else None
    named: tuple[tuple[NameMatch, ...], ...] = ()
    unplaced: tuple[tuple[UnplacedName, ...], ...] = ()
    kind = subject if isinstance(subject, str) else "given"
    if people is not None:
        named = _names(texts, lexicons, people)
        unplaced = _unplaced(texts, lexicons, people, per_lexicon)
    locations: tuple[tuple[Location, ...], ...] = ()
    name_locations: tuple[tuple[Location, ...], ...] = ()
    if layouts is not None:  # offsets inside each turn or document, and which one
        matches, locations = _relocate(matches, layouts)
        if named:
            named, name_locations = _relocate(named, layouts)
        if unplaced:
            unplaced, _ = _relocate(unplaced, layouts)
    read, audited = _read(reader, audit, texts, lexicons)
    return FTUResult(
        attribute=name,
        prompts=tuple(items),
        matches=matches,
        lexicon_language=language,
        names=named,
        names_checked=names,
        unplaced=unplaced,
        subject=kind,
        reader=read,
        reader_audit=audited,
        locations=locations,
        name_locations=name_locations,
    )


def _unplaced(
    texts: list[str],
    lexicons: tuple[Lexicon, ...],
    people: list[tuple[Person, ...]],
    words: list[list[tuple[AttributeMatch, ...]]],
) -> tuple[tuple[UnplacedName, ...], ...]:
    """Per prompt, the subjects no name list places for a built-in lexicon checked (a custom word list is about
    groups names say nothing of), in the prompts with no word of that lexicon ("Mr. Chen" is placed for gender by
    "Mr.", and his prompt's versions change that word)."""
    builtin = set(builtin_attributes())
    rows: list[list[UnplacedName]] = [[] for _ in texts]
    for lex, matches in zip(lexicons, words, strict=True):
        if lex.name not in builtin:
            continue
        for row, found, worded in zip(rows, find_unplaced(lex.name, texts, people), matches, strict=True):
            if found and not worded:
                row.extend(found)
    return tuple(tuple(row) if row else () for row in rows)


def _read(
    reader: Any, audit: bool | ReaderAudit, texts: list[str], lexicons: tuple[Lexicon, ...]
) -> tuple[ReaderOutput | None, ReaderAudit | None]:
    """The reader's output for ``texts`` (verbatim cues only) and its audit, as :func:`check_ftu` describes."""
    from evenhand.text.cue_audit import ReaderAudit, audit_reader
    from evenhand.text.cues import read_prompts

    if reader is None:
        return None, None
    attributes = {lex.name: lex.all_groups for lex in lexicons}
    given = audit if isinstance(audit, ReaderAudit) else None
    if isinstance(reader, ReaderOutput):
        if len(reader.prompts) != len(texts) or list(reader.prompts) != texts:
            raise InputError("the reader output is for other prompts than these")
        return reader, given  # already read for these prompts, and restricted to its attributes by the caller
    if not isinstance(reader, CueReader):
        from evenhand._assistants import CUE_READER, build

        reader = build(CUE_READER, reader)
    audited = given or (audit_reader(reader, attributes) if audit is True else None)
    return read_prompts(reader, texts, attributes), audited


def _names(
    texts: list[str], lexicons: tuple[Lexicon, ...], people: list[tuple[Person, ...]]
) -> tuple[tuple[NameMatch, ...], ...]:
    """Per prompt, the names that signal a group of one of the lexicons (those with name lists), by position."""
    usable = name_attributes({lex.name: lex.all_groups for lex in lexicons})
    if not usable:
        return tuple(() for _ in texts)
    groups = {lex.name: set(lex.all_groups) for lex in lexicons}
    per_attribute = [
        [
            tuple(n for n in row if n.group in groups[lexicon]) if row else ()
            for row in find_name_matches(attr, texts, people)
        ]
        for lexicon, attr in usable.items()
    ]
    if len(per_attribute) == 1:
        return tuple(per_attribute[0])
    return tuple(
        tuple(sorted((n for found in row for n in found), key=lambda n: (n.start, n.end, n.attribute)))
        for row in zip(*per_attribute, strict=True)
    )


_Found = TypeVar("_Found", AttributeMatch, NameMatch, UnplacedName)


def _relocate(
    found: tuple[tuple[_Found, ...], ...], layouts: list[Layout]
) -> tuple[tuple[tuple[_Found, ...], ...], tuple[tuple[Location, ...], ...]]:
    """Matches found in each prompt's layout text, with offsets inside their turn or document, and where each is."""
    moved: list[tuple[_Found, ...]] = []
    places: list[tuple[Location, ...]] = []
    for row, shape in zip(found, layouts, strict=True):
        spans = [shape.locate(m.start, m.end) for m in row]
        moved.append(tuple(m._replace(start=s, end=e) for m, (_, s, e) in zip(row, spans, strict=True)))
        places.append(tuple(where for where, _, _ in spans))
    return tuple(moved), tuple(places)
