"""Prompt templates filled with names of each group: the design of name-audit studies (Bertrand & Mullainathan 2004;
Haim, Salinas & Nyarko 2024), where the same request is asked about people whose names signal different groups.

A template writes where the person goes: ``{name}`` (first and last name), ``{first_name}``, ``{last_name}``,
``{title}`` ("Ms." / "Mr."), and the person's pronouns ``{they}``, ``{them}``, ``{their}``, ``{theirs}``,
``{themself}`` (capitalised at a sentence start as ``{They}``, ``{Them}``, ...). :func:`fill_templates` fills each
template ``names_per_group`` times: in each fill every group's version names a person of that group, drawn from the
group's name lists with a seeded generator (the draw depends on the seed, the template and the fill only), and the
person's other groups are held equal across the versions (a race template's fill is about women in every version,
or about men; a gender template's about one race). The names used are recorded (``CounterfactualPrompts.names``).
"""

from __future__ import annotations

import functools
import itertools
import re
import string
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evenhand._validation import as_text_list
from evenhand.errors import InputError
from evenhand.text._names_data import PARTS, NameIndex, name_index
from evenhand.text.counterfactual import CounterfactualPrompts
from evenhand.text.lexicon import load_lexicon
from evenhand.text.name_subjects import TemplateSubject
from evenhand.text.names import POOL_SIZE, _narrowed_pool, _rng

__all__ = ["PLACEHOLDERS", "fill_templates", "filled_subjects", "template_prompts", "template_subjects"]

_NAME_FIELDS = ("name", "first_name", "last_name")
# a pronoun placeholder -> the lexicon row slot whose group forms fill it (the gender file's rows: "she"/"he", ...;
# the title row that needs a name: "Ms."/"Mr.")
_SLOTS = {
    "they": "subject",
    "them": "object",
    "their": "determiner",
    "theirs": "pronoun",
    "themself": "reflexive",
    "title": "title",
}
#: The placeholders a template may use (and the capitalised forms of the pronouns: ``{They}``, ...).
PLACEHOLDERS = (*_NAME_FIELDS, *_SLOTS)


@functools.lru_cache(maxsize=1)
def _pronouns() -> tuple[str | None, dict[str, dict[str, str]]]:
    """The attribute whose lexicon gives pronoun forms (the one with a "subject" slot: gender), and per group its
    form for each pronoun placeholder; (None, {}) when no lexicon with names has them."""
    for attribute in name_index().groups:
        rows = load_lexicon(attribute).rows
        by_slot: dict[str, Mapping[str, str]] = {}
        for row in rows:
            if row.slot in _SLOTS.values() and (row.slot != "title" or row.needs_name):
                by_slot.setdefault(row.slot, row.forms)
        if "subject" in by_slot:
            groups = name_index().groups[attribute]
            forms = {
                g: {p: by_slot[slot][g] for p, slot in _SLOTS.items() if g in by_slot.get(slot, {})} for g in groups
            }
            return attribute, forms
    return None, {}


