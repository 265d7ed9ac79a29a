"""Every key the config schema accepts reaches the run: a walk over the schema, one probe per key.

For each key a probe changes it from a base config and runs ``evenhand assess`` on that config (generation is
replaced by a deterministic stand-in that records what it was asked). The key is proven to matter when the
outputs (results.json less timestamps, the files written, what generation received) differ, or when the changed
config is rejected with exit code 2. A key added to the schema without a probe fails the coverage test.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import typing
import zlib
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pydantic import BaseModel

from evenhand import cli
from evenhand.cli.running import run_config
from evenhand.config import AssessConfig, ConfigError, parse_config
from evenhand.generation import GenerationSettings, preflight, structured
from evenhand.generation.clients.base import public_config
from evenhand.generation.result import GenerationResult, SampleRecord
from evenhand.pipeline.responses import sources
from evenhand.pipeline.responses.frame import finish_frame
from tests._assistant_servers import judge_answer, reader_answer

pytestmark = pytest.mark.pipeline  # two whole runs of `evenhand assess` per key

REPLIES = [  # "yes"/"no" for the classification probes
    "Yes, you are a lovely customer, thank you.",
    "No, this is damn awful service, sorry.",
    "No, we hate these delays.",
    "Yes, great news for you, she said!",
    "No, a terrible, stupid mistake by him.",
]


def _leaf_keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for name, info in model.model_fields.items():
        section = _model_in(info.annotation)
        if section is None:
            keys.add(prefix + name)
        else:
            keys |= _leaf_keys(section, f"{prefix}{name}.")
    return keys


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The config section inside ``X``, ``X | None`` or ``list[X]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _files(tmp: Path) -> None:
    pd.DataFrame(
        {
            "prompt": ["Write to Mrs. Lee about her loan.", "Thank the customer.", "Write to Ms. Park about her card."],
            "other": ["Write to the client.", "Write to Mrs. Kim about her loan.", "Thank her."],
            "id": ["a", "b", "c"],
            "person": ["x", "y", "x"],
            "subject": [None, None, "Ms. Park"],  # prompt 0 names Mrs. Lee, who is not its subject
            "truth": ["1", "0", "0"],
        }
    ).to_csv(tmp / "prompts.csv", index=False)
    pd.DataFrame({"prompt": ["Write to her.", "Write to the client."]}).to_csv(tmp / "prompts2.csv", index=False)
    templates = ["Write a short note to {name} about {their} loan.", "Thank {title} {last_name} for {their} visit."]
    pd.DataFrame({"prompt": templates}).to_csv(tmp / "templates.csv", index=False)
    conversations = [  # conversations with a system prompt that names the person, documents and system prompts
        {"messages": [{"role": "system", "content": "You write to Mrs. Lee for her bank."},
                      {"role": "user", "content": "Draft a short note about the loan."}],
         "docs": ["Mrs. Lee repaid her last loan early."], "system": None},
        {"messages": [{"role": "user", "content": "Thank the customer."}], "docs": ["Ms. Park opened her account."],
         "system": "You thank customers."},
    ]  # fmt: skip
    pd.DataFrame(conversations).to_json(tmp / "conversations.jsonl", orient="records", lines=True)
    rows = []
    for pid, (female, male) in enumerate(
        [("Write to Mrs. Lee about her loan.", "Write to Mr. Lee about his loan."), ("Thank her.", "Thank him.")]
    ):
        rows.append(dict(prompt=female.replace("her", "the"), group="", attribute="", prompt_id=pid, pid2=pid))
        for _ in range(2):  # two samples per group
            rows.append(dict(prompt=female, group="female", attribute="gender", prompt_id=pid, pid2=1 - pid))
            rows.append(dict(prompt=male, group="male", attribute="gender", prompt_id=pid, pid2=pid))
    table = pd.DataFrame(rows)
    table["response"] = [REPLIES[i % 5] for i in range(len(table))]
    table["response2"] = [REPLIES[(i * 2 + 1) % 5] for i in range(len(table))]
    table["prompt2"] = table["prompt"].str.replace("loan", "card")
    table["group2"] = table["group"].map({"": "", "female": "male", "male": "female"})
    table["attr2"] = table["attribute"].where((table["prompt_id"] == 0) | (table["group"] == ""), "race")
    table["sample"] = table.groupby(["prompt_id", "group"]).cumcount()
    table["sample2"] = 1 - table["sample"].clip(upper=1)
    table["label"] = [("1", "0")[i % 2] for i in range(len(table))]
    table["person"] = [("x", "y", "y")[i % 3] for i in range(len(table))]
    table.to_csv(tmp / "responses.csv", index=False)
    table.head(8).to_csv(tmp / "responses2.csv", index=False)
    numbers = [  # task estimation: ten requests, the female version offered less than the male one
        dict(prompt_id=pid, attribute="gender", group=group, sample=sample, prompt=f"Salary for {title} Lee {pid}?",
             response=f"With 5 years of experience, I'd offer ${base + 1_000 * pid + 500 * sample:,}.")
        for pid in range(10) for sample in range(2)
        for group, title, base in (("female", "Mrs.", 70_000), ("male", "Mr.", 74_000))
    ]  # fmt: skip
    pd.DataFrame(numbers).to_csv(tmp / "numbers.csv", index=False)


_COMMON = {
    "generation": {"count": 2, "counterfactual_count": 2},
    "scoring": {"embedder": False},
    "statistics": {"ci": 0.9, "n_resamples": 20},
    "thresholds": [{"metric": "TF", "max": 1.0}],
    "output": {"dir": "out", "html": False, "include_responses": True},
}
BASES: dict[str, dict[str, Any]] = {
    "text": {
        "use_case": {"task": "text_generation", "attributes": ["gender", "race"]},
        "prompts": {"path": "prompts.csv"},
    },
    "classification": {
        "use_case": {"task": "classification", "attributes": ["gender"], "person_level": True},
        "prompts": {"path": "prompts.csv", "label_column": "truth", "group_column": "person"},
        "thresholds": [{"metric": "DP", "max": 1.0}],
    },
    "recommendation": {
        "use_case": {"task": "recommendation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.csv"},
        "recommendation": {"k": 3},
        "thresholds": [{"metric": "Jaccard-K", "min": 0.0}],
    },
    "own": {"use_case": {"task": "text_generation", "attributes": ["gender"]}, "responses": {"path": "responses.csv"}},
    "own_classification": {  # no group column: the groups come from the prompts, one group only (DP undefined)
        "use_case": {"task": "classification", "attributes": ["gender"], "person_level": True},
        "responses": {"path": "responses.csv", "label_column": "label"},
        "thresholds": [],
    },
    "estimation": {  # numbers read from own replies (in dollars); the LL144 table from the gender versions
        "use_case": {"task": "estimation", "attributes": ["gender"]},
        "responses": {"path": "numbers.csv"},
        "estimation": {"currency": "$"},
        "thresholds": [],
    },
    "embed": {  # the bundled embedder, a model-based scorer that a device reaches
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.csv"},
        "scoring": {"embedder": None},
    },
    "openai": {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.csv"},
        "model": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
    },
    "templates": {  # a name audit: templates filled with names of each group (issue 33)
        "use_case": {"task": "text_generation", "attributes": ["gender", "race"]},
        "prompts": {"path": "templates.csv", "templates": {"names_per_group": 1}},
    },
    # the LLM assistants (issue 38): asked through a stand-in of the generation runner that answers as a good one
    "reader": {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.csv"},
        "ftu": {"reader": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "r"}},
    },
    "judge": {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.csv"},
        "judge": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "j"},
    },
    "conversations": {  # conversations, documents and a system prompt per prompt (docs/conversations.md)
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "conversations.jsonl", "column": "messages", "context_column": "docs"},
        "model": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
    },
    "decisions": {  # classification read from structured replies, on a server that can be sent tools
        "use_case": {"task": "classification", "attributes": ["gender"], "person_level": True},
        "prompts": {"path": "prompts.csv", "label_column": "truth", "group_column": "person"},
        "model": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
        "thresholds": [{"metric": "DP", "max": 1.0}],
    },
}  # fmt: skip


def _assistant_probes(section: str, base: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """The probes of an assistant's model section (``ftu.reader``, ``judge``): each key changes what the assistant
    is asked or how (the stand-in records it), what its tokens cost (results.json), or is rejected."""
    changes: dict[str, dict[str, Any]] = {
        "provider": {"provider": "local", "base_url": None, "model": None},
        "model": {"model": "other"},
        "base_url": {"base_url": "http://127.0.0.1:8/v1"},
        "api_key_env": {"api_key_env": "OTHER_KEY"},
        "temperature": {"temperature": 0.5},
        "max_tokens": {"max_tokens": 64},
        "system_prompt": {"system_prompt": "Be brief."},  # rejected: an assistant's instructions are fixed
        # rejected: an assistant answers in its own delimited format
        "tools": {"tools": [{"type": "function", "function": {"name": "record"}}]},
        "tool_choice": {"tool_choice": "auto"},
        "response_format": {"response_format": {"type": "json_object"}},
        "seed": {"seed": 3},
        "concurrency": {"concurrency": 2},
        "max_concurrency": {"max_concurrency": 32},
        "options": {"options": {"timeout": 5}},
        "device": {"device": "cpu"},  # rejected: a device is a local model's
        "prices.input_per_1m": {"prices.input_per_1m": 1.0, "prices.output_per_1m": 0.0},
        "prices.output_per_1m": {"prices.output_per_1m": 2.0, "prices.input_per_1m": 0.0},
    }
    return {
        f"{section}.{key}": (base, {f"{section}.{k}": v for k, v in change.items()}) for key, change in changes.items()
    }


# key -> (base, {dotted key: new value}); the first dotted key is the one probed
PROBES: dict[str, tuple[str, dict[str, Any]]] = {
    "version": ("text", {"version": 2}),
    "use_case.task": ("text", {"use_case.task": "summarization"}),
    "use_case.prompts": ("text", {"use_case.prompts": ["Hi."]}),
    "use_case.attributes": ("text", {"use_case.attributes": ["gender"]}),
    "use_case.custom_attributes": ("text", {"use_case.custom_attributes": {"age": {"a": ["young"], "b": ["old"]}}}),
    "use_case.attribute_groups": ("text", {"use_case.attribute_groups": {"race": ["white", "black"]}}),
    "use_case.intersections": ("text", {"use_case.intersections": [["gender", "race"]]}),
    "use_case.counterfactual_invariance": ("text", {"use_case.counterfactual_invariance": False}),
    "use_case.content_may_differ": ("text", {"use_case.content_may_differ": True}),
    "use_case.prevalence_parity": ("classification", {"use_case.prevalence_parity": True}),
    "use_case.intervention": ("classification", {"use_case.intervention": "punitive"}),
    "use_case.person_level": ("classification", {"use_case.person_level": False}),
    "use_case.mentions_protected_groups": ("text", {"use_case.mentions_protected_groups": True}),
    "use_case.names": ("text", {"use_case.names": False}),
    "use_case.name_subject": ("text", {"use_case.name_subject": "every"}),
    "use_case.stereotype_when_ftu": ("text", {"use_case.stereotype_when_ftu": True}),
    "use_case.change_system_prompt": ("conversations", {"use_case.change_system_prompt": False}),
    "use_case.stereotype_classifier": ("text", {"use_case.stereotype_classifier": True}),
    "use_case.name": ("text", {"use_case.name": "Loan letters"}),
    "prompts.path": ("text", {"prompts.path": "prompts2.csv"}),
    "prompts.items": ("text", {"prompts.items": ["Write to her.", "Hi."], "prompts.path": None}),
    "prompts.column": ("text", {"prompts.column": "other"}),
    "prompts.id_column": ("text", {"prompts.id_column": "id"}),
    "prompts.group_column": ("classification", {"prompts.group_column": None}),
    "prompts.label_column": ("classification", {"prompts.label_column": None}),
    "prompts.limit": ("text", {"prompts.limit": 2}),
    "prompts.subject_column": ("text", {"prompts.subject_column": "subject"}),
    "prompts.templates.attributes": ("templates", {"prompts.templates.attributes": ["race"]}),
    "prompts.templates.names_per_group": ("templates", {"prompts.templates.names_per_group": 2}),
    "prompts.templates.seed": ("templates", {"prompts.templates.seed": 7}),
    # the use case's templates are the Python API's; a config puts them in the prompts section (rejected here)
    **{f"use_case.templates.{key}": ("text", {"use_case.templates": {"templates": ["Write to {name}."]}})
       for key in ("templates", "fills", "attributes", "names_per_group", "seed")},
    "prompts.context_column": ("conversations", {"prompts.context_column": None}),
    "prompts.system_prompt_column": ("conversations", {"prompts.system_prompt_column": "system"}),
    "prompts.context_placement": ("conversations", {"prompts.context_placement": "system"}),
    "responses.path": ("own", {"responses.path": "responses2.csv"}),
    "responses.prompt_column": ("own", {"responses.prompt_column": "prompt2"}),
    "responses.response_column": ("own", {"responses.response_column": "response2"}),
    "responses.prompt_id_column": ("own", {"responses.prompt_id_column": "pid2"}),
    "responses.attribute_column": ("own", {"responses.attribute_column": "attr2"}),
    "responses.group_column": ("own", {"responses.group_column": "group2"}),
    "responses.sample_column": ("own", {"responses.sample_column": "sample2"}),
    "responses.label_column": ("own", {"responses.label_column": "label"}),
    "responses.person_group_column": ("own", {"responses.person_group_column": "person"}),
    "model.provider": ("openai", {"model.provider": "local", "model.base_url": None, "model.model": None}),
    "model.model": ("text", {"model.model": "other-model"}),
    "model.base_url": ("openai", {"model.base_url": "http://127.0.0.1:8/v1"}),
    "model.api_key_env": ("openai", {"model.api_key_env": "OTHER_KEY"}),
    "model.temperature": ("text", {"model.temperature": 0.2}),
    "model.max_tokens": ("text", {"model.max_tokens": 12}),
    "model.system_prompt": ("text", {"model.system_prompt": "Be brief."}),
    "model.seed": ("text", {"model.seed": 7}),
    "model.concurrency": ("text", {"model.concurrency": 2}),
    "model.max_concurrency": ("openai", {"model.max_concurrency": 32}),
    "model.options": ("text", {"model.options": {"timeout": 5}}),
    "model.device": ("text", {"model.device": "cpu"}),  # reaches the local client's spec
    "model.tools": ("decisions", {"model.tools": [{"type": "function", "function": {"name": "record"}}]}),
    "model.tool_choice": ("decisions", {"model.tool_choice": "auto", "classification.tool": {"functions": {"a": "1"}}}),
    "model.response_format": ("decisions", {"model.response_format": {"type": "json_object"}}),
    # prices reach the cost estimate, which results.json keeps (generation_estimate)
    "model.prices.input_per_1m": ("text", {"model.prices.input_per_1m": 1.0, "model.prices.output_per_1m": 0.0}),
    "model.prices.output_per_1m": ("text", {"model.prices.output_per_1m": 2.0, "model.prices.input_per_1m": 0.0}),
    "generation.count": ("text", {"generation.count": 3}),
    "generation.counterfactual_count": ("text", {"generation.counterfactual_count": 1}),
    "generation.store": ("text", {"generation.store": "elsewhere.sqlite"}),
    "generation.progress": ("text", {"generation.progress": False}),  # True is the default
    "generation.max_consecutive_failures": ("text", {"generation.max_consecutive_failures": 5}),
    "scoring.toxicity": ("text", {"scoring.toxicity": "no-such-scorer-spec"}),
    "scoring.sentiment": ("text", {"scoring.sentiment": "no-such-scorer-spec"}),
    "scoring.stereotype": ("text", {"scoring.stereotype": "/nonexistent/stereotype-model"}),
    "scoring.embedder": ("text", {"scoring.embedder": "/nonexistent/embedder"}),
    "scoring.device": ("embed", {"scoring.device": "cuda"}),  # no CUDA here: the embedder refuses, before generating
    # the Ray engine gives the local engine's results (tests/test_scorers_ray.py); here: unknown engines and Ray
    # settings without engine ray are rejected
    "scoring.engine": ("text", {"scoring.engine": "spark"}),
    "scoring.address": ("text", {"scoring.address": "auto"}),
    "scoring.num_actors": ("text", {"scoring.num_actors": 2}),
    "scoring.num_gpus_per_actor": ("text", {"scoring.num_gpus_per_actor": 1}),
    "scoring.toxicity_threshold": ("text", {"scoring.toxicity_threshold": 0.01}),
    "scoring.stereotype_threshold": ("text", {"scoring.stereotype_threshold": 0.9}),
    "scoring.sentiment_threshold": ("text", {"scoring.sentiment_threshold": 0.05}),
    "scoring.refusal": ("text", {"scoring.refusal": "no-such-scorer-spec"}),
    "scoring.refusal_threshold": ("text", {"scoring.refusal_threshold": 0.0}),
    "scoring.audit": ("text", {"scoring.audit": False}),
    "scoring.mask_identity": ("text", {"scoring.mask_identity": False}),
    "scoring.toxicity_by_sentence": ("text", {"scoring.toxicity_by_sentence": False}),
    "scoring.sentiment_masking": ("text", {"scoring.sentiment_masking": False}),
    "scoring.cache": ("text", {"scoring.cache": "scores.cache"}),  # the cache file is written beside the config
    "classification.labels": ("classification", {"classification.labels": {"1": ["no"], "0": ["yes"]}}),
    "classification.positive_label": ("classification", {"classification.positive_label": "0"}),
    # reads "yes" only: the answers that say no are no longer read (the labels' words read both)
    "classification.pattern": ("classification", {"classification.pattern": "^(yes)"}),
    "classification.json_field": ("decisions", {"classification.json_field": "decision"}),
    "classification.tool.functions": ("decisions", {"classification.tool": {"functions": {"approve": "1"}}}),
    "classification.tool.function": ("decisions", {"classification.tool": {"function": "a", "argument": "b"}}),
    "classification.tool.argument": ("decisions", {"classification.tool": {"argument": "decision"}}),
    "classification.sensitive_classes": ("classification", {"classification.sensitive_classes": ["1", "0"]}),
    "classification.group_columns": ("own_classification", {"classification.group_columns": {"gender": "person"}}),
    # numeric answers: which number is read (the first one, "5 years", without the currency), and how findings read
    "estimation.currency": ("estimation", {"estimation.currency": None}),
    "estimation.unit": ("estimation", {"estimation.unit": "years", "estimation.currency": None}),
    "estimation.json_field": ("estimation", {"estimation.json_field": "offer.salary"}),
    "estimation.better": ("estimation", {"estimation.better": "higher"}),
    "estimation.period": ("estimation", {"estimation.period": "month"}),
    "impact_ratios.table": ("estimation", {"impact_ratios.table": False}),
    "impact_ratios.sex_attribute": ("estimation", {"impact_ratios.sex_attribute": "race"}),
    "impact_ratios.race_attribute": ("estimation", {"impact_ratios.race_attribute": "gender"}),
    "impact_ratios.min_share": ("estimation", {"impact_ratios.min_share": 0.6}),
    "recommendation.k": ("recommendation", {"recommendation.k": 2}),
    "recommendation.normalize": ("recommendation", {"recommendation.normalize": False}),
    "statistics.ci": ("text", {"statistics.ci": None}),
    "statistics.n_resamples": ("text", {"statistics.n_resamples": 30}),
    "statistics.seed": ("text", {"statistics.seed": 5}),
    "statistics.method": ("text", {"statistics.method": "bca"}),
    "thresholds.metric": ("text", {"thresholds": [{"metric": "EMT", "max": 1.0}]}),
    "thresholds.attribute": ("text", {"thresholds": [{"metric": "TF", "attribute": "gender", "max": 1.0}]}),
    "thresholds.min": ("text", {"thresholds": [{"metric": "TF", "min": 0.9, "max": 1.0}]}),
    "thresholds.max": ("text", {"thresholds": [{"metric": "TF", "max": 0.0}]}),
    "thresholds.measure": ("text", {"thresholds": [{"metric": "TF", "measure": "p_adjusted", "max": 1.0}]}),
    "thresholds.groups": ("own", {"thresholds": [{"metric": "SCSP", "groups": ["female", "male"], "max": 0.0}]}),
    "thresholds.verdict": ("text", {"thresholds": [{"verdict": "watch", "max": 0}]}),
    "output.dir": ("text", {"output.dir": "elsewhere"}),
    "output.html": ("text", {"output.html": True}),
    "output.responses": ("text", {"output.responses": "parquet"}),
    "output.include_responses": ("text", {"output.include_responses": False}),
    **_assistant_probes("ftu.reader", "reader"),
    **_assistant_probes("judge", "judge"),
    "judge.same_version": ("judge", {"judge.same_version": False}),
}  # fmt: skip


#: keys that only ``evenhand redteam`` reads (``assess`` ignores them by design; tests/test_redteam.py walks them)
REDTEAM_ONLY = {
    "redteam.benign", "redteam.builtin", "redteam.system_prompts", "redteam.probes", "redteam.probe_attributes",
    "redteam.probe_continuations",
}  # fmt: skip


def test_every_schema_key_has_a_probe() -> None:
    keys = _leaf_keys(AssessConfig)
    assert REDTEAM_ONLY <= keys
    assert keys - REDTEAM_ONLY == set(PROBES)


def _config(base: str, changes: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(_COMMON) | copy.deepcopy(BASES[base])
    for dotted, value in changes.items():
        *path, last = dotted.split(".")
        node = data
        for part in path:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(last, None) if last in ("path", "group_column", "label_column") else node.update({last: None})
        else:
            node[last] = value
    return data


class _StandIn:
    """Generation replaced: records every request batch and its options, answers deterministically; an assistant's
    questions (reader, judge) are answered as a good one answers them."""

    def __init__(self, root: Path) -> None:
        self.calls: list[dict[str, Any]] = []
        self.root = root  # the probe's folder: paths below it are recorded relative to it

    def _settings(self, settings: GenerationSettings) -> dict[str, Any]:
        """Every generation setting, as generate() takes them; a store below the probe's folder by its relative
        path, so that a run in another folder records (and is answered) the same."""
        kwargs = dataclasses.asdict(settings)
        store = kwargs.get("store")
        if isinstance(store, (str, Path)) and Path(store).is_relative_to(self.root):
            kwargs["store"] = Path(store).relative_to(self.root).as_posix()
        return kwargs

    async def ask_assistant(
        self, texts: list[str], groups: list[Any], ids: list[int], client: Any, settings: GenerationSettings,
        description: str,
    ) -> GenerationResult:  # fmt: skip
        kwargs = {k: v for k, v in dataclasses.asdict(settings).items() if k != "store"}
        self.calls.append({
            "assistant": description, "client": public_config(client.identity), "n": len(texts), **kwargs,
            # what the identity leaves out: how long the client waits, whether it sends a key ($OTHER_KEY is set)
            "timeout": getattr(client, "timeout", None), "sends_a_key": "Authorization" in client._headers(),
        })  # fmt: skip
        records = []
        for i, text in enumerate(texts):
            if "<<REPLY-" in text:
                answer = judge_answer("good", text)
            else:
                answer = reader_answer("good", settings.system_prompt or "", text, {})
            records.append(SampleRecord(i, text, None, 0, answer, "ok", None, "stop", None, None, 1, 0.0, False))
        return GenerationResult(records=records, count=1)

    def generate_frame(self, requests: pd.DataFrame, client: Any, settings: GenerationSettings) -> pd.DataFrame:
        kwargs = self._settings(settings)
        self.calls.append({"client": repr(client), "prompts": requests["prompt"].tolist(), **kwargs})
        salt = zlib.crc32(repr((client, sorted((k, repr(v)) for k, v in kwargs.items() if k != "progress"))).encode())
        rows = []
        for r in requests.itertuples(index=False):
            for sample in range(kwargs["count"]):
                i = (zlib.crc32(str(r.prompt).encode()) + sample + salt) % len(REPLIES)
                reply = REPLIES[i]
                if "Recommend" in str(r.prompt) or "films" in str(r.prompt):
                    reply = "1. Alien\n2. Heat\n3. Up" if i % 2 else "1. alien\n2. Up\n3. Jaws"
                rows.append({**r._asdict(), "sample": sample, "response": reply, "status": "ok", "error": None})
        return finish_frame(pd.DataFrame(rows))


def _outcome(tmp: Path, data: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    stand_in = _StandIn(tmp)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OTHER_KEY", "sk-probe")  # the api_key_env probes: the client then sends a key
    monkeypatch.setattr(sources, "generate_frame", stand_in.generate_frame)
    monkeypatch.setattr(sources, "resolve_client", lambda spec: spec)
    monkeypatch.setattr(structured, "generate_items", stand_in.ask_assistant)
    # the stand-in is the assistants' server too: the judge's probe before the scorers (faults18) has nothing to reach
    monkeypatch.setattr(preflight, "check_reachable", lambda client, key="model": None)
    if data["use_case"]["task"] == "recommendation":  # prompts that ask for lists
        pd.DataFrame({"prompt": ["Recommend 3 films for a woman.", "Recommend 3 films for her son."]}).to_csv(
            tmp / "prompts.csv", index=False
        )
    data["output"]["dir"] = str(tmp / data["output"]["dir"])  # relative output folders are the caller's
    try:
        config = parse_config(data, source="probe", base=tmp)
    except ConfigError as exc:
        return ("rejected", str(exc))
    code = run_config(config, None, None, None)
    if code in (cli.ExitCode.BAD_INPUT, cli.ExitCode.RUNTIME_FAILURE):  # rejected, or used and failed (a model path)
        return ("stopped", code)
    out = config.output.dir
    files = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file() and "sqlite" not in p.name)
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    # the settings echo proves nothing: a key must change what was computed, written or asked of the model
    doc.pop("settings", None)
    return (code, files, _without_clock(doc), json.loads(json.dumps(stand_in.calls, default=str)))


def _without_clock(node: Any) -> Any:
    """results.json less what differs from one run to the next (when, how long, which version)."""
    if isinstance(node, dict):
        return {k: _without_clock(v) for k, v in node.items() if k not in ("created", "timings", "evenhand_version",
                                                                           "seconds")}  # fmt: skip
    if isinstance(node, list):
        return [_without_clock(v) for v in node]
    return node


#: the outcome of each base config, run once per test process and shared by its probes: a base's outcome depends only
#: on its config and files (``test_a_base_run_is_the_same_in_another_folder_and_after_other_runs``)
_BASE_OUTCOMES: dict[str, Any] = {}


def _base_outcome(base: str, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    if base not in _BASE_OUTCOMES:
        folder = tmp_path_factory.mktemp(f"base-{base}")
        _files(folder)
        _BASE_OUTCOMES[base] = _outcome(folder, _config(base, {}), monkeypatch)
    return _BASE_OUTCOMES[base]


#: keys whose effect these bases cannot show: the stereotype threshold cuts a stereotype classifier's scores, and a
#: config names that classifier by a model (none offline here); the Python API's test is
#: test_pipeline_metric_errors.py::test_stereotype_threshold_is_configurable
UNSHOWN = {"scoring.stereotype_threshold": "needs a stereotype classifier model"}


@pytest.mark.parametrize(
    "key",
    [pytest.param(k, marks=pytest.mark.xfail(reason=UNSHOWN[k], strict=True)) if k in UNSHOWN else k
     for k in sorted(PROBES)],
)  # fmt: skip
def test_each_key_changes_the_run_or_is_rejected(
    key: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, changes = PROBES[key]
    before = _base_outcome(base, tmp_path_factory, monkeypatch)
    assert before[0] == cli.ExitCode.OK, before
    _files(tmp_path)
    after = _outcome(tmp_path, _config(base, changes), monkeypatch)
    assert after != before, f"{key}: accepted, and changed nothing"


@pytest.mark.parametrize("base", sorted(BASES))
def test_a_base_run_is_the_same_in_another_folder_and_after_other_runs(
    base: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What lets the probes share a base run: run again in a new folder, after the other bases ran in this
    process, a base gives the outcome it gave the first time (no path, clock or process state in it)."""
    first = _base_outcome(base, tmp_path_factory, monkeypatch)
    for other in BASES:
        _base_outcome(other, tmp_path_factory, monkeypatch)
    _files(tmp_path)
    assert _outcome(tmp_path, _config(base, {}), monkeypatch) == first
