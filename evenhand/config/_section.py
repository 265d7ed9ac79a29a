"""What every config section shares: the error type, the bounds on sizes, and a repr that shows no secret."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from evenhand._validation import MAX_SEED, number_problem
from evenhand.errors import InputError


class ConfigError(InputError):
    """The configuration is unreadable or invalid."""


#: Bounds on what a user can ask for, checked before anything runs (a typo such as count: 1000000000 must fail
#: at once with a clear message, not after minutes of allocating memory).
MAX_COUNT = 1_000  # responses per prompt and per counterfactual prompt
MAX_RESPONSES = 10_000_000  # responses an assessment may generate or read in all
MAX_RESAMPLES = 100_000  # bootstrap replicates
MAX_TOKENS = 1_000_000  # tokens per answer: above the longest context any model offers
MAX_CONCURRENCY = 10_000  # requests in flight
MAX_TIMEOUT_S = 86_400  # seconds to wait for one answer: a day
#: a seed key: a whole number in 0..2**63-1 (``numpy.random.default_rng`` refuses a negative one; a server or the
#: local model one above 64 bits, after the run has started)
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _a_number_as_written(cls, value: Any, info: ValidationInfo) -> Any:
        """Every key that takes a number refuses what is not one as written (:func:`number_problem`)."""
        field = cls.model_fields.get(info.field_name or "")
        problem = number_problem(field.annotation, field.metadata, value) if field is not None else None
        if problem is not None:
            raise ValueError(problem)
        return value

    def __repr_args__(self) -> Any:
        """``repr()``/``str()`` of every section show no secret: header and body values, credential-like options
        (a scorer's or client's ``token``) and URL credentials are redacted (:func:`evenhand._redact.redact_mapping`);
        the values themselves are kept for the run."""
        from evenhand._redact import redact_mapping

        for name, value in super().__repr_args__():
            yield name, redact_mapping({str(name): value})[str(name)] if name is not None else value
