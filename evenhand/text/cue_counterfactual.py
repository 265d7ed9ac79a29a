"""Counterfactual versions of the prompts that only a reader flags, written by the reader and checked here.

A prompt flagged by a lexicon word or a personal name gets its versions by substitution
(:func:`evenhand.text.counterfactual.counterfactual_prompts`). A prompt that only a reader flags ("she wears a hijab
to work" for religion) has no word of the lexicon to substitute, so the reader rewrites its cues for each group
(:class:`~evenhand.text.cues.CueRewriter`). A version counts only when the prompt is unchanged outside the cues'
words (:func:`~evenhand.text.cues.check_rewrite`) and differs from every other group's version; a prompt with any
version that does not is left out, and :class:`ReaderVersions` says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evenhand.conversation import Prompt
from evenhand.errors import InputError, InputTypeError
from evenhand.text.counterfactual import CounterfactualPrompts
from evenhand.text.cues import Cue, CueRewriter, RewriteRequest, check_rewrite
from evenhand.text.turns import layout, rebuild

__all__ = ["ReaderVersions", "reader_counterfactuals"]


@dataclass(frozen=True)
class ReaderVersions:
    """The reader-written versions of one attribute's reader-only prompts.

    ``source_index`` and ``prompts`` hold the prompts whose versions were all made (``prompts[group][k]`` is the
    version of prompt ``source_index[k]``: a conversation's is a conversation); ``failed`` the others, each with why
    (one line).
    """

    attribute: str
    groups: tuple[str, ...]
    source_index: tuple[int, ...]
    original: tuple[Prompt, ...]
    prompts: Mapping[str, tuple[Prompt, ...]]
    cues: tuple[tuple[str, ...], ...]  # per made prompt, the cues that were rewritten
    failed: tuple[tuple[int, str], ...]

    @property
    def n_made(self) -> int:
        return len(self.source_index)

    def as_counterfactual_prompts(self) -> CounterfactualPrompts:
        """The made versions as :class:`~evenhand.text.counterfactual.CounterfactualPrompts` (the cues stand in for
        the attribute words), to generate like the lexicon's versions."""
        return CounterfactualPrompts(
            attribute=self.attribute,
            groups=self.groups,
            source_index=np.asarray(self.source_index, dtype=np.int64),
            original=self.original,
            prompts=dict(self.prompts),
            attribute_words=self.cues,
        )

    def describe(self) -> str:
        """One line for the plan: how many versions the reader made, and why the others could not be made."""
        total = self.n_made + len(self.failed)
        line = (
            f"{total} prompt{'s' if total != 1 else ''} flagged only by the reader for {self.attribute}: the reader "
            f"wrote the counterfactual versions of {self.n_made}"
        )
        if self.failed:
            index, why = self.failed[0]
            more = f" (and {len(self.failed) - 1} more)" if len(self.failed) > 1 else ""
            line += f"; {len(self.failed)} could not be made and are left out, e.g. prompt {index}: {why}{more}"
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "attribute": self.attribute,
            "groups": list(self.groups),
            "n_made": self.n_made,
            "source_index": list(self.source_index),
            "failed": [{"prompt_index": i, "reason": why} for i, why in self.failed],
            "description": self.describe(),
        }


def reader_counterfactuals(
    prompts: Sequence[Prompt],
    cues: Sequence[Sequence[Cue]],
    index: Sequence[int],
    attribute: str,
    groups: Sequence[str],
    rewriter: Any,
) -> ReaderVersions:
    """The versions, for every group of ``groups``, of the prompts at ``index`` (those only a reader flags), from
    ``rewriter`` (a :class:`~evenhand.text.cues.CueRewriter`: an LLM reader is one).

    Args:
        prompts: every prompt (a text or a conversation); ``cues``: the reader's cues of each
            (:attr:`FTUResult.reader_cues`), found in the text the text core reads for it
            (:func:`evenhand.text.turns.layout`: a conversation's turns and documents in one text).
        index: the prompts to make versions of (:attr:`FTUResult.reader_only_index`).
        attribute, groups: the attribute whose cues are rewritten, and its groups.
        rewriter: writes each version; every one is checked (:func:`~evenhand.text.cues.check_rewrite`).

    A group that every cue of a prompt already signals keeps the prompt as it is (no request). All requests go to
    the rewriter in one call (an LLM sends them concurrently). A conversation is rewritten as that one text and
    rebuilt turn by turn; a rewrite that does not keep the boundaries between its turns is not kept (the rewrite
    check sees them as text outside the cues).
    """
    if not isinstance(rewriter, CueRewriter):
        raise InputTypeError(
            f"reader-only prompts need a reader that rewrites cues (rewrite_cues), got {type(rewriter).__name__}"
        )
    chosen = tuple(dict.fromkeys(str(g) for g in groups))
    if len(chosen) < 2:
        raise InputError(f"counterfactual versions need two or more groups, got {list(chosen)}")
    requests: list[RewriteRequest] = []
    plan: list[tuple[int, dict[str, int | None]]] = []  # per prompt, group -> request position (None: as it is)
    shapes = {i: layout(prompts[i]) for i in index}  # the text the cues were found in
    for i in index:
        own = tuple(c for c in cues[i] if c.attribute == attribute)
        if not own:
            continue
        slots: dict[str, int | None] = {}
        for group in chosen:
            if all(c.group == group for c in own):
                slots[group] = None
            else:
                slots[group] = len(requests)
                requests.append(RewriteRequest(shapes[i].text, own, attribute, group, chosen))
        plan.append((i, slots))
    written = list(rewriter.rewrite_cues(requests)) if requests else []
    if len(written) != len(requests):
        raise InputError(f"the reader rewrote {len(written)} of {len(requests)} versions")
    made: list[int] = []
    versions: dict[str, list[Prompt]] = {g: [] for g in chosen}
    words: list[tuple[str, ...]] = []
    failed: list[tuple[int, str]] = []
    for i, slots in plan:
        own = tuple(c for c in cues[i] if c.attribute == attribute)
        text = shapes[i].text
        texts: dict[str, str] = {}
        why = None
        for group, slot in slots.items():
            if slot is None:
                texts[group] = text
                continue
            problem = check_rewrite(text, written[slot], own)
            if problem is not None:
                why = f"the {group} version: {problem}"
                break
            texts[group] = str(written[slot])
        if why is None:
            seen: dict[str, str] = {}
            for group, text in texts.items():
                if text in seen:
                    why = f"the {seen[text]} and {group} versions are the same text"
                    break
                seen[text] = group
        try:  # a conversation again, turn by turn (a bare text is its own text)
            rebuilt = {group: rebuild(prompts[i], shapes[i], texts[group]) for group in chosen} if why is None else {}
        except InputError as exc:
            why = str(exc)
        if why is not None:
            failed.append((i, why))
            continue
        made.append(i)
        words.append(tuple(dict.fromkeys(c.word for c in own)))
        for group in chosen:
            versions[group].append(rebuilt[group])
    return ReaderVersions(
        attribute=attribute,
        groups=chosen,
        source_index=tuple(made),
        original=tuple(prompts[i] for i in made),
        prompts={g: tuple(v) for g, v in versions.items()},
        cues=tuple(words),
        failed=tuple(failed),
    )
