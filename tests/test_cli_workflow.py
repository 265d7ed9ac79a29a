"""Own files without friction and exports: every column mapping is a flag named after its config key, `metrics
--config` honours output.dir, the responses are exported beside results.json, metrics.csv carries the verdict."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app

runner = CliRunner()


def _renamed_file(tmp_path: Path) -> Path:
    rows = []
    for pid, (female, male) in enumerate([("Write to Mrs. Lee.", "Write to Mr. Lee."), ("Thank her.", "Thank him.")]):
        for sample in range(2):
            rows.append({"pid": f"p{pid}", "attr": "gender", "who": "female", "n": sample, "q": female,
                         "a": "Dear customer, thank you!"})  # fmt: skip
            rows.append({"pid": f"p{pid}", "attr": "gender", "who": "male", "n": sample, "q": male,
                         "a": "Your request is denied."})  # fmt: skip
    path = tmp_path / "mine.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.pipeline
def test_every_column_mapping_is_a_flag(tmp_path: Path) -> None:
    data = _renamed_file(tmp_path)
    out = tmp_path / "out"
    flags = ["--prompt-column", "q", "--response-column", "a", "--prompt-id-column", "pid", "--attribute-column",
             "attr", "--counterfactual-group-column", "who", "--sample-column", "n"]  # fmt: skip
    result = runner.invoke(app, ["metrics", str(data), "-a", "gender", "-o", str(out), *flags])
    assert result.exit_code == ExitCode.OK, result.output
    responses = pd.read_csv(out / "responses.csv")
    assert set(responses["group"]) == {"female", "male"} and "sentiment" in responses
    metrics = pd.read_csv(out / "metrics.csv")
    assert {"full_name", "severity", "passed"} <= set(metrics.columns)
    scsp = metrics[metrics["metric"] == "SCSP"].iloc[0]
    assert scsp["full_name"] == "Strict Counterfactual Sentiment Parity"
    assert scsp["severity"] in ("ok", "watch", "concern")


def test_errors_name_the_flag_and_the_key(tmp_path: Path) -> None:
    data = _renamed_file(tmp_path)
    pd.read_csv(data).drop(columns=["pid"]).to_csv(data, index=False)
    flags = ["--prompt-column", "q", "--response-column", "a", "--attribute-column", "attr",
             "--counterfactual-group-column", "who"]  # fmt: skip
    result = runner.invoke(app, ["metrics", str(data), "-o", str(tmp_path / "o"), *flags])
    assert result.exit_code == ExitCode.BAD_INPUT
    assert "responses.prompt_id_column" in result.output and "--prompt-id-column" in result.output


@pytest.mark.pipeline
def test_metrics_with_a_config_writes_to_its_output_dir(tmp_path: Path) -> None:
    data = _renamed_file(tmp_path)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\nresponses: {path: mine.csv}\n"
        "statistics: {ci: null}\nscoring: {embedder: false}\noutput: {dir: from-config, responses: parquet}\n",
        encoding="utf-8",
    )
    flags = ["--prompt-column", "q", "--response-column", "a", "--prompt-id-column", "pid", "--attribute-column",
             "attr", "--counterfactual-group-column", "who", "--sample-column", "n"]  # fmt: skip
    result = runner.invoke(app, ["metrics", str(data), "--config", str(cfg), *flags])
    assert result.exit_code == ExitCode.OK, result.output
    assert (tmp_path / "from-config" / "results.json").is_file()
    exported = pd.read_parquet(tmp_path / "from-config" / "responses.parquet")
    assert len(exported) == 8 and {"prompt_id", "attribute", "group", "sample", "response"} <= set(exported.columns)
