"""Scorer settings on the command line: ``--toxicity``, ``--sentiment``, ``--stereotype``, ``--embedder``,
``--scorer-option``, the cut-offs, ``--device`` and the engine flags of ``evenhand assess`` and ``evenhand metrics``.

Each flag reaches the run (the metrics change as the equivalent config key would change them), and every bad value
stops the command with exit code 2 and one line that names the flag, before any response is generated or scored.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from evenhand import cli
from evenhand.cli import app
from evenhand.cli.scoring_flags import ScoringFlags, apply_scoring_flags
from evenhand.config import parse_config

REPLIES = [
    "Dear customer, thank you so much for your lovely order.",
    "We are sorry, your card was declined, you idiot.",
    "Your refund is on its way.",
    "We hate to say it, the delay is awful and stupid.",
]


def _responses(path: Path) -> Path:
    rows = []
    for pid, (female, male) in enumerate([("Write to her.", "Write to him."), ("Thank Mrs. Lee.", "Thank Mr. Lee.")]):
        rows.append({"prompt_id": pid, "prompt": female, "attribute": "", "group": "", "sample": 0,
                     "response": REPLIES[pid]})  # fmt: skip
        for sample in range(2):
            for k, (group, prompt) in enumerate((("female", female), ("male", male))):
                rows.append({"prompt_id": pid, "prompt": prompt, "attribute": "gender", "group": group,
                             "sample": sample, "response": REPLIES[(pid + sample + 2 * k) % 4]})  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _metrics(tmp_path: Path, *flags: str) -> Any:
    data = _responses(tmp_path / "responses.csv")
    out = tmp_path / f"out{abs(hash(flags))}"
    args = ["metrics", str(data), "-a", "gender", "--ci", "0", "--no-html", "-o", str(out), *flags]
    return CliRunner().invoke(app, args), out


def _values(out: Path) -> dict[str, float]:
    table = pd.read_csv(out / "metrics.csv")
    return {f"{r.metric} {r.comparison}": r.value for r in table.itertuples()}


@pytest.mark.pipeline
def test_flags_reach_the_run(tmp_path: Path) -> None:
    base, out = _metrics(tmp_path, "--embedder", "none")
    assert base.exit_code == 0, base.output
    before = _values(out)
    assert math.isnan(before["CCS female vs male"])  # --embedder none: no counterfactual cosine
    # the same sentiment scale, chosen by spec and by option, changes the sentiment parity metrics alike
    by_spec, out_spec = _metrics(tmp_path, "--embedder", "none", "--sentiment", "vader-neg")
    by_option, out_option = _metrics(tmp_path, "--embedder", "none", "--scorer-option", "sentiment.mapping=neg")
    assert by_spec.exit_code == 0 and by_option.exit_code == 0, by_spec.output + by_option.output
    pd.testing.assert_series_equal(pd.Series(_values(out_spec)), pd.Series(_values(out_option)))  # NaN == NaN
    assert _values(out_spec)["SCSP female vs male"] != before["SCSP female vs male"]
    # a cut-off, by its flag and by --scorer-option NAME.threshold
    low, out_low = _metrics(tmp_path, "--embedder", "none", "--toxicity-threshold", "0.0001")
    low2, out_low2 = _metrics(tmp_path, "--embedder", "none", "--scorer-option", "toxicity.threshold=0.0001")
    assert low.exit_code == 0 and low2.exit_code == 0
    assert _values(out_low)["TF all"] == _values(out_low2)["TF all"] == 1.0 != before["TF all"]


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--toxicity", "no-such-scorer"], "--toxicity:"),
        (["--sentiment", "none"], "--sentiment none:"),
        (["--stereotype", "/nonexistent/model"], "--stereotype:"),
        (["--embedder", "/nonexistent/model"], "--embedder:"),
        (["--scorer-option", "toxicity.batch_size=0"], "--scorer-option toxicity.batch_size=0:"),
        (["--scorer-option", "toxicity"], "--scorer-option toxicity:"),
        (["--scorer-option", "colour.size=1"], "--scorer-option colour.size=1:"),
        (["--scorer-option", "sentiment.batch_size=[1"], "--scorer-option sentiment.batch_size=[1:"),
        (["--embedder", "none", "--scorer-option", "embedder.batch_size=8"], "--scorer-option embedder.batch_size=8"),
        (["--device", "cuda"], "--device:"),  # no GPU on this machine
        (["--scorer-option", "toxicity.device=cuda"], "--scorer-option toxicity.device=cuda:"),  # nor here
        (["--scorer-option", "stereotype.batch_size=2"], "--scorer-option stereotype.batch_size=2"),  # it is off
        (["--device", "gpu"], "--device:"),
        (["--engine", "spark"], "--engine:"),
        (["--ray-address", "auto"], "--ray-address:"),
        (["--ray-actors", "2"], "--ray-actors:"),
        (["--ray-gpus-per-actor", "1"], "--ray-gpus-per-actor:"),
    ],
)
def test_bad_values_name_their_flag(tmp_path: Path, flags: list[str], named: str) -> None:
    result, out = _metrics(tmp_path, *flags)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {named}"), result.output
    assert not out.exists()  # stopped before scoring anything


def test_engine_ray_without_ray_is_a_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand import _optional

    real = _optional.require

    def no_ray(module: str, feature: str | None = None) -> Any:
        if module.split(".")[0] == "ray":
            raise _optional.MissingDependencyError(f"{module!r} is needed for {feature} but is not installed")
        return real(module, feature)

    monkeypatch.setattr(_optional, "require", no_ray)
    result, _ = _metrics(tmp_path, "--engine", "ray")
    assert result.exit_code == 2 and "--engine ray:" in result.output, result.output


def _config(tmp_path: Path, **sections: Any) -> Any:
    data = {"use_case": {"task": "text_generation", "attributes": ["gender"]}, "prompts": {"items": ["Hi her."]}}
    return parse_config(data | sections, source="test", base=tmp_path)


def test_device_reaches_the_local_model_and_every_scorer(tmp_path: Path) -> None:
    config = apply_scoring_flags(_config(tmp_path), ScoringFlags(device="cpu"), model_device=True)
    assert config.scoring.device == "cpu"
    assert config.model.client_spec()["device"] == "cpu"
    # another provider: the device is the scorers' only
    remote = {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    config = apply_scoring_flags(_config(tmp_path, model=remote), ScoringFlags(device="cpu"), model_device=True)
    assert config.scoring.device == "cpu" and "device" not in config.model.client_spec()


def test_options_merge_into_a_configured_scorer(tmp_path: Path) -> None:
    config = _config(tmp_path, scoring={"sentiment": {"spec": "vader", "batch_size": 8}, "engine": "ray"})
    flags = ScoringFlags(options=("sentiment.mapping=neg", "toxicity.batch_size=16"), engine="local")
    config = apply_scoring_flags(config, flags)
    assert config.scoring.sentiment == {"spec": "vader", "batch_size": 8, "mapping": "neg"}
    assert config.scoring.toxicity == {"spec": None, "batch_size": 16}
    assert config.scoring.engine == "local"
    assert set(flags.touched) == {"sentiment", "toxicity"}


def test_assess_device_flag_stops_before_generation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.pipeline.responses import sources

    def no_generation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("generation started")

    monkeypatch.setattr(sources, "generate_frame", no_generation)
    config = tmp_path / "use-case.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "use_case": {"task": "text_generation", "attributes": ["gender"]},
                "prompts": {"items": ["Write to her."]},
                "scoring": {"embedder": False},
                "output": {"dir": str(tmp_path / "out")},
            }
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["assess", str(config), "--device", "cuda"])
    assert result.exit_code == int(cli.ExitCode.BAD_INPUT), result.output
    assert result.output.startswith("error: --device:"), result.output


@pytest.mark.pipeline
def test_config_engine_ray_without_ray_is_a_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")  # the module must import for its require() to be replaced
    from evenhand import _optional
    from evenhand.scorers import ray_engine

    def no_ray(module: str, feature: str | None = None) -> Any:
        raise _optional.MissingDependencyError(f"{module!r} is needed for {feature} but is not installed")

    monkeypatch.setattr(ray_engine, "require", no_ray)
    config = tmp_path / "use-case.yaml"
    config.write_text(
        yaml.safe_dump({"use_case": {"task": "text_generation", "attributes": ["gender"]},
                        "responses": {"path": "x.csv"}, "scoring": {"engine": "ray", "num_actors": 2}}),
        encoding="utf-8",
    )  # fmt: skip
    result, _ = _metrics(tmp_path, "--config", str(config))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: scoring.engine: 'ray' is needed"), result.output
