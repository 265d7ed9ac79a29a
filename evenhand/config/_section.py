"""What every config section shares: the error type, the bounds on sizes, and a repr that shows no secret."""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from evenhand.errors import InputError


class ConfigError(InputError):
    """The configuration is unreadable or invalid."""


#: Bounds on what a user can ask for, checked before anything runs (a typo such as count: 1000000000 must fail
#: at once with a clear message, not after minutes of allocating memory).
MAX_COUNT = 1_000  # responses per prompt and per counterfactual prompt
MAX_RESPONSES = 10_000_000  # responses an assessment may generate or read in all


def _leaf_types(annotation: Any) -> set[Any]:
    """The plain types an annotation admits (through ``Annotated``, unions and ``Optional``)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _leaf_types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_leaf_types(a) for a in typing.get_args(annotation)))
    return {annotation}


def _takes_a_number_not_a_flag(annotation: Any) -> bool:
    leaves = _leaf_types(annotation)
    return bool(leaves & {int, float}) and bool not in leaves


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _no_true_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        """``count: true`` is a mistake to point at: pydantic would read it as 1 (and ``false`` as 0)."""
        field = cls.model_fields.get(info.field_name or "")
        if isinstance(value, bool) and field is not None and _takes_a_number_not_a_flag(field.annotation):
            raise ValueError(f"expects a number, not a yes/no value ({str(value).lower()})")
        return value

    def __repr_args__(self) -> Any:
        """``repr()``/``str()`` of every section show no secret: header and body values, credential-like options
        (a scorer's or client's ``token``) and URL credentials are redacted (:func:`evenhand._redact.redact_mapping`);
        the values themselves are kept for the run."""
        from evenhand._redact import redact_mapping

        for name, value in super().__repr_args__():
            yield name, redact_mapping({str(name): value})[str(name)] if name is not None else value
