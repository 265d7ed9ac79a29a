"""A structural check of a results file before anything reads it (``load_results``, ``evenhand report``).

A results.json may have been edited by hand, truncated or produced by another tool. The report reads numbers as
numbers and lists as lists; this check says which key is wrong ("metrics[3].value: Input should be a valid
number") instead of letting a ``TypeError`` surface from deep inside the rendering. Keys are checked where the
report reads them; unknown keys are allowed (minor schema versions add keys).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from evenhand.errors import InputError

Number = float | None


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class _UseCase(_Open):
    name: str = "LLM use case"
    task: str


class _FTU(_Open):
    satisfied: bool | None = None
    n_flagged: int = 0
    n_prompts: int = 0
    description: str = ""


class _PlannedMetric(_Open):
    key: str
    name: str
    attribute: str | None = None
    reason: str = ""
    section: str = ""


class _NotApplicable(_Open):
    family: str
    attribute: str | None = None
    reason: str = ""


class _Plan(_Open):
    use_case: _UseCase
    ftu: dict[str, _FTU] = Field(default_factory=dict)
    metrics: list[_PlannedMetric] = Field(default_factory=list)
    not_applicable: list[_NotApplicable] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)


#: A metric row, declared once: the metrics table's columns in order (``Assessment.metrics``, metrics.csv, results.json
#: ``metrics``), each with the type and default the check reads it as, or None where nothing reads it back.
METRIC_ROW: tuple[tuple[str, tuple[Any, Any] | None], ...] = (
    ("metric", (str, ...)),
    ("full_name", None),
    ("key", None),
    ("family", (str, ...)),
    ("attribute", (str | None, None)),
    ("comparison", (str, "all")),
    ("group_a", None),
    ("group_b", None),
    ("class", None),
    ("value", (Number, None)),
    ("ci_low", (Number, None)),
    ("ci_high", (Number, None)),
    ("ci_level", None),
    # since 2.1 (issue 37): how the interval was computed ("percentile", "bca", "clopper-pearson on effective
    # prompts", "newcombe (clopper-pearson) on effective prompts", ...: MetricSpec.interval, docs/uncertainty.md)
    ("ci_method", (str | None, None)),
    # since 2.1 (added within it; older files lack them): a distance of two groups (|DP|, SCSP, WCSP, ...): the signed
    # difference behind it, group A minus group B
    ("signed_difference", (Number, None)),
    ("signed_low", (Number, None)),
    ("signed_high", (Number, None)),
    ("signed_direction", (str | None, None)),
    ("signed_measure", (str | None, None)),
    # since 2.1 (issue 37): a gap between two groups' flagged shares (TSD) corrected for the scorer's per-group
    # error as its audit measured it, with the audit's uncertainty in the interval (docs/scorers.md)
    ("corrected_value", (Number, None)),
    ("corrected_low", (Number, None)),
    ("corrected_high", (Number, None)),
    # each group's flagged share corrected the same way (group_a's, group_b's)
    ("corrected_a", (Number, None)),
    ("corrected_b", (Number, None)),
    ("noise_floor", (Number, None)),
    ("gap", (Number, None)),
    ("gap_low", (Number, None)),
    ("gap_high", (Number, None)),
    ("p_value", (Number, None)),
    ("p_adjusted", (Number, None)),
    ("n", None),
    ("range_low", (Number, None)),
    ("range_high", (Number, None)),
    ("higher_is_fairer", (bool | None, False)),  # null: a signed difference, closer to 0 is fairer (since 2.1)
    ("passed", (bool | None, None)),
    ("severity", None),
    ("reason", (str | None, None)),
)
METRIC_COLUMNS = [name for name, _ in METRIC_ROW]
#: The tests table's columns (``Assessment.tests``, results.json ``tests``), in order.
TEST_COLUMNS = [
    "metric", "key", "attribute", "comparison", "group_a", "group_b", "rate_a", "rate_b", "difference", "n_a", "n_b",
    "units_a", "units_b", "p_value", "p_adjusted", "method", "n_permutations", "reason",
]  # fmt: skip

_CHECKED: dict[str, Any] = {name: checked for name, checked in METRIC_ROW if checked is not None}
_MetricRow: type[_Open] = create_model("_MetricRow", __base__=_Open, **_CHECKED)


class _Summary(_Open):
    n_prompts: int = 0
    n_responses: int = 0
    n_ok: int = 0
    n_failed: int = 0
    non_completion_rate: dict[str, Number] = Field(default_factory=dict)
    passed: bool | None = None


class _Settings(_Open):
    ci: Number = None
    n_resamples: int | None = None


class _AuditUnit(_Open):
    attribute: str
    group: str
    term: str | None = None
    mean_benign: Number = None
    fpr: Number = None
    subgroup_auc: Number = None
    bpsn_auc: Number = None
    bnsp_auc: Number = None


class _ScorerAudit(_Open):  # since 2.1
    kind: str
    scorer: str = ""
    threshold: Number = None
    auc: Number = None
    groups: list[_AuditUnit] = Field(default_factory=list)
    terms: list[_AuditUnit] = Field(default_factory=list)
    controls: _AuditUnit | None = None
    findings: list[str] = Field(default_factory=list)


class _Results(_Open):
    schema_: str = Field(alias="schema")
    schema_version: str
    plan: _Plan
    metrics: list[_MetricRow]  # type: ignore[valid-type]
    summary: _Summary = Field(default_factory=_Summary)
    settings: _Settings = Field(default_factory=_Settings)
    timings: dict[str, Number] = Field(default_factory=dict)
    model: dict[str, Any] = Field(default_factory=dict)
    tests: list[dict[str, Any]] = Field(default_factory=list)
    groups: list[dict[str, Any]] = Field(default_factory=list)
    distributions: list[dict[str, Any]] = Field(default_factory=list)
    pairs: list[dict[str, Any]] = Field(default_factory=list)
    worst_examples: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    caveats: list[str] = Field(default_factory=list)
    thresholds: list[dict[str, Any]] = Field(default_factory=list)
    verdict: dict[str, Any] | None = None
    scorer_audit: dict[str, _ScorerAudit] = Field(default_factory=dict)


def check_results(doc: Any, source: str) -> None:
    """Raise ValueError naming the first wrong keys of a results document (``source``: the file, for messages).

    A section the document lacks (a file from an older evenhand, or edited by hand) is added to ``doc`` with the
    defaults it is checked against, so that what reads it (the report's template) finds it: it used to end exit 3
    with the template's ``UndefinedError`` (faults18)."""
    try:
        _Results.model_validate(doc)
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:3]:
            loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
            problems.append(f"{loc or '(top level)'}: {err['msg']}")
        more = f" (and {exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
        raise InputError(f"{source} is not a valid evenhand results file: {'; '.join(problems)}{more}") from None
    _fill_defaults(doc, _Results)


def _fill_defaults(doc: dict[str, Any], model: type[BaseModel]) -> None:
    """Add to ``doc`` each key of ``model`` it lacks that has a default, and the same inside each section that is
    itself declared as a model (``summary.non_completion_rate``); keys given are left as they are."""
    for name, declared in model.model_fields.items():
        key = declared.alias or name
        if key not in doc and not declared.is_required():
            default = declared.get_default(call_default_factory=True)
            doc[key] = default.model_dump() if isinstance(default, BaseModel) else default
        section = declared.annotation
        if isinstance(section, type) and issubclass(section, BaseModel) and isinstance(doc.get(key), dict):
            _fill_defaults(doc[key], section)
