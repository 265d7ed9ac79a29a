"""The whole configuration file (:class:`AssessConfig`): the run sections plus the prompts, responses, model and
output sections they are read with."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from evenhand.errors import InputError
from evenhand.framework import UseCase

from ._section import _Section
from .inputs import PromptsConfig, ResponsesConfig
from .model import ModelConfig
from .redteam import RedteamConfig
from .run_sections import RunSettings, check_threshold_scope

if TYPE_CHECKING:
    from evenhand.generation.settings import GenerationSettings


class OutputConfig(_Section):
    dir: Path = Path("evenhand-out")
    html: bool = True
    include_responses: bool = True
    responses: Annotated[
        Literal["csv", "parquet", "none"],
        Field(description="the responses with every score and their group, beside results.json"),
    ] = "csv"


#: The run sections only some tasks read, and those tasks: a section set for another task would be ignored, so it is
#: a config error, as an unknown key is (the LL144 table is made for estimation and, when asked, classification)
TASK_SECTIONS: dict[str, tuple[str, ...]] = {
    "classification": ("classification",),
    "recommendation": ("recommendation",),
    "estimation": ("estimation",),
    "impact_ratios": ("classification", "estimation"),
}


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
    redteam: Annotated[
        RedteamConfig | None,
        Field(description="evenhand redteam only: the system prompts to run the use case under (docs/redteam.md)"),
    ] = None

    @model_validator(mode="after")
    def _prompts_or_responses(self) -> AssessConfig:
        if self.prompts is None and self.responses is None:
            raise InputError("give prompts (prompts.path or prompts.items) or your own responses (responses.path)")
        check_threshold_scope(self.thresholds, self.use_case)
        self._check_task_sections()
        self._check_person_groups()
        if self.classification.tool is not None and self.responses is None and self.model.provider == "local":
            raise InputError(
                "classification.tool: the local model cannot call tools; use an OpenAI-compatible server, or ask for "
                "JSON in the prompt and read it with classification.json_field"
            )
        if self.prompts is not None and self.prompts.subject_column and self.use_case.name_subject != "first":
            raise InputError("use_case.name_subject: prompts.subject_column names each prompt's subject; give one of "
                             "the two")  # fmt: skip
        return self

    def _check_task_sections(self) -> None:
        """A section for another task (``recommendation: {k: 3}`` in a classification config) would change nothing:
        named with the task, before anything runs. A section left at its defaults (a config dumped whole and read
        again) changes nothing either way and is accepted."""
        task = self.use_case.task
        for name, tasks in TASK_SECTIONS.items():
            section = getattr(self, name)
            if task not in tasks and section != type(section)():
                raise InputError(
                    f"{name}: this section is for task {' or '.join(tasks)}; the use case's task is {task}, which "
                    "never reads it: remove it"
                )

    def _check_person_groups(self) -> None:
        """Where a classification's person groups come from, checked before anything is generated: group columns
        per attribute exist in an own responses table only, and one group column cannot give an intersection."""
        if self.use_case.task != "classification":
            return
        if self.classification.group_columns and self.responses is None:
            raise InputError(
                "classification.group_columns: group columns are read from your own responses table (responses.path); "
                "with generated responses give the person's group with prompts.group_column"
            )
        one_column = (self.prompts is not None and self.prompts.group_column) or (
            self.responses is not None and self.responses.person_group_column
        )
        if one_column and self.use_case.intersections and not self.classification.group_columns:
            raise InputError(
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

    def generation_settings(self) -> GenerationSettings:
        """How the model is asked (:class:`~evenhand.generation.GenerationSettings`), by one rule: every key of the
        ``model`` and ``generation`` sections named as a setting is that setting (``model.temperature`` ->
        ``temperature``, ``generation.max_consecutive_failures`` -> ``max_consecutive_failures``, ...;
        :meth:`GenerationSettings.from_sections`). The other model keys are the client's
        (:meth:`ModelConfig.client_spec`) and the cost estimate's (``prices``); ``concurrency`` is
        :meth:`ModelConfig.fixed_concurrency`, the one setting that depends on the provider."""
        from evenhand.generation.settings import GenerationSettings

        model = self.model
        reply: dict[str, Any] = {}
        if self.prompts is not None and self.prompts.context_placement != "user":
            reply["context_placement"] = self.prompts.context_placement
        if self.use_case.task == "classification":  # the tools classification.tool reads, unless declared
            reply |= self.classification.tools_to_send(model.tools, model.tool_choice)
        return GenerationSettings.from_sections(
            model, self.run_settings().generation, concurrency=model.fixed_concurrency(), **reply
        )

    @field_validator("use_case")
    @classmethod
    def _prompts_elsewhere(cls, value: UseCase) -> UseCase:
        if value.templates is not None:
            raise InputError("put the templates in the prompts section (prompts.items or prompts.path, with "
                             "prompts.templates: true)")  # fmt: skip
        if value.prompts:
            raise InputError("put the prompts in the prompts section (prompts.path or prompts.items)")
        if value.mentions_protected_groups is not None:
            # an assessment always has prompts, and the FTU check reads them: a stated answer would be ignored
            raise InputError(
                "mentions_protected_groups is for planning without prompts (evenhand plan); an assessment checks "
                "FTU on its prompts: remove it"
            )
        return value

    def use_case_with(self, prompts: list[Any], subjects: list[str | None] | None = None) -> UseCase:
        """The use case with its prompts (with ``prompts.templates``: the templates, which the use case fills with
        names) and, from ``prompts.subject_column``, each prompt's subject; the stereotype classifier counts as
        configured when scoring names one."""
        data = self.use_case.model_dump() | {"prompts": prompts}
        templates = self.prompts.templates if self.prompts is not None else None
        if templates is not None and prompts:
            data |= {"prompts": [], "templates": templates.model_dump() | {"templates": prompts}}
        if subjects is not None:
            data["name_subject"] = subjects
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
        for model in (data.model, data.ftu.reader, data.judge):  # ./models/m in a config: beside the config
            if model is not None and model.local_folder() is not None:
                model.model = str(fix(model.local_folder()))
        return data


def check_store_path(path: Path | None) -> None:
    """Raise ``ValueError`` naming ``generation.store`` when it is a folder or an existing file that is not SQLite
    (a typo there would otherwise surface as a bare ``sqlite3`` error after the model is loaded)."""
    if path is None or not path.exists():
        return
    if path.is_dir():
        raise InputError(f"generation.store {path} is a folder; give a file name such as generations.sqlite")
    with path.open("rb") as handle:
        head = handle.read(16)
    if head and head != b"SQLite format 3\x00":
        raise InputError(f"generation.store {path} is not a SQLite file (the resumable store); give another file")
