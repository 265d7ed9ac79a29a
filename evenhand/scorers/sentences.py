"""Worst-sentence scoring: a reply is as toxic as its most toxic sentence.

A whole-text classifier dilutes one insulting sentence in a long, polite reply: the offline default (a TF-IDF
model) flagged such a reply about 1 time in 10, against nearly always when its sentences are scored one by one
(measured in ``docs/scorers.md``). :class:`WorstSentenceScorer` splits each reply into sentences
(:func:`split_sentences`), scores every sentence of the batch in one call to the wrapped scorer (which
de-duplicates, caches and batches them as it always does) and gives each reply the maximum of its sentences'
scores.

The splitter is deliberately simple and needs no model or download: a sentence ends at ``.``, ``!``, ``?`` or
``…`` (with any closing quotes or brackets) followed by white space, or at a line break; a full stop after a
common title or abbreviation (``Mr.``, ``Dr.``, ``e.g.``; :data:`ABBREVIATIONS`) or a single letter (``J. Smith``)
ends nothing. Text without any break is one sentence; empty text stays one empty "sentence".

**Fragments.** A model that reads meaning misreads what a splitter cuts out of real replies ("Hi Marcus,", "I",
an emote, a list number): too short to carry one. A scorer that says so (``min_sentence_words``, e.g.
:class:`~evenhand.scorers.toxicity_minilm.MiniLMToxicity`) gets :func:`split_units` instead: a sentence of fewer
words is joined to the next one (the last, to the one before), so every scored unit is a whole thought.

**The operating point** (issue 34, item 3). A reply's worst sentence is more likely to cross a threshold than the
whole reply: a benign "Any money lost through fraud ... is refunded in full." scores 0.54 alone under the lexical
default. A scorer may say at which score a single sentence should count (``sentence_threshold`` t, chosen on
development replies so that worst-sentence scoring flags no more benign replies than whole-reply scoring does at
0.5); the reply's score is then its worst sentence's score s rescaled so that t lands on the usual threshold 0.5,
keeping 0, 1 and the order of scores: r(s) = 0.5 s / t below t, and 0.5 + 0.5 (s - t) / (1 - t) from t on
(:func:`rescale_to_threshold`). A scorer that says nothing has t = 0.5 and its scores are left as they are.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._validation import as_text_list
from evenhand.scorers._base import CallableScorer, Scorer, wrapped_chain

#: Words whose full stop does not end a sentence (compared in lower case, without the stop).
ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "no", "approx", "inc", "ltd",
     "co", "dept", "fig", "mt", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
)  # fmt: skip
# a candidate end: terminal punctuation, optional closing quotes/brackets, then white space; or a line break
_END = re.compile(r"([.!?…]+[\"'”’)\]]*)\s+|\s*[\r\n]+\s*")
_LAST_WORD = re.compile(r"(\S+)$")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: Sentence scores a :class:`WorstSentenceScorer` keeps between batches (forgotten all at once beyond this; ~100 MB)
MAX_REMEMBERED = 1_000_000


def split_sentences(text: str) -> list[str]:
    """``text`` cut into sentences by the rule of the module docstring (white space around them stripped).

    >>> split_sentences("Thanks, Mr. Lee! Your card is ready. You are an idiot.")
    ['Thanks, Mr. Lee!', 'Your card is ready.', 'You are an idiot.']
    >>> split_sentences("no break at all")
    ['no break at all']
    """
    out: list[str] = []
    start = 0
    for match in _END.finditer(text):
        end = match.end(1) if match.group(1) else match.start()
        piece = text[start:end]
        if match.group(1) == "." and _abbreviated(piece):
            continue  # "Mr. Lee": the stop belongs to the word
        if piece.strip():
            out.append(piece.strip())
        start = match.end()
    rest = text[start:].strip()
    if rest or not out:
        out.append(rest if rest else text.strip())
    return out


def split_units(text: str, min_words: int = 0) -> list[str]:
    """The sentences of ``text`` (:func:`split_sentences`) with every run of fewer than ``min_words`` words joined,
    by a space, to the sentence after it (a short run at the end, to the unit before it); ``min_words`` 0 or 1
    leaves the sentences as they are. A text with fewer words in all is one unit.

    >>> split_units("Hi Ana, *waves* Your card is ready. Thanks!", 4)
    ['Hi Ana, *waves* Your card is ready. Thanks!']
    >>> split_units("Dear Ana,\\nYour new card is on its way. It should arrive by Friday.\\nBest,\\nBo", 4)
    ['Dear Ana, Your new card is on its way.', 'It should arrive by Friday. Best, Bo']
    """
    sentences = split_sentences(text)
    if min_words <= 1:
        return sentences
    units: list[str] = []
    pending = ""
    for sentence in sentences:
        pending = f"{pending} {sentence}" if pending else sentence
        if len(_WORD.findall(pending)) >= min_words:
            units.append(pending)
            pending = ""
    if units and pending:
        units[-1] = f"{units[-1]} {pending}"
    elif not units:
        units.append(pending)  # the whole text is shorter than min_words (or empty: one empty unit, as above)
    return units


def min_sentence_words(scorer: Any) -> int:
    """The ``min_sentence_words`` a scorer (or the scorer it wraps, through ``inner``) asks for; 0 if none does."""
    values = (getattr(s, "min_sentence_words", None) for s in wrapped_chain(scorer))
    return next((v for v in values if isinstance(v, int) and not isinstance(v, bool)), 0)


def sentence_threshold(scorer: Any) -> float:
    """The ``sentence_threshold`` a scorer (or the scorer it wraps, through ``inner``) declares: the score at which
    one sentence should count as crossing the usual 0.5 (module docstring); 0.5 if none does."""
    values = (getattr(s, "sentence_threshold", None) for s in wrapped_chain(scorer))
    return next((v for v in values if isinstance(v, float) and 0.0 < v < 1.0), 0.5)


def _checked_threshold(threshold: float) -> float:
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"a sentence threshold must lie strictly between 0 and 1, got {threshold!r}")
    return threshold


def rescale_to_threshold(scores: Any, threshold: float) -> npt.NDArray[np.float64]:
    """``scores`` in [0, 1] mapped piecewise linearly so ``threshold`` lands on 0.5 (0 and 1 stay; the order
    stays): the module docstring's :math:`r(s)`. ``threshold`` 0.5 returns the scores unchanged.

    >>> rescale_to_threshold([0.0, 0.35, 0.7, 0.85, 1.0], 0.7).round(3).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    s = np.asarray(scores, dtype=np.float64)
    if _checked_threshold(threshold) == 0.5:
        return s
    return np.where(s < threshold, 0.5 * s / threshold, 0.5 + 0.5 * (s - threshold) / (1.0 - threshold))


