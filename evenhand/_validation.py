"""Input coercion and validation shared by every layer.

All public functions accept lists, tuples, NumPy arrays and pandas Series. These helpers turn them into plain
lists / 1-D arrays and raise errors that name the offending argument and position.
"""

from __future__ import annotations

import functools
import math
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError, InputTypeError

if TYPE_CHECKING:
    from pydantic import ValidationError

FloatArray = npt.NDArray[np.float64]
_P = ParamSpec("_P")
_R = TypeVar("_R")

#: the bound of an integer key that states none: a signed 64-bit integer (what SQLite, NumPy and JSON readers hold)
MAX_INT = 2**63 - 1
#: a seed is a whole number in 0..2**63-1 (``numpy.random.default_rng`` refuses a negative one; the local model and
#: servers one above 64 bits, after the run has started)
MAX_SEED = 2**63 - 1


def _to_list(values: Any, name: str) -> list[Any]:
    if values is None:
        raise InputTypeError(f"{name} must be a sequence (list, tuple, NumPy array or pandas Series), got None")
    if isinstance(values, (str, bytes)):
        raise InputTypeError(f"{name} must be a sequence of items, not a single {type(values).__name__}")
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise InputError(f"{name} must be one-dimensional, got an array of shape {values.shape}")
        return values.tolist()
    if hasattr(values, "to_list") and callable(values.to_list):  # pandas Series / Index
        return list(values.to_list())
    if isinstance(values, Iterable):
        return list(values)
    raise InputTypeError(f"{name} must be a sequence, got {type(values).__name__}")


