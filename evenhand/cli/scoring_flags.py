"""Scorer settings from the command line: what ``evenhand assess`` and ``evenhand metrics`` do with ``--toxicity``,
``--refusal``, ``--scorer-option``, ``--device``, ``--engine`` and the other scoring flags.

Each flag sets one key of the config's ``scoring`` section (or ``model.device``), so the command line and a config
file can say the same things. :func:`apply_scoring_flags` writes the flags into a validated config and
:func:`check_scoring_flags` builds every scorer a flag touched, and resolves the device, before any response is
generated. Errors are ``ValueError`` messages that start with the flag (``--scorer-option toxicity.batch_size=0:
...``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from evenhand.config import AssessConfig, ModelConfig, ScoringConfig
from evenhand.errors import InputError
from evenhand.scorer_registry import SCORERS as REGISTERED_SCORERS

#: The scorers a flag can set: name -> (flag, factory module, factory name), from the registry's scorer table.
SCORERS = {key: (spec.flag, *spec.factory.split(":")) for key, spec in REGISTERED_SCORERS.items()}
#: Words that turn a scorer off (stereotype classifier, embedder) and that choose the offline default.
OFF_WORDS = ("none", "off", "false")
DEFAULT_WORD = "default"
#: ``--scorer-option NAME.threshold=X`` is the config's ``scoring.NAME_threshold``.
THRESHOLDS = ("toxicity", "stereotype", "sentiment", "refusal")
#: Flags that set a key of the scoring section directly: flag -> key.
SCORING_KEYS = {
    "--device": "device",
    "--engine": "engine",
    "--ray-address": "address",
    "--ray-actors": "num_actors",
    "--ray-gpus-per-actor": "num_gpus_per_actor",
    "--toxicity-threshold": "toxicity_threshold",
    "--stereotype-threshold": "stereotype_threshold",
    "--sentiment-threshold": "sentiment_threshold",
    "--refusal-threshold": "refusal_threshold",
    "--score-cache": "cache",
}


@dataclass
class ScoringFlags:
    """The scoring flags of one command line (None: not given)."""

    toxicity: str | None = None
    sentiment: str | None = None
    stereotype: str | None = None
    embedder: str | None = None
    refusal: str | None = None
    options: Sequence[str] = ()
    device: str | None = None
    engine: str | None = None
    ray_address: str | None = None
    ray_actors: int | None = None
    ray_gpus_per_actor: float | None = None
    toxicity_threshold: float | None = None
    stereotype_threshold: float | None = None
    sentiment_threshold: float | None = None
    refusal_threshold: float | None = None
    score_cache: str | None = None
    #: the scorers a flag changed, with the flag to name in errors (filled by :func:`apply_scoring_flags`)
    touched: dict[str, str] = field(default_factory=dict)

    def value(self, flag: str) -> Any:
        return getattr(self, flag.removeprefix("--").replace("-", "_"))


def scoring_flags_from(arguments: Mapping[str, Any]) -> ScoringFlags:
    """The scoring flags among a command's arguments (by name: a typer command passes its ``locals()``)."""
    names = [f for f in ScoringFlags.__dataclass_fields__ if f not in ("touched", "options")]
    flags = ScoringFlags(**{name: arguments[name] for name in names if name in arguments})
    flags.options = tuple(arguments.get("scorer_option") or ())  # the repeatable --scorer-option
    return flags


def _spec(name: str, text: str) -> Any:
    """A spec flag's value: ``default`` is the offline default (None); ``none``/``off`` turn a stereotype classifier
    or an embedder off; anything else is the spec itself (a name, a model id or a local path)."""
    word = text.strip().lower()
    if word == DEFAULT_WORD:
        if name == "stereotype":  # None means "no classifier" there: the default is LangFair's model, by its id
            from evenhand.scorers.stereotype import DEFAULT_STEREOTYPE_MODEL

            return DEFAULT_STEREOTYPE_MODEL
        return None
    if word in OFF_WORDS:
        if name == "embedder":
            return False
        if name == "stereotype":
            return None
        raise InputError(f"{SCORERS[name][0]} {text}: the {name} scorer cannot be turned off; use {DEFAULT_WORD!r}")
    return text


