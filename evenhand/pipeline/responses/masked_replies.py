"""The counterfactual replies as they are compared: with the names of their prompt's versions masked (issue 33).

Two versions of "Write a rejection email to Lakisha Washington." differ by the name; a fair assistant's replies
("Dear Lakisha, ..." / "Dear Greg, ...") then differ by the name they echo, while two replies to one version do not,
so every comparison of the versions' replies would read the echo as a difference its noise floor lacks. Before any
comparison of counterfactual replies (similarity and its noise floor, sentiment, toxicity and refusal per group,
answer length), each counterfactual reply has every name of its prompt's versions replaced by one placeholder
(:func:`evenhand.text.mask_names`): the names of the persons each version's prompt names (the original's and every
group's replacement, bystanders too: they are the same in every version, so masking them is symmetric). The column
``_compared`` holds those texts (the reply itself where nothing is masked: originals, prompts that name nobody); it
never reaches responses.csv or results.json, which keep the replies as written.

A scorer that reads the group word itself needs one more step: a fair reply that echoes its version's group ("our
new straight customer" / "our new gay customer") differs between versions by that word alone, and VADER scores
"straight" +0.9, "poor" -2.1, "wealthy" +1.5, "blind" -1.7 and "gay" 0, so a sentiment comparison would read the
scorer's lexicon as the model's tone. :func:`mask_swapped_words` masks, in each counterfactual reply, the words of the
attribute its versions swap (the lexicon's own rules and neutral forms, as the toxicity scorer's identity masking,
:func:`evenhand.scorers.masking.mask_identity`), the same way in every version.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from evenhand.framework import Plan
from evenhand.text.letters import letter_body
from evenhand.text.name_masking import NAME_PLACEHOLDER, mask_names
from evenhand.text.names import find_people

#: The frame column of the replies as compared.
COMPARED = "_compared"
#: What the similarities put in place of a word in which the versions' prompts differ (both sides alike).
SWAPPED_TOKEN = "[MASK]"


def _names_of(prompts: list[str]) -> tuple[str, ...]:
    """Every person's name written in ``prompts`` (their first mention, each mention of a part, and each part of a
    hyphenated double surname: "García-López", "García", "López")."""
    found: dict[str, None] = {}
    for text in prompts:
        for person in find_people(text):
            found.setdefault(text[person.start : person.end])
            for mention in person.mentions:
                written = text[mention.start : mention.end]
                found.setdefault(written)
                if "-" in written:  # a reply may write one part of a double surname ("Sra. García")
                    for piece in written.split("-"):
                        if len(piece) > 1:
                            found.setdefault(piece)
    return tuple(found)


def add_compared(frame: pd.DataFrame, plan: Plan) -> dict[str, object]:
    """Add :data:`COMPARED` to ``frame`` and return what was masked (results.json ``names.masked``; empty when
    nothing was): the placeholder and the number of counterfactual replies in which a name was masked."""
    if "response" not in frame:
        return {}
    compared = frame["response"].copy()
    frame[COMPARED] = compared
    needed = {"group", "attribute", "prompt_id", "prompt", "status"}
    if not plan.use_case.names or frame.empty or not needed <= set(frame.columns):
        return {}
    versions = frame[frame["group"].notna() & (frame["status"] == "ok") & frame["response"].notna()]
    if versions.empty:
        return {}
    names_by_key = version_names(frame)
    names = [names_by_key.get((a, p), ()) for a, p in zip(versions["attribute"], versions["prompt_id"], strict=True)]
    if not any(names):
        return {}
    replies = versions["response"].astype(str).tolist()
    masked = mask_names(replies, names)
    frame.loc[versions.index, COMPARED] = masked
    changed = sum(a != b for a, b in zip(replies, masked, strict=True))
    return {"placeholder": NAME_PLACEHOLDER, "n_replies": changed, "n_compared": len(replies)}


def version_names(frame: pd.DataFrame) -> dict[tuple[object, object], tuple[str, ...]]:
    """Per (attribute, prompt id): every person's name written in the prompts of all its versions and in the original
    prompt, as the run masks them in each of its counterfactual replies (:func:`add_compared`)."""
    if not {"group", "attribute", "prompt_id", "prompt"} <= set(frame.columns):
        return {}
    originals = frame[frame["group"].isna()].drop_duplicates("prompt_id").set_index("prompt_id")["prompt"]
    names_by_key: dict[tuple[object, object], tuple[str, ...]] = {}
    for (attribute, pid), rows in frame[frame["group"].notna()].groupby(["attribute", "prompt_id"], sort=False):
        prompts = list(dict.fromkeys(str(p) for p in rows["prompt"]))
        if pid in originals.index:
            prompts.append(str(originals[pid]))
        names_by_key[(attribute, pid)] = _names_of(prompts)
    return names_by_key


def masked_pairs(
    frame: pd.DataFrame, attribute: str, pairs: pd.DataFrame, *, names: bool = True, swapped: bool = True
) -> tuple[list[str], list[str]]:
    """Both sides' replies of ``attribute``'s counterfactual pairs (``pairs``: ``prompt_id``, ``response_a``,
    ``response_b``, rows of ``frame``'s versions) as the run's similarities compared them (``compare`` rebuilds a
    similarity from stored replies with it, and a finding's example reads its pairs with it): the names of *every*
    version's prompt masked (with ``names``: the run masked them; :func:`version_names`, as :func:`add_compared`),
    then the words in which *any* two versions' prompts differ, alike on both sides (:func:`swapped_word_patterns`,
    :func:`swapped_words_masked`). Read off ``frame`` (the run's responses, every version of each prompt): the two
    versions of one pair alone would miss what a third version swaps ("a White" / "a Black" share "a", which "an
    Asian" makes a swapped word the run masked in every version: compare then could not rebuild the run's value).
    Without ``swapped``, the names alone (answer length counts the replies with their names masked only)."""
    of_attribute = frame[(frame["attribute"] == attribute) | frame["group"].isna()] if "group" in frame else frame
    ids = pairs["prompt_id"].tolist()
    sides = (pairs["response_a"].astype(str).tolist(), pairs["response_b"].astype(str).tolist())
    if names:
        named = version_names(of_attribute)
        masks = [named.get((attribute, pid), ()) for pid in ids]
        sides = (mask_names(sides[0], masks), mask_names(sides[1], masks))
    if not swapped:
        return sides
    patterns = swapped_word_patterns(of_attribute)
    a, b = (swapped_words_masked(patterns, attribute, ids, side) for side in sides)
    return a, b


def pair_versions(pairs: pd.DataFrame, attribute: str) -> pd.DataFrame:
    """The two versions of each counterfactual pair of ``pairs`` as rows of a response frame, for :func:`masked_pairs`
    where the run's responses are not at hand (only the pair's own two versions are then read)."""
    sides = [
        pd.DataFrame(
            {"attribute": attribute, "prompt_id": pairs["prompt_id"], "group": side, "prompt": pairs[f"prompt_{side}"]}
        )
        for side in ("a", "b")
    ]
    return pd.concat(sides, ignore_index=True)


def mask_swapped_words(
    frame: pd.DataFrame, rows: pd.DataFrame, texts: list[str], specs: Mapping[str, Any]
) -> tuple[list[str], dict[str, Any]]:
    """``texts`` (one per row of ``rows``, rows of ``frame``: the replies as compared) with each counterfactual
    reply's swapped words masked, the same way in every version of its prompt; original replies and rows of an
    attribute ``specs`` does not name are kept. Two steps:

    1. the words of the attribute its versions swap, by the lexicon's rules and neutral forms
       (:func:`evenhand.scorers.masking.mask_identity` with that lexicon: "she" -> "they", "our new straight
       customer" -> "our new someone customer");
    2. every word in which the prompts of its versions differ (the swap as written, read off ``frame``'s versions of
       the prompt): a form the lexicon writes but reads only in some contexts ("a wealthy customer" becomes "a poor
       customer", and "poor" counts as a term only in "poor people", "poor families", ...) becomes the same token.
    3. a letter's frame (:func:`evenhand.text.letters.letter_body`): its salutation and sign-off are formulas, not its
       tone, and a lexicon scores them unevenly ("Dear" and "Kind regards" warm, "Hola" and "Saludos" nothing), so a
       fair reply that greets each version's person in their language would read colder to one group.

    Also returns what was masked in steps 1 and 2, for results.json: ``{"token": ..., "attributes": {attribute:
    {"n_replies": replies changed, "n_compared": counterfactual replies}}}`` with only the attributes that had a word
    masked, or ``{}``."""
    from evenhand.scorers.masking import DEFAULT_TOKEN, mask_identity

    out = list(texts)
    needed = {"attribute", "group", "prompt_id", "prompt"}
    if rows.empty or not needed <= set(rows.columns) or not needed <= set(frame.columns):
        return out, {}
    swapped = swapped_word_patterns(frame)
    versions = rows["group"].notna().to_numpy()
    attributes = rows["attribute"].to_numpy()
    prompt_ids = rows["prompt_id"].to_numpy()
    counts: dict[str, Any] = {}
    for attribute in dict.fromkeys(attributes[versions].tolist()):
        if attribute not in specs:
            continue
        at = np.flatnonzero(versions & (attributes == attribute)).tolist()
        before = [out[i] for i in at]
        after = mask_identity(before, [specs[attribute]], token=DEFAULT_TOKEN)
        after = [
            pattern.sub(DEFAULT_TOKEN, text) if (pattern := swapped.get((attribute, prompt_ids[i]))) else text
            for i, text in zip(at, after, strict=True)
        ]
        changed = sum(a != b for a, b in zip(before, after, strict=True))
        if changed:
            counts[str(attribute)] = {"n_replies": changed, "n_compared": len(at)}
        for i, text in zip(at, after, strict=True):
            out[i] = letter_body(text)  # step 3: a letter's greeting and sign-off are formulas, not its tone
    return out, ({"token": DEFAULT_TOKEN, "attributes": counts} if counts else {})


def swapped_words_masked(
    swapped: Mapping[tuple[object, object], re.Pattern[str]], attribute: str, prompt_ids: Any, texts: list[str]
) -> list[str]:
    """``texts`` (counterfactual replies of ``attribute``, one per prompt id of ``prompt_ids``) with every word in
    which the versions of their prompt differ replaced by :data:`SWAPPED_TOKEN`, the same way in every version
    (step 2 of :func:`mask_swapped_words`, alone): for comparing two versions' replies, where the lexicon's neutral
    forms miss a swap it reads only in context ("a Hispanic small-business owner" becomes "a White small-business
    owner", and "White" counts as race only right before a person noun, so "Hispanic" was neutralized and "White"
    not: a fair echo then differed by a word in every pair with the hispanic version). ``swapped``: the run's
    :func:`swapped_word_patterns`, made once.

    A letter is read without its frame (step 3, :func:`evenhand.text.letters.letter_body`, its signature too;
    names17): a fair reply that greets and signs each version's person in their language ("Hola [NAME]," /
    "Saludos," / "El equipo" against "Dear [NAME]," / "Kind regards," / "The team") wrote the same letter, and the
    formulas made ROUGE-L and BLEU read it as a different one (a concern in every run of a fair fixture)."""
    return [
        letter_body(
            pattern.sub(SWAPPED_TOKEN, text) if (pattern := swapped.get((attribute, pid))) else text, signature=False
        )
        for pid, text in zip(prompt_ids, texts, strict=True)
    ]


#: A word as the version comparison reads it: letters and digits, with inner hyphens and apostrophes ("low-income").
_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
#: Words that stand in for each other between versions, one of which a version may share with all the others ("Write
#: a note to an Asian customer" / "... to a White customer": "a" is in every version, "an" in one): where one differs,
#: all of its set are masked, so that the echo reads alike in every version
_ALTERNATES = (frozenset({"a", "an"}),)
#: The verbs that agree with singular they ("she is" / "they are"): where a version's pronoun is "they" (the nonbinary
#: one) or one of these differs, all are masked, also those the prompts do not hold ("she was" / "they were" in a reply)
_AGREEMENT = frozenset({"is", "are", "was", "were", "has", "have", "does", "do", "isn't", "aren't", "wasn't", "weren't",
                        "hasn't", "haven't", "doesn't", "don't"})  # fmt: skip


def swapped_word_patterns(frame: pd.DataFrame) -> dict[tuple[object, object], re.Pattern[str]]:
    """Per (attribute, prompt id): a pattern of the words in which the versions' prompts differ (in some version but
    not in all, compared without case), longest first, as whole words; none where the versions read alike. Short
    words too: "Ms"/"Mr", "he", the article after a swapped word ("a Black" / "an Asian", with its alternate:
    :data:`_ALTERNATES`) and the verbs of singular they ("she is" / "they are": :data:`_AGREEMENT`) are what a fair
    reply echoes of its version; left as written, they differed between versions in every such reply (the lexicon's
    neutral forms do not agree with this token: "he" became "they" while "she" became the token, "Mr. [NAME]" became
    "Mx. [NAME]" while "Ms. [NAME]" stayed; review12)."""
    from evenhand.conversation import prompt_text

    found: dict[tuple[object, object], re.Pattern[str]] = {}
    versions = frame[frame["group"].notna()]
    for key, prompts in versions.groupby(["attribute", "prompt_id"], sort=False)["prompt"]:
        pattern = _differing_words(dict.fromkeys(prompt_text(p) for p in prompts))
        if pattern is not None:
            found[key] = pattern
    return found


def _differing_words(texts: Any) -> re.Pattern[str] | None:
    """A pattern of the words in which ``texts`` (the versions of one prompt) differ, as :func:`swapped_word_patterns`
    reads them; None where they read alike."""
    words = [{w.casefold() for w in _WORD.findall(text)} for text in texts]
    differ = set().union(*words) - set.intersection(*words) if len(words) > 1 else set()
    if not differ:
        return None
    differ |= {w for alternates in _ALTERNATES if differ & alternates for w in alternates}
    if "they" in differ or differ & _AGREEMENT:
        differ |= _AGREEMENT
    alternatives = "|".join(re.escape(w) for w in sorted(differ, key=lambda w: (-len(w), w)))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)
