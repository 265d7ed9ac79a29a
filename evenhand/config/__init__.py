"""The configuration file of ``evenhand assess`` (YAML or TOML), validated with pydantic.

Relative paths in a config file are resolved against the file's folder. :func:`load_config` turns every problem
into a :class:`ConfigError` whose message names the file and the offending key, e.g.
``config.yaml: use_case.task: Input should be 'text_generation', ...``.

One module per job: the shared base (``_section``), the inputs (``inputs``: prompts, own responses), the model
(``model``), the run sections (``run_sections``: :class:`RunSettings`), the whole file (``schema``:
:class:`AssessConfig`) and reading it (``loading``); the red team's system prompts (``redteam``, read by
``evenhand redteam`` only). Every name is imported from here.
"""

from __future__ import annotations

from ._section import (
    MAX_CONCURRENCY,
    MAX_COUNT,
    MAX_RESAMPLES,
    MAX_RESPONSES,
    MAX_SEED,
    MAX_TIMEOUT_S,
    MAX_TOKENS,
    ConfigError,
)
from .assistants import AssistantModelConfig, FTUConfig, JudgeConfig
from .inputs import PromptsConfig, ResponsesConfig
from .loading import format_errors, load_config, parse_config
from .model import ModelConfig, PricesConfig
from .redteam import RedteamConfig
from .run_sections import (
    ClassificationConfig,
    EstimationConfig,
    GenerationConfig,
    ImpactRatiosConfig,
    RecommendationConfig,
    RunSettings,
    ScoringConfig,
    StatisticsConfig,
    Threshold,
    check_threshold_scope,
)
from .schema import AssessConfig, OutputConfig, check_store_path

__all__ = [
    "MAX_CONCURRENCY",
    "MAX_COUNT",
    "MAX_RESAMPLES",
    "MAX_RESPONSES",
    "MAX_SEED",
    "MAX_TIMEOUT_S",
    "MAX_TOKENS",
    "AssessConfig",
    "AssistantModelConfig",
    "ClassificationConfig",
    "ConfigError",
    "EstimationConfig",
    "FTUConfig",
    "GenerationConfig",
    "ImpactRatiosConfig",
    "JudgeConfig",
    "ModelConfig",
    "OutputConfig",
    "PricesConfig",
    "PromptsConfig",
    "RecommendationConfig",
    "RedteamConfig",
    "ResponsesConfig",
    "RunSettings",
    "ScoringConfig",
    "StatisticsConfig",
    "Threshold",
    "check_store_path",
    "check_threshold_scope",
    "format_errors",
    "load_config",
    "parse_config",
]