def _abbreviated(piece: str) -> bool:
    """Whether ``piece`` (ending in a single ".") ends in an abbreviation or a single letter."""
    found = _LAST_WORD.search(piece[:-1])
    if found is None:
        return False
    word = found.group(1).lstrip("(\"'“‘").lower()
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


class WorstSentenceScorer(Scorer):
    """``scorer`` applied to each sentence of a text; a text's score is its highest sentence score.

    Parameters
    ----------
    scorer
        Any scorer or callable ``f(list[str]) -> floats in [0, 1]`` (e.g. the identity-masked offline default).
    min_words
        Join sentences of fewer words to a neighbour (:func:`split_units`); default: what the scorer asks for
        (:func:`min_sentence_words`: 0, every sentence alone, for the lexical models).
    threshold
        The sentence score that counts as crossing 0.5 (module docstring: the reply's score is the worst sentence's
        rescaled by :func:`rescale_to_threshold`); default: what the scorer declares (:func:`sentence_threshold`:
        0.7 for the lexical default, 0.5 — scores unchanged — for any scorer that declares nothing).
    """

    def __init__(
        self, scorer: Any, *, min_words: int | None = None, threshold: float | None = None, **options: Any
    ) -> None:
        options.setdefault("batch_size", 8192)  # the inner scorer batches the sentences on its own
        super().__init__(**options)
        self.inner: Scorer = scorer if isinstance(scorer, Scorer) else CallableScorer(scorer)
        self.min_words = min_sentence_words(self.inner) if min_words is None else int(min_words)
        # a threshold outside (0, 1) is refused now, not at the first reply
        self.threshold = sentence_threshold(self.inner) if threshold is None else _checked_threshold(float(threshold))
        self.description = self.inner.description
        #: every sentence's score so far: replies come in batches, and the same sentence in another batch (a
        #: counterfactual version, a stock phrase) is not scored again (without a score cache the MiniLM toxicity
        #: encoder ran 36% of its paper-scale units twice); bounded by :data:`MAX_REMEMBERED`
        self._unit_scores: dict[str, float] = {}
        if self.inner.recipe is not None:  # a named inner model: a Ray worker can build both again, there
            options = {"batch_size": self.batch_size, "min_words": self.min_words, "threshold": self.threshold}
            self.recipe = (worst_sentence_from_recipe, self.inner.recipe, options)

    @property
    def cache_key(self) -> str | None:
        inner = self.inner.cache_key
        if inner is None:
            return None
        words = f"{self.min_words}w/" if self.min_words > 1 else ""
        cut = f"t{self.threshold:g}/" if self.threshold != 0.5 else ""  # a rescaled score is another score
        return f"worst-sentence/{cut}{words}{inner}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        pieces, scores, starts = self._sentence_scores(texts)
        if not pieces:
            return np.empty(0, dtype=np.float64)
        return rescale_to_threshold(np.maximum.reduceat(scores, starts), self.threshold)

    def _sentence_scores(self, texts: Any) -> tuple[list[list[str]], npt.NDArray[np.float64], npt.NDArray[np.intp]]:
        """Each text's sentences, every sentence's score (one call to the inner scorer) and where each text's
        sentences start in that array."""
        pieces = [split_units(t, self.min_words) for t in as_text_list(texts, "texts")]
        counts = np.fromiter((len(p) for p in pieces), dtype=np.intp, count=len(pieces))
        if counts.size == 0:
            return [], np.empty(0, dtype=np.float64), np.empty(0, dtype=np.intp)
        units = [s for p in pieces for s in p]
        new = [u for u in dict.fromkeys(units) if u not in self._unit_scores]
        if new:  # one call for the batch's sentences not scored in an earlier batch
            if len(self._unit_scores) + len(new) > MAX_REMEMBERED:
                self._unit_scores.clear()
            self._unit_scores.update(zip(new, np.asarray(self.inner(new), dtype=np.float64).tolist(), strict=True))
        scores = np.fromiter((self._unit_scores[u] for u in units), dtype=np.float64, count=len(units))
        return pieces, scores, np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.intp)

    def worst_sentences(self, texts: Any) -> list[tuple[str, float]]:
        """``(sentence, score)`` of each text's highest-scoring sentence (the first of ties) and the text's score (the
        sentence's, rescaled as :meth:`__call__` rescales it): the sentence that decides the text's score, which a
        report shows beside a flagged reply so a reader sees at once what was flagged. The inner scorer's cache and
        de-duplication make a second pass over scored texts cheap.

        >>> WorstSentenceScorer(lambda xs: [0.9 if "idiot" in x else 0.1 for x in xs]).worst_sentences(
        ...     ["Thanks. You idiot. Bye."])
        [('You idiot.', 0.9)]
        """
        pieces, scores, starts = self._sentence_scores(texts)
        out = []
        for sentences, start in zip(pieces, starts, strict=True):
            block = scores[start : start + len(sentences)]
            best = int(np.argmax(block))
            out.append((sentences[best], float(rescale_to_threshold(block[best], self.threshold))))
        return out

    def __repr__(self) -> str:
        return f"WorstSentenceScorer({self.inner!r})"


def worst_sentence_from_recipe(
    inner_recipe: tuple[Any, Any, dict[str, Any]], *, device: str | None = None, **options: Any
) -> WorstSentenceScorer:
    """A :class:`WorstSentenceScorer` whose inner scorer is built again from its recipe (on ``device`` when given):
    what a Ray actor with a GPU does with it."""
    factory, spec, inner_options = inner_recipe
    inner_options = dict(inner_options)
    if device is not None and "device" not in inner_options:
        inner_options["device"] = device
    return WorstSentenceScorer(factory(spec, **inner_options), **options)


__all__ = [
    "ABBREVIATIONS",
    "WorstSentenceScorer",
    "min_sentence_words",
    "rescale_to_threshold",
    "sentence_threshold",
    "split_sentences",
    "split_units",
    "worst_sentence_from_recipe",
]