def paired_by_position(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a metric function so that two pandas Series among its arguments whose indexes hold the same labels
    in another order are refused (:func:`check_series_pairing`); everything else is passed on unchanged."""

    @functools.wraps(function)
    def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        check_series_pairing(function, args, kwargs)
        return function(*args, **kwargs)

    return checked


def _is_series(value: Any) -> bool:
    return type(value).__name__ == "Series" and type(value).__module__.startswith("pandas")


def check_series_pairing(function: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    """Raise ``InputError`` when two Series arguments of ``function`` hold the same labels in another order.

    evenhand pairs its arguments' values by position, as scikit-learn and Fairlearn do, whatever a Series' index
    says: two filtered halves of one frame (different labels) are paired row by row, as lists would be. The trap is
    two Series with the same labels in another order (one sorted or shuffled after both were taken from one frame):
    pandas would align them by label, so pairing them by position mixes up the rows, silently."""
    given = [(i, v) for i, v in enumerate(args) if _is_series(v)] + [(k, v) for k, v in kwargs.items() if _is_series(v)]
    if len(given) < 2:
        return
    import inspect

    names = list(inspect.signature(function).parameters)
    named = [(names[key] if isinstance(key, int) and key < len(names) else str(key), value) for key, value in given]
    for position, (first_name, first) in enumerate(named):
        for other_name, other in named[position + 1 :]:
            if len(first) != len(other) or first.index.equals(other.index):
                continue
            if first.index.is_unique and set(first.index) == set(other.index):
                raise InputError(
                    f"{first_name} and {other_name} are pandas Series whose indexes hold the same labels in another "
                    "order; evenhand pairs values by position (as scikit-learn and Fairlearn do), not by label, so "
                    f"they would be mispaired: align them first ({other_name}.reindex({first_name}.index)), or pass "
                    "each as .to_numpy() to pair them by position"
                )


def power_of_two_scale(*arrays: npt.ArrayLike) -> float:
    """1.0, or a power of two near the largest magnitude in ``arrays`` when it is above ``2**960``: numbers near the
    end of the float range (1.8e308) divided by it are summed, averaged and subtracted without overflow, and exactly
    (only their exponent changes); the result is multiplied back (NaN with a reason where it is no float)."""
    biggest = max((float(np.abs(np.asarray(x)).max()) for x in arrays if np.size(x)), default=0.0)
    return math.ldexp(1.0, math.frexp(biggest)[1] - 1) if biggest > 2.0**960 else 1.0  # at most 2**1023


def as_text_list(texts: Any, name: str = "texts", *, allow_empty: bool = False) -> list[str]:
    """Return ``texts`` as a list of str. Empty strings are fine; None or non-strings are not."""
    items = _to_list(texts, name)
    if not items and not allow_empty:
        raise InputError(f"{name} is empty: pass at least one text")
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise InputTypeError(
                f"{name}[{i}] is {type(item).__name__} ({item!r:.60}), expected str; "
                "replace missing values with '' or drop them"
            )
    return items


def as_float_array(
    values: Any,
    name: str = "scores",
    *,
    allow_empty: bool = False,
    allow_nan: bool = False,
    bounds: tuple[float, float] | None = None,
) -> FloatArray:
    """Return ``values`` as a 1-D float64 array, validating finiteness and optional bounds."""
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "fiub":
        arr = values.astype(np.float64, copy=False)
    else:
        items = _to_list(values, name)
        try:
            arr = np.asarray(items, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputTypeError(f"{name} must contain numbers: {exc}") from exc
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise InputError(f"{name} is empty")
    if not allow_nan and np.isnan(arr).any():
        first = int(np.flatnonzero(np.isnan(arr))[0])
        raise InputError(f"{name} contains NaN (first at position {first})")
    if np.isinf(arr).any():
        raise InputError(f"{name} contains infinite values")
    if bounds is not None:
        lo, hi = bounds
        bad = (arr < lo) | (arr > hi)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise InputError(f"{name} must lie in [{lo}, {hi}]; {name}[{first}] = {float(arr[first])!r}")
    return arr


def as_array(values: Any, name: str, *, allow_empty: bool = False) -> npt.NDArray[Any]:
    """Return ``values`` (labels, ids, groups) as a 1-D NumPy array; None entries are rejected."""
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind != "O":
        arr = values
    else:
        items = _to_list(values, name)
        for i, item in enumerate(items):
            if item is None or (isinstance(item, float) and np.isnan(item)):
                raise InputError(f"{name}[{i}] is missing (None/NaN)")
        check_hashable(items, name)
        arr = np.asarray(items)
        if arr.ndim != 1:  # e.g. a list of tuples
            arr = np.empty(len(items), dtype=object)
            arr[:] = items
    if arr.size == 0 and not allow_empty:
        raise InputError(f"{name} is empty")
    return arr


def check_hashable(items: Iterable[Any], name: str) -> None:
    """Raise TypeError naming ``name[i]`` when an item cannot be a label (a list, dict, set or array): ids and groups
    are compared and counted, which needs hashable values; a tuple (an intersectional group) is fine."""
    for i, item in enumerate(items):
        try:
            hash(item)
        except TypeError:
            raise InputTypeError(
                f"{name}[{i}] is a {type(item).__name__} ({item!r:.60}); {name} takes one label per item (a str, "
                "number or tuple), e.g. a flat list, not a list of lists"
            ) from None


def check_same_length(**named: Sequence[Any] | npt.NDArray[Any]) -> int:
    """Raise ValueError unless all arguments have the same length; return that length."""
    lengths = {name: len(v) for name, v in named.items()}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise InputError(f"inputs must have the same length: {desc}")
    return next(iter(lengths.values()), 0)


def check_threshold(threshold: float, name: str = "threshold") -> float:
    """Validate a probability threshold in [0, 1]."""
    try:
        value = float(threshold)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"{name} must be a number, got {threshold!r}") from exc
    if not 0.0 <= value <= 1.0:
        raise InputError(f"{name} must lie in [0, 1], got {value}")
    return value


def format_errors(source: str, exc: ValidationError, model: Any = None) -> str:
    """A pydantic ``ValidationError`` as one line naming ``source`` and each key (a config file, ``assess()``,
    ``plan()``): its messages only, never the input values (they may hold credentials). With ``model`` (the class
    validated), an unknown key also names the nearest key of its section, when one is close: a misspelt key."""
    lines = []
    for err in exc.errors():
        msg = _bound_message(err) or str(err["msg"]).removeprefix("Value error, ")
        if model is not None and err["type"] == "extra_forbidden" and err["loc"]:
            msg += _nearest_key(model, err["loc"])
        loc = ".".join(str(p) for p in err["loc"])
        names_itself = re.match(r"^[\w.]+: ", msg) and (not loc or msg.startswith(f"{loc}."))
        # a check across sections (or of a whole section) names its key itself, and so does "prompts[3]: ..." or
        # "prompts.items.3 ..." (one entry of a list)
        if names_itself or (loc and re.match(rf"{re.escape(loc)}(?:\[\d+\]|\.\d+)", msg)):
            lines.append(f"{source}: {msg}")
        else:
            lines.append(f"{source}: {loc or '(top level)'}: {msg}")
    # one line for all of them (scripts grep one line per error); the source is named once
    return lines[0] + "".join(f"; {line.removeprefix(f'{source}: ')}" for line in lines[1:])


_BOUNDS = {
    "greater_than": "above",
    "greater_than_equal": "at least",
    "less_than": "below",
    "less_than_equal": "at most",
}


def _bound_message(err: Any) -> str | None:
    """A number outside its key's bound, said with the bound and the number (a number is no credential, unlike the
    other values this module never quotes): ``must be at most 1,000,000, got 100000000``; None for other errors."""
    value, context = err.get("input"), err.get("ctx") or {}
    if err["type"] not in _BOUNDS or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    bound = next(iter(context.values()), None)
    if not isinstance(bound, (int, float)):
        return None
    written = "2**63-1" if bound == 2**63 - 1 else f"{bound:,}"
    return f"must be {_BOUNDS[err['type']]} {written}, got {value!r}"


def did_you_mean(written: Sequence[object], choices: Sequence[str], known: Mapping[str, str] | None = None) -> str:
    """`` (did you mean 'x'?)`` for names a user misspelt, or ``""`` when none is near: for each written name, the
    choice ``known`` maps it to (a word of a group: ``"women"`` -> ``"female"``), else the close match among
    ``choices`` (difflib, ratio 0.75: one or two letters off). The one hint every "unknown name" message shares."""
    import difflib

    close: list[str] = []
    for name in map(str, written):
        match = (known or {}).get(name.lower()) or next(iter(difflib.get_close_matches(name, choices, 1, 0.75)), None)
        if match is not None and match not in close:
            close.append(match)
    return f" (did you mean {', '.join(map(repr, close))}?)" if close else ""


def _nearest_key(model: Any, loc: Sequence[Any]) -> str:
    """`` (did you mean 'key'?)`` for the unknown key at ``loc``: the close match among the keys of the section that
    holds it (walked from ``model`` through its fields, lists and optional sections), else ``""``."""
    for part in loc[:-1]:
        if isinstance(part, int):  # an item of a list: the item's model is already the one reached
            continue
        field = getattr(model, "model_fields", {}).get(part)
        model = _model_in(field.annotation) if field is not None else None
        if model is None:
            return ""
    keys = [f.alias or name for name, f in getattr(model, "model_fields", {}).items()]
    return did_you_mean([loc[-1]], keys)


def _model_in(annotation: Any) -> Any:
    """The pydantic model an annotation holds (itself, or inside ``X | None``, ``list[X]``, ``Annotated[X, ...]``)."""
    import typing

    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _leaf_types(annotation: Any) -> set[Any]:
    """The plain types an annotation admits (through ``Annotated``, unions and ``Optional``)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _leaf_types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_leaf_types(a) for a in typing.get_args(annotation)))
    return {annotation}


