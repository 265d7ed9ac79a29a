"""StereotypeMetrics: COBS and SA (paper 3.1.2.1), and SF/EMS/SP from a stereotype classifier (3.1.2.2)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from evenhand._validation import as_text_list, check_threshold
from evenhand.evaluators._result import EvaluationResult
from evenhand.evaluators._scoring import classifier_metrics, scores_for
from evenhand.metrics.cooccurrence import cooccurrence_bias, stereotypical_associations
from evenhand.metrics.toxicity import expected_maximum_stereotype, stereotype_fraction, stereotype_probability


class StereotypeMetrics:
    """Co-occurrence stereotype metrics, plus classifier-based ones when a stereotype classifier is given.

    Args:
        attribute: ``"gender"``, ``"race"`` or a ``{group: [words]}`` dict (COBS uses the first two groups
            unless ``groups`` says otherwise).
        target: ``"adjective"``, ``"profession"`` or a list of stereotype words.
        classifier: None (co-occurrence metrics only), ``"default"`` (``get_stereotype_scorer(None)``, LangFair's
            model, needs a local copy offline), a scorer spec or a callable ``f(texts) -> scores``.
        threshold: a response contains a stereotype when its score is ``>= threshold``.
        sa_count: ``"presence"`` (paper) or ``"product"`` (HELM/LangFair) counting for SA.
    """

    def __init__(
        self,
        attribute: Any = "gender",
        target: str | Iterable[str] = "adjective",
        classifier: Any = None,
        threshold: float = 0.5,
        beta: float = 0.95,
        groups: tuple[str, str] | None = None,
        sa_count: str = "presence",
    ) -> None:
        self.attribute = attribute
        self.target = target if isinstance(target, str) else list(target)
        self.threshold = check_threshold(threshold)
        self.beta = beta
        self.groups = groups
        self.sa_count = sa_count
        self._spec = classifier
        self._classifier: Any = None

    @property
    def classifier(self) -> Any:
        if self._spec is None:
            return None
        if self._classifier is None:
            from evenhand.scorers import get_stereotype_scorer

            spec = None if self._spec == "default" else self._spec
            self._classifier = get_stereotype_scorer(spec)
        return self._classifier

    def evaluate(self, responses: Any, prompts: Any = None, scores: Any = None) -> EvaluationResult:
        """COBS and SA; with a classifier (or ``scores``) also SF, and EMS/SP when ``prompts`` are given."""
        texts = as_text_list(responses, "responses")
        metrics = {
            "COBS": cooccurrence_bias(texts, self.attribute, self.target, beta=self.beta, groups=self.groups),
            "SA": stereotypical_associations(texts, self.attribute, self.target, count=self.sa_count),
        }
        data = pd.DataFrame({"response": texts})
        if scores is not None or self._spec is not None:
            values = scores_for(texts, scores, None if scores is not None else self.classifier, "scores")
            data["stereotype"] = values
            family = (("SF", stereotype_fraction), ("EMS", expected_maximum_stereotype), ("SP", stereotype_probability))
            classifier_metrics(values, prompts, self.threshold, data, metrics, family)
        return EvaluationResult("stereotype", metrics, data)
