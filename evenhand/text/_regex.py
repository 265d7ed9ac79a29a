"""Compile a word list into one prefix-factored regular expression.

A flat alternation ``a|an|and|...`` makes the regex engine try every branch at every word start; factoring the
list into a trie (``a(?:nd?)?``) lets it follow one path, and greedy optional tails give leftmost-longest
matches ("mother-in-law" wins over "mother") without sorting by length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# a space inside a multi-word term ("african american") matches any run of whitespace
_SPACE = r"\s+"


def trie_pattern(words: Iterable[str]) -> str:
    """Regex source matching exactly the given (lower-case) words, longest first at each position."""
    root: dict[str, dict] = {}
    for word in words:
        if not word:
            continue
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    if not root:
        return r"(?!)"  # matches nothing
    return _emit(root)


def _emit(node: dict[str, dict]) -> str:
    branches = [(_SPACE if ch == " " else re.escape(ch)) + _emit(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if "" in node:  # this prefix is itself a word: the longer continuations are optional (greedy, tried first)
        return "(?:" + body + ")?"
    return body
