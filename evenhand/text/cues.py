"""Identity cues read by a second reader (an LLM), and the rules that decide which of its claims count.

Lexicons and name lists read what they list. A reader (:class:`CueReader`: any object with ``read_cues``; the LLM
one is :class:`evenhand.generation.cue_reader.LLMCueReader`) lists, per attribute, the words of each prompt that
signal a group ("she wears a hijab", "after his second deployment", "our synagogue's food drive"). What it says is a
:class:`CueClaim`; only a claim found **verbatim** in its prompt becomes a :class:`Cue`:

* the claimed text must occur in the prompt as whole words (compared case-insensitively, any run of white space
  matching any other; the cue keeps the prompt's own spelling and offsets): an invented cue is dropped;
* it must be short (at most :data:`MAX_CUE_WORDS` words and :data:`MAX_CUE_CHARS` characters): a reader that claims
  the whole prompt as a cue is not reading cues;
* it must be for an attribute that was asked about; a group it names must be one of that attribute's groups (else
  the cue is kept without a group).

A counterfactual version of a prompt flagged only by the reader is written by the reader too (its ``rewrite_cues``):
:func:`check_rewrite` accepts a rewrite only when the prompt is unchanged outside the cues' words.

This module is pure (no model, no network): the reader is passed in.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

from evenhand.errors import InputError, InputTypeError

__all__ = [
    "MAX_CUE_CHARS",
    "MAX_CUE_WORDS",
    "Cue",
    "CueClaim",
    "CueReader",
    "CueRewriter",
    "ReaderOutput",
    "RewriteRequest",
    "check_rewrite",
    "find_verbatim",
    "read_prompts",
    "verbatim_cues",
]

#: A cue is a word or a short phrase ("hijab", "my wife", "second deployment"), never a clause.
MAX_CUE_WORDS = 6
MAX_CUE_CHARS = 60
#: The source names a flagged prompt's reasons use.
LEXICON, NAMES, READER = "lexicon", "names", "reader"


class CueClaim(NamedTuple):
    """What a reader says of one prompt: ``text`` signals ``group`` (None: it did not say which) of ``attribute``."""

    text: str
    attribute: str
    group: str | None = None


class Cue(NamedTuple):
    """A reader's claim found verbatim in its prompt."""

    word: str  # as written in the prompt
    start: int  # character offsets in the prompt
    end: int
    attribute: str
    group: str | None  # the group it signals, when the reader named one of the attribute's groups
    source: str = READER


@runtime_checkable
class CueReader(Protocol):
    """Anything that lists identity cues: ``read_cues(prompts, attributes)`` returns, per prompt, its claims.

    ``attributes`` maps each attribute to its groups (``{"gender": ["female", "male"], ...}``). Claims are checked
    here (:func:`verbatim_cues`), so a reader cannot add a cue that is not in its prompt."""

    def read_cues(
        self, prompts: Sequence[str], attributes: Mapping[str, Sequence[str]]
    ) -> Sequence[Sequence[CueClaim]]: ...


class RewriteRequest(NamedTuple):
    """Rewrite ``prompt`` so that its ``cues`` (of one attribute) signal ``group`` instead, changing nothing else."""

    prompt: str
    cues: tuple[Cue, ...]
    attribute: str
    group: str
    groups: tuple[str, ...]  # the attribute's groups, for the reader's instructions


@runtime_checkable
class CueRewriter(Protocol):
    """A reader that also writes counterfactual versions: per request the rewritten prompt, or None when it could
    not (:func:`check_rewrite` still decides whether a rewrite counts)."""

    def rewrite_cues(self, requests: Sequence[RewriteRequest]) -> Sequence[str | None]: ...


