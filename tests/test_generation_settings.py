"""One GenerationSettings object: the four public functions take its fields as keywords (declared once), a
``settings=`` object, and a config gives it by shared key names, with no key mapped by hand."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from typing import Any

import pytest

from evenhand.config import GenerationConfig, ModelConfig, parse_config
from evenhand.generation import (
    GenerationSettings,
    agenerate,
    agenerate_counterfactual,
    generate,
    generate_counterfactual,
)
from evenhand.generation.settings import FIELD_NAMES, GenerationKeywords

PUBLIC = [generate, agenerate, generate_counterfactual, agenerate_counterfactual]
FIELDS = [f.name for f in dataclasses.fields(GenerationSettings)]


def _echo(prompt: str, **_: Any) -> str:
    return f"re: {prompt}"


def test_the_typed_keywords_are_the_settings() -> None:
    assert list(GenerationKeywords.__annotations__) == FIELDS
    hints = typing.get_type_hints(GenerationSettings)
    assert typing.get_type_hints(GenerationKeywords) == {name: hints[name] for name in FIELDS}


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__name__)
def test_every_setting_shows_as_a_keyword_with_its_default(function: Any) -> None:
    params = inspect.signature(function).parameters
    assert list(params)[:3] == [next(iter(params)), "client", "settings"]
    defaults = GenerationSettings()
    for name in FIELDS:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[name].default == getattr(defaults, name)
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert generate.__doc__ is not None and "max_consecutive_failures" in generate.__doc__


def test_an_unknown_keyword_is_a_type_error_naming_the_function() -> None:
    with pytest.raises(TypeError, match=r"generate\(\) got an unexpected keyword argument 'cuont'"):
        generate(["p"], _echo, cuont=2, store=None, progress=False)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"generate_counterfactual\(\) got an unexpected keyword argument 'x'"):
        generate_counterfactual({"a": ["p"], "b": ["q"]}, _echo, x=1, store=None)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="settings must be a GenerationSettings"):
        generate(["p"], _echo, settings={"count": 2})  # type: ignore[arg-type]


def test_settings_object_and_keywords_on_top() -> None:
    settings = GenerationSettings(count=3, store=None, progress=False, seed=1)
    by_object = generate(["a", "b"], _echo, settings=settings)
    by_keywords = generate(["a", "b"], _echo, count=3, store=None, progress=False, seed=1)
    assert by_object.to_frame().drop(columns="latency_s").equals(by_keywords.to_frame().drop(columns="latency_s"))
    assert by_object.job == by_keywords.job
    overridden = generate(["a"], _echo, settings=settings, count=1)
    assert overridden.count == 1 and settings.count == 3  # the object is frozen: keywords make a copy
    cf = generate_counterfactual({"f": ["her"], "m": ["him"]}, _echo, settings=settings.replace(count=2))
    assert len(cf.records) == 4


def test_values_are_checked_when_the_run_starts_as_before() -> None:
    GenerationSettings(count=0)  # building it checks nothing: a run does (a config's count is checked by pydantic)
    with pytest.raises(ValueError, match="count must be >= 1"):
        generate(["p"], _echo, count=0, store=None, progress=False)
    with pytest.raises(ValueError, match="max_retry_delay must be > 0"):
        generate(["p"], _echo, settings=GenerationSettings(max_retry_delay=0, store=None, progress=False))
    with pytest.warns(UserWarning, match="temperature=0 with count=2"):
        generate(["p"], _echo, count=2, temperature=0, store=None, progress=False)


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'tempreature'"):
        GenerationSettings().replace(tempreature=0.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        GenerationSettings().count = 2  # type: ignore[misc]


def test_config_sections_give_the_settings_by_name() -> None:
    """Every model/generation key named as a setting reaches it; the rest are the client's or the cost's."""
    model_keys, generation_keys = set(ModelConfig.model_fields), set(GenerationConfig.model_fields)
    assert model_keys - FIELD_NAMES == {"provider", "model", "base_url", "api_key_env", "options", "device", "prices"}
    assert generation_keys - FIELD_NAMES == {"counterfactual_count"}  # the count of the counterfactual batch
    config = parse_config(
        {
            "use_case": {"task": "text_generation"},
            "prompts": {"items": ["Write to her."]},
            "model": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "temperature": 0.3,
                      "max_tokens": 12, "system_prompt": "Be brief.", "seed": 7, "max_concurrency": 32},
            "generation": {"count": 4, "store": "gen.sqlite", "progress": False, "max_consecutive_failures": 5},
        }
    )  # fmt: skip
    settings = config.generation_settings()
    assert settings == GenerationSettings(
        count=4, system_prompt="Be brief.", temperature=0.3, max_tokens=12, seed=7, store=config.generation.store,
        concurrency=None, max_concurrency=32, progress=False, max_consecutive_failures=5,
    )  # fmt: skip
    # a local model keeps its fixed concurrency (nothing to adapt to), capped by max_concurrency
    local = parse_config({"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]},
                          "model": {"max_concurrency": 3}})  # fmt: skip
    assert local.generation_settings().concurrency == 3
    # the store defaults to output.dir, as the run's settings say
    assert local.generation_settings().store == local.run_settings().generation.store


def test_generation_options_cannot_set_what_the_run_sets() -> None:
    from evenhand.errors import InputError
    from evenhand.pipeline.responses.sources import Generated

    with pytest.raises(TypeError, match="generation_options cannot set count, store"):
        Generated(_echo, options={"store": None, "count": 2})
    with pytest.raises(InputError):
        Generated(_echo, options={"count": 2})
    with pytest.raises(TypeError, match=r"generate\(\) got an unexpected keyword argument 'temp'"):
        Generated(_echo, options={"temp": 0.5})
    source = Generated(_echo, system_prompt="Be kind.", options={"seed": 3})
    assert (source.settings.system_prompt, source.settings.seed) == ("Be kind.", 3)
