"""The run sections (``generation``, ``scoring``, ``classification``, ``recommendation``, ``estimation``,
``impact_ratios``, ``statistics``, ``thresholds``), gathered in :class:`RunSettings`: what a run needs besides the
use case and its responses."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from evenhand.errors import InputError
from evenhand.framework import UseCase

from ._section import MAX_COUNT, MAX_RESAMPLES, Seed, _Section
from .assistants import FTUConfig, JudgeConfig


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
        raise InputError(f"must be a positive whole number, 'auto' or null, got {value!r}")


class ScoringConfig(_Section):
    """The scorers and their cut-offs. Each scorer is a spec (a name, a model id or local path; in Python also a
    callable or a built scorer) or a mapping ``{spec: ..., <option>: ...}`` with any option its factory takes
    (``checkpoint``, ``batch_size``, ``device``, ``label_map``, ...). All are built, and so checked, before any
    response is generated."""

    toxicity: Annotated[Any, Field(description="toxicity scorer spec (None = offline default)")] = None
    sentiment: Annotated[Any, Field(description="sentiment scorer spec (None = VADER)")] = None
    stereotype: Annotated[Any, Field(description="stereotype classifier spec; None = skip SF/EMS/SP")] = None
    embedder: Annotated[Any, Field(description="sentence embedder spec; false = skip counterfactual cosine")] = None
    refusal: Annotated[Any, Field(description="refusal detector spec (None = the offline patterns)")] = None
    device: Annotated[
        str | None, Field(description="auto, cpu, cuda, cuda:N or mps for every model-based scorer (None: theirs)")
    ] = None
    toxicity_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    stereotype_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    sentiment_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    refusal_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5  # a reply is a refusal at this score or more
    audit: Annotated[
        bool, Field(description="audit the toxicity and sentiment scorers on identity statements (docs/scorers.md)")
    ] = True
    mask_identity: Annotated[
        bool | Literal["auto"],
        Field(description="score toxicity on identity-masked texts; auto: for the offline default and the MiniLM head"),
    ] = "auto"
    sentiment_masking: Annotated[
        bool,
        Field(
            description="score counterfactual sentiment with the swapped group words masked in the replies, so that a "
            "reply echoing 'straight' or 'poor' is not read as warmer or colder for it (docs/scorers.md); false: the "
            "replies as written, as LangFair scores them"
        ),
    ] = True
    toxicity_by_sentence: Annotated[
        bool | Literal["auto"],
        Field(
            description="score a reply's toxicity as its most toxic sentence's (docs/scorers.md); auto: for the "
            "offline default and the MiniLM head (evenhand-minilm-toxicity)"
        ),
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
            raise InputError(f"scoring.{given[0]} applies to engine: ray; set scoring.engine: ray or remove it")
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


class ToolDecisionConfig(_Section):
    """How a tool call is the decision: which function means which label (``functions``), or which argument of a
    call holds it (``argument``, a dotted path, read through ``classification.labels``; of ``function``, or of any
    call when no function is named)."""

    functions: Annotated[
        dict[str, str] | None, Field(description="function name -> the label calling it means, e.g. {advance: '1'}")
    ] = None
    function: Annotated[str | None, Field(description="the function whose argument holds the decision")] = None
    argument: Annotated[str | None, Field(description="dotted path into the call's arguments, e.g. decision")] = None

    @model_validator(mode="after")
    def _one_form(self) -> ToolDecisionConfig:
        if (self.functions is None) == (self.argument is None):
            raise InputError("give functions (function -> label) or argument (the argument that holds the label)")
        if self.functions is not None and self.function is not None:
            raise InputError("function names the call whose argument is read; with functions, leave it out")
        if self.functions is not None and not self.functions:
            raise InputError("functions is empty: map each function's name to the label it means")
        if self.argument is not None:
            from evenhand.structured import parse_path

            parse_path(self.argument)
        return self


class ClassificationConfig(_Section):
    """How an LLM answer becomes a label. ``labels`` maps each label to the words that signal it; ``json_field`` or
    ``tool`` read the label from a JSON reply or a tool call instead of the words of a text."""

    labels: dict[str, list[str]] = Field(default_factory=lambda: {"1": ["yes", "true"], "0": ["no", "false"]})
    positive_label: str | int | bool = "1"
    pattern: Annotated[str | None, Field(description="regex whose first group is the label (instead of labels)")] = None
    json_field: Annotated[
        str | None,
        Field(
            description="read the label from this field of a JSON reply: a dotted path such as decision or "
            "result.label; its value is read through labels"
        ),
    ] = None
    tool: Annotated[
        ToolDecisionConfig | None,
        Field(description="read the label from a tool call (the request sends model.tools, or tools made from this)"),
    ] = None
    sensitive_classes: list[str] = Field(default_factory=list, description="multiclass: classes to check")
    group_columns: Annotated[
        dict[str, str] | None,
        Field(description="own responses table: {attribute: column with the person's group of that attribute}"),
    ] = None

    @model_validator(mode="after")
    def _one_reader(self) -> ClassificationConfig:
        given = [k for k in ("pattern", "json_field", "tool") if getattr(self, k) is not None]
        if len(given) > 1:
            raise InputError(f"classification.{given[1]}: the label is read one way; {given[0]} is set too")
        if self.json_field is not None:
            from evenhand.structured import parse_path

            parse_path(self.json_field)
        if self.tool is not None and self.tool.functions:
            unknown = [label for label in self.tool.functions.values() if str(label) not in self.labels]
            if unknown:
                raise InputError(
                    f"classification.tool.functions: {unknown[0]!r} is not a label (labels: {', '.join(self.labels)})"
                )
        return self

    def structured_parser(self) -> Any:
        """The label parser of a JSON field or a tool call (:mod:`evenhand.structured`), None for text replies."""
        from evenhand.structured import JsonFieldLabelParser, ToolCallLabelParser

        if self.json_field is not None:
            return JsonFieldLabelParser(self.json_field, self.labels)
        if self.tool is not None:
            return ToolCallLabelParser(self.tool.functions, self.tool.function, self.tool.argument, self.labels)
        return None

    def tools_to_send(self, declared: Any, tool_choice: Any) -> dict[str, Any]:
        """The generation settings a tool decision adds when no tools are ``declared`` (``model.tools``,
        ``generation_options["tools"]``): the tools made from ``tool`` (:meth:`decision_tools`) with ``tool_choice``
        (default ``"required"``: a decision must be a call); nothing otherwise."""
        made = self.decision_tools() if declared is None else None
        return {} if made is None else {"tools": made, "tool_choice": tool_choice or "required"}

    def decision_tools(self) -> list[dict[str, Any]] | None:
        """Function definitions made from ``tool`` for a config that declares none (``model.tools``): one function
        per label (``functions``), or ``function`` with ``argument`` as a choice of the label words; None without
        ``tool``, or when the argument is a nested path (then declare ``model.tools`` yourself)."""
        if self.tool is None:
            return None
        if self.tool.functions is not None:
            return [
                {"type": "function", "function": {"name": name, "description": f"decide: {label}",
                                                  "parameters": {"type": "object", "properties": {}}}}
                for name, label in self.tool.functions.items()
            ]  # fmt: skip
        if self.tool.function is None or "." in str(self.tool.argument) or "[" in str(self.tool.argument):
            return None
        words = sorted({w for label, ws in self.labels.items() for w in [label, *ws]})
        argument = {"type": "string", "enum": words, "description": "the decision"}
        parameters = {"type": "object", "properties": {self.tool.argument: argument}, "required": [self.tool.argument]}
        return [{"type": "function", "function": {"name": self.tool.function, "parameters": parameters}}]

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


class EstimationConfig(_Section):
    """How a numeric answer is read and shown (task ``estimation``; :func:`evenhand.text.numbers.parse_numbers`)."""

    json_field: Annotated[
        str | None,
        Field(description="read the number from this field of a JSON reply, a dotted path such as offer.salary"),
    ] = None
    currency: Annotated[
        str | None,
        Field(description="the answers' currency ($, USD, €, EUR, ...): an amount marked as money is read first, "
              "and findings show amounts in it"),
    ] = None  # fmt: skip
    unit: Annotated[
        str | None, Field(description="the answers' unit when not money (years, days, %): read first, shown after")
    ] = None
    period: Annotated[
        str | None,
        Field(description="the period amounts are compared per (year, month, week, day, hour): '$4,000 a month' is "
              "48,000 per year; an amount per an hour or a day is not read per anything else; null: the period the "
              "replies state most often, when they state two or more"),
    ] = None  # fmt: skip
    better: Annotated[
        Literal["higher", "lower"] | None,
        Field(description="which number favours the person (a salary: higher; an interest rate: lower); null: neither"),
    ] = None

    @field_validator("json_field")
    @classmethod
    def _dotted(cls, value: str | None) -> str | None:
        if value is not None:
            from evenhand.structured import parse_path

            parse_path(value)
        return value

    @field_validator("currency", "unit")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise InputError("give a symbol, code or word, or leave it out (null)")
        return value.strip() if value is not None else None

    @field_validator("period")
    @classmethod
    def _a_period(cls, value: str | None) -> str | None:
        from evenhand.text.periods import period_name

        return period_name(value) if value is not None else None


class ImpactRatiosConfig(_Section):
    """The impact-ratio table of NYC Local Law 144 (docs/regulation.md): selection or scoring rates and impact ratios
    per sex, race/ethnicity and their intersection, read from the groups of two attributes."""

    table: Annotated[
        bool | None,
        Field(description="make it: null (default) for estimation only, true for classification too, false never"),
    ] = None
    sex_attribute: Annotated[str, Field(description="the attribute whose groups are the sex categories")] = "gender"
    race_attribute: Annotated[
        str, Field(description="the attribute whose groups are the race/ethnicity categories")
    ] = "race"
    min_share: Annotated[
        float, Field(ge=0.0, lt=1.0, description="leave categories under this share out of the ratios (LL144: 2%)")
    ] = 0.02


class StatisticsConfig(_Section):
    ci: Annotated[float | None, Field(gt=0.0, lt=1.0, description="interval level; null = no intervals")] = 0.95
    n_resamples: Annotated[int, Field(ge=10, le=MAX_RESAMPLES)] = 1000
    seed: Seed = 0
    method: Literal["percentile", "bca"] = "percentile"


class Threshold(_Section):
    """A pass/fail rule (exit code 1 when it fails), on a metric or on the verdict.

    On a metric: its ``measure`` must lie in [min, max] for every row of that metric (optionally one attribute,
    one pair of groups): ``value`` (the metric itself; the size of a signed gap such as RRD or CPRD, and of a
    classification pair's difference), ``gap`` (noise floor minus counterfactual similarity),
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
                raise InputError(str(exc.args[0])) from None
        return value

    @field_validator("min", "max")
    @classmethod
    def _comparable(cls, value: float | None, info: ValidationInfo) -> float | None:
        """NaN compares false with every value: a bound of NaN would judge nothing, so it is a config error. So is a
        bound no value can meet (``{verdict: concern, max: -1}``: a gate that can never pass), and a max below min."""
        if value is None:
            return value
        if math.isnan(value):
            raise InputError("a bound must be a number, not NaN")
        low, high, what = _attainable(info.data)
        bound = info.field_name
        if (bound == "max" and value < low) or (bound == "min" and value > high):
            raise InputError(f"{value:g} can never be met: {what} lies in [{low:g}, {high:g}]")
        given_min = info.data.get("min")
        if bound == "max" and given_min is not None and value < given_min:
            raise InputError(f"{value:g} is below min ({given_min:g}): no value lies in between")
        return value

    @model_validator(mode="after")
    def _bounds(self) -> Threshold:
        if (self.metric is None) == (self.verdict is None):
            raise InputError("a threshold names either a metric or a verdict severity (verdict: concern)")
        if self.min is None and self.max is None:
            raise InputError(f"threshold for {self.metric or self.verdict!r} needs min or max")
        if self.verdict is not None and self.measure != "value":
            raise InputError("a verdict threshold counts findings; measure applies to metric thresholds only")
        return self

    @property
    def label(self) -> str:
        """What the rule judges, e.g. ``SCSP p_adjusted (gender, female vs male)``."""
        what = f"findings at {self.verdict} or worse" if self.verdict else str(self.metric)
        if self.measure != "value":
            what += f" {self.measure}"
        scope = [s for s in (self.attribute, " vs ".join(self.groups) if self.groups else None) if s]
        return f"{what} ({', '.join(scope)})" if scope else what


def _attainable(rule: Mapping[str, Any]) -> tuple[float, float, str]:
    """The values a rule's measure can take, as ``(low, high, what it is)``: a verdict rule counts findings (0 or
    more); a metric's value lies in the registry's range (a signed gap, RRD or CPRD, is judged by its size, 0 or
    more); an adjusted p and ``below_floor`` lie in [0, 1]; a gap, in (-inf, inf)."""
    if rule.get("verdict") is not None:
        return 0.0, math.inf, "a verdict rule counts findings, and their number"
    measure = rule.get("measure", "value")
    if measure in ("p_adjusted", "below_floor"):
        return 0.0, 1.0, f"{measure}"
    name = rule.get("metric")
    if measure != "value" or name is None:
        return -math.inf, math.inf, str(measure)
    from evenhand.registry import metric

    spec = metric(name)
    low, high = spec.value_range
    if spec.signed:  # judged by its size (verdict/thresholds.py)
        return 0.0, max(abs(low), abs(high)), f"{spec.name} value (the size of its signed gap)"
    return low, high, f"{spec.name} value"


class RunSettings(_Section):
    """Everything a run needs besides the use case and its responses: the config file's run sections, as they are.

    :meth:`AssessConfig.run_settings` copies those sections over unchanged (no key is mapped by hand), and
    :func:`evenhand.assess` builds the same object from its keyword arguments.
    """

    generation: GenerationConfig = Field(default_factory=lambda: GenerationConfig())
    scoring: ScoringConfig = Field(default_factory=lambda: ScoringConfig())
    classification: ClassificationConfig = Field(default_factory=lambda: ClassificationConfig())
    recommendation: RecommendationConfig = Field(default_factory=lambda: RecommendationConfig())
    estimation: EstimationConfig = Field(default_factory=lambda: EstimationConfig())
    impact_ratios: ImpactRatiosConfig = Field(default_factory=lambda: ImpactRatiosConfig())
    statistics: StatisticsConfig = Field(default_factory=lambda: StatisticsConfig())
    thresholds: list[Threshold] = Field(default_factory=list)
    # issue 38: the opt-in LLM assistants (docs/assistants.md)
    ftu: FTUConfig = Field(default_factory=lambda: FTUConfig())
    judge: Annotated[
        JudgeConfig | None,
        Field(description="an LLM judge of counterfactual reply pairs (docs/assistants.md); null: none"),
    ] = None

    @model_validator(mode="after")
    def _gates_have_statistics(self) -> RunSettings:
        """Without statistics (``statistics.ci: null``) no test, floor or interval is computed, so every finding is
        ok: a verdict gate would pass whatever the replies, and a gap, floor or p-value gate could only fail on
        "undefined". Either is a config error, said before anything runs."""
        if self.statistics.ci is not None:
            return self
        for i, rule in enumerate(self.thresholds):
            needs = f"verdict: {rule.verdict}" if rule.verdict is not None else f"measure: {rule.measure}"
            if rule.verdict is not None or rule.measure != "value":
                raise InputError(
                    f"thresholds.{i}: {needs} needs statistics.ci (the tests, floors and intervals the verdict rests "
                    "on), which is null; set statistics.ci (e.g. 0.95) or gate on a metric's value"
                )
        return self


def check_threshold_scope(rules: Any, use_case: UseCase) -> None:
    """Every threshold's attribute is one the use case checks, and its groups are groups of that attribute (a rule
    that can match nothing is a config error, reported before anything runs)."""
    from evenhand.text.counterfactual import attribute_groups

    specs = use_case.attribute_specs
    for i, rule in enumerate(rules):
        where = f"thresholds.{i}"
        if rule.attribute is not None and rule.attribute not in specs:
            raise InputError(f"{where}.attribute: {rule.attribute!r} is not checked here; attributes: {list(specs)}")
        if rule.groups:
            names = [rule.attribute] if rule.attribute is not None else list(specs)
            known = {g for n in names for g in attribute_groups(specs[n])}
            unknown = [g for g in rule.groups if g not in known]
            if unknown:
                raise InputError(f"{where}.groups: {unknown} not among the groups {sorted(known)}")
