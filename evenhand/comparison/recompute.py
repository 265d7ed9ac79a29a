"""Recomputing a metric row from a run's stored responses, with the registry's metric functions.

:func:`item_table` gathers what the row's metric reads (scores, counterfactual pairs, parsed labels or lists), one
line per item with its pairing key (prompt id, prompt text, sample) and prompt; :func:`recompute` calls the metric
on it with the run's own settings. A metric whose inputs the results do not keep (cosine similarity needs the
embedder's vectors) gets a string saying why instead of a table.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from evenhand.comparison.runs import Run
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.responses.frame import group_pairs, ok_rows
from evenhand.registry import METRICS, MetricSpec

#: A recomputed value must match the stored one this closely, else the stored responses are not what was measured.
_TOLERANCE = 1e-6


def _spec(key: str | None) -> MetricSpec | None:
    return METRICS.get(key) if key else None


def _pairs_of(frame: pd.DataFrame, attribute: str, groups: tuple[str, str]) -> pd.DataFrame | None:
    for a, b, found in group_pairs(frame, attribute):
        if (a, b) == groups:
            return found
        if (b, a) == groups:  # same pair, stored the other way round: swap the sides back
            sides = [c for c in found.columns if c[-2:] in ("_a", "_b")]
            renamed = {c: c[:-2] + ("_b" if c.endswith("_a") else "_a") for c in sides}
            return found.rename(columns=renamed)
    return None


def _response_keys(rows: pd.DataFrame) -> list[tuple[Any, ...]]:
    """A response's pairing key across runs: its prompt id, prompt text and sample number."""
    return list(zip(rows["prompt_id"], rows["prompt"].astype(str), rows["sample"], strict=True))


def _pair_keys(found: pd.DataFrame) -> list[tuple[Any, ...]]:
    """A counterfactual pair's pairing key across runs: its prompt id, both prompt texts and sample number."""
    return list(
        zip(
            found["prompt_id"],
            found["prompt_a"].astype(str),
            found["prompt_b"].astype(str),
            found["sample"],
            strict=True,
        )
    )


def item_table(run: Run, row: dict[str, Any]) -> pd.DataFrame | str:
    """What the metric of ``row`` reads from ``run``'s responses, one line per item (a response or a counterfactual
    pair) with its pairing key ``_key`` and prompt ``prompt_id``; or a string saying why it cannot be rebuilt."""
    spec = _spec(row.get("key"))
    frame = run.responses
    if spec is None:
        return f"{row.get('metric')} is not a metric this evenhand knows"
    if frame is None:
        return f"run {run.label} has no responses: {run.responses_note}"
    attribute, groups = row.get("attribute"), row.get("groups")
    if spec.inputs in ("toxicity_scores", "stereotype_scores"):
        column = "toxicity" if spec.inputs == "toxicity_scores" else f"stereotype_{attribute}"
        rows = ok_rows(frame, original=True)
        if column not in rows:
            return f"run {run.label}'s responses have no {column} column"
        table = pd.DataFrame({"prompt_id": rows["prompt_id"], "value": rows[column].astype(float)})
        table["_key"] = _response_keys(rows)
    elif spec.pair_column is not None or (
        spec.inputs in ("sentiment_pairs", "text_pairs") and spec.pair_similarity != "cosine"
    ):
        if not attribute or not groups or len(groups) != 2:
            return f"{spec.name} has no pair of groups in this row"
        found = _pairs_of(frame, str(attribute), (str(groups[0]), str(groups[1])))
        if found is None or found.empty:
            return f"run {run.label} has no counterfactual pairs for {' vs '.join(groups)}"
        table = pd.DataFrame({"prompt_id": found["prompt_id"]})
        for side in ("a", "b"):
            column = spec.pair_column or ("sentiment" if spec.inputs == "sentiment_pairs" else "response")
            source = f"{column}_{side}"
            if source not in found:
                return f"run {run.label}'s responses have no {source.rsplit('_', 1)[0]} column"
            table[side] = found[source].to_numpy()
        table["_key"] = _pair_keys(found)
    elif spec.inputs in ("predictions", "predictions_and_truth"):
        return _predictions(run, spec, str(attribute))
    elif spec.inputs == "item_list_pairs":
        return _list_pairs(run, spec, str(attribute), groups)
    elif spec.inputs == "decision_pairs":
        return _decision_pairs(run, row)
    elif spec.pair_similarity == "cosine":
        return f"{spec.name} needs the embedder's vectors, which results files do not keep"
    else:
        return f"{spec.name} ({spec.inputs.replace('_', ' ')}) is not recomputed from stored responses yet"
    return table.sort_values("_key", kind="stable").reset_index(drop=True)


