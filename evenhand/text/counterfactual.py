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
from evenhand.text._engine import find_matches, substitute
from evenhand.text.ftu import AttributeSpec, SingleAttribute, resolve_lexicons
from evenhand.text.lexicon import builtin_attributes, load_lexicon

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
        original: the original prompts, one per row.
        prompts: group -> the counterfactual prompts, one per row.
        attribute_words: per row, the distinct attribute terms found in the original prompt.
        mode: "replace" or "swap".
    """

    attribute: str
    groups: tuple[str, ...]
    source_index: npt.NDArray[np.int64]
    original: tuple[str, ...]
    prompts: Mapping[str, tuple[str, ...]]
    attribute_words: tuple[tuple[str, ...], ...]
    mode: str = "replace"

    def __getitem__(self, group: str) -> list[str]:
        if group not in self.prompts:
            raise KeyError(f"no group {group!r}; groups are {list(self.groups)}")
        return list(self.prompts[group])

    def __contains__(self, group: object) -> bool:
        return group in self.prompts

    def __iter__(self) -> Iterator[str]:
        """Iterate over group names (like a mapping)."""
        return iter(self.groups)

    def __len__(self) -> int:
        return len(self.original)

    def pairs(self, group_a: str, group_b: str) -> list[tuple[str, str]]:
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
        prompts: list, tuple, NumPy array or pandas Series of strings.
        attribute: a built-in attribute (``"gender"``, ``"race"``, ...), a custom dict ``{"group_a": [...],
            "group_b": [...]}`` of aligned words, a :class:`~evenhand.text.lexicon.Lexicon`, or a list of two or
            more of those: an intersection (:func:`intersectional_prompts`, groups such as ``"female+black"``).
        groups: a subset of the lexicon's groups to generate (default: all, in lexicon order); it may name the
            lexicon's optional groups too (gender: ``groups=["female", "male", "nonbinary"]``: singular they with
            plural verbs, "themself", "Mx.").
        mode: ``"replace"`` or ``"swap"``.

    Returns:
        :class:`CounterfactualPrompts`; empty (with a warning) when no prompt mentions the attribute.

    >>> cf = counterfactual_prompts(["He said his son saw him.", "Summarise the call."], attribute="gender")
    >>> cf["female"], cf["male"], cf.source_index.tolist()
    (['She said her daughter saw her.'], ['He said his son saw him.'], [0])
    """
    if isinstance(attribute, (list, tuple)):  # an intersection: one version per combination of groups
        if mode != "replace":
            raise ValueError("an intersection of attributes has counterfactual prompts in mode='replace' only")
        return intersectional_prompts(prompts, attribute, groups=groups)
    texts = as_text_list(prompts, "prompts")
    if attribute is None:
        raise ValueError(
            f"counterfactual_prompts needs one attribute (one of {list(builtin_attributes())} or a custom dict), "
            "not None"
        )
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    lexicon = load_lexicon(attribute)
    chosen = _choose_groups(lexicon.groups, groups, lexicon.optional_groups)
    if mode == "swap" and len(lexicon.groups) != 2:
        raise ValueError(f"mode='swap' needs exactly two groups; the {lexicon.name} lexicon has {list(lexicon.groups)}")

    matches = find_matches(lexicon, texts)
    index = np.fromiter((i for i, m in enumerate(matches) if m), dtype=np.int64)
    subset = [texts[i] for i in index.tolist()]
    words = tuple(tuple(dict.fromkeys(m.term for m in matches[i])) for i in index.tolist())
    if not subset:
        warnings.warn(
            f"no prompt mentions a {lexicon.name} word: there are no counterfactual prompts (FTU is satisfied)",
            UserWarning,
            stacklevel=2,
        )
    if mode == "swap":
        out_groups: tuple[str, ...] = ("original", "swapped")
        versions = {"original": tuple(subset), "swapped": tuple(substitute(lexicon, subset, None, mode="swap"))}
    else:
        out_groups = chosen
        versions = {g: tuple(substitute(lexicon, subset, g)) for g in chosen}
    return CounterfactualPrompts(lexicon.name, out_groups, index, tuple(subset), versions, words, mode)


