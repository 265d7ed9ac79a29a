"""Where an assessment's inputs come from: the prompts, or the user's own responses."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from evenhand.errors import InputError
from evenhand.framework.use_case import TemplateOptions

from ._section import MAX_RESPONSES, _Section


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
    subject_column: Annotated[
        str | None,
        Field(description="the person each prompt is about, as written in it: only their name is swapped and decides "
              "FTU (use_case.name_subject, per prompt)"),
    ] = None  # fmt: skip
    templates: Annotated[
        TemplateOptions | None,
        Field(description="the prompts are templates ({name}, {first_name}, {last_name}, {title}, {they}, {them}, "
              "{their}, ...) filled with names of each group: true, or {names_per_group, seed, attributes}"),
    ] = None  # fmt: skip

    @field_validator("templates", mode="before")
    @classmethod
    def _templates_on(cls, value: Any) -> Any:
        return {} if value is True else (None if value is False else value)

    @model_validator(mode="after")
    def _one_source(self) -> PromptsConfig:
        if self.path is None and not self.items:
            raise InputError("give prompts.path (a file) or prompts.items (a list of prompts)")
        if self.path is not None and self.items:
            raise InputError("give either prompts.path or prompts.items, not both")
        if self.subject_column is not None and self.templates is not None:
            raise InputError("prompts.subject_column: templates name their subject ({name}); leave the column out")
        if self.subject_column is not None and self.path is None:
            raise InputError("prompts.subject_column names a column of prompts.path; inline prompts.items have none")
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
