"""The use case as the decision framework sees it (paper section 4): the task, the prompts, the attributes to check
and the stakeholder answers Figure 1 needs; validated once, frozen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from evenhand._validation import MAX_SEED, did_you_mean, number_problem
from evenhand.conversation import Prompt, as_prompt_list, has_conversations
from evenhand.errors import InputError
from evenhand.registry import Intervention
from evenhand.text._names_data import name_index
from evenhand.text.lexicon import BUILTIN_ATTRIBUTES, DEFAULT_ATTRIBUTES, load_lexicon
from evenhand.text.name_subjects import DEFAULT_SUBJECT, SUBJECT_CHOICES

Task = Literal["text_generation", "summarization", "classification", "recommendation", "estimation"]
#: The tasks a use case can have, in the order the CLI and the docs list them.
TASKS: tuple[str, ...] = get_args(Task)
TEXT_TASKS = ("text_generation", "summarization")

__all__ = ["TASKS", "TEXT_TASKS", "Intervention", "NameTemplates", "Task", "TemplateOptions", "UseCase"]


class TemplateOptions(BaseModel):
    """How prompt templates are filled with names (the config's ``prompts.templates``): ``attributes`` whose name
    lists fill them (default: those of the use case's attributes that have name lists, gender and race, together),
    ``names_per_group`` fills per template, and the ``seed`` of the draw."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attributes: list[str] = Field(default_factory=list)
    names_per_group: Annotated[int, Field(ge=1, le=1000)] = 3
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] = 0

    @field_validator("names_per_group", "seed", mode="before")
    @classmethod
    def _a_number_as_written(cls, value: Any, info: ValidationInfo) -> Any:
        """As every config key that takes a number (:func:`evenhand._validation.number_problem`)."""
        field = cls.model_fields[str(info.field_name)]
        problem = number_problem(field.annotation, field.metadata, value)
        if problem is not None:
            raise ValueError(problem)
        return value


class NameTemplates(TemplateOptions):
    """Prompt templates with placeholders (``{name}``, ``{first_name}``, ``{last_name}``, ``{title}``, the pronouns
    ``{they}``, ``{them}``, ``{their}``, ...; :func:`evenhand.text.fill_templates`) and how they were filled: the
    use case's prompts are each template filled ``names_per_group`` times, each fill naming a person of one group in
    turn (:func:`evenhand.text.name_templates.template_prompts`); ``fills`` records, per prompt, the template, the
    group and the name (results.json ``use_case.templates``)."""

    templates: list[str]
    fills: list[dict[str, Any]] = Field(default_factory=list)

    def per_prompt(self, values: Sequence[Any], n_prompts: int) -> Sequence[Any]:
        """Values given once per template (a label or a group per template) repeated for each of its prompts; values
        given once per prompt as they are."""
        if len(values) == len(self.templates) != n_prompts:
            return [values[int(fill["template"])] for fill in self.fills]
        return values


def _template_texts(given: Any) -> list[str]:
    """The templates as texts; a conversation is refused in one line (templates are filled as texts: a
    conversation's turns and documents would each need their own placeholders)."""
    items = as_prompt_list(given, "templates")
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise InputError(
                f"templates[{i}] is a conversation: templates are texts filled with names ({{name}}, {{they}}, ...); "
                "give text templates, or conversations as prompts with their names written in"
            )
    return [str(item) for item in items]


class UseCase(BaseModel):
    """An LLM use case as the framework sees it: the task, the prompts and the stakeholder answers.

    Attributes:
        task: ``"text_generation"``, ``"summarization"``, ``"classification"``, ``"recommendation"`` or
            ``"estimation"`` (the answer is a number: a salary to offer, a price, a credit limit, a score).
        prompts: a sample of the use case's prompts (list, NumPy array or pandas Series) of texts or conversations
            (:class:`~evenhand.conversation.Conversation`, or lists of ``{"role", "content"}`` messages, with
            retrieved documents as their context); the FTU check runs on them, every turn and document. Leave
            empty and set ``mentions_protected_groups`` when the prompts are not at hand.
        attributes: built-in protected attributes to check (``evenhand.text.lexicon.BUILTIN_ATTRIBUTES``; the
            default is ``DEFAULT_ATTRIBUTES``, gender and race).
        custom_attributes: extra attributes as ``{name: {group: [words, ...]}}`` with aligned word lists.
        attribute_groups: the groups to compare per attribute, e.g. ``{"gender": ["female", "male", "nonbinary"]}``
            (default: every group of the attribute; gender's ``nonbinary`` only on request).
        intersections: attributes assessed together, e.g. ``[["gender", "race"]]``: an attribute named
            ``"gender+race"`` whose groups are the combinations (``"female+black"``, ...), with counterfactual
            prompts and metrics for every pair of combined groups (text tasks and recommendation); in
            classification a person's combined group comes from the per-attribute groups of the data.
        counterfactual_invariance: should responses stay the same when only the group mentioned changes?
        content_may_differ: is content expected to differ across groups (e.g. clinical)? Then counterfactual
            similarity is too strict and only counterfactual sentiment is used (paper footnote 26).
        prevalence_parity: classification: should predicted prevalence be equal across groups?
        intervention: classification: are positive predictions used for ``"assistive"`` or ``"punitive"``
            interventions? ``None`` = not decided (both error-based families are planned).
        person_level: classification: does each input correspond to a person (with a known group)?
        mentions_protected_groups: the FTU answer when no prompts are given (``True`` = FTU not satisfied).
        names: also read personal names that signal a group ("Lakisha Robinson", "Mr. Chen"; gender and race have
            name lists): FTU counts them, and counterfactual prompts replace them by names of each group (default
            True). ``False``: group words only. Every FTU check and counterfactual prompt of the run follows it.
        name_subject: whose name counts when a prompt names several people (:mod:`evenhand.text.name_subjects`):
            ``"first"`` (default: the first person named is the prompt's subject; bystanders named after them are
            kept as written and never decide FTU), ``"every"`` (each person named is swapped), or one name (or
            None) per prompt, the subject as written (a column naming the subject: ``prompts.subject_column``).
        change_system_prompt: a conversation's counterfactual versions change the person in its system prompt too
            (default True); ``False`` keeps the system turns as written.
        templates: prompt templates filled with names of each group instead of ``prompts`` (a name audit: a list of
            templates, or :class:`NameTemplates` / a dict with ``templates`` and its options): the prompts become each
            template filled ``names_per_group`` times (default 3), each fill naming a person of one group of the
            attributes with name lists, in turn, drawn with ``seed``; every other setting treats them as prompts
            that name a person (their counterfactual versions name a person of every group).
        stereotype_when_ftu: also plan stereotype metrics when FTU holds (paper footnote 27).
        stereotype_classifier: a stereotype classifier is available, so SF/EMS/SP can be computed.
        name: a label for reports.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    task: Task
    prompts: list[Prompt] = Field(default_factory=list)
    attributes: list[str] = Field(default_factory=lambda: list(DEFAULT_ATTRIBUTES))
    custom_attributes: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    intersections: list[list[str]] = Field(default_factory=list)
    attribute_groups: dict[str, list[str]] = Field(default_factory=dict)
    counterfactual_invariance: bool = True
    content_may_differ: bool = False
    prevalence_parity: bool | None = None
    intervention: Intervention | None = None
    person_level: bool | None = None
    mentions_protected_groups: bool | None = None
    names: bool = True
    name_subject: str | list[str | None] = DEFAULT_SUBJECT
    change_system_prompt: bool = True
    templates: NameTemplates | None = None
    stereotype_when_ftu: bool = False
    stereotype_classifier: bool = False
    name: str = "LLM use case"

    @model_validator(mode="before")
    @classmethod
    def _fill_templates(cls, data: Any) -> Any:
        """Templates become the prompts: filled here, once (a copy of a filled use case keeps its fills)."""
        if not isinstance(data, Mapping) or data.get("templates") is None:
            return data
        given = data["templates"]
        if isinstance(given, NameTemplates):
            templates = given
        else:
            items = _template_texts(given.get("templates", []) if isinstance(given, Mapping) else given)
            options = dict(given) if isinstance(given, Mapping) else {}
            templates = NameTemplates.model_validate(options | {"templates": items})
        if templates.fills:
            return {**data, "templates": templates}
        if data.get("prompts") is not None and len(data["prompts"]):
            raise InputError("give prompts or templates, not both (the templates, filled with names, are the prompts)")
        if data.get("names") is False:
            raise InputError("templates are filled with personal names: they need names: true")
        attributes = templates.attributes or [
            a for a in data.get("attributes", DEFAULT_ATTRIBUTES) if a in name_index().groups
        ]
        if not attributes:
            raise InputError(
                f"templates are filled from name lists, and none of the attributes checked has them; add one of "
                f"{list(name_index().groups)} to attributes"
            )
        from evenhand.text.name_templates import template_prompts, template_subjects

        prompts, fills = template_prompts(
            templates.templates, attributes, names_per_group=templates.names_per_group, seed=templates.seed
        )
        filled = templates.model_copy(update={"attributes": attributes, "fills": fills})
        out = {**data, "prompts": prompts, "templates": filled}
        if data.get("name_subject", DEFAULT_SUBJECT) == DEFAULT_SUBJECT:
            # the person the placeholder stands for is each prompt's subject, wherever the template names another
            # person ("The manager Mr. John Smith reviewed the loan of {name}"): the manager is a bystander
            out["name_subject"] = template_subjects(templates.templates, fills)
        return out

    @field_validator("task", mode="before")
    @classmethod
    def _normalise_task(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().lower().replace("-", "_").replace(" ", "_")
            value = {"generation": "text_generation", "text": "text_generation", "summarisation": "summarization",
                     "numeric": "estimation", "regression": "estimation"}.get(value, value)  # fmt: skip
        return value

    @field_validator("prompts", mode="before")
    @classmethod
    def _coerce_prompts(cls, value: Any) -> Any:
        return [] if value is None else as_prompt_list(value, "prompts", allow_empty=True)

    @field_validator("attributes")
    @classmethod
    def _check_attributes(cls, value: list[str]) -> list[str]:
        unknown = [a for a in value if a not in BUILTIN_ATTRIBUTES]
        if unknown:
            hint = did_you_mean(unknown, BUILTIN_ATTRIBUTES)
            raise InputError(
                f"unknown attribute(s) {unknown}{hint}; built-ins are {list(BUILTIN_ATTRIBUTES)} "
                "(put your own groups under custom_attributes: {name: {group: [words]}})"
            )
        return list(dict.fromkeys(value))

    @field_validator("name_subject")
    @classmethod
    def _check_name_subject(cls, value: str | list[str | None]) -> str | list[str | None]:
        if isinstance(value, str) and value not in SUBJECT_CHOICES:
            raise InputError(
                f"name_subject must be one of {list(SUBJECT_CHOICES)} or one name per prompt (a column naming the "
                f"subject), got {value!r}"
            )
        return value

    @model_validator(mode="after")
    def _check_custom(self) -> UseCase:
        if isinstance(self.name_subject, list) and len(self.name_subject) != len(self.prompts):
            raise InputError(
                f"name_subject names {len(self.name_subject)} subjects for {len(self.prompts)} prompts: give one "
                "name (or None) per prompt"
            )
        for name, groups in self.custom_attributes.items():
            if name in self.attributes:
                raise InputError(f"custom attribute {name!r} clashes with a built-in attribute of the same name")
            if len(groups) < 2:
                raise InputError(f"custom attribute {name!r} needs at least two groups, got {list(groups)}")
        if not self.attributes and not self.custom_attributes:
            raise InputError("no protected attribute to check: set attributes or custom_attributes")
        known = [*self.attributes, *self.custom_attributes]
        for name, chosen in self.attribute_groups.items():
            if name not in known:
                raise InputError(f"attribute_groups: {name!r} is not among the attributes checked {known}")
            load_lexicon(name if name in self.attributes else self.custom_attributes[name]).with_groups(chosen)
        for i, names in enumerate(self.intersections):
            if len(names) < 2 or len(set(names)) != len(names):
                raise InputError(f"intersections[{i}]: name two or more different attributes, got {names}")
            unknown = [n for n in names if n not in known]
            if unknown:
                raise InputError(f"intersections[{i}]: {unknown} not among the attributes checked {known}")
        return self

    @property
    def answers_are_labels(self) -> bool:
        """Whether the LLM's answers are read as labels (``classification.labels``, ``pattern``, a JSON field or a
        tool call), which a run checks before it sends any request."""
        return self.task == "classification"

    def with_person_groups(self, given: bool) -> UseCase:
        """This use case, person-level where each input's person group is ``given`` (``groups=``,
        ``prompts.group_column``, a responses table's person group or group columns) and the use case left the
        question open: a group per row says each row is a person, as ``evenhand metrics --group-column`` always read
        it (deploy17: elsewhere the plan said "not declared person-level ... not applicable", and a planted gap in
        approvals was ``OK`` with nothing judged). A declared ``person_level: false`` is kept."""
        if not given or self.task != "classification" or self.person_level is not None:
            return self
        return self.model_copy(update={"person_level": True})

    @property
    def attribute_specs(self) -> dict[str, Any]:
        """Each attribute name -> what the text core takes: a built-in name, a custom group dict, or for an
        intersection ("gender+race") the tuple of its attributes' specs."""
        specs: dict[str, Any] = {a: a for a in self.attributes}
        specs.update(self.custom_attributes)
        for name, chosen in self.attribute_groups.items():  # the lexicon limited to (or extended by) these groups
            specs[name] = load_lexicon(specs[name]).with_groups(chosen)
        for names in self.intersections:
            specs["+".join(names)] = tuple(specs[n] for n in names)
        return specs

    def dump(self) -> dict[str, Any]:
        """The answers for results.json: every field but the prompts (and ``name_subject`` when it is the default,
        and ``change_system_prompt`` unless a prompt is a conversation, and ``templates`` unless set, so that a run
        that names nobody and a run on bare texts write what they wrote before these settings existed); per-prompt
        subjects are written as ``"given"``."""
        quiet = {"prompts", "name_subject", "templates"}
        quiet |= set() if has_conversations(self.prompts) else {"change_system_prompt"}
        out = self.model_dump(exclude=quiet)
        if self.templates is not None:  # only when set: a run without templates writes what it wrote before
            out["templates"] = self.templates.model_dump()
        if self.name_subject != DEFAULT_SUBJECT:
            out["name_subject"] = self.name_subject if isinstance(self.name_subject, str) else "given"
        return out

    @property
    def subjects(self) -> Any:
        """Whose name counts, as the text core takes it (``subject=``): ``name_subject``, with each prompt filled
        from a template whose subject is its placeholder's person given with the spans its placeholders filled
        (:class:`~evenhand.text.name_subjects.TemplateSubject`), so that its versions keep the template's own words
        (a bystander's pronoun) as written."""
        t = self.templates
        if t is None or not isinstance(self.name_subject, list) or len(t.fills) != len(self.prompts):
            return self.name_subject
        from evenhand.text.name_templates import filled_subjects

        filled = filled_subjects(t.templates, t.fills, [str(p) for p in self.prompts])
        return [f if f is not None and f.name == n else n for f, n in zip(filled, self.name_subject, strict=True)]

    @property
    def intersection_names(self) -> tuple[str, ...]:
        return tuple("+".join(names) for names in self.intersections)
