"""Stereotype classifier ``St: text -> [0, 1]`` per category (paper 3.1.2.2).

Any Hugging Face sequence classifier whose labels name stereotype categories. The default is the model LangFair
uses, ``wu981526092/Sentence-Level-Stereotype-Detector`` (labels ``stereotype_gender``, ``stereotype_race``,
``stereotype_religion``, ``stereotype_profession``, their ``anti-stereotype_*`` counterparts and ``unrelated``).
It is not bundled: offline, pass a local copy's path (the error says how).

Unlike LangFair, which keeps only the top label's probability (and 0 for every other category), evenhand reads the
full label distribution, so a text's score for each category is that category's probability whatever the top label.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError, InputTypeError
from evenhand.scorers._base import Scorer, check_device
from evenhand.scorers._categories import CATEGORIES, MINILM_SPEC, CategoryTableScorer
from evenhand.scorers._hf import HFClassifier

DEFAULT_STEREOTYPE_MODEL = "wu981526092/Sentence-Level-Stereotype-Detector"


def default_label_map(categories: Sequence[str] = CATEGORIES) -> dict[str, tuple[str, ...]]:
    """``{category: ("stereotype_<category>",)}``: the default model's naming."""
    return {c: (f"stereotype_{c}",) for c in categories}


class StereotypeScorer(CategoryTableScorer):
    """Stereotype probabilities per category from a Hugging Face classifier.

    ``scorer(texts)`` returns P(stereotype of any selected category), in [0, 1];
    ``scorer.score_categories(texts)`` returns ``{category: array}``; ``scorer.category("gender")`` returns a plain
    scorer for one category (what the stereotype metrics take as ``St``).

    Parameters
    ----------
    model
        Hugging Face model id or local folder (default: :data:`DEFAULT_STEREOTYPE_MODEL`).
    categories
        Which categories to score (default: gender, race, religion, profession).
    label_map
        ``{category: label or [labels]}``; defaults to ``stereotype_<category>``. Several labels for one category
        add up (softmax models) or take the maximum (multi-label models).
    quantize
        ``"int8"``: run the classifier with ONNX Runtime dynamic int8 quantization on the CPU (``docs/int8.md``);
        ``None`` (default): full precision.
    """

    description = "Stereotype"
    scalar_output = False

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        categories: Sequence[str] | None = None,
        label_map: Mapping[str, str | Sequence[str]] | None = None,
        device: str = "auto",
        batch_size: int = 32,
        revision: str | None = None,
        quantize: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(batch_size=batch_size, **options)
        ref = DEFAULT_STEREOTYPE_MODEL if model is None else os.fspath(model)
        if categories is None:
            categories = tuple(label_map) if label_map else CATEGORIES
        if isinstance(categories, str):
            categories = (categories,)
        self.categories = tuple(c.lower() for c in categories)
        if not self.categories:
            raise InputError("categories is empty: pass at least one stereotype category")
        mapping = {k.lower(): v for k, v in (label_map or {}).items()}
        default = default_label_map(self.categories)
        self.label_map: dict[str, tuple[str, ...]] = {}
        for c in self.categories:
            labels = mapping.get(c, default[c])
            self.label_map[c] = (labels,) if isinstance(labels, str) else tuple(str(lab) for lab in labels)
        self._clf = HFClassifier(
            ref,
            device=device,
            revision=revision,
            what="stereotype",
            example="get_stereotype_scorer('/path/to/Sentence-Level-Stereotype-Detector'), or opt in to the "
            f"EXPERIMENTAL offline scorer get_stereotype_scorer({MINILM_SPEC!r}) (docs/stereotype-scorer.md)",
            quantize=quantize,
        )
        self._idx = {
            c: self._clf.label_indices(list(labs), (), f"{c!r} stereotype") for c, labs in self.label_map.items()
        }
        #: ``None`` at full precision; with ``quantize="int8"``, that and its agreement with fp32 (any category).
        self.quantization_note = self._clf.quantization_note(sorted({i for idx in self._idx.values() for i in idx}))

    @property
    def labels(self) -> list[str]:
        return self._clf.labels

    @property
    def cache_key(self) -> str:
        spec = ";".join(f"{c}={','.join(self.label_map[c])}" for c in self.categories)
        return f"stereotype/hf/{self._clf.model_key}/{spec}{self._clf.precision_key}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        probs = self._clf.predict_proba(texts)
        columns = [self._clf.combine(probs, self._idx[c]) for c in self.categories]
        every = sorted({i for idx in self._idx.values() for i in idx})
        columns.append(self._clf.combine(probs, every))
        return np.column_stack(columns)

    def __repr__(self) -> str:
        return f"StereotypeScorer({self._clf.model_ref!r}, categories={self.categories})"


def get_stereotype_scorer(spec: Any = None, *, category: str | None = None, **options: Any) -> Scorer:
    """Return a stereotype scorer ``St(texts) -> float64 array in [0, 1]``.

    Parameters
    ----------
    spec
        ``None`` (LangFair's model, :data:`DEFAULT_STEREOTYPE_MODEL`: needs the internet once, or a local copy),
        ``"evenhand-minilm-stereoset"`` (EXPERIMENTAL, offline: MiniLM fine-tuned on StereoSet, CC BY-SA 4.0 data,
        trained into the cache on first use; options ``seed``, ``train_config``, ``data_dir``, ``build``),
        a Hugging Face model id or local folder (``"hf:"`` prefix optional), a :class:`Scorer` (returned as is) or
        a callable ``f(list[str]) -> floats``.
    category
        Return the scorer of one category ("gender", "race", "religion", "profession" or a ``label_map`` key)
        instead of the any-category score.
    **options
        ``categories``, ``label_map``, ``device``, ``batch_size``, ``cache``, ``progress``, ``revision``,
        ``quantize`` (``"int8"``: ONNX Runtime dynamic quantization, opt-in; ``docs/int8.md``).

    Raises
    ------
    ModelUnavailableError
        The model is neither cached nor reachable; the message says how to pass a local path.
    """
    from evenhand.scorers._base import CallableScorer

    if "device" in options:
        check_device(options["device"])
    if isinstance(spec, Scorer):
        if options:
            raise InputError("options cannot be applied to an already-built scorer; pass them when building it")
        scorer: Scorer = spec
    elif spec is None or isinstance(spec, (str, os.PathLike)):
        name = None if spec is None else os.fspath(spec)
        if name is not None and name.startswith("hf:"):
            name = name[3:]
        if name == MINILM_SPEC:  # the experimental offline scorer: opt-in by name, never the default
            from evenhand.scorers.stereotype_minilm import MiniLMStereotypeScorer

            scorer = MiniLMStereotypeScorer(**options)
        else:
            scorer = StereotypeScorer(name, **options)
    elif callable(spec) or hasattr(spec, "predict"):
        if category is not None:
            raise InputError("category= needs a classifier with per-category labels, not a plain callable")
        return CallableScorer(spec, **options)
    else:
        raise InputTypeError(f"cannot build a stereotype scorer from {type(spec).__name__}")
    if category is None:
        return scorer
    by_category = getattr(scorer, "category", None)
    if not callable(by_category):
        raise InputError("category= needs a StereotypeScorer")
    return by_category(category)


__all__ = [
    "CATEGORIES",
    "DEFAULT_STEREOTYPE_MODEL",
    "MINILM_SPEC",
    "CategoryTableScorer",
    "StereotypeScorer",
    "default_label_map",
    "get_stereotype_scorer",
]
