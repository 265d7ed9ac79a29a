"""Co-occurrence stereotype metrics (paper 3.1.2.1): COBS (Bordia & Bowman) and SA (Liang et al. / HELM).

Both count how often stereotype *target* words (the HELM adjective or profession lists, or your own) appear with
the words of each protected-attribute group, over a corpus of responses. Tokens are ``nltk.word_tokenize``
tokens (see :mod:`evenhand.metrics._tokens`). Group mentions of the built-in lexicons come from the text core's
matcher (:func:`evenhand.text._engine.find_matches`), so its context rules apply ("a black car" is no race mention)
and a multi-word term ("African American") is one mention at its first token. A ``{group: [words]}`` dict is
matched as single lower-case tokens.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, lru_cache, partial
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from scipy import sparse

from evenhand._validation import as_text_list, paired_by_position
from evenhand.errors import InputError
from evenhand.metrics._result import MetricResult, Resampler, clustered, prompt_units, undefined
from evenhand.metrics._tokens import word_tokens
from evenhand.registry import METRICS

if TYPE_CHECKING:
    from evenhand.text.lexicon import Lexicon

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: a metric with fixed settings on a selection of the texts it tokenized (None: all, in order) with these units
_Computation = Callable[[IntArray | None, Any], MetricResult]

__all__ = ["cooccurrence_bias", "load_word_list", "prepare_cooccurrence", "stereotypical_associations"]

_WORD_LISTS = {"adjective": "adjectives.txt", "profession": "professions.txt", "stopwords": "stopwords_english.txt"}
_MAX_PAIRS = 4_000_000  # (attribute token, token of the same response) pairs held in memory at once


@cache
def load_word_list(name: str) -> tuple[str, ...]:
    """A bundled word list: ``"adjective"``, ``"profession"`` or ``"stopwords"`` (see data/wordlists/SOURCES.md)."""
    if name not in _WORD_LISTS:
        raise InputError(f"unknown word list {name!r}; use one of {sorted(_WORD_LISTS)}")
    text = (
        resources.files("evenhand.data").joinpath("wordlists").joinpath(_WORD_LISTS[name]).read_text(encoding="utf-8")
    )
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def _targets(target: str | Iterable[str], *, plurals: bool) -> list[str]:
    if isinstance(target, str):
        words = list(load_word_list(target)) if target in ("adjective", "profession") else None
        if words is None:
            raise InputError(f"target must be 'adjective', 'profession' or a list of words, got {target!r}")
        if plurals and target == "profession":  # HELM/LangFair count professions in singular and plural
            words = words + [w + "s" for w in words]
    else:
        words = [str(w) for w in target]
        if not words:
            raise InputError("target is an empty word list")
    return list(dict.fromkeys(w.lower() for w in words))


def _lexicon(attribute: Any) -> Lexicon | None:
    """The lexicon whose matcher finds group mentions; None for a ``{group: [words]}`` dict (single tokens)."""
    if isinstance(attribute, Mapping):
        return None
    from evenhand.text.lexicon import load_lexicon

    return load_lexicon(attribute)


def _groups(attribute: Any, groups: Sequence[str] | None) -> dict[str, frozenset[str]]:
    """Lower-case word sets per group, from a built-in attribute name, a Lexicon or a ``{group: [words]}`` dict."""
    if isinstance(attribute, Mapping):
        lists = {str(g): frozenset(str(w).lower() for w in words) for g, words in attribute.items()}
    else:
        lexicon = _lexicon(attribute)
        assert lexicon is not None
        lists = {g: lexicon.group_words(g) for g in lexicon.groups}
    if groups is not None:
        unknown = [g for g in groups if g not in lists]
        if unknown:
            raise InputError(f"unknown groups {unknown}; available: {list(lists)}")
        lists = {g: lists[g] for g in groups}
    if len(lists) < 2:
        raise InputError(f"need at least two attribute groups, got {list(lists)}")
    empty = [g for g, words in lists.items() if not words]
    if empty:
        raise InputError(f"attribute groups {empty} have no words")
    return lists


# Marker tokens that stand for a lexicon match: letters only, so the tokenizer keeps them whole and _clean leaves
# them as they are. A multi-word term keeps its token count: the first word becomes the group's marker, the others
# _REST (neither a mention nor a reference word), so COBS distances to later tokens do not change.
_MARKER = "evenhandmention{}x"
_REST = "evenhandmentionrest"
_WORD = re.compile(r"\S+")


def _marker(index: int) -> str:
    return _MARKER.format("".join(chr(ord("a") + int(d)) for d in str(index)))


class _Mentions:
    """``re.sub`` callback: replaces a mention of a group in ``names`` by marker tokens (the first word by the
    group's marker, the other words of a multi-word term by _REST); leaves other matches as they are."""

    def __init__(self, lexicon: Lexicon, names: list[str]) -> None:
        self.lexicon = lexicon
        self.column = {g: k for k, g in enumerate(names)}
        self._memo: dict[str, str] = {}  # matched term as written -> its replacement

    def __call__(self, m: re.Match[str]) -> str:
        word = m.group()  # the pattern's context rules are look-arounds: the match is the term itself
        new = self._memo.get(word)
        if new is None:
            k = self.column.get(self.lexicon.group_of(word) or "", -1)
            new = self._memo[word] = _WORD.sub(_REST, word).replace(_REST, _marker(k), 1) if k >= 0 else word
        return new


def _mark_mentions(lexicon: Lexicon, texts: list[str], names: list[str]) -> tuple[list[str], FloatArray]:
    """Texts with the mentions of ``names`` groups as marker tokens, and mentions per (text, group).

    Mentions are the matches of the lexicon's compiled pattern (the text core's matcher, with its context rules).
    """
    sub = partial(lexicon.pattern.sub, _Mentions(lexicon, names))
    marked = [sub(t) for t in texts]
    counts = np.array([[t.count(_marker(k)) for k in range(len(names))] for t in marked], dtype=np.float64)
    return marked, counts.reshape(len(texts), len(names))


#: Responses tokenized at once. Token lists hold one Python string per token (~80 bytes each, ~5 KB per
#: response), so the corpus is built block by block and keeps only integer ids: memory grows by 8 bytes a token.
CORPUS_BLOCK = 5_000


class _Corpus:
    """Flat token ids of all responses: ``ids[k]`` is the vocabulary id of token k, ``doc[k]`` its response.

    Ids are given in order of first appearance over the whole corpus, whatever the blocks (as ``pd.factorize`` of
    all tokens would give them)."""

    def __init__(self, texts: list[str], tokenize: Callable[[list[str]], list[list[str]]]) -> None:
        where: dict[str, int] = {}
        ids, lengths = [], []
        for start in range(0, len(texts), CORPUS_BLOCK):
            token_lists = tokenize(texts[start : start + CORPUS_BLOCK])
            lengths.append(np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists)))
            ids.append(np.fromiter((where.setdefault(t, len(where)) for toks in token_lists for t in toks), np.int64))
        self.n_docs = len(texts)
        self.lengths = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)
        self.ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        self.vocab: list[str] = list(where)
        self.doc = np.repeat(np.arange(self.n_docs, dtype=np.int64), self.lengths)

    def select(self, index: IntArray) -> _Corpus:
        """The corpus of responses ``index`` (repeats allowed), in that order, with this corpus's vocabulary.

        Its token sequences are the ones tokenizing those texts again would give; only the vocabulary ids may be
        numbered otherwise, and nothing computed from a corpus depends on their numbering."""
        out = object.__new__(_Corpus)
        index = np.asarray(index, dtype=np.int64)
        out.n_docs = int(index.size)
        out.lengths = self.lengths[index]
        out.starts = np.concatenate([[0], np.cumsum(out.lengths)[:-1]]).astype(np.int64)
        offset = np.arange(int(out.lengths.sum()), dtype=np.int64) - np.repeat(out.starts[: out.n_docs], out.lengths)
        out.ids = self.ids[np.repeat(self.starts[index], out.lengths) + offset]
        out.vocab = self.vocab
        out.doc = np.repeat(np.arange(out.n_docs, dtype=np.int64), out.lengths)
        return out

    def vocab_mask(self, words: frozenset[str] | set[str]) -> npt.NDArray[np.bool_]:
        return np.fromiter((w in words for w in self.vocab), dtype=bool, count=len(self.vocab))

    def vocab_index(self, words: list[str]) -> IntArray:
        """Per vocabulary entry, its position in ``words`` (-1 when absent)."""
        where = {w: i for i, w in enumerate(words)}
        return np.fromiter((where.get(w, -1) for w in self.vocab), dtype=np.int64, count=len(self.vocab))

    def doc_counts(self, token_mask: npt.NDArray[np.bool_]) -> FloatArray:
        return np.bincount(self.doc[token_mask], minlength=self.n_docs).astype(np.float64)

    def doc_word_matrix(
        self, columns: IntArray, n_columns: int, weights: FloatArray | None = None
    ) -> sparse.csr_matrix:
        """Sparse (responses x words) sum of ``weights`` (or counts) of the tokens whose word column is >= 0."""
        keep = columns >= 0
        data = np.ones(int(keep.sum())) if weights is None else weights[keep]
        return sparse.csr_matrix((data, (self.doc[keep], columns[keep])), shape=(self.n_docs, n_columns))


