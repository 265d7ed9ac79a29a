"""Calling a metric from the pipeline: the registry binds the function, the run settings give its parameters.

The registry (:mod:`evenhand.registry`) says which parameters a metric takes from the run settings; nothing here
inspects a function's signature or knows a metric by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evenhand.errors import InputError
from evenhand.metrics._result import MetricResult
from evenhand.registry import METRICS


def _metric(key: str) -> Callable[..., MetricResult]:
    """The metric function the registry binds to ``key`` (its ``"module:object"``, imported on first use)."""
    return METRICS[key].load()


def setting_arguments(key: str, settings: Any) -> dict[str, Any]:
    """The metric's parameters that come from the run settings (``MetricSpec.settings``), e.g. its threshold."""
    return {param: getattr(settings.scoring, name) for param, name in METRICS[key].settings.items()}


def call_metric(key: str, *args: Any, settings: Any = None, **kwargs: Any) -> MetricResult:
    """Call a metric, with the parameters it takes from ``settings`` (a :class:`~evenhand.config.RunSettings`).

    Undefined cases (no pairs, a single group, an empty rate) already come back from the metric as NaN with the
    reason; an InputError (bad input or a bad option) is raised again as one, naming the metric.
    """
    if settings is not None:
        kwargs = setting_arguments(key, settings) | kwargs
    try:
        return _metric(key)(*args, **kwargs)
    except ValueError as exc:  # the metric refused its input (InputError), or a bug: the same kind, named
        kind = InputError if isinstance(exc, InputError) else ValueError
        raise kind(f"{METRICS[key].name} could not be computed: {exc}") from exc
