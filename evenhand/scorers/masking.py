"""Identity-masked scoring: replace the attribute words of every lexicon by neutral forms before scoring.

A scorer that has learned identity words as signals of abuse ("gay", "Muslim") scores benign statements about
those groups as toxic (:mod:`evenhand.scorers.audit` measures it). Masking hides the identity from the scorer:
each attribute word becomes its lexicon row's neutral form, through the same machinery as
:func:`evenhand.neutralize` ("she" -> "they", "woman" -> "person", "gay" -> ``[MASK]``), so a reply is scored on
what it says, not on whom it names.

Trade-offs (measured in ``docs/scorers.md``):

* masking follows the lexicons' own rules, so context-dependent words count only where the lexicon says they name
  a person ("a Black woman" is masked; "My neighbor is black." and "black coffee" are not), and a word that is in
  no lexicon is never masked ("transgender", "nonbinary" and "genderqueer" are gender terms of no group, so they
  are: "I am transgender." -> "I am someone.");
* abuse that *is* the identity word used as a slur ("you are so gay") loses its signal: masking lowers recall on
  exactly the texts where the identity word carries the toxicity;
* the scorer sees a neutral word where the text had an identity word. The default token is "someone", not
  ``[MASK]``: the offline default model scores the bare word "[MASK]" 0.40 (its TF-IDF vocabulary knows "mask"),
  which lifted every masked benign statement by about 0.15 in the audit, while "someone" scores like text without
  it. ``token=`` picks another (``"[MASK]"`` suits a BERT-style classifier that knows its mask token).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy.typing as npt

from evenhand._validation import as_text_list
from evenhand.errors import InputError
from evenhand.scorers._base import CallableScorer, Scorer
from evenhand.text.lexicon import MASK, masked_attributes

if TYPE_CHECKING:
    from evenhand.text.ftu import AttributeSpec

_TOKEN_PATTERN_CHARS = set("\n\r\x00")
#: What an identity word without a neutral form of its own becomes (see the module docstring for why not [MASK]).
DEFAULT_TOKEN = "someone"


def mask_identity(texts: Any, attributes: Sequence[Any] | None = None, *, token: str = DEFAULT_TOKEN) -> list[str]:
    """``texts`` with the attribute words of ``attributes`` (``None``: every built-in lexicon masked by default,
    :func:`evenhand.text.lexicon.masked_attributes`) replaced by their neutral forms (:func:`evenhand.neutralize`); a
    word whose neutral form is ``[MASK]`` becomes ``token``.

    >>> mask_identity(["Gay people deserve respect.", "My wife is a Muslim doctor."])
    ['someone people deserve respect.', 'My spouse is a someone doctor.']
    >>> mask_identity(["I am a Black woman."], token="[MASK]")
    ['I am a [MASK] person.']
    """
    from evenhand.text import neutralize

    out = as_text_list(texts, "texts")
    # the default lexicons go in one pass together, as neutralize(texts, None) takes every built-in one
    specs: list[AttributeSpec] = [masked_attributes()] if attributes is None else list(attributes)
    for attribute in specs:
        out = neutralize(out, attribute)
    return out if token == MASK else [t.replace(MASK, token) for t in out]


class IdentityMaskedScorer(Scorer):
    """``scorer`` applied to identity-masked texts (see the module docstring for what that costs).

    Parameters
    ----------
    scorer
        Any scorer or callable ``f(list[str]) -> floats in [0, 1]``.
    attributes
        The lexicons whose words are masked: ``None`` (every built-in one masked by default), or names / custom
        dicts.
    token
        What a word without a neutral form of its own becomes (default :data:`DEFAULT_TOKEN`, "someone").
    """

    def __init__(
        self, scorer: Any, *, attributes: Sequence[Any] | None = None, token: str = DEFAULT_TOKEN, **options: Any
    ) -> None:
        if not isinstance(token, str) or not token.strip() or _TOKEN_PATTERN_CHARS & set(token):
            raise InputError(f"token must be a non-empty one-line string, got {token!r}")
        options.setdefault("batch_size", 8192)  # the inner scorer batches on its own
        super().__init__(**options)
        self.inner: Scorer = scorer if isinstance(scorer, Scorer) else CallableScorer(scorer)
        self.attributes = None if attributes is None else list(attributes)
        self.token = token
        self.description = self.inner.description
        if self.inner.recipe is not None:  # a named inner model: a Ray GPU worker can build both again, there
            options = {"attributes": self.attributes, "token": self.token, "batch_size": self.batch_size}
            self.recipe = (masked_from_recipe, self.inner.recipe, options)

    @property
    def scale(self) -> str | None:
        """The inner scorer's ``scale`` (what a sentiment score means), when it has one."""
        scale = getattr(self.inner, "scale", None)
        return scale if isinstance(scale, str) else None

    @property
    def cache_key(self) -> str | None:
        inner = self.inner.cache_key
        if inner is None or not all(isinstance(a, str) for a in self.attributes or ()):
            return None  # a custom word list has no stable name to key on
        which = "+".join(self.attributes) if self.attributes is not None else "builtin"
        return f"masked[{which}|{self.token}]/{inner}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        return self.inner(mask_identity(texts, self.attributes, token=self.token))

    def __repr__(self) -> str:
        return f"IdentityMaskedScorer({self.inner!r})"


def masked_from_recipe(
    inner_recipe: tuple[Any, Any, dict[str, Any]], *, device: str | None = None, **options: Any
) -> IdentityMaskedScorer:
    """An :class:`IdentityMaskedScorer` whose inner scorer is built again from its recipe (on ``device`` when
    given): what a Ray actor with a GPU does with a masked scorer."""
    factory, spec, inner_options = inner_recipe
    inner_options = dict(inner_options)
    if device is not None and "device" not in inner_options:
        inner_options["device"] = device
    return IdentityMaskedScorer(factory(spec, **inner_options), **options)


__all__ = ["DEFAULT_TOKEN", "IdentityMaskedScorer", "mask_identity"]