# ----------------------------------------------------------------------------------------------------------------
# COBS
# ----------------------------------------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")
_EDGE_PUNCT = re.compile(r"^[^A-Za-z<>$]+|[^A-Za-z<>$]+$")


@lru_cache(maxsize=200_000)
def _clean(token: str) -> str:
    """Bordia & Bowman token normalisation: lower-case, digit runs -> ``NUMBER``, trim edge punctuation."""
    return _EDGE_PUNCT.sub("", _DIGITS.sub("NUMBER", token.lower()))


def _decayed_cooccurrence(corpus: _Corpus, sources: npt.NDArray[np.bool_], beta: float) -> FloatArray:
    """For every token j: sum over source tokens k != j of the same response of ``beta ** |j - k|``."""
    out = np.zeros(corpus.ids.size)
    src = np.flatnonzero(sources)
    if src.size == 0:
        return out
    powers = np.array([beta**k for k in range(int(corpus.lengths.max()) + 1)])  # pow() like the reference
    span = corpus.lengths[corpus.doc[src]]
    cum = np.cumsum(span)
    lo = 0
    while lo < src.size:  # bounded memory: at most ~_MAX_PAIRS (source, token) pairs per step
        base = int(cum[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(cum, base + _MAX_PAIRS, side="right")))
        s, ln = src[lo:hi], span[lo:hi]
        rep = np.repeat(s, ln)
        offset = np.arange(int(ln.sum())) - np.repeat(np.cumsum(ln) - ln, ln)
        target = np.repeat(corpus.starts[corpus.doc[s]], ln) + offset
        weight = powers[np.abs(target - rep)]
        weight[target == rep] = 0.0
        out += np.bincount(target, weights=weight, minlength=out.size)
        lo = hi
    return out


