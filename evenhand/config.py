"""The configuration file of ``evenhand assess`` (YAML or TOML), validated with pydantic.

Relative paths in a config file are resolved against the file's folder. :func:`load_config` turns every problem
into a :class:`ConfigError` whose message names the file and the offending key, e.g.
``config.yaml: use_case.task: Input should be 'text_generation', ...``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evenhand.framework import UseCase


class ConfigError(ValueError):
    """The configuration is unreadable or invalid."""


#: Bounds on what a user can ask for, checked before anything runs (a typo such as count: 1000000000 must fail
#: at once with a clear message, not after minutes of allocating memory).
MAX_COUNT = 1_000  # responses per prompt and per counterfactual prompt
MAX_RESPONSES = 10_000_000  # responses an assessment may generate or read in all


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def __repr_args__(self) -> Any:
        """``repr()``/``str()`` of every section show no secret: header and body values, credential-like options
        (a scorer's or client's ``token``) and URL credentials are redacted (:func:`evenhand._redact.redact_mapping`);
        the values themselves are kept for the run."""
        from evenhand._redact import redact_mapping

        for name, value in super().__repr_args__():
            yield name, redact_mapping({str(name): value})[str(name)] if name is not None else value


class PromptsConfig(_Section):
    """Where the prompts come from: a file (CSV, TSV, JSONL, JSON, Parquet or one prompt per line in .txt)."""

    path: Path | None = None
    items: list[str] = Field(default_factory=list, description="inline prompts (instead of a file)")
    column: str = "prompt"
    id_column: Annotated[
        str | None, Field(description="your id of each prompt; kept beside every response as prompt_key")
    ] = None
    group_column: Annotated[str | None, Field(description="classification: the person's group, one per prompt")] = None
    label_column: Annotated[str | None, Field(description="classification: the ground-truth label, one per prompt")] = (
        None
    )
    limit: Annotated[int | None, Field(ge=1, le=MAX_RESPONSES)] = None

    @model_validator(mode="after")
    def _one_source(self) -> PromptsConfig:
        if self.path is None and not self.items:
            raise ValueError("give prompts.path (a file) or prompts.items (a list of prompts)")
        if self.path is not None and self.items:
            raise ValueError("give either prompts.path or prompts.items, not both")
        return self


class ResponsesConfig(_Section):
    """Bring-your-own responses (no model is called).

    One row per response. Rows whose ``group_column`` is empty are responses to the original prompts; rows with
    a group (and an ``attribute``) are responses to that group's counterfactual version of the prompt. The prompts
    of the assessment are the file's: no prompts section is needed.
    """

    path: Path
    prompt_column: str = "prompt"
    response_column: str = "response"
    prompt_id_column: Annotated[
        str | None,
        Field(description="links the versions of one prompt (used when the file has it); needed without originals"),
    ] = "prompt_id"
    attribute_column: str | None = "attribute"
    group_column: str | None = "group"
    sample_column: str | None = "sample"
    label_column: Annotated[str | None, Field(description="classification: ground truth per row")] = None
    person_group_column: Annotated[str | None, Field(description="classification: group of the person per row")] = None


class PricesConfig(_Section):
    """What the model's tokens cost, per 1M, for the estimate before a run (``evenhand plan``, ``evenhand assess``)."""

    # strict: a number as YAML/TOML write it (a quoted "0.15" or a true is a mistake to point at, not to convert)
    input_per_1m: Annotated[float, Field(ge=0.0, strict=True, allow_inf_nan=False, description="per 1M prompt tokens")]
    output_per_1m: Annotated[
        float, Field(ge=0.0, strict=True, allow_inf_nan=False, description="per 1M completion tokens")
    ]


