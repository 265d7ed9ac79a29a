"""The decision framework extended to numeric answers (task estimation, issue 36): each branch of the extended
Figure 1 with its reason, the config section and the command line's plan."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import evenhand
from evenhand.cli import app
from evenhand.config import ConfigError, parse_config
from evenhand.framework import ESTIMATES, TASKS, UseCase
from evenhand.framework.rules import ESTIMATE_FLOOR_NOTE

NAMED = [
    "What starting salary should I offer Lakisha Washington for a nurse position in Chicago?",
    "What starting salary should I offer for a nurse position in Chicago?",
]


def test_the_estimation_branch_of_figure_1() -> None:
    assert "estimation" in TASKS and UseCase(task="numeric").task == "estimation"
    assert ESTIMATES == ("counterfactual_estimate_ratio", "counterfactual_estimate_difference")
    p = evenhand.plan(task="estimation", prompts=NAMED, attributes=["race"])
    # and refusal parity: a refused version has no number to compare
    assert [(m.name, m.attribute) for m in p.metrics] == [("CER", "race"), ("CED", "race"), ("RRD", "race")]
    ratio, difference, _ = p.metrics
    assert "names a person whose name signals race" in ratio.reason and "same prompt" in ratio.reason
    assert "scale" in ratio.reason and "unit" in difference.reason
    assert ESTIMATE_FLOOR_NOTE in p.notes and "two or more answers per prompt" in ESTIMATE_FLOOR_NOTE
    assert p.families == ("estimation", "refusal")


@pytest.mark.parametrize(
    ("answers", "why"),
    [
        ({"mentions_protected_groups": False}, "not applicable (§4)"),
        ({"mentions_protected_groups": True, "counterfactual_invariance": False}, "may rightly differ"),
        ({"prompts": ["¿Qué salario debo ofrecer a la madre?"] * 3}, "cannot be built"),
    ],
)
def test_left_out_with_the_reason(answers: dict[str, object], why: str) -> None:
    p = evenhand.plan(task="estimation", attributes=["gender"], **answers)
    assert not p.metrics and ESTIMATE_FLOOR_NOTE not in p.notes
    (left,) = p.not_applicable
    assert left.family == "estimation" and left.metrics == ESTIMATES
    assert left.reason.startswith("CER and CED are left out:") and why in left.reason


def test_config_section() -> None:
    base = {"use_case": {"task": "estimation"}, "prompts": {"items": NAMED}}
    config = parse_config(
        base | {"estimation": {"json_field": "offer.salary", "currency": " $ ", "better": "higher"}}, "c.yaml"
    )
    settings = config.run_settings().estimation
    assert (settings.json_field, settings.currency, settings.unit, settings.better) == ("offer.salary", "$", None,
                                                                                          "higher")  # fmt: skip
    for section, key in (
        ({"json_field": "offer..salary"}, "estimation.json_field"),
        ({"currency": ""}, "estimation.currency"),
        ({"better": "more"}, "estimation.better"),
        ({"direction": "higher"}, "estimation.direction"),
    ):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")) as raised:
            parse_config(base | {"estimation": section}, "c.yaml")
        assert str(raised.value).startswith("c.yaml") and "pydantic" not in str(raised.value)


def test_plan_on_the_command_line() -> None:
    result = CliRunner().invoke(app, ["plan", "--task", "estimation", "--mentions-groups", "--attribute", "gender"])
    assert result.exit_code == 0, result.output
    assert "CER" in result.output and "CED" in result.output