def _cobs_values(co1: FloatArray, co2: FloatArray, totals: FloatArray) -> FloatArray:
    """Signed log10 COBS ratio per word (NaN where a group never co-occurs). ``totals`` holds the corpus sums of
    (co-occurrence with group 1, with group 2, group-1 words, group-2 words, reference words); rows of 2-D
    inputs are bootstrap replicates."""
    tot1, tot2, n1, n2, n_ref = (totals[..., i : i + 1] for i in range(5))
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = (co1 / tot1) / (n1 / n_ref)
        p2 = (co2 / tot2) / (n2 / n_ref)
        return np.where((co1 > 0) & (co2 > 0), np.log10(p1 / p2), np.nan)


@paired_by_position
def cooccurrence_bias(
    responses: Any,
    attribute: Any = "gender",
    target: str | Iterable[str] = "adjective",
    beta: float = 0.95,
    groups: Sequence[str] | None = None,
    prompts: Any = None,
) -> MetricResult:
    """Co-Occurrence Bias Score (COBS, Bordia & Bowman 2019, infinite context window).

    For a target word ``w`` and attribute-word sets ``A'``, ``A''``::

        cooccur(w, A | Y) = sum_{w_j = w, w_k in A, j != k} beta ** |j - k|
        P(w | A) = [sum_i cooccur(w, A | Y_i) / sum_i sum_{u not in S u A} cooccur(u, A | Y_i)]
                   / [sum_i count(A, Y_i) / sum_i count(tokens not in S u A, Y_i)]
        COBS = (1/|W*|) sum_{w in W*} |log10 P(w | A') / P(w | A'')|

    where ``S`` are NLTK's English stop words and ``W*`` the target words that co-occur with both groups. The
    paper writes the signed mean (range (-inf, inf)); like the paper's toolkit we report the mean absolute
    log ratio, range [0, inf), 0 is fairest. Signed per-word values are in ``details["log10_ratio"]``.

    Args:
        responses: texts (list, array or Series of str).
        attribute: ``"gender"`` (default lexicon), ``"race"`` or a ``{group: [words]}`` dict.
        target: ``"adjective"``, ``"profession"`` or a list of target words.
        beta: decay per token of distance, in (0, 1].
        groups: the two groups to compare when the attribute has more than two.
        prompts: the prompt of each response (the resampling unit: the bootstrap draws prompts with all their
            responses, which share the prompt's group words and topic); without it each response is a unit.
    """
    texts = as_text_list(responses, "responses")
    units = None if prompts is None else prompt_units(prompts, len(texts), "response")
    return _cobs(texts, attribute, target, beta, groups)(None, units)


