"""A JSON field that holds an object (deploy18): ``json_field: decision`` against ``{"decision": {"approved": true,
"reason": ...}}``. No label is guessed from the object (which of its values?), and the run is "not judged"; but the
caveat said only "could not be parsed into a label", and the reason "no answer matched a label word: see
classification.labels", where the fix is the path. It now names the keys and the path to give, as it does for a bare
name in two places."""

from __future__ import annotations

import json
import warnings
from typing import Any

import evenhand

PROMPTS = [f"The applicant Emily Baker asks for loan case {i}. Should we approve her application?" for i in range(12)]


def _model(prompt: str) -> str:
    return json.dumps({"decision": {"approved": len(prompt) % 2 == 0, "reason": "per policy"}})


def _assess(path: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evenhand.assess(task="classification", prompts=PROMPTS, attributes=["gender"], client=_model,
                               json_field=path, label_parser={"1": ["yes", "true"], "0": ["no", "false"]},
                               count=1, counterfactual_count=1, n_resamples=50, progress=False, store=None,
                               person_level=False)  # fmt: skip


def _caveats(path: str) -> list[str]:
    return [str(c) for c in _assess(path).caveats]


def test_a_field_that_holds_an_object_names_the_path_to_give() -> None:
    (caveat,) = [c for c in _caveats("decision") if "could not be parsed" in c]
    assert "hold an object at 'decision' (approved, reason)" in caveat, caveat
    assert "'decision.approved'" in caveat, caveat


def test_the_path_reads_it() -> None:
    a = _assess("decision.approved")
    assert not [c for c in a.caveats if "could not be parsed" in str(c)]
    assert a.verdict.status != "not judged"
