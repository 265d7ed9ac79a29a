"""The language of a use case's prompts, detected offline, so that FTU is not "satisfied" by a lexicon that cannot read
them.

An attribute lexicon lists words of one language (``Lexicon.language``, ISO 639-1, ``"en"`` for the built-ins).
Spanish prompts full of *madre*, *mujer* and *él* contain no English gender word, so an English lexicon would report
FTU as satisfied and the plan would drop every counterfactual metric. :func:`detect_language` looks at a sample of
the prompts with ``py3langid`` (a naive Bayes model over byte n-grams, shipped inside its wheel: no download) and
declares a language only when it is confident: a prompt votes only when it has enough letters and the model is
sure of it, and the winning language needs a clear majority of the voting prompts. Otherwise the language is left
undecided and callers assume the lexicon's own language, so short English prompts ("Summarise the call.") never
block an English lexicon.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evenhand._validation import as_text_list
from evenhand.conversation import Prompt, plain_text

#: At most this many prompts are classified (evenly spread over the list): the language of a use case is a property
#: of the population, and a sample keeps the check fast whatever the number of prompts.
MAX_PROMPTS = 200
#: A prompt votes only with at least this many letters (shorter ones are too ambiguous to classify)...
MIN_LETTERS = 12
#: ... and when the model gives its language at least this probability.
MIN_CONFIDENCE = 0.7
#: The winning language needs this share of the voting prompts (and of the prompts long enough to vote).
MIN_SHARE = 0.6
#: Only the first characters of a long prompt are classified.
MAX_CHARS = 600

#: English names of common ISO 639-1 codes, for messages; other codes are shown as they are.
LANGUAGE_NAMES: Mapping[str, str] = {
    "af": "Afrikaans", "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan", "cs": "Czech",
    "cy": "Welsh", "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish",
    "et": "Estonian", "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fr": "French", "ga": "Irish",
    "gl": "Galician", "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian",
    "hy": "Armenian", "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ja": "Japanese", "ka": "Georgian",
    "kk": "Kazakh", "km": "Khmer", "kn": "Kannada", "ko": "Korean", "la": "Latin", "lt": "Lithuanian",
    "lv": "Latvian", "mk": "Macedonian", "ml": "Malayalam", "mr": "Marathi", "ms": "Malay", "mt": "Maltese",
    "ne": "Nepali", "nl": "Dutch", "no": "Norwegian", "pa": "Punjabi", "pl": "Polish", "pt": "Portuguese",
    "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sr": "Serbian",
    "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "th": "Thai", "tl": "Tagalog",
    "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese", "zh": "Chinese",
}  # fmt: skip
_NOT_A_LANGUAGE = frozenset({"und", "zxx"})


def language_name(code: str | None) -> str:
    """``"es"`` -> ``"Spanish"``; an unknown code is returned as it is, ``None`` as ``"an unknown language"``.

    >>> language_name("es"), language_name("pcm")
    ('Spanish', 'pcm')
    """
    if code is None:
        return "an unknown language"
    return LANGUAGE_NAMES.get(code, code)


@dataclass(frozen=True)
class LanguageGuess:
    """The language of a set of prompts, as :func:`detect_language` sees it.

    Attributes:
        code: the ISO 639-1 code of the prompts' language (``"es"``), or ``None`` when it could not be decided
            (too few prompts long enough to judge, no clear majority, or no detector).
        n_votes: sampled prompts confidently detected as ``code`` (0 when undecided).
        n_sampled: prompts looked at (at most :data:`MAX_PROMPTS`, spread evenly over all of them).
        n_prompts: all prompts.
        n_long: sampled prompts with at least :data:`MIN_LETTERS` letters.
        counts: confident detections per language among the sampled prompts.
    """

    code: str | None
    n_votes: int = 0
    n_sampled: int = 0
    n_prompts: int = 0
    n_long: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The language's English name ("Spanish")."""
        return language_name(self.code)

    def differs_from(self, language: str | None) -> bool:
        """True when both languages are known and differ: a lexicon in ``language`` cannot read these prompts."""
        return self.code is not None and language is not None and self.code != language

    def share(self, language: str) -> int:
        """Sampled prompts confidently detected as ``language``."""
        return int(self.counts.get(language, 0))

    def evidence(self) -> str:
        """``"es, 38 of 40 prompts"`` (``"of 200 sampled prompts"`` when the prompts were sampled)."""
        sampled = "sampled prompts" if self.n_sampled < self.n_prompts else "prompts"
        return f"{self.code}, {self.n_votes} of {self.n_sampled} {sampled}"

    def minority(self, language: str, min_share: float = 0.2) -> tuple[str, int] | None:
        """The most frequent confidently detected language other than ``language`` when it covers at least
        ``min_share`` of the sampled prompts (a mixed-language use case), else None."""
        others = [(c, n) for c, n in sorted(self.counts.items(), key=lambda kv: -kv[1]) if c != language]
        if others and self.n_sampled and others[0][1] >= max(2, min_share * self.n_sampled):
            return others[0]
        return None