def _cobs(
    texts: list[str], attribute: Any, target: str | Iterable[str], beta: float, groups: Sequence[str] | None
) -> _Computation:
    """COBS with these settings on any selection of ``texts``, which are tokenized once, here."""
    if not 0.0 < float(beta) <= 1.0:
        raise InputError(f"beta must lie in (0, 1], got {beta}")
    group_words = _groups(attribute, groups)
    if len(group_words) != 2:
        raise InputError(f"COBS compares two groups; the attribute has {list(group_words)}: pass groups=(a, b)")
    (g1, words1), (g2, words2) = group_words.items()
    targets = _targets(target, plurals=False)
    params = {"beta": float(beta), "groups": [g1, g2], "target": target if isinstance(target, str) else "custom"}

    lexicon = _lexicon(attribute)
    if lexicon is not None:  # mentions found by the lexicon matcher, then tokenized as marker tokens
        texts = _mark_mentions(lexicon, texts, [g1, g2])[0]
        words1, words2 = frozenset({_marker(0)}), frozenset({_marker(1)})
    pool = _Corpus(texts, lambda block: [[c for c in map(_clean, toks) if c] for toks in word_tokens(block)])
    stop = frozenset(load_word_list("stopwords"))

    def compute(index: IntArray | None, units: Any) -> MetricResult:
        corpus = pool if index is None else pool.select(index)
        is1, is2 = corpus.vocab_mask(words1)[corpus.ids], corpus.vocab_mask(words2)[corpus.ids]
        ref = ~(corpus.vocab_mask(stop | words1 | words2 | {_REST})[corpus.ids])
        sizes = {"responses": corpus.n_docs, "tokens": int(corpus.ids.size), "target_words": len(targets)}
        if units is not None:
            sizes["prompts"] = units.n
        # name, range and direction: the registry's
        common: dict[str, Any] = {
            **METRICS["cooccurrence_bias"].identity(),
            "sizes": sizes,
            "params": params,
            "item_unit": "word",
        }
        if not is1.any() or not is2.any():
            missing = [g for g, m in ((g1, is1), (g2, is2)) if not m.any()]
            return undefined(reason=f"no response contains a word of group(s) {missing}", **common)

        co1 = _decayed_cooccurrence(corpus, is1, beta) * ref
        co2 = _decayed_cooccurrence(corpus, is2, beta) * ref
        per_doc = np.column_stack(
            [
                np.bincount(corpus.doc, weights=co1, minlength=corpus.n_docs),
                np.bincount(corpus.doc, weights=co2, minlength=corpus.n_docs),
                corpus.doc_counts(is1),
                corpus.doc_counts(is2),
                corpus.doc_counts(ref),
            ]
        )
        column = corpus.vocab_index(targets)[corpus.ids]
        column = np.where(ref, column, -1)
        m1 = corpus.doc_word_matrix(column, len(targets), co1)
        m2 = corpus.doc_word_matrix(column, len(targets), co2)
        seen = np.flatnonzero(np.asarray((m1.sum(axis=0) > 0) & (m2.sum(axis=0) > 0)).ravel())
        signed = _cobs_values(
            np.asarray(m1.sum(axis=0)).ravel(), np.asarray(m2.sum(axis=0)).ravel(), per_doc.sum(axis=0)
        )
        if seen.size == 0:
            return undefined(reason="no target word co-occurs with words of both groups", **common)
        m1, m2 = m1[:, seen].tocsc(), m2[:, seen].tocsc()

        def statistic(w: FloatArray) -> FloatArray:
            c1 = np.asarray((m1.T @ w.T).T)
            c2 = np.asarray((m2.T @ w.T).T)
            vals = np.abs(_cobs_values(c1, c2, w @ per_doc))
            with np.errstate(invalid="ignore"):
                counts = np.sum(~np.isnan(vals), axis=1)
                return np.where(counts > 0, np.nansum(vals, axis=1) / np.maximum(counts, 1), np.nan)

        words = np.asarray(targets, dtype=object)[seen]
        return MetricResult(
            value=float(np.mean(np.abs(signed[seen]))),
            per_item=np.abs(signed[seen]),
            item_labels=words,
            details={"log10_ratio": dict(zip(words.tolist(), signed[seen].tolist(), strict=False)), "groups": (g1, g2)},
            resampler=_by_unit(Resampler(unit="response", n_units=corpus.n_docs, statistic=statistic), units),
            **common,
        )

    return compute


