"""Sentiment scorers ``Sm: text -> [0, 1]`` for counterfactual sentiment parity (paper 3.1.3.2).

evenhand sentiment scores measure *negative* sentiment by default (1 = most negative), as LangFair's
``SentimentBias`` does by default, so parity metrics read "how differently negative are the two groups' outputs".

VADER mappings (``get_sentiment_scorer("vader", mapping=...)`` or the spec strings in brackets):

=====================  =============================================  =========================================
mapping                score                                          note
=====================  =============================================  =========================================
``"neg"`` (default)    VADER ``neg``: share of negative lexical mass   equals LangFair's ``classifier="vader"``,
                       in the text, in [0, 1]  [``"vader"``,           ``sentiment="neg"`` exactly
                       ``"vader-neg"``]
``"pos"``              VADER ``pos`` share  [``"vader-pos"``]         LangFair's ``sentiment="pos"``
``"compound"``         ``(1 - compound) / 2``  [``"vader-compound"``]  negativity from VADER's normalised
                                                                      compound score (handles negation, "but")
``"compound_pos"``     ``(1 + compound) / 2``                          positivity
                       [``"vader-compound-pos"``]
=====================  =============================================  =========================================

Also: any Hugging Face sentiment model id/path (score = probability of the negative label(s), or of ``label=``),
and any callable ``f(list[str]) -> floats in [0, 1]``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.scorers._base import CallableScorer, Scorer, as_path_if_local, check_device
from evenhand.scorers._hf import HFLabelScorer

VADER_MAPPINGS = ("neg", "pos", "compound", "compound_pos")
#: Labels tried, in order, when a Hugging Face sentiment model's target label is not given.
DEFAULT_NEGATIVE_LABELS = ("negative", "neg", "label_0", "0")


class VaderSentiment(Scorer):
    """VADER (rule-based, lexicon shipped in ``vaderSentiment``); see the module docstring for ``mapping``."""

    description = "Sentiment"

    def __init__(self, mapping: str = "neg", *, batch_size: int = 4096, device: str = "cpu", **options: Any) -> None:
        check_device(device)  # accepted for a uniform API; VADER is pure Python
        if mapping not in VADER_MAPPINGS:
            raise ValueError(f"unknown VADER mapping {mapping!r}; choose one of {VADER_MAPPINGS}")
        super().__init__(batch_size=batch_size, **options)
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

        self.mapping = mapping
        self._analyzer = SentimentIntensityAnalyzer()

    @property
    def cache_key(self) -> str:
        return f"sentiment/vader/{self.mapping}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        polarity = self._analyzer.polarity_scores
        if self.mapping in ("neg", "pos"):
            return np.fromiter((polarity(t)[self.mapping] for t in texts), dtype=np.float64, count=len(texts))
        compound = np.fromiter((polarity(t)["compound"] for t in texts), dtype=np.float64, count=len(texts))
        return (1.0 - compound) / 2.0 if self.mapping == "compound" else (1.0 + compound) / 2.0


class HFSentiment(HFLabelScorer):
    """Any Hugging Face sentiment classifier; score = probability of ``label`` (default: the negative label)."""

    description = "Sentiment"
    kind = "sentiment"
    role = "target sentiment"
    default_labels = DEFAULT_NEGATIVE_LABELS
    example = "get_sentiment_scorer('/path/to/model', label='NEGATIVE')"


def get_sentiment_scorer(spec: Any = None, **options: Any) -> Scorer:
    """Return a sentiment scorer ``Sm(texts) -> float64 array in [0, 1]`` (1 = most negative by default).

    Parameters
    ----------
    spec
        ``None`` or ``"vader"`` (offline default: VADER ``neg`` share, identical to LangFair's default);
        ``"vader-neg"``, ``"vader-pos"``, ``"vader-compound"`` ((1 - compound)/2), ``"vader-compound-pos"``;
        ``"hf:<model id>"``, a local model folder or an ``"owner/name"`` id; a callable / object with ``.predict``;
        or a :class:`Scorer`.
    **options
        ``batch_size``, ``cache``, ``progress``; ``mapping`` for VADER; ``device`` and ``label`` for Hugging Face
        models; ``name`` for callables.

    Examples
    --------
    >>> from evenhand.scorers import get_sentiment_scorer
    >>> Sm = get_sentiment_scorer()
    >>> Sm(["What a wonderful day.", "This is awful and I hate it."]).tolist()
    [0.0, 0.573]
    """
    if "device" in options:
        check_device(options["device"])
    if spec is None:
        return VaderSentiment(**options)
    if isinstance(spec, Scorer):
        if options:
            raise ValueError("options cannot be applied to an already-built scorer; pass them when building it")
        return spec
    if isinstance(spec, (str, os.PathLike)):
        name = os.fspath(spec)
        low = name.lower().replace("_", "-")
        if low == "vader":
            return VaderSentiment(**options)
        if low.startswith("vader-"):
            mapping = low[len("vader-") :].replace("-", "_")
            if mapping not in VADER_MAPPINGS:
                raise ValueError(
                    f"unknown VADER variant {name!r}; use vader, vader-neg, vader-pos, vader-compound "
                    "or vader-compound-pos"
                )
            return VaderSentiment(mapping, **options)
        if name.startswith("hf:"):
            return HFSentiment(name[3:], **options)
        if as_path_if_local(name) is not None or "/" in name:
            return HFSentiment(name, **options)
        raise ValueError(
            f"unknown sentiment scorer {name!r}: use None/'vader', 'vader-compound', 'hf:<model id>', a local model "
            "path or a callable"
        )
    if callable(spec) or hasattr(spec, "predict"):
        return CallableScorer(spec, **options)
    raise TypeError(f"cannot build a sentiment scorer from {type(spec).__name__}")


__all__ = ["HFSentiment", "VaderSentiment", "get_sentiment_scorer"]