def _list_pairs(run: Run, spec: MetricSpec, attribute: str, groups: Any) -> pd.DataFrame | str:
    """Recommendation: the pairs of K-item lists the run compared (both lists with at least K items, as the
    pipeline's recommendation family keeps them)."""
    k = run.settings.get("k")
    if not isinstance(k, int) or not groups or len(groups) != 2:
        return f"run {run.label} does not record the K of its lists"
    assert run.responses is not None
    if "items" not in run.responses:
        return f"run {run.label}'s responses have no items column"
    found = _pairs_of(run.responses, attribute, (str(groups[0]), str(groups[1])))
    if found is None or found.empty:
        return f"run {run.label} has no counterfactual pairs for {' vs '.join(map(str, groups))}"
    lists = {side: [_items(v) for v in found[f"items_{side}"]] for side in ("a", "b")}
    full = [len(a) >= k and len(b) >= k for a, b in zip(lists["a"], lists["b"], strict=True)]
    table = pd.DataFrame({"prompt_id": found["prompt_id"], "a": lists["a"], "b": lists["b"]})[full]
    table["_key"] = [key for key, keep in zip(_pair_keys(found), full, strict=True) if keep]
    return table.sort_values("_key", kind="stable").reset_index(drop=True)


def _decision_pairs(run: Run, row: dict[str, Any]) -> pd.DataFrame | str:
    """Counterfactual decisions: the pairs the run compared (both versions' answers parsed into a label, as the
    decisions family keeps them), each side 1 where its label is the row's positive decision, else 0."""
    from evenhand.pipeline.responses.parsers import label_text

    assert run.responses is not None
    attribute, groups = row.get("attribute"), row.get("groups")
    if not attribute or not groups or len(groups) != 2:
        return f"{row.get('metric')} has no pair of groups in this row"
    if "label" not in run.responses:  # results written before the parsed labels were kept
        return f"run {run.label}'s responses have no label column (the parsed decisions)"
    positive = decision_class(run, row)
    if positive is None:
        return f"run {run.label} does not record its positive label"
    found = _pairs_of(run.responses, str(attribute), (str(groups[0]), str(groups[1])))
    if found is None or found.empty:
        return f"run {run.label} has no counterfactual pairs for {' vs '.join(map(str, groups))}"
    labels = {side: [label_text(v) for v in found[f"label_{side}"]] for side in ("a", "b")}
    parsed = [a is not None and b is not None for a, b in zip(labels["a"], labels["b"], strict=True)]
    table = pd.DataFrame({"prompt_id": found["prompt_id"]})
    for side in ("a", "b"):
        table[side] = [int(v == positive) for v in labels[side]]
    table["_key"] = _pair_keys(found)
    return table[parsed].sort_values("_key", kind="stable").reset_index(drop=True)


def decision_class(run: Run, row: dict[str, Any]) -> str | None:
    """The decision a counterfactual-decisions row counts: its class (a multiclass use case's sensitive class),
    else the run's positive label (a one-item list when a single sensitive class was configured)."""
    from evenhand.pipeline.responses.parsers import label_text

    cls = row.get("class")
    if cls is None:
        cls = run.settings.get("positive_label")
        if isinstance(cls, (list, tuple)):
            cls = cls[0] if len(cls) == 1 else None
    return label_text(cls)


