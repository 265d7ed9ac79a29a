"""Counterfactual input pairs by word substitution, and neutralisation of attribute words.

The paper (section 2.2, footnotes 10 and 22): a counterfactual input pair is two prompts identical except that one
mentions group G' and the other G''. They are built from the prompts that mention the attribute (P_X|A) by
replacing each attribute word with the analogous word of the other group.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evenhand._validation import as_text_list
from evenhand.conversation import Prompt, as_prompt_list, has_conversations
from evenhand.errors import InputError, InputKeyError
from evenhand.text._engine import find_matches, substitute
from evenhand.text._names_data import PARTS, name_index
from evenhand.text.bystanders import BystanderMask, bystander_spans, template_word_spans
from evenhand.text.ftu import AttributeSpec, SingleAttribute, resolve_lexicons
from evenhand.text.lexicon import Lexicon, builtin_attributes, load_lexicon
from evenhand.text.lexicon_model import normalize_term
from evenhand.text.name_subjects import DEFAULT_SUBJECT, Subject, select_subjects, template_filled
from evenhand.text.names import Person, find_name_matches, find_people_many, name_attributes, substitute_names
from evenhand.text.turns import Layout, layouts_of, rebuild

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MODES",
    "CounterfactualPrompts",
    "attribute_groups",
    "counterfactual_prompts",
    "intersectional_prompts",
    "neutralize",
]

MODES = ("replace", "swap")


@dataclass(frozen=True, eq=False)
class CounterfactualPrompts:
    """Counterfactual versions of the prompts that mention a protected attribute.

    Row ``i`` holds the versions of prompt ``original[i]`` (position ``source_index[i]`` in the input): ``cf[g][i]``
    for every group ``g`` in ``groups``.

    Attributes:
        attribute: lexicon name (a built-in attribute such as "gender", or "custom").
        groups: group names; ``("original", "swapped")`` in ``mode="swap"``.
        source_index: index of the original prompt in the input, one per row.
        original: the original prompts, one per row (texts, or conversations as given).
        prompts: group -> the counterfactual prompts, one per row (a conversation's version is a conversation whose
            turns and documents changed together).
        attribute_words: per row, the distinct attribute terms found in the original prompt.
        mode: "replace" or "swap".
        names: per row, group -> ``(name as written, its replacement)`` for each person whose name was replaced in
            that group's version ("Emily Baker" -> "James Baker"); an empty mapping for a row without such names,
            and empty when names were not read.
        names_checked: True when personal names were read and replaced (``names=True``, the default).
        name_seed: the seed the replacement names were drawn with.
    """

    attribute: str
    groups: tuple[str, ...]
    source_index: npt.NDArray[np.int64]
    original: tuple[Prompt, ...]
    prompts: Mapping[str, tuple[Prompt, ...]]
    attribute_words: tuple[tuple[str, ...], ...]
    mode: str = "replace"
    names: tuple[Mapping[str, tuple[tuple[str, str], ...]], ...] = ()
    names_checked: bool = False
    name_seed: int = 0

    def __getitem__(self, group: str) -> list[Any]:  # list[Prompt]: texts, or conversations for conversations
        if group not in self.prompts:
            raise InputKeyError(f"no group {group!r}; groups are {list(self.groups)}")
        return list(self.prompts[group])

    def __contains__(self, group: object) -> bool:
        return group in self.prompts

    def __iter__(self) -> Iterator[str]:
        """Iterate over group names (like a mapping)."""
        return iter(self.groups)

    def __len__(self) -> int:
        return len(self.original)

    def swapped_names(self, row: int) -> tuple[str, ...]:
        """The names of row ``row``'s versions: each original name as written and every group's replacement
        (distinct, in order of first use); empty when the row's versions name nobody by a swapped name. What
        :func:`~evenhand.text.name_masking.mask_names` masks in the replies to any version of that prompt (and in the
        replies of its noise floor), so that a reply that only echoes the name reads the same for every version."""
        if not self.names:
            return ()
        found: dict[str, None] = {}
        for pairs in self.names[row].values():
            for original, replacement in pairs:
                found.setdefault(original)
                found.setdefault(replacement)
        found.pop("", None)  # a template's placeholder: no name was written
        return tuple(found)

    def pairs(self, group_a: str, group_b: str) -> list[tuple[Prompt, Prompt]]:
        """The counterfactual input pairs ``(X', X'')`` for two groups."""
        return list(zip(self[group_a], self[group_b], strict=True))

    def to_frame(self) -> pd.DataFrame:
        """One row per prompt: ``source_index, original, attribute_words``, then one column per group."""
        import pandas as pd  # only here: importing the text core stays light

        frame = pd.DataFrame(
            {
                "source_index": self.source_index,
                "original": list(self.original),
                "attribute_words": [list(w) for w in self.attribute_words],
            }
        )
        for group in self.groups:
            frame[group] = list(self.prompts[group])
        return frame

    def __repr__(self) -> str:
        return f"CounterfactualPrompts(attribute={self.attribute!r}, groups={self.groups!r}, n={len(self)})"


def counterfactual_prompts(
    prompts: Any,
    attribute: AttributeSpec = "gender",
    *,
    groups: Sequence[str] | None = None,
    mode: str = "replace",
    names: bool = True,
    name_seed: int = 0,
    subject: Subject = DEFAULT_SUBJECT,
    change_system_prompt: bool = True,
) -> CounterfactualPrompts:
    """Build counterfactual prompts for every prompt that mentions the attribute.

    ``mode="replace"`` (the paper's toolkit): each group's version replaces *every* attribute word by that group's
    form, so "He told his wife" gives female "She told her wife" and male "He told his husband". ``mode="swap"``
    (two groups only) exchanges the groups instead ("She told her husband"); its groups are
    ``("original", "swapped")``.

    Substitution keeps case ("She" at a sentence start stays capitalised), punctuation and all other text
    byte-for-byte, resolves her -> him/his and his -> her/hers from the next word, and fixes a preceding "a"/"an"
    ("A Caucasian man" -> "An Asian man"). A word that already is the target group's form is kept as written; a
    synonym becomes the group's form ("Caucasian" -> "White" in the white version), so versions stay parallel.

    Args:
        prompts: list, tuple, NumPy array or pandas Series of strings, or of conversations
            (:class:`~evenhand.conversation.Conversation`, or lists of ``{"role", "content"}`` messages): a
            conversation's version changes the person the same way in every turn and retrieved document (a name in
            turn 1 and "she" in turn 3 change together; the names drawn depend on the whole conversation).
        attribute: a built-in attribute (``"gender"``, ``"race"``, ...), a custom dict ``{"group_a": [...],
            "group_b": [...]}`` of aligned words, a :class:`~evenhand.text.lexicon.Lexicon`, or a list of two or
            more of those: an intersection (:func:`intersectional_prompts`, groups such as ``"female+black"``).
        groups: a subset of the lexicon's groups to generate (default: all, in lexicon order); it may name the
            lexicon's optional groups too (gender: ``groups=["female", "male", "nonbinary"]``: singular they with
            plural verbs, "themself", "Mx.").
        mode: ``"replace"`` or ``"swap"``.
        names: also replace the personal names that signal a group (gender and race have name lists): a prompt
            that names "Emily Baker" gets, in the male version, a man's first name drawn for that prompt ("James
            Baker", and "her" -> "him" by the lexicon), in a race's version a first and last name of that race that
            keep the person's gender. Every mention is replaced the same way ("Emily's" -> "James's"), the rest is
            kept byte for byte. ``names=False``: attribute words only (``names_checked`` records which was used).
        name_seed: the seed of the per-prompt draw of replacement names (the names used are in ``names``); the
            draw depends on the seed, the prompt and the group only.
        subject: whose name is swapped (:mod:`evenhand.text.name_subjects`): ``"first"`` (default: the first person
            the prompt names; people named after them are bystanders, kept as written, and never make a prompt
            mention the attribute), ``"every"`` (each person named), or one name (or None) per prompt, the subject
            as written (a column naming the subject).
        change_system_prompt: a conversation's system turns change too (default); ``False`` keeps them as written (a
            prompt whose only mention is in its system prompt then has no counterfactual version).

    Returns:
        :class:`CounterfactualPrompts`; empty (with a warning) when no prompt mentions the attribute.

    >>> cf = counterfactual_prompts(["He said his son saw him.", "Summarise the call."], attribute="gender")
    >>> cf["female"], cf["male"], cf.source_index.tolist()
    (['She said her daughter saw her.'], ['He said his son saw him.'], [0])
    """
    if isinstance(attribute, (list, tuple)):  # an intersection: one version per combination of groups
        if mode != "replace":
            raise InputError("an intersection of attributes has counterfactual prompts in mode='replace' only")
        return intersectional_prompts(
            prompts,
            attribute,
            groups=groups,
            names=names,
            name_seed=name_seed,
            subject=subject,
            change_system_prompt=change_system_prompt,
        )
    items, texts, layouts = _readable(prompts, change_system_prompt)
    if attribute is None:
        raise InputError(
            f"counterfactual_prompts needs one attribute (one of {list(builtin_attributes())} or a custom dict), "
            "not None"
        )
    if mode not in MODES:
        raise InputError(f"mode must be one of {list(MODES)}, got {mode!r}")
    lexicon = load_lexicon(attribute)
    chosen = _choose_groups(lexicon.groups, groups, lexicon.optional_groups)
    if mode == "swap" and len(lexicon.groups) != 2:
        raise InputError(f"mode='swap' needs exactly two groups; the {lexicon.name} lexicon has {list(lexicon.groups)}")

    matches = find_matches(lexicon, texts)
    people = find_people_many(texts) if names else None
    subjects = select_subjects(texts, people, subject) if people is not None else None
    named = _named_people(lexicon, texts, subjects) if subjects is not None else None
    if named is None:
        index = np.fromiter((i for i, m in enumerate(matches) if m), dtype=np.int64)
    else:
        index = np.fromiter((i for i, m in enumerate(matches) if m or named[i]), dtype=np.int64)
    half = [i for i in index.tolist() if _half_swapped(lexicon, texts[i], matches[i])]
    if half:  # a stated age after a group's word that the versions would keep beside another group's word
        warnings.warn(
            f"{len(half)} prompt(s) state an age right after a word of {lexicon.name} that their versions could not "
            'change with it ("teenagers between 13 and 17", "the seniors between 65 and 80 asked"): they have no '
            "counterfactual versions",
            UserWarning,
            stacklevel=2,
        )
        index = index[~np.isin(index, half)]
    subset = [texts[i] for i in index.tolist()]
    words = tuple(tuple(dict.fromkeys(m.term for m in matches[i])) for i in index.tolist())
    # a named subject's versions keep the bystanders' titles and pronouns as written (text/bystanders.py)
    mask = None
    if people is not None and subjects is not None:
        name_attribute = name_attributes({lexicon.name: lexicon.all_groups}).get(lexicon.name)
        filled = template_filled(subject, len(texts))
        spans = [
            sorted({*bystander_spans(texts[i], matches[i], people[i], subjects[i], name_attribute),
                    *template_word_spans(matches[i], filled[i])})
            for i in index.tolist()
        ]  # fmt: skip
        mask = BystanderMask(subset, spans) if any(spans) else None
    source = subset if mask is None else mask.texts
    name_swap = (
        _NameSwap(lexicon, source, name_seed, [subjects[i] for i in index.tolist()], subset)
        if subjects is not None and named is not None and any(named)
        else None
    )
    if not subset:
        warnings.warn(
            f"no prompt mentions a {lexicon.name} word: there are no counterfactual prompts (FTU is satisfied)",
            UserWarning,
            stacklevel=2,
        )
    def kept(changed: list[str]) -> tuple[str, ...]:
        return tuple(changed if mask is None else mask.restore(changed))

    if mode == "swap":
        out_groups: tuple[str, ...] = ("original", "swapped")
        swapped = source if name_swap is None else name_swap.texts(None)
        versions = {"original": tuple(subset), "swapped": kept(substitute(lexicon, swapped, None, mode="swap"))}
    else:
        out_groups = chosen
        versions = {
            g: kept(substitute(lexicon, source if name_swap is None else name_swap.texts(g), g)) for g in chosen
        }
        if len(chosen) > 1:
            # a prompt whose versions are all the same text ("I am transgender.": a mention of the attribute in no
            # group, and nothing else of it) has no counterfactual: its pairs would differ in nothing and pull every
            # measured gap towards zero
            varies = [len({versions[g][k] for g in chosen}) > 1 for k in range(len(subset))]
            if not all(varies):
                index = index[np.asarray(varies, dtype=bool)]
                subset = [t for t, v in zip(subset, varies, strict=True) if v]
                words = tuple(w for w, v in zip(words, varies, strict=True) if v)
                versions = {g: tuple(t for t, v in zip(versions[g], varies, strict=True) if v) for g in chosen}
                if name_swap is not None:
                    name_swap.keep(varies)
    used = () if name_swap is None else name_swap.used(out_groups)
    if named is not None and not used:
        used = tuple({} for _ in subset)
    rows = index.tolist()
    return CounterfactualPrompts(
        lexicon.name, out_groups, index, _restored(items, layouts, rows, subset),
        {g: _restored(items, layouts, rows, v) for g, v in versions.items()}, words, mode, used, names, name_seed,
    )  # fmt: skip


def _half_swapped(lexicon: Lexicon, text: str, matches: Sequence[Any]) -> bool:
    """Whether a listed term the versions change is followed by a stated age they would keep: one its row reads after
    the term (:meth:`Lexicon.stated_after`) that was not read with a group (a child's range, kept as written; or
    one the clause-end rule left unread), so that a version would read "young adults between 65 and 80" (left18)."""
    grouped = {m.start for m in matches if m.group is not None}
    for m in matches:
        after = lexicon.stated_after(m.term) if lexicon.rows_for(normalize_term(m.term)) else None
        found = after.match(text, m.end) if after is not None else None
        if found is not None and found.end() - len(found.group().lstrip()) not in grouped:
            return True
    return False


def _readable(prompts: Any, change_system_prompt: bool) -> tuple[list[Prompt], list[str], list[Layout] | None]:
    """The prompts, the texts the text core reads for them (a conversation's turns and documents in one text) and,
    for conversations, their layouts (None when every prompt is a bare text)."""
    items = as_prompt_list(prompts, "prompts")
    if not has_conversations(items):
        return items, [str(p) for p in items], None
    reading = "counterfactual versions change (images are sent unchanged)"
    layouts = layouts_of(items, reading, system=change_system_prompt)
    return items, [shape.text for shape in layouts], layouts


def _restored(
    items: list[Prompt], layouts: list[Layout] | None, rows: list[int], texts: Sequence[str]
) -> tuple[Prompt, ...]:
    """The changed texts of the prompts at ``rows`` back in their prompts' form (a conversation's turns)."""
    if layouts is None:
        return tuple(texts)
    return tuple(rebuild(items[i], layouts[i], text) for i, text in zip(rows, texts, strict=True))


def _named_people(lexicon: Lexicon, texts: list[str], people: list[tuple[Person, ...]]) -> list[bool] | None:
    """Per text, whether a subject's name signals a group of the lexicon; None when the lexicon has no name
    lists."""
    usable = name_attributes({lexicon.name: lexicon.all_groups})
    if not usable:
        return None
    return [bool(found) for found in find_name_matches(usable[lexicon.name], texts, people)]


class _NameSwap:
    """The prompts' names replaced per target group (None: swapped), drawn once per group, and the names used."""

    def __init__(
        self, lexicon: Lexicon, texts: list[str], seed: int, people: list[tuple[Person, ...]],
        drawn_for: list[str] | None = None,
    ) -> None:  # fmt: skip
        self.lexicon = lexicon
        self.source = texts
        self.drawn_for = drawn_for  # the prompts as written, where ``texts`` mask bystanders' words
        self.seed = seed
        self.people = people
        self._done: dict[str | None, tuple[list[str], list[tuple[tuple[str, str], ...]]]] = {}
        self._kept: list[bool] | None = None

    def _run(self, target: str | None) -> tuple[list[str], list[tuple[tuple[str, str], ...]]]:
        if target not in self._done:
            self._done[target] = substitute_names(
                self.lexicon.name,
                self.lexicon.groups,
                self.source,
                target,
                self.seed,
                self.lexicon.words,
                self.people,
                drawn_for=self.drawn_for,
            )
        return self._done[target]

    def texts(self, target: str | None) -> list[str]:
        return self._run(target)[0]

    def keep(self, rows: list[bool]) -> None:
        """Keep only these rows in :meth:`used` (the prompts whose versions differ)."""
        self._kept = rows

    def used(self, groups: tuple[str, ...]) -> tuple[Mapping[str, tuple[tuple[str, str], ...]], ...]:
        targets: list[tuple[str, str | None]] = (
            [("swapped", None)] if groups == ("original", "swapped") else [(g, g) for g in groups]
        )
        rows = [
            {label: self._run(target)[1][k] for label, target in targets if self._run(target)[1][k]}
            for k in range(len(self.source))
        ]
        if self._kept is not None:
            rows = [r for r, keep in zip(rows, self._kept, strict=True) if keep]
        return tuple(rows)


def intersectional_prompts(
    prompts: Any,
    attributes: Sequence[SingleAttribute],
    *,
    groups: Sequence[str | Sequence[str]] | None = None,
    names: bool = True,
    name_seed: int = 0,
    subject: Subject = DEFAULT_SUBJECT,
    change_system_prompt: bool = True,
) -> CounterfactualPrompts:
    """Counterfactual prompts for combinations of groups of several attributes ("female+black", "male+white").

    Every prompt that mentions any of the attributes gets one version per combination: each attribute's words are
    replaced by that attribute's group, one attribute after the other, with the same rules as
    :func:`counterfactual_prompts` (``mode="replace"``). The result's ``attribute`` is the attributes' names joined
    by "+" ("gender+race") and its groups the combinations, in the order of ``itertools.product``.

    Args:
        prompts: list, tuple, NumPy array or pandas Series of strings or conversations (as in
            :func:`counterfactual_prompts`; ``change_system_prompt`` too).
        attributes: two or more attributes (built-in names, custom dicts or lexicons), not None.
        groups: the combinations to generate, each "g1+g2" or a sequence ``(g1, g2)`` with one group per attribute
            in the order of ``attributes`` (an optional group such as gender's "nonbinary" may be named);
            default: every combination of the attributes' groups.
        names: also replace the personal names that signal a group of any of the attributes, by a name of the
            version's groups in all of them ("female+black": a Black woman's first name and a Black surname), the
            same way at every mention (``names`` records them); ``subject`` says whose name (as for
            :func:`counterfactual_prompts`). ``names=False``: attribute words only.
        name_seed: the seed of the per-prompt draw of replacement names.
        subject: whose name is swapped: ``"first"`` (default), ``"every"`` or one name (or None) per prompt.

    >>> cf = intersectional_prompts(["A Black man called."], ["gender", "race"], groups=["female+white"])
    >>> cf.attribute, cf.groups, cf["female+white"]
    ('gender+race', ('female+white',), ['A White woman called.'])
    """
    items, texts, layouts = _readable(prompts, change_system_prompt)
    if isinstance(attributes, (str, Mapping)) or len(attributes) < 2 or any(a is None for a in attributes):
        raise InputError("intersectional_prompts needs a list of two or more attributes, e.g. ['religion', 'age']")
    lexicons = [load_lexicon(a) for a in attributes]
    lexicon_names = [lex.name for lex in lexicons]
    if len(set(lexicon_names)) != len(lexicon_names):
        raise InputError(f"the attributes must differ, got {lexicon_names}")
    if groups is None:
        combos = list(itertools.product(*(lex.groups for lex in lexicons)))
    else:
        if isinstance(groups, str):
            groups = [groups]
        combos = []
        for combo in groups:
            parts = tuple(combo.split("+")) if isinstance(combo, str) else tuple(combo)
            if len(parts) != len(lexicons):
                raise InputError(f"group {combo!r} needs one group per attribute of {lexicon_names}")
            for lex, part in zip(lexicons, parts, strict=True):
                _choose_groups(lex.groups, [part], lex.optional_groups)
            combos.append(parts)
        if not combos:
            raise InputError("groups is empty: pass at least one combination, or None for all")
        combos = list(dict.fromkeys(combos))
    per_lexicon = [find_matches(lex, texts) for lex in lexicons]
    usable = name_attributes({lex.name: lex.all_groups for lex in lexicons}) if names else {}
    people = find_people_many(texts) if usable else None
    subjects = select_subjects(texts, people, subject) if people is not None else None
    named = [False] * len(texts)
    if subjects is not None:
        for attribute in usable.values():
            hits = find_name_matches(attribute, texts, subjects)
            named = [was or bool(found) for was, found in zip(named, hits, strict=True)]
    mentioned = [i for i in range(len(texts)) if named[i] or any(found[i] for found in per_lexicon)]
    index = np.asarray(mentioned, dtype=np.int64)
    subset = [texts[i] for i in mentioned]
    words = tuple(tuple(dict.fromkeys(m.term for found in per_lexicon for m in found[i])) for i in mentioned)
    if not subset:
        warnings.warn(
            f"no prompt mentions a word of {' or '.join(lexicon_names)}: there are no counterfactual prompts",
            UserWarning,
            stacklevel=2,
        )
    # the bystanders' words are kept as for one attribute (text/bystanders.py): each attribute's, by its own lists
    mask = None
    if people is not None and subjects is not None:
        filled = template_filled(subject, len(texts))
        spans = [
            sorted({span for lex, found in zip(lexicons, per_lexicon, strict=True)
                    for span in (*bystander_spans(texts[i], found[i], people[i], subjects[i], usable.get(lex.name)),
                                 *template_word_spans(found[i], filled[i]))})
            for i in mentioned
        ]  # fmt: skip
        mask = BystanderMask(subset, spans) if any(spans) else None
    source = subset if mask is None else mask.texts
    versions: dict[str, tuple[Prompt, ...]] = {}
    renamed: list[dict[str, tuple[tuple[str, str], ...]]] = [{} for _ in subset]
    primary = _primary_name_attribute(list(usable.values()))
    avoid = [w for lex in lexicons for w in lex.words]
    for combo in combos:
        label = "+".join(combo)
        out = source
        if subjects is not None and primary is not None and any(named):
            targets = {lex.name: group for lex, group in zip(lexicons, combo, strict=True) if lex.name in usable}
            goal = {usable[name]: group for name, group in targets.items()}
            out, used = substitute_names(
                primary,
                (),
                source,
                goal.pop(primary),
                name_seed,
                avoid,
                [subjects[i] for i in mentioned],
                fixed=goal,
                drawn_for=subset,
            )
            for row, pairs in zip(renamed, used, strict=True):
                if pairs:
                    row[label] = pairs
        for lex, group in zip(lexicons, combo, strict=True):
            out = substitute(lex, out, group)
        versions[label] = _restored(items, layouts, mentioned, out if mask is None else mask.restore(out))
    return CounterfactualPrompts(
        "+".join(lex.name for lex in lexicons),
        tuple(versions),
        index,
        _restored(items, layouts, mentioned, subset),
        versions,
        words,
        names=tuple(renamed) if subjects is not None else (),
        names_checked=subjects is not None,
        name_seed=name_seed,
    )


def _primary_name_attribute(attributes: list[str]) -> str | None:
    """Of the attributes with names, the one whose names are drawn first in an intersection: the one with lists of
    the most name parts (race: first names and surnames; gender: first names only), the others' groups then
    narrowing its pool."""
    index = name_index()
    if not attributes:
        return None
    return max(
        attributes,
        key=lambda a: sum(any(index.ranked.get((a, part, g)) for g in index.groups[a]) for part in PARTS),
    )


def attribute_groups(attribute: AttributeSpec) -> tuple[str, ...]:
    """The groups of an attribute spec: its lexicon's, or for an intersection every combination ("female+black")."""
    if isinstance(attribute, (list, tuple)):
        return tuple("+".join(combo) for combo in itertools.product(*(load_lexicon(a).groups for a in attribute)))
    if attribute is None:
        raise InputError("attribute_groups needs an attribute, not None")
    return tuple(load_lexicon(attribute).groups)


def _choose_groups(
    available: tuple[str, ...], groups: Sequence[str] | None, optional: tuple[str, ...] = ()
) -> tuple[str, ...]:
    if groups is None:
        return available
    if isinstance(groups, str):
        groups = [groups]
    unknown = [g for g in groups if g not in available and g not in optional]
    if unknown:
        also = f" (and, on request, {list(optional)})" if optional else ""
        raise InputError(f"unknown group(s) {unknown}; the lexicon's groups are {list(available)}{also}")
    if not groups:
        raise InputError("groups is empty: pass at least one group, or None for all")
    return tuple(dict.fromkeys(groups))


def neutralize(texts: Any, attribute: AttributeSpec = "gender") -> list[str]:
    """Replace attribute words by neutral forms, so texts can be compared without them (counterfactual ROUGE/BLEU).

    Each word becomes its row's neutral form from the lexicon file: gender words their gender-neutral form (he/she
    -> they, her -> them/their, woman/man -> person, Mr./Mrs. -> Mx.); race words (the file's ``neutral``) and words
    of a custom lexicon become ``"[MASK]"``. ``attribute=None`` neutralises every
    built-in attribute. Everything else is left byte-for-byte.

    >>> neutralize(["She gave him her book.", "A Black woman spoke."], attribute=None)
    ['They gave them their book.', 'A [MASK] person spoke.']
    """
    out = as_text_list(texts, "texts")
    for lexicon in resolve_lexicons(attribute):
        out = substitute(lexicon, out, None, mode="neutral")
    return out
