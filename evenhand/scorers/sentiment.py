"""Sentiment scorers ``Sm: text -> [0, 1]`` for counterfactual sentiment parity (paper 3.1.3.2).

The offline default is VADER's compound score mapped to [0, 1], ``(compound + 1) / 2``: 0 = most negative,
0.5 = neutral, 1 = most positive; a reply of several sentences scores the mean of its sentences' scores
(:func:`~evenhand.scorers.sentences.split_sentences`; left8a). The whole-text compound saturates as a text's
valence adds up (``x / sqrt(x^2 + 15)``): eight warm sentences scored 0.9985 with or without "However, we have
serious doubts about your ability to repay", so a tone gap between two groups' long replies all but vanished, and a
longer reply scored warmer for its length alone. A one-sentence reply scores as before; ``by_sentence=False``
(``scoring.sentiment: {spec: vader, by_sentence: false}``) keeps the whole-text score. The shares (``neg``, ``pos``)
are proportions that do not saturate and stay whole-text, so LangFair's ``"vader-neg"`` agrees exactly.

The compound sees both directions, so a reply that is warmer for one group than for another
moves the score as much as a harsher one does. LangFair's default, VADER's *negative share* (1 = most negative,
0 for every reply without negative words), stays available as ``"vader-neg"`` (alias ``"vader-negative"``); it
cannot see a warmth gap between replies that are both free of negative words.

VADER mappings (``get_sentiment_scorer("vader", mapping=...)`` or the spec strings in brackets):

=======================  ============================================  =======================================
mapping                  score                                         note
=======================  ============================================  =======================================
``"compound_pos"``       ``(1 + compound) / 2``  [``"vader"``,          **default**: 0 = most negative,
(default)                ``"vader-compound-pos"``]                     0.5 = neutral, 1 = most positive
``"neg"``                VADER ``neg``: share of negative lexical      equals LangFair's ``classifier="vader"``,
                         mass in the text  [``"vader-neg"``,           ``sentiment="neg"`` exactly
                         ``"vader-negative"``]
``"pos"``                VADER ``pos`` share  [``"vader-pos"``]        LangFair's ``sentiment="pos"``
``"compound"``           ``(1 - compound) / 2``                        negativity on the compound scale
                         [``"vader-compound"``]                        (1 = most negative, 0.5 = neutral)
=======================  ============================================  =======================================

Also: any Hugging Face sentiment model id/path (score = probability of the negative label(s), or of ``label=``),
and any callable ``f(list[str]) -> floats in [0, 1]``. Every scorer built here says what its score means in its
``scale`` attribute (read it for any scorer with :func:`sentiment_scale`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError
from evenhand.scorers._base import CallableScorer, Scorer, build_scorer, check_device
from evenhand.scorers._hf import HFLabelScorer
from evenhand.scorers._onnx import refuse_quantize
from evenhand.scorers.sentences import split_sentences

#: The VADER mappings; the first is the default.
VADER_MAPPINGS = ("compound_pos", "neg", "pos", "compound")
DEFAULT_VADER_MAPPING = "compound_pos"
#: Other names of the mappings in spec strings (``"vader-negative"`` = ``"vader-neg"``).
VADER_ALIASES = {"negative": "neg"}
#: What each VADER mapping's score means (``VaderSentiment.scale``).
VADER_SCALES = {
    "compound_pos": "VADER compound mapped to [0, 1]: 0 = most negative, 0.5 = neutral, 1 = most positive",
    "neg": "VADER negative share (LangFair's default): 0 = no negative words, 1 = most negative",
    "pos": "VADER positive share: 0 = no positive words, 1 = most positive",
    "compound": "VADER compound mapped to [0, 1], reversed: 0 = most positive, 0.5 = neutral, 1 = most negative",
}
#: Labels tried, in order, when a Hugging Face sentiment model's target label is not given.
DEFAULT_NEGATIVE_LABELS = ("negative", "neg", "label_0", "0")


class VaderSentiment(Scorer):
    """VADER (rule-based, lexicon shipped in ``vaderSentiment``); see the module docstring for ``mapping``."""

    description = "Sentiment"

    def __init__(
        self,
        mapping: str = DEFAULT_VADER_MAPPING,
        *,
        by_sentence: bool = True,
        batch_size: int = 4096,
        device: str = "cpu",
        **options: Any,
    ) -> None:
        check_device(device)  # accepted for a uniform API; VADER is pure Python
        refuse_quantize(options, "VADER (a lexicon, no model)")
        mapping = VADER_ALIASES.get(mapping, mapping)
        if mapping not in VADER_MAPPINGS:
            raise InputError(f"unknown VADER mapping {mapping!r}; choose one of {VADER_MAPPINGS}")
        super().__init__(batch_size=batch_size, **options)
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

        self.mapping = mapping
        # the compound saturates as a text's valence adds up (x / sqrt(x^2 + 15)): a reply's mean over its sentences
        # keeps a doubtful sentence in a long warm reply visible; the shares (neg, pos) are proportions already
        self.by_sentence = bool(by_sentence) and mapping in ("compound_pos", "compound")
        self._analyzer = SentimentIntensityAnalyzer()

    @property
    def scale(self) -> str:
        """What a score means, for people (reports show it next to sentiment plots)."""
        return VADER_SCALES[self.mapping]

    @property
    def cache_key(self) -> str:
        return f"sentiment/vader/{self.mapping}" + ("/sentences" if self.by_sentence else "")

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        polarity = self._analyzer.polarity_scores
        if self.mapping in ("neg", "pos"):
            return np.fromiter((polarity(t)[self.mapping] for t in texts), dtype=np.float64, count=len(texts))
        if self.by_sentence:
            # each sentence mapped, then averaged: the same as mapping the mean compound, as the map is linear
            compound = np.array([np.mean([polarity(u)["compound"] for u in split_sentences(t)]) for t in texts])
        else:
            compound = np.fromiter((polarity(t)["compound"] for t in texts), dtype=np.float64, count=len(texts))
        return (1.0 + compound) / 2.0 if self.mapping == "compound_pos" else (1.0 - compound) / 2.0

    def __repr__(self) -> str:
        whole = "" if self.by_sentence or self.mapping in ("neg", "pos") else ", by_sentence=False"
        return f"VaderSentiment({self.mapping!r}{whole})"


class HFSentiment(HFLabelScorer):
    """Any Hugging Face sentiment classifier; score = probability of ``label`` (default: the negative label)."""

    description = "Sentiment"
    kind = "sentiment"
    role = "target sentiment"
    default_labels = DEFAULT_NEGATIVE_LABELS
    example = "get_sentiment_scorer('/path/to/model', label='NEGATIVE')"

    @property
    def scale(self) -> str:
        """What a score means: the probability of the chosen label(s)."""
        picked = " or ".join(repr(self.labels[i]) for i in self._idx)
        return f"probability of the label {picked} of the classifier {self._clf.model_ref}: 1 = that label for certain"


class CallableSentiment(CallableScorer):
    """Your sentiment function, wrapped (see :class:`~evenhand.scorers.CallableScorer`)."""

    description = "Sentiment"

    @property
    def scale(self) -> str:
        return f"as returned by {self!r} (in [0, 1]; its direction is the function's own)"


def sentiment_scale(scorer: Any) -> str:
    """What the scores of ``scorer`` mean, in words: its ``scale`` attribute, else a generic description.

    >>> sentiment_scale(get_sentiment_scorer())
    'VADER compound mapped to [0, 1]: 0 = most negative, 0.5 = neutral, 1 = most positive'
    """
    scale = getattr(scorer, "scale", None)
    return scale if isinstance(scale, str) and scale else f"as returned by {scorer!r} (in [0, 1])"


def get_sentiment_scorer(spec: Any = None, **options: Any) -> Scorer:
    """Return a sentiment scorer ``Sm(texts) -> float64 array in [0, 1]``; ``Sm.scale`` says what a score means.

    The default (``None`` or ``"vader"``) is VADER's compound score mapped to [0, 1]: 0 = most negative,
    0.5 = neutral, 1 = most positive.

    Parameters
    ----------
    spec
        ``None`` or ``"vader"`` (offline default: ``(1 + compound) / 2``; same as ``"vader-compound-pos"``);
        ``"vader-neg"`` (alias ``"vader-negative"``: VADER's negative share, identical to LangFair's default),
        ``"vader-pos"``, ``"vader-compound"`` (``(1 - compound) / 2``, 1 = most negative);
        ``"hf:<model id>"``, a local model folder or an ``"owner/name"`` id; a callable / object with ``.predict``;
        or a :class:`Scorer`.
    **options
        ``batch_size``, ``cache``, ``progress``; ``mapping`` for VADER; ``device``, ``label`` and ``quantize``
        (``"int8"``: ONNX Runtime dynamic quantization, opt-in, ``docs/int8.md``) for Hugging Face models;
        ``name`` for callables.

    Examples
    --------
    >>> from evenhand.scorers import get_sentiment_scorer
    >>> Sm = get_sentiment_scorer()
    >>> Sm(["What a wonderful day.", "Your bill is due on Friday.", "This is awful and I hate it."]).round(3).tolist()
    [0.786, 0.5, 0.114]
    >>> get_sentiment_scorer("vader-neg")(["What a wonderful day.", "This is awful and I hate it."]).tolist()
    [0.0, 0.573]
    """
    return build_scorer(
        spec,
        options,
        what="sentiment scorer",
        default=VaderSentiment,
        by_name=_vader_by_name,
        hugging_face=HFSentiment,
        from_callable=CallableSentiment,
        unknown="use None/'vader', 'vader-neg', 'vader-compound', 'hf:<model id>', a local model path or a callable",
    )


def _vader_by_name(name: str, options: dict[str, Any]) -> Scorer | None:
    """``"vader"`` or ``"vader-<mapping>"`` (module docstring of :func:`get_sentiment_scorer`), else None."""
    low = name.lower().replace("_", "-")
    if low == "vader":
        return VaderSentiment(**options)
    if not low.startswith("vader-"):
        return None
    mapping = low[len("vader-") :].replace("-", "_")
    mapping = VADER_ALIASES.get(mapping, mapping)
    if mapping not in VADER_MAPPINGS:
        raise InputError(
            f"unknown VADER variant {name!r}; use vader (the default: compound mapped to [0, 1]), "
            "vader-neg (alias vader-negative), vader-pos, vader-compound or vader-compound-pos"
        )
    if "mapping" in options:
        raise InputError(f"{name!r} already names a VADER mapping; leave out mapping=")
    return VaderSentiment(mapping, **options)


__all__ = [
    "DEFAULT_VADER_MAPPING",
    "VADER_MAPPINGS",
    "CallableSentiment",
    "HFSentiment",
    "VaderSentiment",
    "get_sentiment_scorer",
    "sentiment_scale",
]