def intersectional_prompts(
    prompts: Any,
    attributes: Sequence[SingleAttribute],
    *,
    groups: Sequence[str | Sequence[str]] | None = None,
) -> CounterfactualPrompts:
    """Counterfactual prompts for combinations of groups of several attributes ("female+black", "male+white").

    Every prompt that mentions any of the attributes gets one version per combination: each attribute's words are
    replaced by that attribute's group, one attribute after the other, with the same rules as
    :func:`counterfactual_prompts` (``mode="replace"``). The result's ``attribute`` is the attributes' names joined
    by "+" ("gender+race") and its groups the combinations, in the order of ``itertools.product``.

    Args:
        prompts: list, tuple, NumPy array or pandas Series of strings.
        attributes: two or more attributes (built-in names, custom dicts or lexicons), not None.
        groups: the combinations to generate, each "g1+g2" or a sequence ``(g1, g2)`` with one group per attribute
            in the order of ``attributes`` (an optional group such as gender's "nonbinary" may be named);
            default: every combination of the attributes' groups.

    >>> cf = intersectional_prompts(["A Black man called."], ["gender", "race"], groups=["female+white"])
    >>> cf.attribute, cf.groups, cf["female+white"]
    ('gender+race', ('female+white',), ['A White woman called.'])
    """
    texts = as_text_list(prompts, "prompts")
    if isinstance(attributes, (str, Mapping)) or len(attributes) < 2 or any(a is None for a in attributes):
        raise ValueError("intersectional_prompts needs a list of two or more attributes, e.g. ['religion', 'age']")
    lexicons = [load_lexicon(a) for a in attributes]
    names = [lex.name for lex in lexicons]
    if len(set(names)) != len(names):
        raise ValueError(f"the attributes must differ, got {names}")
    if groups is None:
        combos = list(itertools.product(*(lex.groups for lex in lexicons)))
    else:
        if isinstance(groups, str):
            groups = [groups]
        combos = []
        for combo in groups:
            parts = tuple(combo.split("+")) if isinstance(combo, str) else tuple(combo)
            if len(parts) != len(lexicons):
                raise ValueError(f"group {combo!r} needs one group per attribute of {names}")
            for lex, part in zip(lexicons, parts, strict=True):
                _choose_groups(lex.groups, [part], lex.optional_groups)
            combos.append(parts)
        if not combos:
            raise ValueError("groups is empty: pass at least one combination, or None for all")
        combos = list(dict.fromkeys(combos))
    per_lexicon = [find_matches(lex, texts) for lex in lexicons]
    mentioned = [i for i in range(len(texts)) if any(found[i] for found in per_lexicon)]
    index = np.asarray(mentioned, dtype=np.int64)
    subset = [texts[i] for i in mentioned]
    words = tuple(tuple(dict.fromkeys(m.term for found in per_lexicon for m in found[i])) for i in mentioned)
    if not subset:
        warnings.warn(
            f"no prompt mentions a word of {' or '.join(names)}: there are no counterfactual prompts",
            UserWarning,
            stacklevel=2,
        )
    versions: dict[str, tuple[str, ...]] = {}
    for combo in combos:
        out = subset
        for lex, group in zip(lexicons, combo, strict=True):
            out = substitute(lex, out, group)
        versions["+".join(combo)] = tuple(out)
    return CounterfactualPrompts("+".join(names), tuple(versions), index, tuple(subset), versions, words)


def attribute_groups(attribute: AttributeSpec) -> tuple[str, ...]:
    """The groups of an attribute spec: its lexicon's, or for an intersection every combination ("female+black")."""
    if isinstance(attribute, (list, tuple)):
        return tuple("+".join(combo) for combo in itertools.product(*(load_lexicon(a).groups for a in attribute)))
    if attribute is None:
        raise ValueError("attribute_groups needs an attribute, not None")
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
        raise ValueError(f"unknown group(s) {unknown}; the lexicon's groups are {list(available)}{also}")
    if not groups:
        raise ValueError("groups is empty: pass at least one group, or None for all")
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
