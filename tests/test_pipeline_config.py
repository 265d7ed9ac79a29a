"""Config files: YAML and TOML, relative paths, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from evenhand.config import AssessConfig, ConfigError, load_config, parse_config
from evenhand.pipeline.responses.tables import demo_dir, read_table


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_demo_config_is_valid() -> None:
    cfg = load_config(demo_dir() / "demo.yaml")
    assert cfg.use_case.task == "text_generation"
    assert cfg.prompts.path is not None and cfg.prompts.path.is_file()
    assert len(read_table(cfg.prompts.path)) == 40
    assert cfg.model.client_spec() == {"provider": "local", "model": None}


def test_yaml_and_toml_agree_and_paths_resolve(tmp_path: Path) -> None:
    write(tmp_path, "p.txt", "Write to Mrs. Lee.\nThank the client.\n")
    y = write(
        tmp_path,
        "c.yaml",
        "use_case: {task: text generation, attributes: [gender]}\nprompts: {path: p.txt}\n"
        "model: {provider: openai, base_url: 'http://x/v1', model: m}\nthresholds: [{metric: TF, max: 0.1}]\n",
    )
    t = write(
        tmp_path,
        "c.toml",
        '[use_case]\ntask = "text_generation"\nattributes = ["gender"]\n[prompts]\npath = "p.txt"\n'
        '[model]\nprovider = "openai"\nbase_url = "http://x/v1"\nmodel = "m"\n'
        '[[thresholds]]\nmetric = "TF"\nmax = 0.1\n',
    )
    a, b = load_config(y), load_config(t)
    assert a.model_dump() == b.model_dump()
    assert a.prompts.path == tmp_path.resolve() / "p.txt"
    assert a.model.client_spec()["api_key_env"] == "OPENAI_API_KEY"
    assert "api_key" not in a.model.client_spec()


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("use_case: {task: text_generation}\n", "give prompts"),
        ("use_case: {task: poetry}\nprompts: {items: [a]}\n", "use_case.task"),
        ("use_case: {task: text_generation, colour: red}\nprompts: {items: [a]}\n", "use_case.colour"),
        ("use_case: {task: text_generation}\nprompts: {items: [a]}\nmodel: {provider: openai}\n", "base_url"),
        ("use_case: {task: text_generation}\nprompts: {items: [a]}\nstatistics: {ci: 1.5}\n", "statistics.ci"),
        ("use_case: {task: text_generation}\nprompts: {}\n", "prompts.path"),
        ("use_case: {task: text_generation}\nprompts: {items: [a]}\nthresholds: [{metric: TF}]\n", "min or max"),
        # a NaN bound compares false with everything: a gate that reads as set but judges nothing is a config error
        ("use_case: {task: summarization}\nprompts: {items: [a]}\nthresholds: [{metric: TF, max: nan}]\n", "0.max"),
        ("use_case: {task: summarization}\nprompts: {items: [a]}\nthresholds: [{verdict: watch, min: .nan}]\n", ".min"),
        # pydantic would read true as 1 and false as 0: a number's key given a yes/no is a config error
        ("use_case: {task: summarization}\nprompts: {items: [a]}\ngeneration: {count: true}\n",
         r"generation\.count: expects a number, not a yes/no value \(true\)"),
        ("use_case: {task: summarization}\nprompts: {items: [a]}\nstatistics: {n_resamples: no}\n",
         "statistics.n_resamples"),
        ("use_case: {task: summarization}\nprompts: {items: [a]}\nthresholds: [{metric: TF, max: true}]\n", "0.max"),
        ("- a list\n", "top level"),
        ("use_case: [unclosed\n", "not valid YAML"),
    ],
)
def test_bad_config_names_the_problem(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        load_config(write(tmp_path, "bad.yaml", text))
    assert "bad.yaml" in str(info.value)


def test_missing_file_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="unknown config format"):
        load_config(write(tmp_path, "c.ini", "x"))


def test_prompts_belong_in_their_section() -> None:
    with pytest.raises(ConfigError, match="prompts section"):
        parse_config({"use_case": {"task": "text_generation", "prompts": ["a"]}, "prompts": {"items": ["a"]}})


def test_use_case_with_prompts_and_classifier() -> None:
    cfg = AssessConfig.model_validate(
        {"use_case": {"task": "text_generation"}, "prompts": {"items": ["x"]}, "scoring": {"stereotype": "path"}}
    )
    uc = cfg.use_case_with(["Write to him."])
    assert uc.prompts == ["Write to him."] and uc.stereotype_classifier


def test_unquoted_yaml_yes_no_are_words_again(tmp_path: Path) -> None:
    cfg = load_config(
        write(
            tmp_path,
            "c.yaml",
            "use_case: {task: classification}\nprompts: {items: [a]}\n"
            "classification: {labels: {1: [yes, ok], 0: [no]}}\n",
        )
    )
    assert cfg.classification.labels == {"1": ["yes", "ok"], "0": ["no"]}


@pytest.mark.parametrize(
    "url",
    ["http://u:pw-canary-url@127.0.0.1:99999/v1", "http://u:pw-canary-url@[::1/v1", "htp://u:pw-canary-url@h/v1",
     "http://u:pw-canary-url@/v1", "127.0.0.1:8000/v1"],
)  # fmt: skip
def test_a_base_url_that_cannot_be_requested_is_a_config_error(tmp_path: Path, url: str) -> None:
    """A port out of range or a broken IPv6 host was retried as a runtime failure (exit 3, 9 attempts per prompt, or
    "ValueError: Invalid IPv6 URL"); a config error names model.base_url, and never the URL's password."""
    model = f"model: {{provider: openai, base_url: '{url}', model: m}}\n"
    text = "use_case: {task: summarization}\nprompts: {items: [a]}\n" + model
    with pytest.raises(ConfigError, match=r"model\.base_url") as info:
        load_config(write(tmp_path, "c.yaml", text))
    assert "pw-canary-url" not in str(info.value)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ("{bogus: 1}", "model.options.bogus is not an option of provider openai; its options: api_version"),
        ("{timeout: -1}", "model.options.timeout must be a positive number of seconds, got -1"),
        ("{timeout: soon}", "model.options.timeout must be a positive number of seconds"),
        ("{api_key: sk-canary-opt}", "model.options.api_key: put the API key in an environment variable"),
        # review13: NaN and infinity passed `timeout <= 0` (a NaN total makes aiohttp wait for ever or fail each
        # request); a text extra_body was "unexpected ValueError: dictionary update sequence ..." (exit 3); an n
        # that is neither auto nor a yes/no was taken as True
        ("{timeout: .nan}", "model.options.timeout must be a positive number of seconds, got nan"),
        ("{timeout: .inf}", "model.options.timeout must be a positive number of seconds, got inf"),
        ("{extra_body: stream}", "model.options.extra_body must map body keys to values, e.g. {user: team-a}"),
        ("{n: many}", "model.options.n must be auto, true or false, got 'many'"),
    ],
)
def test_an_openai_option_is_checked_when_the_config_is_read(tmp_path: Path, options: str, words: str) -> None:
    """An unknown option or a bad timeout failed only when the client was built, after the scorers had loaded, in a
    line naming no key ("OpenAIClient.__init__() got an unexpected keyword argument")."""
    model = f"model: {{provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m, options: {options}}}\n"
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "c.yaml", "use_case: {task: summarization}\nprompts: {items: [a]}\n" + model))
    assert words in str(info.value) and "sk-canary-opt" not in str(info.value)


