"""Where an assessment's inputs come from: the prompts, or the user's own responses."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from evenhand.errors import InputError
from evenhand.framework.use_case import TemplateOptions

from ._section import MAX_RESPONSES, _Section


class PromptsConfig(_Section):
    """Where the prompts come from: a file (CSV, TSV, JSONL, JSON, Parquet or one prompt per line in .txt). A prompt
    is a text, or (JSONL, JSON, Parquet) a list of messages: a conversation (docs/conversations.md)."""

    path: Path | None = None
    items: list[Any] = Field(
        default_factory=list, description="inline prompts (instead of a file): texts or lists of messages"
    )
    column: Annotated[str, Field(description="the prompt: a text, or a list of {role, content} messages")] = "prompt"
    context_column: Annotated[
        str | None,
        Field(description="retrieved documents per prompt (a text or a list of texts), kept apart from the request"),
    ] = None
    system_prompt_column: Annotated[
        str | None, Field(description="a system prompt per prompt (model.system_prompt for the rows without one)")
    ] = None
    context_placement: Annotated[
        Literal["user", "system"],
        Field(
            description="where the documents are sent: before the request in the last user message, or at the "
            "end of the system message"
        ),
    ] = "user"
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

    @field_validator("items", mode="before")
    @classmethod
    def _prompt_items(cls, value: Any) -> Any:
        """Texts or conversations, every bad one named in the one line (``prompts.items.0 is ...; prompts.items.2
        ...``)."""
        from evenhand.conversation import as_prompt

        if value is None:
            return []
        if not isinstance(value, list):
            raise InputError(f"prompts.items must be a list of prompts, got {type(value).__name__}")
        items, problems = [], []
        for i, item in enumerate(value):
            try:
                items.append(as_prompt(item, f"prompts.items.{i}"))
            except InputError as exc:
                problems.append(str(exc))
        if problems:
            raise InputError("; ".join(problems))
        return items

    @model_validator(mode="after")
    def _one_source(self) -> PromptsConfig:
        if self.path is None and not self.items:
            raise InputError("give prompts.path (a file) or prompts.items (a list of prompts)")
        if self.path is not None and self.items:
            raise InputError("give either prompts.path or prompts.items, not both")
        if self.path is None and (self.context_column or self.system_prompt_column):
            key = "context_column" if self.context_column else "system_prompt_column"
            raise InputError(f"prompts.{key} names a column of prompts.path; inline items carry their own messages")
        if self.subject_column is not None and self.templates is not None:
            raise InputError("prompts.subject_column: templates name their subject ({name}); leave the column out")
        if self.subject_column is not None and self.path is None:
            raise InputError("prompts.subject_column names a column of prompts.path; inline prompts.items have none")
        if self.templates is not None:
            self._check_text_templates()
        return self

    def _check_text_templates(self) -> None:
        """Templates are texts filled with names: a conversation (its turns, documents, system prompt) is refused in
        one line."""
        key = "context_column" if self.context_column else "system_prompt_column" if self.system_prompt_column else ""
        if key:
            raise InputError(
                f"prompts.templates: templates are texts filled with names; prompts.{key} makes conversations of "
                "them: leave one of the two out"
            )
        turns = next((i for i, item in enumerate(self.items) if not isinstance(item, str)), None)
        if turns is not None:
            raise InputError(
                f"prompts.templates: prompts.items.{turns} is a conversation; templates are texts filled with names "
                "({name}, {they}, ...)"
            )


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
