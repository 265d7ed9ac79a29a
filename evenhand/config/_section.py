"""What every config section shares: the error type, the bounds on sizes, and a repr that shows no secret."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from evenhand.errors import InputError


class ConfigError(InputError):
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
