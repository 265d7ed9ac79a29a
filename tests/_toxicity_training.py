"""The offline toxicity model's training and validation sets, built once per test process: building them reads every
training source (tens of seconds), and the tests that use them only read them."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def shared_training_set() -> Any:
    """``training_set(0)`` (:func:`evenhand_training.toxicity.training_set`)."""
    from evenhand_training.toxicity import training_set

    return training_set(0)


@functools.cache
def shared_validation_texts() -> set[str]:
    """The texts of ``validation_set(0)`` (:func:`evenhand_training.toxicity_select.validation_set`)."""
    from evenhand_training.toxicity_select import validation_set

    return set(validation_set(0).texts())
