"""The one error hierarchy: every error evenhand raises on purpose says by its class whose fault it is, and keeps
the builtin base that Python callers already catch."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from evenhand._optional import MissingDependencyError
from evenhand.config import ConfigError, load_config
from evenhand.errors import (
    EvenhandError,
    InputError,
    InputFileNotFoundError,
    InputKeyError,
    InputTypeError,
    RunFailure,
)
from evenhand.generation._types import (
    ContentFilteredError,
    GenerationError,
    GenerationStoppedError,
    RetryableError,
    ServerUnreachableError,
)
from evenhand.scorers._base import ModelUnavailableError
from evenhand.scorers.ray_join import RayTokenError
from evenhand.scorers.stereo_data import StereoDataMissingError


def test_the_hierarchy_keeps_the_builtin_bases() -> None:
    assert issubclass(InputError, EvenhandError) and issubclass(InputError, ValueError)
    assert issubclass(InputTypeError, InputError) and issubclass(InputTypeError, TypeError)
    assert issubclass(InputFileNotFoundError, InputError) and issubclass(InputFileNotFoundError, FileNotFoundError)
    assert issubclass(InputKeyError, InputError) and issubclass(InputKeyError, KeyError)
    assert issubclass(RunFailure, EvenhandError) and issubclass(RunFailure, RuntimeError)
    assert not issubclass(RunFailure, ValueError) and not issubclass(InputError, RuntimeError)


@pytest.mark.parametrize(
    ("cls", "kind", "builtin"),
    [
        (ConfigError, InputError, ValueError),
        (RayTokenError, InputError, ValueError),
        (ModelUnavailableError, InputError, OSError),
        (StereoDataMissingError, InputError, FileNotFoundError),
        (GenerationError, RunFailure, RuntimeError),
        (RetryableError, RunFailure, RuntimeError),
        (ContentFilteredError, RunFailure, RuntimeError),
        (ServerUnreachableError, RunFailure, ConnectionError),
        (GenerationStoppedError, RunFailure, RuntimeError),
        (MissingDependencyError, EvenhandError, ImportError),
    ],
)
def test_every_older_class_is_rebased_and_keeps_its_builtin_base(cls: type, kind: type, builtin: type) -> None:
    assert issubclass(cls, kind) and issubclass(cls, builtin)


def test_errors_keep_their_message_and_survive_pickling() -> None:
    """Messages read as before (a KeyError's is quoted, as Python's own), and errors cross process borders."""
    assert str(InputError("bad key")) == "bad key"
    assert str(InputKeyError("no metric 'x'")) == "\"no metric 'x'\""
    for error in (InputError("a"), InputTypeError("b"), InputFileNotFoundError("c"), RunFailure("d")):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)


def test_bad_input_through_the_python_api_is_an_input_error_and_still_a_value_error(tmp_path: Path) -> None:
    from evenhand._validation import check_threshold
    from evenhand.pipeline.responses.tables import read_table
    from evenhand.text.lexicon import load_lexicon

    with pytest.raises(InputError):
        check_threshold(2.0)
    with pytest.raises(ValueError, match="unknown"):  # callers written against the builtin types see no change
        load_lexicon("no-such-attribute")
    with pytest.raises(InputError):
        load_lexicon("no-such-attribute")
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "missing.csv")
    with pytest.raises(InputError):
        read_table(tmp_path / "missing.csv")
    with pytest.raises(TypeError):
        check_threshold(None)  # type: ignore[arg-type]
    bad = tmp_path / "c.yaml"
    bad.write_text("use_case: {task: text_generation}\nprompts: {items: [Hi.]}\nnot_a_section: 1\n", encoding="utf-8")
    with pytest.raises(InputError):
        load_config(bad)


def test_a_metric_that_refuses_its_input_raises_an_input_error() -> None:
    import evenhand.metrics as metrics

    with pytest.raises(InputError):
        metrics.toxic_fraction([0.1, 0.2], threshold=1.5)