@functools.cache
def _identifier() -> Any:
    """The py3langid model (loaded once per process, about half a second), or None when it is not installed."""
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:  # a core dependency; without it the language is never declared (nothing is blocked)
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _sample(texts: list[str], max_prompts: int) -> list[str]:
    if len(texts) <= max_prompts:
        return texts
    step = len(texts) / max_prompts
    return [texts[int(i * step)] for i in range(max_prompts)]


def detect_language(
    prompts: Any,
    *,
    max_prompts: int = MAX_PROMPTS,
    min_letters: int = MIN_LETTERS,
    min_confidence: float = MIN_CONFIDENCE,
    min_share: float = MIN_SHARE,
) -> LanguageGuess:
    """Detect the language of a set of prompts, offline; undecided (``code=None``) unless confident.

    Up to ``max_prompts`` prompts, spread evenly over the list, are classified. A prompt votes for a language when
    it has at least ``min_letters`` letters and the model gives that language a probability of at least
    ``min_confidence``. The most voted language is declared when it has at least ``min_share`` of the votes *and*
    of the prompts long enough to vote, and at least ``min(3, prompts long enough)`` votes.

    >>> detect_language(["Escribe una nota breve a la señora García sobre su póliza.",
    ...                  "Mi madre quiere saber si su seguro cubre los daños por agua."]).code
    'es'
    >>> detect_language(["Summarise the call.", "Thank the client."]).code is None   # too short to judge
    True
    """
    texts = as_text_list(prompts, "prompts", allow_empty=True)
    sample = _sample(texts, max_prompts)
    long = [t for t in sample if sum(ch.isalpha() for ch in t[:MAX_CHARS]) >= min_letters]
    identifier = _identifier() if long else None
    if identifier is None:
        return LanguageGuess(None, 0, len(sample), len(texts), len(long))
    votes: Counter[str] = Counter()
    for text in long:
        code, confidence = identifier.classify(text[:MAX_CHARS])
        if confidence >= min_confidence and code not in _NOT_A_LANGUAGE:
            votes[code] += 1
    counts = dict(votes.most_common())
    if not votes:
        return LanguageGuess(None, 0, len(sample), len(texts), len(long), counts)
    code, n = votes.most_common(1)[0]
    total = sum(votes.values())
    if n >= min_share * total and n >= min_share * len(long) and n >= min(3, len(long)):
        return LanguageGuess(code, n, len(sample), len(texts), len(long), counts)
    return LanguageGuess(None, 0, len(sample), len(texts), len(long), counts)


def detect_prompt_language(prompts: Sequence[Prompt]) -> LanguageGuess:
    """The language of a use case's prompts, texts or conversations, each read as its plain text (its turns and
    documents, :func:`evenhand.conversation.plain_text`): the one reading of the prompts' language, for FTU's check
    and the plan's notes alike."""
    return detect_language([plain_text(p) for p in prompts])


__all__ = ["LANGUAGE_NAMES", "LanguageGuess", "detect_language", "detect_prompt_language", "language_name"]
