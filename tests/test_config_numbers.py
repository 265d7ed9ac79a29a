"""Numbers in a config are what they say (faults14): an integer key takes an integer (not a float, a yes/no or a
quoted text), every number lies within a stated bound (seeds 0..2**63-1; counts, tokens, concurrency and timeouts
positive and bounded), and a value outside is refused when the file is read: exit 2, one line naming the file, the
key and the value, no traceback. One shared check (``evenhand.config._section``) does it for every section."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.config import ConfigError, load_config, parse_config
from evenhand.config._section import MAX_CONCURRENCY, MAX_SEED, MAX_TIMEOUT_S, MAX_TOKENS

BASE = "use_case: {task: text_generation, attributes: [gender]}\nprompts: {items: [Hi.]}\n"
OPENAI = "provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m"


def _refused(tmp_path: Path, section: str, *needles: str) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(BASE + section + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(str(path)), message
    for needle in needles:
        assert needle in message, message
    return message


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("model: {max_tokens: 1.0e+30}", "model.max_tokens", "1e+30"),
        ("model: {max_tokens: 1e30}", "model.max_tokens", "'1e30'"),  # YAML 1.1 reads 1e30 as text
        ("model: {max_tokens: 5.0}", "model.max_tokens", "5.0"),
        ("model: {max_tokens: '96'}", "model.max_tokens", "'96'"),
        ("model: {max_tokens: 100000000}", "model.max_tokens", "100000000"),
        (f"model: {{seed: {10**40}}}", "model.seed", str(10**40)),
        ("model: {seed: -1}", "model.seed", "-1"),
        (f"statistics: {{seed: {2**63}}}", "statistics.seed", str(2**63)),
        ("statistics: {seed: 1.5}", "statistics.seed", "1.5"),
        ("statistics: {n_resamples: '1000'}", "statistics.n_resamples", "'1000'"),
        ("generation: {count: '5'}", "generation.count", "'5'"),
        ("generation: {count: 5.0}", "generation.count", "5.0"),
        ("generation: {max_consecutive_failures: 100000000000000000000000}", "generation.max_consecutive_failures",
         "100000000000000000000000"),
        ("model: {concurrency: 1000000000}", "model.concurrency", "1000000000"),
        ("model: {max_concurrency: 1000000000}", "model.max_concurrency", "1000000000"),
        ("model: {temperature: '0.7'}", "model.temperature", "'0.7'"),
        (f"model: {{{OPENAI}, options: {{timeout: 1.0e+30}}}}", "model.options.timeout", "1e+30"),
        (f"model: {{{OPENAI}, options: {{timeout: '60'}}}}", "model.options.timeout", "'60'"),
        ("prompts: {items: [Hi.], limit: 2.0}", "prompts.limit", "2.0"),
        ("prompts: {items: ['Dear {name}'], templates: {seed: -5}}", "prompts.templates.seed", "-5"),
        ("prompts: {items: ['Dear {name}'], templates: {names_per_group: '3'}}", "prompts.templates.names_per_group",
         "'3'"),
        (f"judge: {{{OPENAI}, seed: {10**30}}}", "judge.seed", str(10**30)),
        ("scoring: {num_actors: 100000000000000000000}", "scoring.num_actors", "100000000000000000000"),
        ("scoring: {num_gpus_per_actor: .inf}", "scoring.num_gpus_per_actor", "inf"),
    ],
)  # fmt: skip
def test_a_mistyped_or_huge_number_is_refused_naming_file_key_and_value(
    tmp_path: Path, section: str, key: str, value: str
) -> None:
    if section.startswith("prompts:"):
        path = tmp_path / "c.yaml"
        path.write_text("use_case: {task: text_generation, attributes: [gender]}\n" + section + "\n", encoding="utf-8")
        with pytest.raises(ConfigError) as refused:
            load_config(path)
        message = str(refused.value)
        assert key in message and value in message, message
        return
    _refused(tmp_path, section, key, value)


def test_the_bounds_are_said(tmp_path: Path) -> None:
    assert f"{MAX_TOKENS:,}" in _refused(tmp_path, f"model: {{max_tokens: {MAX_TOKENS + 1}}}")
    assert "2**63-1" in _refused(tmp_path, f"model: {{seed: {MAX_SEED + 1}}}")
    assert f"{MAX_CONCURRENCY:,}" in _refused(tmp_path, f"model: {{concurrency: {MAX_CONCURRENCY + 1}}}")
    assert f"{MAX_TIMEOUT_S:,}" in _refused(tmp_path, f"model: {{{OPENAI}, options: {{timeout: {MAX_TIMEOUT_S + 1}}}}}")


@pytest.mark.parametrize(
    "section",
    [
        f"model: {{max_tokens: {MAX_TOKENS}, seed: {MAX_SEED}, concurrency: {MAX_CONCURRENCY}, temperature: 1}}",
        "model: {seed: 0, max_concurrency: 64}",
        f"model: {{{OPENAI}, options: {{timeout: 30}}}}",
        f"model: {{{OPENAI}, options: {{timeout: 2.5}}}}",
        f"statistics: {{seed: {MAX_SEED}, n_resamples: 10}}",
        "generation: {count: 1000, max_consecutive_failures: auto}",
        "scoring: {toxicity_threshold: 1, refusal_threshold: 0.25}",
        "statistics: {ci: 0.9}",
    ],
)
def test_numbers_as_written_within_their_bounds_are_read(tmp_path: Path, section: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(BASE + section + "\n", encoding="utf-8")
    load_config(path)


@settings(max_examples=60, deadline=None)
@given(
    key=st.sampled_from(["max_tokens", "seed", "concurrency", "max_concurrency"]),
    value=st.one_of(
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(alphabet="0123456789.e+-", min_size=1, max_size=8),
        st.booleans(),
    ),
)
def test_an_integer_key_holds_an_integer_within_its_bounds_or_is_refused(key: str, value: object) -> None:
    bounds = {"max_tokens": (1, MAX_TOKENS), "seed": (0, MAX_SEED), "concurrency": (1, MAX_CONCURRENCY),
              "max_concurrency": (1, MAX_CONCURRENCY)}  # fmt: skip
    low, high = bounds[key]
    data = {"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]}, "model": {key: value}}
    if type(value) is int and low <= value <= high:
        assert getattr(parse_config(data).model, key) == value
    else:
        with pytest.raises(ConfigError, match=rf"config: model\.{key}: "):
            parse_config(data)


def test_the_cli_refuses_a_huge_seed_with_exit_2_and_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(BASE + f"model: {{seed: {10**40}}}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["assess", str(path)])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "Traceback" not in result.output and "model.seed" in result.output and str(10**40) in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--seed", str(2**63)], "--seed"),
        (["--seed", "-1"], "--seed"),
        (["--n-resamples", "1000000000"], "--n-resamples"),
    ],
)
def test_compare_bounds_its_numbers(tmp_path: Path, args: list[str], option: str) -> None:
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), *args])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert option in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(("option", "value"), [("--limit", str(10**40)), ("--ray-actors", str(10**12))])
def test_assess_bounds_its_whole_number_flags(tmp_path: Path, option: str, value: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(BASE, encoding="utf-8")
    result = CliRunner().invoke(app, ["assess", str(path), option, value])
    assert result.exit_code == ExitCode.BAD_INPUT and option in result.output, result.output
    assert "Traceback" not in result.output