@dataclass(frozen=True)
class ReaderOutput:
    """What a reader made of some prompts, after the verbatim rule: per prompt, the cues kept and the claims dropped
    (invented, too long, or of an attribute not asked about), and the attributes it was asked about."""

    prompts: tuple[str, ...]
    attributes: Mapping[str, tuple[str, ...]]
    cues: tuple[tuple[Cue, ...], ...]
    rejected: tuple[tuple[CueClaim, ...], ...]
    reader: str = ""  # how the reader describes itself (its model), for the plan

    @property
    def n_rejected(self) -> int:
        return sum(len(r) for r in self.rejected)

    def for_attributes(self, names: Sequence[str]) -> ReaderOutput:
        """The same output restricted to some attributes (an FTU check of one attribute reads only its cues)."""
        keep = set(names)
        return ReaderOutput(
            self.prompts,
            {a: g for a, g in self.attributes.items() if a in keep},
            tuple(tuple(c for c in row if c.attribute in keep) for row in self.cues),
            tuple(tuple(c for c in row if c.attribute in keep) for row in self.rejected),
            self.reader,
        )


def _pattern(text: str) -> re.Pattern[str] | None:
    words = text.split()
    if not words:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    # whole words: no word character may continue the cue on either side ("he" is not in "the")
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def find_verbatim(prompt: str, text: str) -> list[tuple[int, int]]:
    """Every place ``text`` occurs in ``prompt`` as whole words (case-insensitive, white space runs alike).

    >>> find_verbatim("She wears a hijab. Her hijab is blue.", "HIJAB")
    [(12, 17), (23, 28)]
    >>> find_verbatim("Ask the teacher.", "he")
    []
    """
    pattern = _pattern(text)
    return [] if pattern is None else [(m.start(), m.end()) for m in pattern.finditer(prompt)]


def _short(text: str) -> bool:
    return len(text) <= MAX_CUE_CHARS and len(text.split()) <= MAX_CUE_WORDS


def verbatim_cues(
    prompt: str, claims: Sequence[CueClaim], attributes: Mapping[str, Sequence[str]]
) -> tuple[tuple[Cue, ...], tuple[CueClaim, ...]]:
    """The reader's ``claims`` about ``prompt`` split into the cues that count and the claims that do not.

    A claim counts when its attribute was asked about, its text is short and occurs in the prompt as whole words;
    each occurrence is a cue (the prompt's own spelling and offsets), once per attribute and span. A group that is
    not one of the attribute's groups is dropped from the cue (the cue stays). Cues are in order of position.

    >>> cues, dropped = verbatim_cues("She wears a hijab.", [CueClaim("hijab", "religion", "muslim"),
    ...                               CueClaim("headscarf", "religion", "muslim")], {"religion": ["muslim", "jewish"]})
    >>> [(c.word, c.start, c.group) for c in cues], [d.text for d in dropped]
    ([('hijab', 12, 'muslim')], ['headscarf'])
    """
    kept: dict[tuple[str, int, int], Cue] = {}
    rejected: list[CueClaim] = []
    for claim in claims:
        text = claim.text.strip() if isinstance(claim.text, str) else ""
        groups = attributes.get(claim.attribute)
        spans = find_verbatim(prompt, text) if groups is not None and text and _short(text) else []
        if not spans:
            rejected.append(claim)
            continue
        group = claim.group if claim.group in groups else None  # type: ignore[operator]
        for start, end in spans:
            key = (claim.attribute, start, end)
            if key not in kept or (kept[key].group is None and group is not None):
                kept[key] = Cue(prompt[start:end], start, end, claim.attribute, group)
    cues = tuple(sorted(kept.values(), key=lambda c: (c.start, c.end, c.attribute)))
    return cues, tuple(rejected)