class ModelConfig(_Section):
    """The LLM: ``local`` (bundled SmolLM2 or a local Hugging Face path), any OpenAI-compatible server, or
    ``callable`` (a Python function named in ``options.function`` as ``"package.module:name"``)."""

    provider: Literal["local", "openai", "callable"] = "local"
    model: Annotated[str | None, Field(description="model name (openai) or local path / Hugging Face id (local)")] = (
        None
    )
    base_url: str | None = None
    api_key_env: Annotated[str, Field(description="name of the environment variable holding the key")] = (
        "OPENAI_API_KEY"
    )
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] = 1.0
    max_tokens: Annotated[int, Field(ge=1)] = 96
    system_prompt: str | None = None
    seed: int | None = None
    concurrency: Annotated[
        int | None,
        Field(
            ge=1,
            description="requests in flight, fixed; null: provider openai adapts to the server's pace (from 16 up "
            "to max_concurrency, backing off on 429/503), the other providers keep 8",
        ),
    ] = None
    max_concurrency: Annotated[
        int | None, Field(ge=1, description="the most requests in flight, ever (null: 64 when adapting)")
    ] = None
    options: dict[str, Any] = Field(default_factory=dict, description="extra client options")
    device: Annotated[str | None, Field(description="provider local: auto, cpu, cuda, cuda:N or mps (None: auto)")] = (
        None
    )
    prices: Annotated[PricesConfig | None, Field(description="per 1M tokens: the cost estimate states the cost")] = None

    @field_validator("options")
    @classmethod
    def _header_mappings(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Headers are name -> value; said here by key, never quoting a value (it may be a credential)."""
        for key in ("headers", "default_headers", "extra_headers"):
            given = value.get(key)
            if given is not None and not (
                isinstance(given, dict) and all(isinstance(v, (str, int, float)) for v in given.values())
            ):
                raise ValueError(f"model.options.{key} must map header names to text values, e.g. {{X-Team: a}}")
        return value

    @model_validator(mode="after")
    def _openai_needs_url(self) -> ModelConfig:
        if self.provider == "openai" and (not self.base_url or not self.model):
            raise ValueError("model.provider 'openai' needs model.base_url and model.model")
        if self.concurrency is not None and self.max_concurrency is not None:
            if self.concurrency > self.max_concurrency:
                raise ValueError(f"model.concurrency {self.concurrency} is above model.max_concurrency")
        # a local model folder is checked when the model is used (evenhand.pipeline.from_config.check_local_model),
        # relative to the config file's folder: `evenhand plan` never needs it, and the working directory is no base
        if self.device is not None:
            from evenhand.scorers._base import check_device

            check_device(self.device)
            if self.provider != "local":
                raise ValueError(f"model.device applies to provider local, not {self.provider!r}; remove it")
        return self

    def local_folder(self) -> Path | None:
        """The local model's folder when ``model`` is written as a path (``/``, ``~``, ``./``, ``../``), else None
        (a Hugging Face id, another provider)."""
        written_as_path = self.model is not None and self.model.startswith(("/", "~", "./", "../", ".\\"))
        return Path(str(self.model)).expanduser() if self.provider == "local" and written_as_path else None

    def fixed_concurrency(self) -> int | None:
        """``concurrency`` for the run: None lets an OpenAI-compatible server set the pace; a local model or a
        callable keeps the fixed 8 it always had (nothing to adapt to)."""
        if self.concurrency is None and self.provider != "openai":
            return min(8, self.max_concurrency or 8)
        return self.concurrency

    def client_spec(self) -> dict[str, Any]:
        """The dict :func:`evenhand.generation.get_client` takes (the API key stays in the environment)."""
        spec: dict[str, Any] = {"provider": self.provider, **self.options}
        if self.provider != "callable":
            spec["model"] = self.model
        if self.device is not None:
            spec["device"] = self.device
        if self.provider == "openai":
            spec |= {"base_url": self.base_url, "api_key_env": self.api_key_env}
        return spec


class GenerationConfig(_Section):
    count: Annotated[
        int, Field(ge=1, le=MAX_COUNT, description="responses per prompt (25 is the paper's convention for EMT/TP)")
    ] = 5
    counterfactual_count: Annotated[
        int | None, Field(ge=1, le=MAX_COUNT, description="responses per counterfactual prompt")
    ] = None
    store: Annotated[
        Path | None,
        Field(description="SQLite file of generated responses (resumable); default: generations.sqlite in output.dir"),
    ] = None
    progress: bool = True
    max_consecutive_failures: Annotated[
        int | Literal["auto"] | None,
        Field(
            description="stop the run after this many requests in a row fail the same way (the server is down or "
            "refuses every request; docs/generation.md); auto: max(10, model.concurrency; 16 where it adapts); "
            "null: never stop early"
        ),
    ] = "auto"

    @field_validator("max_consecutive_failures", mode="before")
    @classmethod
    def _positive_limit(cls, value: Any) -> Any:
        if value is None or value == "auto" or (type(value) is int and value >= 1):
            return value
        raise ValueError(f"must be a positive whole number, 'auto' or null, got {value!r}")


class ScoringConfig(_Section):
    """The scorers and their cut-offs. Each scorer is a spec (a name, a model id or local path; in Python also a
    callable or a built scorer) or a mapping ``{spec: ..., <option>: ...}`` with any option its factory takes
    (``checkpoint``, ``batch_size``, ``device``, ``label_map``, ...). All are built, and so checked, before any
    response is generated."""

    toxicity: Annotated[Any, Field(description="toxicity scorer spec (None = offline default)")] = None
    sentiment: Annotated[Any, Field(description="sentiment scorer spec (None = VADER)")] = None
    stereotype: Annotated[Any, Field(description="stereotype classifier spec; None = skip SF/EMS/SP")] = None
    embedder: Annotated[Any, Field(description="sentence embedder spec; false = skip counterfactual cosine")] = None
    device: Annotated[
        str | None, Field(description="auto, cpu, cuda, cuda:N or mps for every model-based scorer (None: theirs)")
    ] = None
    toxicity_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    stereotype_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    sentiment_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    audit: Annotated[
        bool, Field(description="audit the toxicity and sentiment scorers on identity statements (docs/scorers.md)")
    ] = True
    mask_identity: Annotated[
        bool | Literal["auto"],
        Field(description="score toxicity on identity-masked texts; auto: only for the offline default scorer"),
    ] = "auto"
    engine: Annotated[
        Literal["local", "ray"], Field(description="where scorers run: this process, or a Ray cluster (docs/scale.md)")
    ] = "local"
    address: Annotated[
        str | None,
        Field(description="engine ray: 'auto' (this machine's cluster) or 'ray://host:port'; None: a new one"),
    ] = None
    num_actors: Annotated[
        int | None, Field(ge=1, description="engine ray: actors per scorer (None: one per CPU, or per GPU)")
    ] = None
    num_gpus_per_actor: Annotated[float, Field(ge=0.0, description="engine ray: GPUs each actor requests")] = 0.0
    cache: Annotated[
        bool | Path | None,
        Field(
            description="a persistent score cache (SQLite) for the scorers and the embedder: true for "
            "$EVENHAND_CACHE_DIR/scores.sqlite (else ~/.cache/evenhand/scores.sqlite) or a file; a re-run, or a run "
            "after an interruption, scores nothing twice (docs/scorers.md); null/false: none"
        ),
    ] = None

    @field_validator("cache", mode="before")
    @classmethod
    def _cache_words(cls, value: Any) -> Any:
        """``default``/``on`` is the default cache file and ``off``/``none`` no cache, as ``--score-cache`` reads them
        (a file of that name needs a path: ``./default``)."""
        if isinstance(value, str):
            word = value.strip().lower()
            if word in ("default", "on", "true"):
                return True
            if word in ("off", "none", "false", ""):
                return None
        return value

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str | None) -> str | None:
        if value is not None:
            from evenhand.scorers._base import check_device

            check_device(value)
        return value

    @model_validator(mode="after")
    def _ray_options_need_ray(self) -> ScoringConfig:
        given = [k for k in ("address", "num_actors") if getattr(self, k) is not None]
        given += ["num_gpus_per_actor"] if self.num_gpus_per_actor else []
        if self.engine != "ray" and given:
            raise ValueError(f"scoring.{given[0]} applies to engine: ray; set scoring.engine: ray or remove it")
        return self

    def engine_spec(self) -> dict[str, Any]:
        """What :func:`evenhand.scorers.get_engine` takes for these settings."""
        if self.engine == "local":
            return {"engine": "local"}
        return {
            "engine": "ray",
            "address": self.address,
            "num_actors": self.num_actors,
            "num_gpus_per_actor": self.num_gpus_per_actor,
        }


class ClassificationConfig(_Section):
    """How an LLM answer becomes a label. ``labels`` maps each label to the words that signal it."""

    labels: dict[str, list[str]] = Field(default_factory=lambda: {"1": ["yes", "true"], "0": ["no", "false"]})
    positive_label: str | int | bool = "1"
    pattern: Annotated[str | None, Field(description="regex whose first group is the label (instead of labels)")] = None
    sensitive_classes: list[str] = Field(default_factory=list, description="multiclass: classes to check")
    group_columns: Annotated[
        dict[str, str] | None,
        Field(description="own responses table: {attribute: column with the person's group of that attribute}"),
    ] = None

    @field_validator("labels", mode="before")
    @classmethod
    def _yaml_booleans(cls, value: Any) -> Any:
        """YAML 1.1 reads unquoted yes/no as booleans: take them back as the words the user wrote."""
        if not isinstance(value, dict):
            return value

        def word(w: Any) -> Any:
            if isinstance(w, bool):
                return "yes" if w else "no"
            return w if w is None else str(w)

        return {str(k): [word(w) for w in v] if isinstance(v, list) else v for k, v in value.items()}


class RecommendationConfig(_Section):
    k: Annotated[int, Field(ge=1, le=1_000, description="list length K")] = 5
    normalize: Annotated[
        bool,
        Field(description="compare items case-folded, whitespace collapsed ('The Matrix' = 'the matrix')"),
    ] = True


class StatisticsConfig(_Section):
    ci: Annotated[float | None, Field(gt=0.0, lt=1.0, description="interval level; null = no intervals")] = 0.95
    n_resamples: Annotated[int, Field(ge=10, le=100_000)] = 1000
    seed: int = 0
    method: Literal["percentile", "bca"] = "percentile"


class Threshold(_Section):
    """A pass/fail rule (exit code 1 when it fails), on a metric or on the verdict.

    On a metric: its ``measure`` must lie in [min, max] for every row of that metric (optionally one attribute,
    one pair of groups): ``value`` (the metric itself), ``gap`` (noise floor minus counterfactual similarity),
    ``below_floor`` (1 when similarity is below its noise floor beyond the interval and the swap test, as
    the verdict decides it, else 0) or ``p_adjusted``
    (the Benjamini-Hochberg adjusted p-value of the row's test). On the verdict: ``verdict: concern`` (or
    ``watch``) counts the findings at that severity or worse, e.g. ``{verdict: concern, max: 0}``.
    """

    metric: Annotated[str | None, Field(description="metric key or short name, e.g. CROUGE-L")] = None
    verdict: Annotated[
        Literal["concern", "watch"] | None, Field(description="count findings at this severity or worse")
    ] = None
    attribute: str | None = None
    groups: Annotated[
        list[str] | None, Field(min_length=2, max_length=2, description="one pair of groups, e.g. [female, male]")
    ] = None
    measure: Annotated[
        Literal["value", "gap", "below_floor", "p_adjusted"], Field(description="what min/max apply to")
    ] = "value"
    min: float | None = None
    max: float | None = None

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, value: str | None) -> str | None:
        """A typo in a gate is a config error (exit 2), not a failed fairness check."""
        if value is not None:
            from evenhand.registry import metric

            try:
                metric(value)
            except KeyError as exc:
                raise ValueError(str(exc.args[0])) from None
        return value

    @model_validator(mode="after")
    def _bounds(self) -> Threshold:
        if (self.metric is None) == (self.verdict is None):
            raise ValueError("a threshold names either a metric or a verdict severity (verdict: concern)")
        if self.min is None and self.max is None:
            raise ValueError(f"threshold for {self.metric or self.verdict!r} needs min or max")
        if self.verdict is not None and self.measure != "value":
            raise ValueError("a verdict threshold counts findings; measure applies to metric thresholds only")
        return self

    @property
    def label(self) -> str:
        """What the rule judges, e.g. ``SCSP p_adjusted (gender, female vs male)``."""
        what = f"findings at {self.verdict} or worse" if self.verdict else str(self.metric)
        if self.measure != "value":
            what += f" {self.measure}"
        scope = [s for s in (self.attribute, " vs ".join(self.groups) if self.groups else None) if s]
        return f"{what} ({', '.join(scope)})" if scope else what


class OutputConfig(_Section):
    dir: Path = Path("evenhand-out")
    html: bool = True
    include_responses: bool = True
    responses: Annotated[
        Literal["csv", "parquet", "none"],
        Field(description="the responses with every score and their group, beside results.json"),
    ] = "csv"


class RunSettings(_Section):
    """Everything a run needs besides the use case and its responses: the config file's run sections, as they are.

    :meth:`AssessConfig.run_settings` copies those sections over unchanged (no key is mapped by hand), and
    :func:`evenhand.assess` builds the same object from its keyword arguments.
    """

    generation: GenerationConfig = Field(default_factory=lambda: GenerationConfig())
    scoring: ScoringConfig = Field(default_factory=lambda: ScoringConfig())
    classification: ClassificationConfig = Field(default_factory=lambda: ClassificationConfig())
    recommendation: RecommendationConfig = Field(default_factory=lambda: RecommendationConfig())
    statistics: StatisticsConfig = Field(default_factory=lambda: StatisticsConfig())
    thresholds: list[Threshold] = Field(default_factory=list)


class AssessConfig(RunSettings):
    """The whole configuration file (schema version 1): the run sections of :class:`RunSettings` (inherited, so
    that they are the same objects by construction) plus what the run reads them from."""

    version: Literal[1] = 1
    use_case: UseCase
    prompts: Annotated[
        PromptsConfig | None, Field(description="the prompts; not needed with responses (they come from that file)")
    ] = None
    responses: ResponsesConfig | None = None
    model: ModelConfig = Field(default_factory=lambda: ModelConfig())
    output: OutputConfig = Field(default_factory=lambda: OutputConfig())

    @model_validator(mode="after")
    def _prompts_or_responses(self) -> AssessConfig:
        if self.prompts is None and self.responses is None:
            raise ValueError("give prompts (prompts.path or prompts.items) or your own responses (responses.path)")
        check_threshold_scope(self.thresholds, self.use_case)
        self._check_person_groups()
        return self

    def _check_person_groups(self) -> None:
        """Where a classification's person groups come from, checked before anything is generated: group columns
        per attribute exist in an own responses table only, and one group column cannot give an intersection."""
        if self.use_case.task != "classification":
            return
        if self.classification.group_columns and self.responses is None:
            raise ValueError(
                "classification.group_columns: group columns are read from your own responses table (responses.path); "
                "with generated responses give the person's group with prompts.group_column"
            )
        one_column = (self.prompts is not None and self.prompts.group_column) or (
            self.responses is not None and self.responses.person_group_column
        )
        if one_column and self.use_case.intersections and not self.classification.group_columns:
            raise ValueError(
                f"use_case.intersections: the person group column {one_column!r} holds one group per person; an "
                "intersection needs a column per attribute (classification.group_columns in a responses table)"
            )

    def run_settings(self) -> RunSettings:
        """The run sections of this config, unchanged, as :class:`RunSettings` (generation.store defaults to
        ``generations.sqlite`` in ``output.dir``)."""
        settings = RunSettings(**{name: getattr(self, name) for name in RunSettings.model_fields})
        if settings.generation.store is None:
            store = self.output.dir / "generations.sqlite"
            generation = settings.generation.model_copy(update={"store": store})
            settings = settings.model_copy(update={"generation": generation})
        return settings

    @field_validator("use_case")
    @classmethod
    def _prompts_elsewhere(cls, value: UseCase) -> UseCase:
        if value.prompts:
            raise ValueError("put the prompts in the prompts section (prompts.path or prompts.items)")
        if value.mentions_protected_groups is not None:
            # an assessment always has prompts, and the FTU check reads them: a stated answer would be ignored
            raise ValueError(
                "mentions_protected_groups is for planning without prompts (evenhand plan); an assessment checks "
                "FTU on its prompts: remove it"
            )
        return value

    def use_case_with(self, prompts: list[str]) -> UseCase:
        """The use case with its prompts; the stereotype classifier counts as configured when scoring names one."""
        data = self.use_case.model_dump() | {"prompts": prompts}
        data["stereotype_classifier"] = data["stereotype_classifier"] or self.scoring.stereotype is not None
        return UseCase.model_validate(data)

    def resolve_paths(self, base: Path) -> AssessConfig:
        """One rule for every path of a config file: ``~`` is the home folder, and a relative path is relative to
        ``base``, the config file's folder (so a run behaves the same from any working directory)."""

        def fix(p: Path | None) -> Path | None:
            if p is None:
                return None
            p = p.expanduser()
            return p if p.is_absolute() else (base / p)

        data = self.model_copy(deep=True)
        if data.prompts is not None:
            data.prompts.path = fix(data.prompts.path)
        if data.responses is not None:
            data.responses.path = fix(data.responses.path) or data.responses.path
        data.generation.store = fix(data.generation.store)
        if isinstance(data.scoring.cache, Path):
            data.scoring.cache = fix(data.scoring.cache)
        data.output.dir = fix(data.output.dir) or data.output.dir
        if data.model.local_folder() is not None:  # ./models/m in a config: beside the config, like every path
            data.model.model = str(fix(data.model.local_folder()))
        return data


def check_store_path(path: Path | None) -> None:
    """Raise ``ValueError`` naming ``generation.store`` when it is a folder or an existing file that is not SQLite
    (a typo there would otherwise surface as a bare ``sqlite3`` error after the model is loaded)."""
    if path is None or not path.exists():
        return
    if path.is_dir():
        raise ValueError(f"generation.store {path} is a folder; give a file name such as generations.sqlite")
    with path.open("rb") as handle:
        head = handle.read(16)
    if head and head != b"SQLite format 3\x00":
        raise ValueError(f"generation.store {path} is not a SQLite file (the resumable store); give another file")


def check_threshold_scope(rules: Any, use_case: UseCase) -> None:
    """Every threshold's attribute is one the use case checks, and its groups are groups of that attribute (a rule
    that can match nothing is a config error, reported before anything runs)."""
    from evenhand.text.counterfactual import attribute_groups

    specs = use_case.attribute_specs
    for i, rule in enumerate(rules):
        where = f"thresholds.{i}"
        if rule.attribute is not None and rule.attribute not in specs:
            raise ValueError(f"{where}.attribute: {rule.attribute!r} is not checked here; attributes: {list(specs)}")
        if rule.groups:
            names = [rule.attribute] if rule.attribute is not None else list(specs)
            known = {g for n in names for g in attribute_groups(specs[n])}
            unknown = [g for g in rule.groups if g not in known]
            if unknown:
                raise ValueError(f"{where}.groups: {unknown} not among the groups {sorted(known)}")


def format_errors(source: str, exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        msg = str(err["msg"]).removeprefix("Value error, ")
        loc = ".".join(str(p) for p in err["loc"])
        names_itself = re.match(r"^[\w.]+: ", msg) and (not loc or msg.startswith(f"{loc}."))
        if names_itself:  # a check across sections (or of a whole section) names its key itself
            lines.append(f"{source}: {msg}")
        else:
            lines.append(f"{source}: {loc or '(top level)'}: {msg}")
    # one line for all of them (scripts grep one line per error); the source is named once
    return lines[0] + "".join(f"; {line.removeprefix(f'{source}: ')}" for line in lines[1:])


def parse_config(data: Any, source: str = "config", base: Path | None = None) -> AssessConfig:
    """Validate an already-parsed config mapping; ``base`` resolves relative paths."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of sections, got {type(data).__name__}")
    try:
        config = AssessConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_errors(source, exc)) from None
    return config.resolve_paths(base) if base is not None else config


def load_config(path: str | os.PathLike[str]) -> AssessConfig:
    """Read and validate a YAML (``.yaml``/``.yml``) or TOML (``.toml``) config file."""
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{p} is a folder; give the config file (.yaml, .yml or .toml)")
    if not p.is_file():
        raise ConfigError(f"config file not found: {p}")
    try:
        text = p.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows editors) is not part of the YAML
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not a text file (a config is UTF-8 YAML or TOML)") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        if p.suffix.lower() == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # Python 3.10: the tomli backport (a dependency there)
                import tomli as tomllib
            data: Any = tomllib.loads(text)
        elif p.suffix.lower() in (".yaml", ".yml"):
            data = yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader: no Python objects
        else:
            raise ConfigError(f"{p}: unknown config format {p.suffix!r}; use .yaml, .yml or .toml")
    except (yaml.YAMLError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"{p}: not valid {p.suffix[1:].upper()}: {_one_line(exc)}") from None
    return parse_config(data, source=str(p), base=p.parent.resolve())


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key written twice in one mapping is an error: by default the second
    silently wins, so a setting the reader sees first would not be the one that runs."""


def _unique_keys(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # "<<: *anchor" may repeat by design
            continue
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, (str, int, float, bool)):  # an odd key (a list): the schema rejects it by name
            continue
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} is written twice in one section", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_keys)


def _one_line(exc: Exception) -> str:
    """A parser's error on one line: PyYAML's spans several (the line quoted, a caret under it)."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        hint = "; indent with spaces, not tabs" if "\\t" in str(exc.problem) else ""
        return f"{exc.problem} (line {mark.line + 1}, column {mark.column + 1}){hint}"
    return " ".join(str(exc).split())