def _has_upper_bound(annotation: Any, metadata: Sequence[Any]) -> bool:
    """Whether a key states its own upper bound (``Field(le=...)``), on the field or inside its annotation (``Seed |
    None``): that bound is checked, and named, by pydantic instead."""
    import annotated_types  # pydantic's: imported here, where a model is being validated

    found = list(metadata)
    pending = [annotation]
    while pending:
        current = pending.pop()
        if typing.get_origin(current) is typing.Annotated:
            found += [getattr(m, "metadata", [m]) for m in typing.get_args(current)[1:]]
        pending += list(typing.get_args(current)) if typing.get_origin(current) is not typing.Literal else []
    flat = [m for item in found for m in (item if isinstance(item, list) else [item])]
    return any(isinstance(m, (annotated_types.Le, annotated_types.Lt)) for m in flat)


_NUMBER_LIKE = re.compile(
    r"\s*[-+]?(\d[\d_,]*)?(\.\d*)?([eE][-+]?\d+)?\s*|\s*[-+]?(inf|infinity|nan)\s*", re.IGNORECASE
)


def written_value(value: Any) -> str:
    """A value given for a number, as an error message may quote it: a number as written; a text only when it reads
    as a number (``'5'``, ``'1e30'``), since a key pasted into the wrong field is a text too; otherwise not shown."""
    if not isinstance(value, str):
        return repr(value) if isinstance(value, (int, float)) else f"a {type(value).__name__}"
    if len(value) <= 40 and _NUMBER_LIKE.fullmatch(value):
        return f"the text {value!r}"
    return "a text that is no number (not shown: it may be a credential)"


def number_problem(annotation: Any, metadata: Sequence[Any], value: Any) -> str | None:
    """What is wrong with ``value`` for a key (of a pydantic model: its ``annotation`` and ``metadata``) that takes a
    number (and neither text nor a yes/no), else None.

    A number is taken as written: not a yes/no (pydantic would read ``true`` as 1), not a quoted text (``"5"``, or
    ``1e30``, which YAML 1.1 reads as text), not a float for an integer key (``5.0``, ``1.0e+30``: pydantic took an
    integral float, and a huge one became a 31-digit integer), finite, and an integer key without a bound of its own
    within :data:`MAX_INT`. One check for every config section (``evenhand.config._section``) and the use case's
    template options, so that a key added later is held to it too."""
    leaves = _leaf_types(annotation)
    if not leaves & {int, float} or leaves & {bool, str, Any}:
        return None
    whole = float not in leaves
    kind = "a whole number" if whole else "a number"
    if isinstance(value, bool):
        return f"expects a number, not a yes/no value ({str(value).lower()})"
    if isinstance(value, str):
        if any(typing.get_origin(leaf) is typing.Literal and value in typing.get_args(leaf) for leaf in leaves):
            return None  # a word the key also takes ("auto")
        return f"expects {kind} written without quotes, got {written_value(value)}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"expects a finite number, got {value}"
    if whole and isinstance(value, float):
        return f"expects a whole number, got {written_value(value)}"
    if isinstance(value, int) and abs(value) > MAX_INT and not _has_upper_bound(annotation, metadata):
        return f"must lie within -(2**63-1)..2**63-1, got {value}"
    return None
