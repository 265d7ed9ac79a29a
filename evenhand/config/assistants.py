"""The opt-in LLM assistants of a run (issue 38): ``ftu.reader``, a second reader of identity cues for the FTU check,
and ``judge``, a judge of counterfactual reply pairs. Each is a model section like ``model`` (any provider, the same
keys), asked at temperature 0 with a seed by default, through the run's generation store and settings
(docs/assistants.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import Field, model_validator

from evenhand.errors import InputError
from evenhand.generation.cue_reader import READER_MAX_TOKENS
from evenhand.generation.pair_judge import JUDGE_MAX_TOKENS

from ._section import MAX_TOKENS, Seed, _Section
from .model import ModelConfig

if TYPE_CHECKING:
    from evenhand.generation.cost import Prices
    from evenhand.generation.cue_reader import LLMCueReader
    from evenhand.generation.pair_judge import LLMPairJudge
    from evenhand.generation.settings import GenerationSettings


class AssistantModelConfig(ModelConfig):
    """A model that assists the assessment (it reads or judges; it is not assessed): the keys of ``model``, with
    temperature 0 and seed 0 by default, and no system prompt (the assistant's own instructions are fixed) nor tools
    or response format (it answers in its own delimited format)."""

    key: ClassVar[str] = "ftu.reader"

    temperature: Annotated[float, Field(ge=0.0, le=2.0)] = 0.0
    max_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS, description="tokens per answer")] = READER_MAX_TOKENS
    seed: Seed | None = 0

    @model_validator(mode="after")
    def _own_instructions_and_format(self) -> AssistantModelConfig:
        if self.system_prompt is not None:
            raise InputError("an assistant's instructions are fixed: remove its system_prompt")
        shaped = [k for k in ("tools", "tool_choice", "response_format") if getattr(self, k) is not None]
        if shaped:
            raise InputError(f"an assistant answers in its own format: remove its {' and '.join(shaped)}")
        return self

    def prices_given(self) -> Prices | None:
        """Its ``prices`` as the generation layer takes them (None: none given)."""
        from evenhand.generation.cost import Prices

        return Prices(**self.prices.model_dump()) if self.prices is not None else None

    def assistant_settings(self, generation: Any) -> GenerationSettings:
        """How the assistant is asked: its own sampling, pace and limits, the run's ``generation`` section for the
        rest (the same store, so its answers resume with the run's), one sample per question."""
        from evenhand.generation.settings import GenerationSettings

        return GenerationSettings.from_sections(
            self,
            generation,
            concurrency=self.fixed_concurrency(),
            count=1,
            system_prompt=None,
        )


class FTUConfig(_Section):
    """How the FTU check reads the prompts besides the lexicons and the name lists."""

    reader: Annotated[
        AssistantModelConfig | None,
        Field(description="a second reader of identity cues (an LLM; docs/assistants.md); null: lexicons and names"),
    ] = None

    def build_reader(self, generation: Any) -> LLMCueReader | None:
        """The reader, asked with the run's ``generation`` section (store, progress), or None without one."""
        from evenhand.generation.cue_reader import LLMCueReader

        if self.reader is None:
            return None
        reader = self.reader
        return LLMCueReader(reader.client_spec(), reader.assistant_settings(generation), prices=reader.prices_given())


class JudgeConfig(AssistantModelConfig):
    """The judge of counterfactual reply pairs: asked about every pair in both orders, audited on the shipped
    labelled pairs before its results count (docs/assistants.md)."""

    key: ClassVar[str] = "judge"

    max_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS, description="tokens per answer")] = JUDGE_MAX_TOKENS
    same_version: Annotated[
        bool,
        Field(
            description="also judge pairs of two replies to the same version (the judge's floor; needs 2 or more "
            "responses per counterfactual prompt)"
        ),
    ] = True

    def build(self, generation: Any) -> LLMPairJudge:
        """The judge, asked with the run's ``generation`` section (store, progress)."""
        from evenhand.generation.pair_judge import LLMPairJudge

        return LLMPairJudge(self.client_spec(), self.assistant_settings(generation), prices=self.prices_given())


__all__ = ["AssistantModelConfig", "FTUConfig", "JudgeConfig"]