def _fields(template: str, i: int) -> set[str]:
    try:
        found = {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
    except ValueError as error:
        raise InputError(f"templates[{i}] is not a valid template ({error}): {template!r}") from None
    unknown = sorted(f for f in found if f not in PLACEHOLDERS and f[:1].lower() + f[1:] not in _SLOTS)
    if unknown:
        raise InputError(
            f"templates[{i}] has unknown placeholder(s) {unknown}; use {['{' + p + '}' for p in PLACEHOLDERS]} "
            "(pronouns also capitalised: {They}); write a literal brace as {{ or }}"
        )
    if not found & set(_NAME_FIELDS):
        raise InputError(f"templates[{i}] names nobody: use {{name}}, {{first_name}} or {{last_name}}: {template!r}")
    return found


def _draw(
    index: NameIndex,
    part: str,
    targets: Mapping[str, str],
    rng: Any,
    avoid: frozenset[str],
) -> str | None:
    """A name of ``part`` whose groups are ``targets`` (attribute -> group) in every attribute with such names."""
    listing = [a for a in targets if index.ranked.get((a, part, targets[a]))]
    if not listing:
        return None
    base = listing[0]
    keep = tuple((a, targets[a]) for a in listing[1:])
    pool = _narrowed_pool(index, base, part, targets[base], keep, avoid)[:POOL_SIZE]
    return pool[rng.randrange(len(pool))] if pool else None


def fill_templates(
    templates: Any,
    attribute: str | Sequence[str] = "race",
    *,
    names_per_group: int = 3,
    groups: Sequence[str] | None = None,
    seed: int = 0,
) -> CounterfactualPrompts:
    """Fill prompt templates with names of each group of an attribute (or of an intersection of attributes).

    Args:
        templates: list, tuple, NumPy array or pandas Series of templates with placeholders: ``{name}``,
            ``{first_name}``, ``{last_name}``, ``{title}`` and the pronouns ``{they}``, ``{them}``, ``{their}``,
            ``{theirs}``, ``{themself}`` (``{They}`` ... at a sentence start); ``{{`` and ``}}`` are literal braces.
        attribute: an attribute with name lists (``"race"``, ``"gender"``) or a list of them (an intersection:
            ``["gender", "race"]``, groups such as ``"female+black"``).
        names_per_group: how many times each template is filled (each fill names a different person per group).
        groups: the groups to fill (default: every group with names).
        seed: the seed of the draw (recorded as ``name_seed``); the names depend on it, the template and the fill.

    Returns:
        :class:`~evenhand.text.counterfactual.CounterfactualPrompts`: one row per template and fill
        (``source_index``: the template's position; ``original``: the template), ``cf[group]`` the filled prompts,
        and ``names`` per row, group -> ``(("", name used),)``.

    >>> cf = fill_templates(["Write a rejection email to {name} and thank {them}."], "race", names_per_group=2)
    >>> len(cf), cf.groups
    (2, ('white', 'black', 'hispanic', 'asian'))
    """
    texts = as_text_list(templates, "templates")
    if names_per_group < 1:
        raise InputError(f"names_per_group must be at least 1, got {names_per_group}")
    index = name_index()
    attributes = [attribute] if isinstance(attribute, str) else list(attribute)
    unknown = [a for a in attributes if a not in index.groups]
    if unknown or not attributes or len(set(attributes)) != len(attributes):
        raise InputError(f"fill_templates needs attributes with name lists {list(index.groups)}, got {attributes}")
    combos = ["+".join(c) for c in itertools.product(*(index.groups[a] for a in attributes))]
    chosen = tuple(combos if groups is None else dict.fromkeys(groups))
    if not chosen or any(g not in combos for g in chosen):
        raise InputError(f"unknown group(s) in {list(chosen)}; the groups with names are {combos}")
    fields = [_fields(t, i) for i, t in enumerate(texts)]
    held = [a for a in index.groups if a not in attributes]  # the person's other groups, equal across versions
    # the parts the versions' groups have names of (race: first and last; gender: first): the others are shared
    varied = {part for part in PARTS for a in attributes for g in index.groups[a] if index.ranked.get((a, part, g))}
    rows: list[int] = []
    versions: dict[str, list[str]] = {g: [] for g in chosen}
    names: list[dict[str, tuple[tuple[str, str], ...]]] = []
    for i, template in enumerate(texts):
        for fill in range(names_per_group):
            row_rng = _rng(seed, template, "+".join(attributes), f"fill {fill}")
            fixed = {a: index.groups[a][row_rng.randrange(len(index.groups[a]))] for a in held}
            # a part no version's groups have names of (gender lists no surnames): one name for every version
            shared = {part: _draw(index, part, fixed, row_rng, frozenset()) for part in PARTS}
            rows.append(i)
            used: dict[str, tuple[tuple[str, str], ...]] = {}
            for group in chosen:
                targets = dict(zip(attributes, group.split("+"), strict=True)) | fixed
                rng = _rng(seed, template, "+".join(attributes), f"{group}\x00{fill}")
                keys = {
                    part: (_draw(index, part, targets, rng, frozenset()) if part in varied else None) or shared[part]
                    for part in PARTS
                }
                written = {part: index.written(part, key) if key else "" for part, key in keys.items()}
                full = " ".join(w for w in (written["first"], written["last"]) if w)
                values = {"name": full, "first_name": written["first"], "last_name": written["last"]}
                values |= _pronouns_of(index, targets, keys["first"], fill)
                versions[group].append(template.format(**{f: values[f] for f in fields[i]}))
                used[group] = (("", full),)
            names.append(used)
    return CounterfactualPrompts(
        "+".join(attributes),
        chosen,
        np.asarray(rows, dtype=np.int64),
        tuple(texts[i] for i in rows),
        {g: tuple(v) for g, v in versions.items()},
        tuple(() for _ in rows),
        names=tuple(names),
        names_checked=True,
        name_seed=seed,
    )


def _pronouns_of(index: NameIndex, targets: Mapping[str, str], first: str | None, fill: int) -> dict[str, str]:
    """The pronoun placeholders' values for a person: the forms of their group in the attribute that has pronouns
    (the version's group, else the first name's; a name of no group takes the groups in turn by fill), lower case
    and capitalised."""
    attribute, forms = _pronouns()
    if attribute is None:
        return {}
    group = targets.get(attribute)
    if group is None and first is not None:
        assoc = index.association("first", first, attribute)
        group = None if assoc is None else assoc.group
    if group not in forms:
        order = list(forms)
        group = order[fill % len(order)]
    values = dict(forms[group])
    return values | {k[:1].upper() + k[1:]: v[:1].upper() + v[1:] for k, v in values.items()}


def template_prompts(
    templates: Any, attribute: str | Sequence[str] = "race", *, names_per_group: int = 3, seed: int = 0
) -> tuple[list[str], list[dict[str, Any]]]:
    """The prompts of a name-audit run (``evenhand.assess(templates=...)``, the config's ``prompts.templates``):
    each template filled ``names_per_group`` times by :func:`fill_templates`, each fill naming a person of one
    group, the groups taken in turn (row ``k`` of the fills names a person of group ``k mod G``), so that every
    group is named about equally often. The counterfactual versions of these prompts then name a person of every
    group, as for any prompt that names a person.

    Returns:
        The prompts (template-major: template 0's fills first), and per prompt what filled it:
        ``{"template": index, "group": group, "name": name}``.

    >>> prompts, fills = template_prompts(["Write to {name}."], "gender", names_per_group=2)
    >>> [f["group"] for f in fills]
    ['female', 'male']
    """
    cf = fill_templates(templates, attribute, names_per_group=names_per_group, seed=seed)
    prompts: list[str] = []
    fills: list[dict[str, Any]] = []
    for k, template in enumerate(cf.source_index.tolist()):
        group = cf.groups[k % len(cf.groups)]
        prompts.append(str(cf.prompts[group][k]))  # templates are texts, and so are their fills
        fills.append({"template": int(template), "group": group, "name": cf.names[k][group][0][1]})
    return prompts, fills


def template_subjects(templates: Sequence[str], fills: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per prompt of :func:`template_prompts`, its subject as the prompt writes it: the person the template's
    placeholder stands for (``fills``' name), written as its first name placeholder writes it: ``{name}`` the whole
    name, ``{first_name}`` the first name, ``{last_name}`` the last name. Another person a template names ("The
    manager Mr. John Smith reviewed the loan of {name}") is a bystander, even when named first
    (:mod:`evenhand.text.name_subjects`)."""
    out = []
    for fill in fills:
        template, name = templates[int(fill["template"])], str(fill["name"])
        field = next(f for _, f, _, _ in string.Formatter().parse(template) if f in _NAME_FIELDS)
        first, _, last = name.partition(" ")  # the fill writes "first last" (a last name may have spaces)
        if field == "first_name" and last:
            name = first
        elif field == "last_name" and last:
            name = last
        out.append(name)
    return out


def filled_subjects(
    templates: Sequence[str], fills: Sequence[Mapping[str, Any]], prompts: Sequence[str]
) -> tuple[TemplateSubject | None, ...]:
    """Per prompt of :func:`template_prompts`, its subject (:func:`template_subjects`) with the spans its template's
    placeholders filled, found by reading the prompt against its template (None where the prompt is not the
    template's fill: a use case copied with other prompts)."""
    names = template_subjects(templates, fills)
    out: list[TemplateSubject | None] = []
    for fill, name, prompt in zip(fills, names, prompts, strict=True):
        spans = _filled_spans(templates[int(fill["template"])], prompt)
        out.append(None if spans is None else TemplateSubject(name, spans))
    return tuple(out)


def _filled_spans(template: str, prompt: str) -> tuple[tuple[int, int], ...] | None:
    """The spans of ``prompt`` its template's placeholders filled: the template's own text read as literal, each
    placeholder as any text; None when the prompt does not read as the template."""
    pattern = "".join(
        re.escape(literal) + ("" if field is None else "(.*?)")
        for literal, field, _, _ in string.Formatter().parse(template)
    )
    found = re.fullmatch(pattern, prompt, flags=re.DOTALL)
    if found is None:
        return None
    return tuple(found.span(k) for k in range(1, (found.lastindex or 0) + 1))