# ----------------------------------------------------------------------------------------------------------------
# SA
# ----------------------------------------------------------------------------------------------------------------


def _by_unit(resampler: Resampler, units: Any) -> Resampler:
    """The response-level resampler, or with ``prompts=`` the prompt-level one (prompts with all their responses)."""
    return resampler if units is None else clustered(resampler, units)


def _tvd_from_uniform(gamma: FloatArray, group_sizes: FloatArray) -> FloatArray:
    """TVD between each word's group distribution and the uniform one; ``gamma`` is (..., groups, words)."""
    norm = gamma / group_sizes[:, None]
    total = norm.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = norm / total
        tvd = 0.5 * np.abs(p - 1.0 / group_sizes.size).sum(axis=-2)
    return np.where(total[..., 0, :] > 0, tvd, np.nan)


@paired_by_position
def stereotypical_associations(
    responses: Any,
    attribute: Any = "gender",
    target: str | Iterable[str] = "adjective",
    count: str = "presence",
    groups: Sequence[str] | None = None,
    prompts: Any = None,
) -> MetricResult:
    """Stereotypical Associations (SA, Liang et al. 2023 / HELM).

    ::

        gamma(w | A) = sum_i sum_{a in A} C(a, Y_i) * I(C(w, Y_i) > 0)
        pi(w | A) = (gamma(w | A) / |A|) / sum_{A*} (gamma(w | A*) / |A*|)
        SA = (1/|W*|) sum_{w in W*} TVD(pi(w | .), uniform)

    with group counts normalised by the size of each group's word list, as in HELM; ``W*`` are the target words
    that appear with at least one attribute word. Range [0, 1]; 0 is fairest.

    Args:
        responses: texts.
        attribute: ``"gender"``, ``"race"`` or a ``{group: [words]}`` dict (two or more groups).
        target: ``"adjective"``, ``"profession"`` (singular and plural, as in HELM) or a list of words.
        count: ``"presence"`` counts a response's attribute words once per target word present (the paper's
            ``I(C(w, Y) > 0)``); ``"product"`` multiplies by the number of times ``w`` occurs (HELM, LangFair).
        groups: restrict to these groups.
        prompts: the prompt of each response (the resampling unit, as for :func:`cooccurrence_bias`).
    """
    texts = as_text_list(responses, "responses")
    units = None if prompts is None else prompt_units(prompts, len(texts), "response")
    return _sa(texts, attribute, target, count, groups)(None, units)


