"""The one error hierarchy of evenhand: every error it raises on purpose says, by its class, whose fault it is.

* :class:`InputError` - the input is wrong (a config key, a data file, a column, an argument): the caller can fix it.
  It is also a :class:`ValueError` (and :class:`InputTypeError` also a :class:`TypeError`), so code written against
  the builtin types keeps catching it.
* :class:`RunFailure` - a model, server or scorer failed while running; also a :class:`RuntimeError`.

The command line maps by class: an input error exits 2, a run failure (or anything unexpected, such as a bare
``ValueError`` from a bug) exits 3. Older classes keep their builtin bases beside these (``ConfigError`` is an
``InputError``, ``ServerUnreachableError`` a ``RunFailure`` and a ``ConnectionError``).
"""

from __future__ import annotations

__all__ = [
    "EvenhandError",
    "InputError",
    "InputFileNotFoundError",
    "InputKeyError",
    "InputTypeError",
    "NoResponsesError",
    "RunFailure",
]


class EvenhandError(Exception):
    """Base of every error evenhand raises on purpose."""


class InputError(EvenhandError, ValueError):
    """Bad input: a config, a data file, a column, an argument or an option the caller can fix."""


class InputTypeError(InputError, TypeError):
    """Bad input of the wrong type (a number where a list was expected, ...)."""


class InputFileNotFoundError(InputError, FileNotFoundError):
    """A file the input names does not exist (still a ``FileNotFoundError``)."""


class InputKeyError(InputError, KeyError):
    """A name the input gives is unknown: a metric, a family, a group (still a ``KeyError``)."""


class RunFailure(EvenhandError, RuntimeError):
    """A model, server or scorer failed while running: the input was accepted, the run did not finish."""


class NoResponsesError(RunFailure):
    """Not one request produced a response (every one an error, a content filter or an empty reply). ``responses``
    is the response frame as generated (its ``status`` and ``error`` per request), for a caller to whom that is a
    result: a red team whose adversarial system prompt is blocked every time."""

    def __init__(self, message: str, responses: object = None) -> None:
        super().__init__(message)
        self.responses = responses
