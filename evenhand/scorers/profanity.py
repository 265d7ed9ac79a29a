"""The lexical offline toxicity scorer: ``alt-profanity-check``'s TF-IDF + calibrated linear SVM (docs/scorers.md)."""

from __future__ import annotations

from typing import Any

import numpy.typing as npt

from evenhand.scorers._base import Scorer, check_device
from evenhand.scorers._onnx import refuse_quantize


class ProfanityCheckToxicity(Scorer):
    """The offline default: ``alt-profanity-check``'s TF-IDF + calibrated linear SVM, probability of "profane".

    Loads the two joblib files from the package data directly and calls ``predict_proba`` on the whole batch
    (the package's own ``predict_prob`` adds a per-row Python call).
    """

    description = "Toxicity"
    #: One sentence counts as toxic from this score on when replies are scored by their worst sentence
    #: (:class:`~evenhand.scorers.sentences.WorstSentenceScorer` rescales it to 0.5): the smallest of 0.50, 0.55,
    #: ... at which the worst sentence of benign development replies of evenhand's labelled set
    #: (:func:`evenhand.scorers.toxicity_sets.polite_replies`, identity-masked) is flagged no more often than the
    #: whole replies are at 0.5 (issue 34, item 3; test_the_lexical_sentence_threshold_is_what_dev_replies_give).
    sentence_threshold = 0.7

    def __init__(self, *, batch_size: int = 8192, device: str = "cpu", **options: Any) -> None:
        check_device(device)  # accepted for a uniform API; scikit-learn runs on the CPU
        refuse_quantize(options, "the profanity-check model (a linear model, already fast)")
        super().__init__(batch_size=batch_size, **options)
        import importlib.metadata
        from importlib import resources

        import joblib

        data = resources.files("profanity_check") / "data"
        self._vectorizer = joblib.load(str(data / "vectorizer.joblib"))
        self._model = joblib.load(str(data / "model.joblib"))
        self._version = importlib.metadata.version("alt-profanity-check")

    @property
    def cache_key(self) -> str:
        return f"toxicity/profanity-check/{self._version}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        return self._model.predict_proba(self._vectorizer.transform(texts))[:, 1]


__all__ = ["ProfanityCheckToxicity"]