def _option(text: str) -> tuple[str, str, Any]:
    """``NAME.KEY=VALUE`` -> (NAME, KEY, VALUE), VALUE read as YAML (``16``, ``true``, ``[a, b]``, ``{gender: x}``)."""
    where = f"--scorer-option {text}"
    target, sep, raw = text.partition("=")
    name, dot, key = target.strip().partition(".")
    if not sep or not dot or not key.strip():
        raise InputError(f"{where}: expected SCORER.OPTION=VALUE, e.g. toxicity.batch_size=16")
    if name not in SCORERS:
        raise InputError(f"{where}: unknown scorer {name!r}; use one of {', '.join(SCORERS)}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or "unreadable"  # one line, not the parser's drawing
        raise InputError(f"{where}: the value is not valid YAML ({problem})") from None
    return name, key.strip(), value


def apply_scoring_flags(config: AssessConfig, flags: ScoringFlags, *, model_device: bool = False) -> AssessConfig:
    """``config`` with the flags written into its ``scoring`` section (and ``model.device`` when ``model_device``
    and the model is the local one). Raises ``ValueError`` naming the flag."""
    scoring = config.scoring.model_dump(mode="python")
    from_flag: dict[str, str] = {}  # scoring key -> the flag that set it, to name in validation errors
    for name, (flag, _, _) in SCORERS.items():
        given = flags.value(flag)
        if given is not None:
            scoring[name] = _spec(name, given)
            flags.touched[name], from_flag[name] = flag, flag
    for text in flags.options:
        name, key, value = _option(text)
        if key == "threshold" and name in THRESHOLDS:
            scoring[f"{name}_threshold"] = value
            from_flag[f"{name}_threshold"] = f"--scorer-option {text}"
            continue
        current = scoring[name]
        # an unset stereotype classifier is off (no offline default): an option must not quietly turn it on
        if current is False or (name == "stereotype" and current is None):
            raise InputError(
                f"--scorer-option {text}: the {name} is off (scoring.{name}: false); set {SCORERS[name][0]}"
            )
        setting = dict(current) if isinstance(current, Mapping) else {"spec": current}
        if key == "device":  # as --device: an absent device fails now, naming the option
            _check_device(value, f"--scorer-option {text}")
        setting[key] = value
        scoring[name] = setting
        flags.touched[name], from_flag[name] = f"--scorer-option {text}", f"--scorer-option {text}"
    for flag, key in SCORING_KEYS.items():
        given = flags.value(flag)
        if given is not None:
            scoring[key], from_flag[key] = given, flag
    if flags.engine == "local":  # --engine local drops the Ray settings a config file may hold
        scoring.update(address=None, num_actors=None, num_gpus_per_actor=0.0)
    try:
        config.scoring = ScoringConfig.model_validate(scoring)
    except ValidationError as exc:
        raise InputError(_first_error(exc, from_flag)) from None
    if model_device and flags.device is not None and config.model.provider == "local" and config.responses is None:
        config.model = ModelConfig.model_validate(config.model.model_dump() | {"device": flags.device})
    return config


def _check_device(device: Any, flag: str) -> None:
    """An unknown or absent device as a ValueError naming ``flag`` (no torch: only "cpu" can be honoured)."""
    if device == "cpu":
        return
    from evenhand.scorers._base import resolve_device

    try:
        resolve_device(device)
    except ImportError as exc:  # no torch: a device cannot be chosen
        raise InputError(f"{flag}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise InputError(f"{flag}: {exc}") from None


def _first_error(exc: ValidationError, from_flag: Mapping[str, str]) -> str:
    err = exc.errors()[0]
    message = str(err["msg"]).removeprefix("Value error, ")
    key = str(err["loc"][0]) if err["loc"] else ""
    flag = from_flag.get(key) or next((f for k, f in from_flag.items() if f"scoring.{k}" in message), None)
    return f"{flag or 'scoring'}: {message}"


def check_scoring_flags(config: AssessConfig, flags: ScoringFlags) -> None:
    """Resolve ``--device`` and build every scorer a flag touched (the run builds them again, from the models' load
    caches), so that a wrong model, option or device fails at once, naming its flag."""
    import importlib

    from evenhand.pipeline.families.base import build_scorer

    if flags.device is not None:
        _check_device(flags.device, "--device")
    if flags.engine == "ray":
        from evenhand._optional import require

        try:
            require("ray", feature="--engine ray")
        except ImportError as exc:
            raise InputError(f"--engine ray: {exc}") from None
    sc = config.scoring
    for name, flag in flags.touched.items():
        value = getattr(sc, name)
        if value is False or (name == "stereotype" and value is None):
            continue  # turned off
        module, factory_name = SCORERS[name][1:]
        factory: Callable[..., Any] = getattr(importlib.import_module(module), factory_name)
        build_scorer(factory, value, key=flag, device=sc.device)
