"""The FTU check of a use case's prompts, per attribute, and what the prompts' language means for it.

FTU is checked with an attribute's lexicon, which reads one language (``Lexicon.language``). When the prompts are
confidently in another language (:func:`evenhand.text.language.detect_language`), FTU is *not assessable* for that
attribute: never "satisfied" (the lexicon would find no word in any prompt), and the plan leaves out the metrics
that need the lexicon to read the prompts (counterfactual, stereotype), saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evenhand.errors import InputError
from evenhand.framework.plan import FTUSummary, PartCounts, join_words
from evenhand.framework.use_case import UseCase
from evenhand.registry import METRICS
from evenhand.text._names_data import measured_recall
from evenhand.text.language import LanguageGuess, language_name

if TYPE_CHECKING:
    from evenhand.text.cue_audit import ReaderAudit
    from evenhand.text.cues import ReaderOutput


def check_ftu(use_case: UseCase, read: ReadCues | None = None) -> tuple[dict[str, FTUSummary], LanguageGuess | None]:
    """FTU per attribute, from the prompts when given, otherwise from the user's answer; and the prompts' language
    (None when not detected: no prompts, or no lexicon with a known language).

    ``read``: what a second reader of identity cues made of the prompts (:func:`read_cues`): a trusted reader's cues
    flag prompts too, each attribute's summary counts what each source found, and the versions of the prompts only
    the reader flags are written by it (:func:`evenhand.text.cue_counterfactual.reader_counterfactuals`) when
    counterfactual invariance is desired and the attribute's FTU is assessable.
    """
    out: dict[str, FTUSummary] = {}
    if not use_case.prompts:
        if use_case.mentions_protected_groups is None:
            raise InputError(
                "plan() needs the use case's prompts (to check FTU) or the answer mentions_protected_groups=True/False"
            )
        for name in use_case.attribute_specs:
            out[name] = FTUSummary(name, not use_case.mentions_protected_groups, 0, 0, source="answer")
        return out, None
    from evenhand.conversation import has_conversations
    from evenhand.text.ftu import check_ftu
    from evenhand.text.language import detect_prompt_language

    results = {
        name: check_ftu(
            use_case.prompts,
            attribute=spec,
            names=use_case.names,
            subject=use_case.name_subject,
            **(read.for_attribute(name) if read is not None and not isinstance(spec, tuple) else {}),
        )
        for name, spec in use_case.attribute_specs.items()
    }
    known = any(r.lexicon_language is not None for r in results.values())
    # custom word lists alone: nothing to compare
    guess = detect_prompt_language(use_case.prompts) if known else None
    conversations = has_conversations(use_case.prompts)
    for name, result in results.items():
        assessable = guess is None or not guess.differs_from(result.lexicon_language)
        out[name] = FTUSummary(
            attribute=name,
            satisfied=bool(result.satisfied) and assessable,
            n_flagged=int(result.n_flagged),
            n_prompts=len(use_case.prompts),
            examples=_matched_words(result),
            assessable=assessable,
            language=guess.code if guess is not None else None,
            lexicon_language=result.lexicon_language,
            language_evidence=guess.evidence() if guess is not None and guess.code is not None else "",
            names_read=result.names_checked and reads_names(use_case.attribute_specs[name]),
            n_named=int(result.n_named),
            n_named_only=_named_only(result),
            name_examples=_name_examples(result),
            n_unplaced=int(result.n_unplaced),
            unplaced_examples=tuple(result.unplaced_words()),
            unplaced_prompts=tuple(i for i, found in enumerate(result.unplaced) if found),
            **(read.summary_fields(name, result, use_case, assessable) if read and result.reader is not None else {}),
            parts=_parts(result, use_case.prompts) if conversations else None,
            located=_located(result) if conversations else (),
        )
    return out, guess


def _name_examples(result: Any) -> tuple[str, ...]:
    """The names that signal a group, those of prompts with no attribute word first (the plan quotes them for the
    prompts a name alone flags)."""
    rows = list(zip(result.matches, result.names, strict=True)) if result.names else []
    ordered = [n.word for words, found in rows if not words for n in found]
    ordered += [n.word for words, found in rows if words for n in found]
    return tuple(dict.fromkeys(ordered))


@dataclass(frozen=True)
class ReadCues:
    """What a reader made of a use case's prompts: its output for every attribute, its audit, and itself (to write
    the versions of the prompts only it flags)."""

    reader: Any
    output: ReaderOutput
    audit: ReaderAudit | None

    def for_attribute(self, name: str) -> dict[str, Any]:
        """The keywords of :func:`evenhand.text.ftu.check_ftu` that give it this attribute's cues and the audit."""
        return {"reader": self.output.for_attributes([name]), "audit": self.audit or False}

    def summary_fields(self, name: str, result: Any, use_case: UseCase, assessable: bool) -> dict[str, Any]:
        """The reader's part of attribute ``name``'s :class:`FTUSummary`: what each source found, what only the
        reader found, and the versions the reader wrote of those prompts (when counterfactual invariance is
        desired)."""
        from evenhand.text.counterfactual import attribute_groups
        from evenhand.text.cue_counterfactual import reader_counterfactuals

        counts = result.source_counts()
        versions = None
        if result.reader_only_index and use_case.counterfactual_invariance and assessable:
            groups = attribute_groups(use_case.attribute_specs[name])
            versions = reader_counterfactuals(
                result.prompts, result.reader_cues, result.reader_only_index, name, groups, self.reader
            )
        return {
            "reader_used": True,
            "reader_trusted": result.reader_trusted,
            "source_counts": counts,
            "reader_examples": tuple(dict.fromkeys(c.word for found in result.reader_cues for c in found)),
            "reader_rejected": result.reader.n_rejected,
            "reader_versions": versions,
            # every prompt the reader flags, with each source's words ("flagged by the lexicon: 'She'; by the
            # reader: 'hijab'"): what a reviewer checks the reader by
            "reader_reasons": tuple((i, why) for i, why in enumerate(result.reasons()) if result.reader_cues[i]),
        }