def _predictions(run: Run, spec: MetricSpec, attribute: str) -> pd.DataFrame | str:
    """Classification: parsed labels (and ground truth) of the answers whose person or prompt has a known group."""
    from evenhand.pipeline.responses.parsers import label_text

    assert run.responses is not None
    rows = ok_rows(run.responses, original=True)
    needed = ["label", f"group_{attribute}"] + (["truth"] if spec.inputs == "predictions_and_truth" else [])
    missing = [c for c in needed if c not in rows]
    if missing:
        return f"run {run.label}'s responses have no {', '.join(missing)} column"
    table = pd.DataFrame({"prompt_id": rows["prompt_id"]})
    for column, name in zip(needed, ("label", "group", "truth"), strict=False):
        table[name] = [label_text(v) for v in rows[column]]  # CSV cells: "" is missing, 1 and "1" the same label
    table["_key"] = _response_keys(rows)
    return table.dropna().sort_values("_key", kind="stable").reset_index(drop=True)


def _items(value: Any) -> list[str]:
    """A K-item list as stored: a list (JSON, Parquet) or one text cell with items joined by " | " (CSV)."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(" | ")] if value.strip() else []
    return [str(item) for item in value] if value is not None and not isinstance(value, float) else []


def recompute(run: Run, row: dict[str, Any], table: pd.DataFrame) -> MetricResult:
    """The metric of ``row`` on ``table`` (from :func:`item_table`), with the run's own settings (thresholds)."""
    key = str(row["key"])
    spec = METRICS[key]
    settings = run.settings
    kwargs: dict[str, Any] = {p: settings[name] for p, name in spec.settings.items() if settings.get(name) is not None}
    prompts = table["prompt_id"].to_numpy()
    if spec.inputs in ("toxicity_scores", "stereotype_scores"):
        return call_metric(key, table["value"].to_numpy(dtype=float), prompts=prompts, **kwargs)
    if spec.inputs == "sentiment_pairs" or spec.pair_column is not None:  # per-response scores of both sides
        a, b = (table[c].to_numpy(dtype=float) for c in ("a", "b"))
        return call_metric(key, a, b, prompts=prompts, **kwargs)
    if spec.inputs in ("predictions", "predictions_and_truth"):
        args, positive = prediction_inputs(run, row, table)
        return call_metric(key, *args, pos_label=positive, prompts=prompts)
    if spec.inputs == "decision_pairs":  # 0/1 decisions of both versions, resampled by prompt as the run does
        a, b = (table[c].to_numpy(dtype=float) for c in ("a", "b"))
        return call_metric(key, a, b, prompts=prompts)
    if spec.inputs == "item_list_pairs":  # as the recommendation family calls it (K and case-folding recorded)
        options = {"k": settings["k"], "normalize": settings.get("normalize", True), "duplicates": "mask"}
        return call_metric(key, table["a"].tolist(), table["b"].tolist(), prompts=prompts, **options)
    attribute = attribute_spec(run, str(row["attribute"]))
    return call_metric(key, table["a"].tolist(), table["b"].tolist(), attribute=attribute, prompts=prompts, **kwargs)


def prediction_inputs(run: Run, row: dict[str, Any], table: pd.DataFrame) -> tuple[list[pd.Series], Any]:
    """A classification row's data (``[truth,] label, group`` columns of ``table``) and its positive label: the
    class of the row, else the run's positive label."""
    from evenhand.pipeline.responses.parsers import label_text

    spec = METRICS[str(row["key"])]
    columns = ["truth", "label", "group"] if spec.inputs == "predictions_and_truth" else ["label", "group"]
    cls = row.get("class")
    positive = label_text(cls if cls is not None else run.settings.get("positive_label"))
    return [table[c] for c in columns], positive


def attribute_spec(run: Run, attribute: str) -> Any:
    """What the text core takes for ``attribute`` in this run: a built-in name, or the run's custom group dict."""
    from evenhand.framework import UseCase

    fields = {k: v for k, v in run.doc["plan"]["use_case"].items() if k in UseCase.model_fields and k != "prompts"}
    try:
        return UseCase.model_validate(fields).attribute_specs.get(attribute, attribute)
    except ValueError:  # a use case this version cannot rebuild: the name is what the text core takes
        return attribute


def reproduces(result: MetricResult, stored: Any) -> bool:
    """Whether a recomputed value equals the value the run stored (both undefined counts as equal)."""
    value = float(result.value)
    if stored is None:
        return math.isnan(value)
    return not math.isnan(value) and abs(value - float(stored)) <= _TOLERANCE * max(1.0, abs(float(stored)))