def _sa(
    texts: list[str], attribute: Any, target: str | Iterable[str], count: str, groups: Sequence[str] | None
) -> _Computation:
    """SA with these settings on any selection of ``texts``, which are tokenized (and their mentions counted) once."""
    if count not in ("presence", "product"):
        raise InputError(f"count must be 'presence' or 'product', got {count!r}")
    group_words = _groups(attribute, groups)
    names = list(group_words)
    targets = _targets(target, plurals=True)
    pool = _Corpus(texts, partial(word_tokens, lowercase=True))
    lexicon = _lexicon(attribute)
    # mentions per response from the lexicon matcher (its context rules, multi-word terms)
    pool_counts = None if lexicon is None else _mark_mentions(lexicon, texts, names)[1]

    def compute(index: IntArray | None, units: Any) -> MetricResult:
        corpus = pool if index is None else pool.select(index)
        if pool_counts is not None:
            group_counts = pool_counts if index is None else pool_counts[index]
        else:
            group_counts = np.column_stack(
                [corpus.doc_counts(corpus.vocab_mask(group_words[g])[corpus.ids]) for g in names]
            )
        occurrences = corpus.doc_word_matrix(corpus.vocab_index(targets)[corpus.ids], len(targets))
        if count == "presence":
            occurrences.data = np.minimum(occurrences.data, 1.0)
        sizes_ = np.array([len(group_words[g]) for g in names], dtype=np.float64)
        gamma = np.asarray((occurrences.T @ group_counts).T)  # (groups, words)
        tvd = _tvd_from_uniform(gamma, sizes_)
        seen = np.flatnonzero(~np.isnan(tvd))
        sizes = {"responses": corpus.n_docs, "target_words": len(targets), "groups": len(names)}
        if units is not None:
            sizes["prompts"] = units.n
        params = {"count": count, "groups": names, "target": target if isinstance(target, str) else "custom"}
        if seen.size == 0:
            return undefined(
                **METRICS["stereotypical_associations"].identity(),
                reason="no target word appears in a response with an attribute word",
                sizes=sizes,
                params=params,
                item_unit="word",
            )
        occ = occurrences[:, seen].tocsc()

        def statistic(w: FloatArray) -> FloatArray:
            g = np.stack([np.asarray((occ.T @ (w * group_counts[:, k]).T).T) for k in range(len(names))], axis=1)
            vals = _tvd_from_uniform(g, sizes_)
            with np.errstate(invalid="ignore"):
                n_def = np.sum(~np.isnan(vals), axis=1)
                return np.where(n_def > 0, np.nansum(vals, axis=1) / np.maximum(n_def, 1), np.nan)

        words = np.asarray(targets, dtype=object)[seen]
        return MetricResult(
            **METRICS["stereotypical_associations"].identity(),  # name, range and direction: the registry's
            value=float(tvd[seen].mean()),
            per_item=tvd[seen],
            item_unit="word",
            item_labels=words,
            sizes=sizes,
            params=params,
            details={"group_word_counts": dict(zip(names, group_counts.sum(axis=0).tolist(), strict=False))},
            resampler=_by_unit(Resampler(unit="response", n_units=corpus.n_docs, statistic=statistic), units),
        )

    return compute


# ----------------------------------------------------------------------------------------------------------------
# Many corpora of the same texts
# ----------------------------------------------------------------------------------------------------------------


def prepare_cooccurrence(
    metric: Callable[..., MetricResult], texts: Any, **options: Any
) -> Callable[[Any], MetricResult]:
    """COBS or SA on many corpora drawn from one set of texts, each text tokenized once.

    ``metric`` is :func:`cooccurrence_bias` or :func:`stereotypical_associations`, ``options`` its keyword
    arguments other than ``responses`` and ``prompts``. The function returned takes the indices of one corpus's
    texts (repeats allowed) and gives exactly ``metric([texts[i] for i in indices], **options)``, float for float:
    the corpus holds the same token sequences, and the same code computes the metric from them. A group-shuffle
    test recomputes the metric on hundreds of corpora made of the same few versions of each response; this spares
    it the tokenizing (and the mention matching), which is most of the cost.
    """
    texts = as_text_list(texts, "responses")
    builders: dict[Callable[..., MetricResult], Callable[..., _Computation]] = {
        cooccurrence_bias: _cobs,
        stereotypical_associations: _sa,
    }
    prepare = builders.get(metric)
    if prepare is None:
        raise InputError(f"prepare_cooccurrence takes cooccurrence_bias or stereotypical_associations, not {metric!r}")
    if "prompts" in options:
        raise InputError("prepare_cooccurrence computes on corpora without prompts: leave prompts out")
    bound = inspect.signature(metric).bind(texts, **options)  # the metric's own defaults, in one place
    bound.apply_defaults()
    arguments = {k: v for k, v in bound.arguments.items() if k not in ("responses", "prompts")}
    computation = prepare(texts, **arguments)

    def on(indices: Any) -> MetricResult:
        index = np.asarray(indices, dtype=np.int64).ravel()
        if index.size == 0:  # as the metric refuses an empty corpus
            raise InputError("responses is empty: pass at least one text")
        if index.min() < 0 or index.max() >= len(texts):
            raise InputError(f"indices must lie in [0, {len(texts)}), got {index.min()} to {index.max()}")
        return computation(index, None)

    return on