def read_cues(use_case: UseCase, reader: Any, audit: Any = True) -> ReadCues:
    """Run ``reader`` (:func:`evenhand.text.ftu.check_ftu`'s ``reader``: an LLM client spec or a
    :class:`~evenhand.text.cues.CueReader`) once on the use case's prompts for every attribute (intersections aside:
    their versions replace group words only), audited once first (``audit``: True, False or a
    :class:`~evenhand.text.cue_audit.ReaderAudit`)."""
    from evenhand.text.counterfactual import attribute_groups
    from evenhand.text.cue_audit import ReaderAudit, audit_reader
    from evenhand.text.cues import CueReader, read_prompts
    from evenhand.text.turns import layout

    if not use_case.prompts:
        raise InputError("a reader reads the use case's prompts; this one has none")
    if not isinstance(reader, CueReader):
        from evenhand._assistants import CUE_READER, build

        reader = build(CUE_READER, reader)
    groups = {
        name: attribute_groups(spec) for name, spec in use_case.attribute_specs.items() if not isinstance(spec, tuple)
    }
    audited = audit if isinstance(audit, ReaderAudit) else (audit_reader(reader, groups) if audit else None)
    texts = [layout(p).text for p in use_case.prompts]  # what check_ftu reads: a conversation's turns and documents
    return ReadCues(reader, read_prompts(reader, texts, groups), audited)


def _parts(result: Any, prompts: list[Any]) -> PartCounts:
    """How many prompts mention the attribute in each part of a conversation (a bare text is its last user turn)."""
    from evenhand.conversation import Conversation

    counts = dict.fromkeys(("system", "history", "request", "context", "context_only"), 0)
    for prompt, turns, in_context, only in zip(
        prompts, result.flagged_turns(), result.in_context, result.context_only, strict=True
    ):
        last = len(prompt.turns) - 1 if isinstance(prompt, Conversation) else 0
        roles = [prompt.turns[t].role if isinstance(prompt, Conversation) else "user" for t in turns]
        counts["system"] += "system" in roles
        counts["history"] += any(t != last and r != "system" for t, r in zip(turns, roles, strict=True))
        counts["request"] += last in turns
        counts["context"] += bool(in_context)
        counts["context_only"] += bool(only)
    return PartCounts(**counts)


def _located(result: Any) -> tuple[tuple[int, tuple[int, ...], bool], ...]:
    """Per flagged prompt: its position, the turns that mention the attribute and whether its documents do."""
    return tuple(
        (i, turns, bool(in_context))
        for i, (turns, in_context, flagged) in enumerate(
            zip(result.flagged_turns(), result.in_context, result.flagged, strict=True)
        )
        if flagged
    )


def _named_only(result: Any) -> int:
    """Prompts that an FTU result flags by a personal name alone (no attribute word)."""
    if not result.names:
        return 0
    return sum(1 for words, named in zip(result.matches, result.names, strict=True) if named and not words)


def reads_names(spec: Any) -> bool:
    """Whether an attribute (a spec of :attr:`UseCase.attribute_specs`) has name lists: its groups can be signalled
    by personal names (gender, race; not a custom word list)."""
    from evenhand.text.ftu import resolve_lexicons
    from evenhand.text.names import name_attributes

    lexicons = resolve_lexicons(spec)
    return bool(name_attributes({lex.name: lex.all_groups for lex in lexicons}))


