"""``${VAR}`` in a config (faults17): a config's values are taken as written, so ``base_url: "${GATEWAY_URL}/v1"``
was refused as "the URL must start with http://" without saying why, and ``model: "$MODEL_NAME"`` or ``output.dir:
"${RUN_DIR}/out"`` were used literally (a 404 from the server, a folder named ``${RUN_DIR}``). Now a reference to
an environment variable in a client's settings or a path is exit 2, one line naming the file, the key and the
reference (a name, never the variable's value), and saying how to do it: ``api_key_env`` names the variable the key
is read from. Prompt texts and system prompts are text: ``${NAME}`` there is left as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from evenhand.config import ConfigError, load_config

BASE = "use_case: {task: text_generation, attributes: [gender]}\nprompts: {items: [Hi Mrs. Lee.]}\n"


@pytest.mark.parametrize(
    ("extra", "key", "reference"),
    [
        ('model: {provider: openai, base_url: "${GATEWAY_URL}/v1", model: m}\n', "model.base_url", "${GATEWAY_URL}"),
        ('model: {provider: openai, base_url: "http://h/v1", model: "$MODEL_NAME"}\n', "model.model", "$MODEL_NAME"),
        (
            'model: {provider: openai, base_url: "http://h/v1", model: m, options: {headers: {X-Team: "${TEAM}"}}}\n',
            "model.options.headers.X-Team",
            "its value",  # a header's value is never quoted
        ),
        ('output: {dir: "${RUN_DIR}/out"}\n', "output.dir", "${RUN_DIR}"),
    ],
)
def test_an_environment_reference_is_refused_naming_the_key(
    tmp_path: Path, extra: str, key: str, reference: str
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(BASE + extra, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    message = str(caught.value)
    assert str(config) in message and key in message and reference in message, message
    assert "api_key_env" in message and "\n" not in message


def test_prompt_texts_and_system_prompts_keep_a_dollar_reference_as_text(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\n"
        'prompts: {items: ["Explain ${HOME} to Mrs. Lee."]}\n'
        'model: {provider: openai, base_url: "http://h/v1?x=$1", model: m, system_prompt: "Say ${NAME} back."}\n',
        encoding="utf-8",
    )
    loaded = load_config(config)
    assert loaded.model.system_prompt == "Say ${NAME} back."


@pytest.mark.parametrize(
    ("extra", "key", "reference"),
    [
        ('scoring: {device: "${SCORER_DEVICE}"}\n', "scoring.device", "${SCORER_DEVICE}"),
        ('generation: {count: "${COUNT}"}\n', "generation.count", "${COUNT}"),
        ('statistics: {n_resamples: "$N_RESAMPLES"}\n', "statistics.n_resamples", "$N_RESAMPLES"),
        ('thresholds: [{metric: "${METRIC}", max: 0.1}]\n', "thresholds.0.metric", "${METRIC}"),
    ],
)
def test_a_reference_in_any_settings_section_is_refused_too(
    tmp_path: Path, extra: str, key: str, reference: str
) -> None:
    """faults18: only client sections and path keys were checked; ``scoring.device: "${SCORER_DEVICE}"`` was
    refused as an unknown device, ``count: "${COUNT}"`` as "not a valid integer", without saying why."""
    config = tmp_path / "c.yaml"
    config.write_text(BASE + extra, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    message = str(caught.value)
    assert key in message and reference in message and "environment variable" in message, message


def test_use_case_texts_keep_a_dollar_reference(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        'use_case: {task: text_generation, attributes: [gender], name: "Costs in ${CURRENCY}"}\n'
        'prompts: {items: ["Hi Mrs. Lee."]}\n',
        encoding="utf-8",
    )
    assert load_config(config).use_case.name == "Costs in ${CURRENCY}"