def reader_attributes(attributes: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """``{attribute: groups}`` checked: at least one attribute, each with two or more group names."""
    if not isinstance(attributes, Mapping) or not attributes:
        raise InputError("a reader needs the attributes to look for, as {attribute: [groups]}")
    out: dict[str, tuple[str, ...]] = {}
    for name, groups in attributes.items():
        listed = tuple(str(g) for g in groups)
        if len(listed) < 2:
            raise InputError(f"attribute {name!r} needs two or more groups for the reader, got {list(listed)}")
        out[str(name)] = listed
    return out


def read_prompts(reader: CueReader, prompts: Sequence[str], attributes: Mapping[str, Sequence[str]]) -> ReaderOutput:
    """Run ``reader`` on ``prompts`` once for all ``attributes`` and keep the claims found verbatim."""
    if not isinstance(reader, CueReader):
        raise InputTypeError(f"a reader needs a read_cues(prompts, attributes) method, got {type(reader).__name__}")
    asked = reader_attributes(attributes)
    texts = tuple(prompts)
    claims = list(reader.read_cues(list(texts), asked)) if texts else []
    if len(claims) != len(texts):
        raise InputError(f"the reader answered for {len(claims)} of {len(texts)} prompts")
    kept, dropped = [], []
    for prompt, said in zip(texts, claims, strict=True):
        cues, rejected = verbatim_cues(prompt, [CueClaim(*c) for c in said], asked)
        kept.append(cues)
        dropped.append(rejected)
    describe = getattr(reader, "describe", None)
    name = describe() if callable(describe) else type(reader).__name__
    return ReaderOutput(texts, asked, tuple(kept), tuple(dropped), str(name))


_ARTICLE = re.compile(r"(?<!\w)an?\s+\Z", re.IGNORECASE)


def _cue_regions(prompt: str, cues: Sequence[Cue]) -> list[tuple[int, int]]:
    """The cues' spans grown to whole words (a rewrite may change "hijab" into "turban", or "his" into "her"), and
    to the article just before (``a hijab`` -> ``an abaya``)."""
    regions = []
    for cue in cues:
        start, end = cue.start, cue.end
        while start > 0 and prompt[start - 1].isalnum():
            start -= 1
        while end < len(prompt) and prompt[end].isalnum():
            end += 1
        article = _ARTICLE.search(prompt, 0, start)
        regions.append((article.start() if article else start, end))
    return sorted(regions)


def check_rewrite(original: str, rewritten: str | None, cues: Sequence[Cue]) -> str | None:
    """Why ``rewritten`` is not an acceptable counterfactual version of ``original`` (None: it is).

    Acceptable: it differs from the original, and it is the original with the words of each cue (and an article just
    before one) replaced by a short, non-empty text (at most :data:`MAX_CUE_WORDS` words): every character outside
    the cues is kept, in order. Decided exactly (the kept parts anchor a pattern the rewrite must match); when it does
    not, a character diff says what changed.

    >>> cue = Cue("hijab", 12, 17, "religion", "muslim")
    >>> check_rewrite("She wears a hijab to work.", "She wears a kippah to work.", [cue]) is None
    True
    >>> check_rewrite("She wears a hijab to work.", "He wears a kippah to work.", [cue])
    "changed 'She' -> 'He' outside the cues"
    """
    if not isinstance(rewritten, str) or not rewritten.strip():
        return "no rewrite"
    if rewritten == original:
        return "unchanged"
    regions = _merged(_cue_regions(original, cues))
    bounds = zip([(0, 0), *regions], [*regions, (len(original), 0)], strict=True)
    kept = [original[end:start] for (_, end), (start, _) in bounds]  # the text before, between and after the cues
    pattern = "(.+?)".join(re.escape(part) for part in kept)
    found = re.fullmatch(pattern, rewritten, flags=re.S) if regions else None
    if found is None:
        return _first_change(original, rewritten, regions)
    for replacement in found.groups():
        if len(replacement.split()) > MAX_CUE_WORDS:
            return f"rewrote a cue as {replacement.strip()!r}: more than a cue"
    return None


def _merged(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted regions with the overlapping or touching ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(regions):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _first_change(original: str, rewritten: str, regions: list[tuple[int, int]]) -> str:
    """What a rejected rewrite changed outside the cues, in words (the first such change of a character diff)."""
    matcher = difflib.SequenceMatcher(None, original, rewritten, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal" and not any(start <= i1 and i2 <= end for start, end in regions):
            before, after = _words_around(original, i1, i2), _words_around(rewritten, j1, j2)
            return f"changed {before!r} -> {after!r} outside the cues"
    return "changed the prompt outside the cues"


def _words_around(text: str, start: int, end: int) -> str:
    """``text[start:end]`` grown to whole words, to quote a change readably."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]