def conversations_note(use_case: UseCase) -> list[str]:
    """The plan note that says how conversations and retrieved documents are read and changed (none for bare
    texts)."""
    from evenhand.conversation import Conversation

    conversations = [p for p in use_case.prompts if isinstance(p, Conversation)]
    if not conversations:
        return []
    with_context = sum(1 for p in conversations if p.context)
    turns = sum(len(p.turns) > 1 for p in conversations)
    what = [f"{turns} with earlier turns or a system prompt"] if turns else []
    what += [f"{with_context} with retrieved documents"] if with_context else []
    system = "the system prompt too" if use_case.change_system_prompt else "the system prompt kept as written"
    return [
        f"{len(conversations)} of {len(use_case.prompts)} prompts are conversations"
        + (f" ({', '.join(what)})" if what else "")
        + ": FTU read every turn and document; a counterfactual version changes the person in every turn and "
        f"document alike ({system}); the reply to the last user turn is what is assessed"
    ]


def names_note(use_case: UseCase, ftu: Mapping[str, FTUSummary]) -> list[str]:
    """The plan notes that say what FTU read: group words and personal names (whose name counts, and how well each
    group's names are read where names decide FTU), or group words only (names: false). None when FTU was answered
    rather than checked, or no attribute has name lists."""
    checked = [f for f in ftu.values() if f.source == "prompts" and f.assessable]
    if not checked:
        return []
    if not use_case.names:
        return ["FTU read group words only (names: false): personal names in the prompts are not counted"]
    read = [f.attribute for f in checked if f.names_read]
    if not read:
        return []
    have = "has" if len(read) == 1 else "have"
    subject = use_case.name_subject
    if subject == "first":
        whose = (
            "the first person each prompt names is its subject: people named after them are bystanders, kept as "
            "written, and never decide FTU (name_subject: every swaps each person; a column can name the subject)"
        )
    elif subject == "every":
        whose = "every person a prompt names counts and is swapped (name_subject: every)"
    elif use_case.templates is not None:
        whose = (
            "each prompt's subject is the person its template's placeholder ({name}) stands for; other people the "
            "template names are bystanders, kept as written, and never decide FTU"
        )
    else:
        whose = "each prompt's subject is the person its subject column names; other people are kept as written"
    notes = [f"FTU read group words and personal names ({join_words(read)} {have} name lists); {whose}"]
    recall = measured_recall()
    for f in checked:
        measured = recall.get(f.attribute)
        if f.names_read and f.n_named_only and measured is not None:
            notes.append(
                f"names decide FTU for {f.n_named_only} prompt{'s' if f.n_named_only != 1 else ''} on {f.attribute}: "
                f"a name is read as its {f.attribute} group from the first name and surname together (a Bayesian rule, "
                "docs/text.md), with a recall of "
                f"{measured.describe()} on {measured.labelled}"
            )
    return notes


def template_note(use_case: UseCase) -> list[str]:
    """The plan note of a use case whose prompts were filled from templates (a name audit): how they were filled."""
    t = use_case.templates
    if t is None:
        return []
    groups = sorted({str(fill["group"]) for fill in t.fills})
    return [
        f"the {len(use_case.prompts)} prompts are {len(t.templates)} template{'s' if len(t.templates) != 1 else ''} "
        f"filled {t.names_per_group} time{'s' if t.names_per_group != 1 else ''} each with names of the "
        f"{join_words(t.attributes)} lists (seed {t.seed}), each fill naming a person of one group in turn "
        f"({join_words(groups)}); their counterfactual versions name a person of every group (results.json "
        "use_case.templates records each fill)"
    ]


def reader_notes(ftu: Mapping[str, FTUSummary]) -> list[str]:
    """Plan notes on the counterfactual versions a reader wrote of the prompts only it flags (empty without)."""
    return [f.reader_versions.describe() for f in ftu.values() if f.reader_versions is not None]


#: The offline default readers of replies, by the kind of input a metric takes (``MetricSpec.inputs`` starts with
#: it): the lexical toxicity model and VADER read English, the refusal patterns English, Spanish, French, German
#: and Portuguese (:func:`_reads_language`).
ENGLISH_READERS = {"refusal": "refusal detector", "toxicity": "toxicity scorer", "sentiment": "sentiment scorer"}
#: Where a run names another reader of each kind.
READER_SETTINGS = {"refusal detector": "scoring.refusal", "toxicity scorer": "scoring.toxicity",
                   "sentiment scorer": "scoring.sentiment"}  # fmt: skip