@pytest.mark.parametrize(
    "rule", ["{verdict: concern, max: 0}", "{metric: CROUGE-L, measure: below_floor, max: 0}",
             "{metric: SCSP, measure: p_adjusted, min: 0.05}", "{metric: CROUGE-L, measure: gap, max: 0.1}"],
)  # fmt: skip
def test_a_gate_on_statistics_needs_them(tmp_path: Path, rule: str) -> None:
    """With statistics.ci null no test, floor or interval is computed: every finding is ok, so a verdict gate passed
    whatever the replies (exit 0), and a floor or p-value gate failed on "undefined". Both are config errors."""
    text = f"use_case: {{task: summarization}}\nprompts: {{items: [a]}}\nstatistics: {{ci: null}}\nthresholds: [{rule}]"
    with pytest.raises(ConfigError, match=r"thresholds\.0: .*needs statistics.ci"):
        load_config(write(tmp_path, "c.yaml", text))
    load_config(write(tmp_path, "c.yaml", text.replace("ci: null", "ci: 0.9")))  # with statistics: fine


_GATE = "use_case: {task: summarization, attributes: [gender]}\nprompts: {items: [a]}\nthresholds: [%s]\n"


@pytest.mark.parametrize(
    ("rule", "match"),
    [
        # a verdict rule counts findings, 0 or more: max -1 can never pass
        ("{verdict: concern, max: -1}", r"thresholds\.0\.max: -1 can never be met: .*findings"),
        ("{verdict: watch, min: 2, max: 1}", r"thresholds\.0\.max: 1 is below min \(2\)"),
        # a signed gap (CPRD, RRD, ...) is judged by its size, 0 or more
        ("{metric: RRD, max: -0.1}", r"thresholds\.0\.max: -0.1 can never be met: RRD value .* \[0, 1\]"),
        ("{metric: CROUGE-L, min: 1.5}", r"thresholds\.0\.min: 1.5 can never be met: CROUGE-L value .* \[0, 1\]"),
        ("{metric: SCSP, measure: p_adjusted, max: -0.01}", r"0\.max: -0.01 can never be met: .*p_adjusted"),
        ("{metric: CROUGE-L, measure: below_floor, min: 2}", r"thresholds\.0\.min: 2 can never be met: .*below_floor"),
    ],
)
def test_a_gate_that_can_never_pass_is_a_config_error(tmp_path: Path, rule: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        load_config(write(tmp_path, "gate.yaml", _GATE % rule))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "rule",
    ["{verdict: concern, max: 0}", "{verdict: watch, min: 0, max: 0}", "{metric: RRD, max: 0}",
     "{metric: CER, min: -0.1, max: 0.1}", "{metric: CROUGE-L, min: 1}", "{metric: SCSP, measure: p_adjusted, min: 0}",
     "{metric: CROUGE-L, measure: gap, max: -0.5}"],
)  # fmt: skip
def test_a_gate_that_can_pass_is_accepted(tmp_path: Path, rule: str) -> None:
    load_config(write(tmp_path, "gate.yaml", _GATE % rule))