READERS_LANGUAGE = "en"


def english_only_readers(keys: Sequence[str]) -> list[str]:
    """The offline default readers of replies that the metrics ``keys`` use, in :data:`ENGLISH_READERS` order."""
    inputs = {METRICS[key].inputs.split("_", 1)[0] for key in keys if key in METRICS}
    return [reader for kind, reader in ENGLISH_READERS.items() if kind in inputs]


def _reads_language(reader: str, code: str | None) -> bool:
    """Whether the offline default ``reader`` reads replies in language ``code``: English for all; the refusal
    patterns read Spanish, French, German and Portuguese too (groups14: a Spanish refusal is read)."""
    if reader == ENGLISH_READERS["refusal"]:
        from evenhand.scorers.refusal import pattern_languages

        return code in pattern_languages()
    return code == READERS_LANGUAGE


def _readers_clause(readers: Sequence[str]) -> str:
    verb = "reads" if len(readers) == 1 else "read"
    return f"the offline default {join_words(list(readers))} {verb} English only"


def language_notes(ftu: Mapping[str, FTUSummary], guess: LanguageGuess | None, readers: Sequence[str]) -> list[str]:
    """Plan notes on the prompts' language: attributes FTU cannot check, the offline English-only readers of replies
    the run will use (``readers``, :func:`english_only_readers`) when the prompts are in another language, and a
    large share of prompts in another language than a lexicon's (only those in the lexicon's language are then
    checked)."""
    notes: list[str] = []
    blocked = [f for f in ftu.values() if not f.assessable]
    other_language = guess is not None and guess.differs_from(READERS_LANGUAGE)
    if guess is not None:  # a reader that reads the prompts' language is no English-only reader for them
        readers = [r for r in readers if not _reads_language(r, guess.code)]
    readers_note = (
        f"{_readers_clause(readers)}: a group whose replies are in {guess.name} gets no figure from "
        f"{'it' if len(readers) == 1 else 'them'} (undefined, with the reason); to read {guess.name} replies name "
        f"another ({join_words([READER_SETTINGS[r] for r in readers])})"
        if readers and guess is not None and other_language
        else ""
    )
    if blocked and guess is not None:
        names = join_words([f.attribute for f in blocked])
        languages = join_words(sorted({language_name(f.lexicon_language) for f in blocked}))
        lexicons = f"the {names} lexicon reads" if len(blocked) == 1 else f"the {names} lexicons read"
        notes.append(
            f"the prompts look {guess.name} ({guess.evidence()}) but {lexicons} {languages}: FTU cannot be checked "
            f"for {names}, and the metrics that need the lexicon to read the prompts (counterfactual, stereotype) "
            f"are left out. Give {names} as custom word lists in {guess.name} (custom_attributes) or assess "
            "translated prompts" + (f"; {readers_note}" if readers_note else "")
        )
    elif readers_note and guess is not None:
        notes.append(f"the prompts look {guess.name} ({guess.evidence()}): {readers_note}")
    if guess is not None:
        for language in sorted({f.lexicon_language for f in ftu.values() if f.assessable and f.lexicon_language}):
            other = guess.minority(language)
            if other is not None:
                code, n = other
                checked = [f.attribute for f in ftu.values() if f.assessable and f.lexicon_language == language]
                lexicons = "lexicon reads" if len(checked) == 1 else "lexicons read"
                notes.append(
                    f"{n} of {guess.n_sampled} prompts look {language_name(code)} ({code}); the {join_words(checked)} "
                    f"{lexicons} {language_name(language)}, so FTU and counterfactual prompts cover only the "
                    f"{language_name(language)} ones"
                )
    return notes


def prompts_language(use_case: UseCase, guess: LanguageGuess | None, readers: Sequence[str]) -> LanguageGuess | None:
    """The prompts' language as FTU detected it, or, where FTU had nothing to compare with (custom word lists alone)
    and the run uses English-only readers of replies, detected for them."""
    if guess is not None or not readers or not use_case.prompts:
        return guess
    from evenhand.text.language import detect_prompt_language

    return detect_prompt_language(use_case.prompts)


def _matched_words(result: Any) -> tuple[str, ...]:
    """The distinct attribute words an FTU result found (best effort across result shapes)."""
    words: list[str] = []
    for per_prompt in getattr(result, "matches", ()) or ():
        for match in per_prompt or ():
            word = match if isinstance(match, str) else getattr(match, "text", None) or getattr(match, "word", None)
            if word is None and isinstance(match, (tuple, list)) and match:
                word = match[0]
            if isinstance(word, str) and word.lower() not in words:
                words.append(word.lower())
    return tuple(words)
