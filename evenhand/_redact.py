"""Redaction: the one place that decides what of a client's configuration may be shown or stored.

Everything evenhand writes or prints about a model (results.json, the report, metrics.csv, the console, error
messages, the generation store) goes through these helpers:

- :func:`redact_url`: a URL without ``user:password@`` and with ``***`` for query values whose names look like
  credentials (``api_key``, ``key``, ``token``, ``sig``, ``X-Amz-Signature`` ...) and for every other query value
  of four characters or more unless its name is known to be public (``api-version``, ``model`` ...).
- :func:`redact_mapping`: a copy of a (nested) mapping in which the values of credential-like keys
  (``api_key``, ``authorization``, ``token``, ``secret``, ``password`` ...) and every value inside ``headers`` /
  ``extra_body`` (and their LangChain spellings) are ``"[redacted]"``; header names and body keys stay, so a reader
  still sees *which* headers were sent. URLs anywhere in it go through :func:`redact_url`.
- :func:`secret_values`: the secret strings of a client spec (the values redact_mapping hides, URL credentials and
  the value of the environment variable an ``*_env`` key names), for :func:`redact_text`.
- :func:`redact_text`: a message with known secret values and any URL credentials or ``Bearer`` tokens replaced.

No third-party imports: this module is safe on every import path.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[redacted]"
#: Query values in a redacted URL (kept URL-safe, so the URL stays readable and clickable).
URL_MASK = "***"
#: Shorter strings are not scrubbed from messages (replacing "1" or "on" everywhere would garble them).
MIN_SECRET_LENGTH = 4

#: Words that make a key name a credential wherever they stand in it (the name is split into words at ``_ - .``,
#: spaces and camelCase): ``client_secret``, ``password_file``, ``X-Amz-Credential``.
STRONG_SECRET_WORDS = frozenset(
    {
        "apikey",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "passphrase",
        "passwd",
        "password",
        "secret",
        "signature",
        "xapikey",
    }
)
#: Words that make a key name a credential as its last word (``api_key``, ``user_token``, ``sig``) or before
#: ``header``/``value``/``string`` (``auth_header``), but not elsewhere (``token_limit``, ``key_id``).
WEAK_SECRET_WORDS = frozenset({"auth", "key", "pwd", "sig", "token"})
_WEAK_FOLLOWERS = frozenset({"header", "value", "string"})
#: Keys whose whole content is hidden (names of their entries are kept): what a client sends with every request.
CONTAINER_KEYS = frozenset(
    {
        "headers",
        "extra_headers",
        "default_headers",
        "http_headers",
        "extra_body",
        "model_kwargs",
        "default_query",
        "extra_query",
        "client_kwargs",
    }
)
#: Query parameters known to carry no secret, whose values stay readable in a URL (``api-version=2024-06-01``). Any
#: other query value of :data:`MIN_SECRET_LENGTH` characters or more is masked, whatever its name: a gateway's
#: ``?session=``, ``?access=`` or Azure Functions' ``?code=`` hold keys under names that are no credential word
#: (faults17: only names like ``key``, ``token``, ``sig`` were masked). Short values (``x=1``) are no secret.
PUBLIC_QUERY_NAMES = frozenset(
    {"api-version", "api_version", "apiversion", "version", "model", "deployment", "region", "format", "alt", "stream"}
)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")
_URL_USERINFO = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@'\"<>]+@")
# "Bearer <token>" and "Basic <base64>" (a base64 word: it has a digit, "+", "/" or "=" padding)
_AUTH_SCHEME = re.compile(
    r"\b([Bb]earer|BEARER)(\s+)[A-Za-z0-9._~+/=-]{6,}"
    r"|\b(Basic)(\s+)(?=[A-Za-z]*[0-9+/=])[A-Za-z0-9+/]{8,}=*"
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(str(name))]


def is_secret_key(name: Any) -> bool:
    """Whether a key (or query parameter) name looks like a credential: ``api_key``, ``X-Api-Key``, ``token``,
    ``access_token``, ``Authorization``, ``sig`` ... but not ``max_tokens`` or ``api_key_env`` (the *name* of an
    environment variable is not a secret)."""
    words = _words(str(name))
    if not words or words[-1] == "env":
        return False
    if "".join(words) in STRONG_SECRET_WORDS | WEAK_SECRET_WORDS or any(w in STRONG_SECRET_WORDS for w in words):
        return True
    return words[-1] in WEAK_SECRET_WORDS or any(
        a in WEAK_SECRET_WORDS and b in _WEAK_FOLLOWERS for a, b in itertools.pairwise(words)
    )


def _is_container(name: Any) -> bool:
    return str(name).lower().replace("-", "_") in CONTAINER_KEYS


def is_hidden_key(name: Any) -> bool:
    """Whether the value under ``name`` is never shown: a credential's key, or a container whose every value is hidden
    (``headers``, ``extra_body`` ...)."""
    return is_secret_key(name) or _is_container(name)


def _looks_like_url(value: str) -> bool:
    return "://" in value and _URL.fullmatch(value.strip()) is not None


def _is_secret_query(name: str, value: str) -> bool:
    """Whether a query parameter's value is masked: a credential's name (any value), else any value long enough to
    be one, unless the name is known to be public (:data:`PUBLIC_QUERY_NAMES`)."""
    if is_secret_key(name):
        return True
    return name.lower() not in PUBLIC_QUERY_NAMES and len(value.strip()) >= MIN_SECRET_LENGTH


def _redact_pairs(text: str) -> str:
    pairs = urllib.parse.parse_qsl(text, keep_blank_values=True)
    return urllib.parse.urlencode([(k, URL_MASK if _is_secret_query(k, v) else v) for k, v in pairs], safe="*")


def redact_url(url: str) -> str:
    """``url`` without ``user:password@`` and with ``***`` for query values that may be credentials (see
    :func:`_is_secret_query`).

    >>> redact_url("https://user:pw@host:8/v1?api-key=abc&api-version=2")
    'https://host:8/v1?api-key=***&api-version=2'
    """
    if not isinstance(url, str):
        return url
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:  # not parseable as a URL: scrub what looks like credentials
        return _URL_USERINFO.sub(r"\1", url)
    netloc = parts.netloc.rpartition("@")[2]
    query = _redact_pairs(parts.query) if parts.query and "=" in parts.query else parts.query
    fragment = _redact_pairs(parts.fragment) if "=" in parts.fragment else parts.fragment
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _redact_value(value: Any) -> Any:
    """Every leaf of ``value`` replaced (structure and keys kept)."""
    if isinstance(value, Mapping):
        return {k: _redact_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact_value(v) for v in value]
    return None if value is None else REDACTED


def redact_mapping(data: Any) -> Any:
    """A copy of ``data`` (mappings, lists, scalars) safe to show or store.

    Values of credential-like keys become ``"[redacted]"``; inside ``headers`` / ``extra_body`` (and the other
    :data:`CONTAINER_KEYS`) every value does, the names stay; URLs lose their credentials (:func:`redact_url`);
    secret objects (``pydantic.SecretStr``) are redacted wherever they are.

    >>> redact_mapping({"model": "m", "headers": {"X-Api-Key": "s3cret"}, "token": "t0k3n", "max_tokens": 5})
    {'model': 'm', 'headers': {'X-Api-Key': '[redacted]'}, 'token': '[redacted]', 'max_tokens': 5}
    """
    if isinstance(data, Mapping):
        out: dict[Any, Any] = {}
        for key, value in data.items():
            if _is_container(key) or (is_secret_key(key) and value is not None):
                out[key] = _redact_value(value)
            else:
                out[key] = redact_mapping(value)
        return out
    if isinstance(data, list):
        return [redact_mapping(v) for v in data]
    if isinstance(data, tuple):
        return tuple(redact_mapping(v) for v in data)
    if isinstance(data, str):
        return redact_url(data) if _looks_like_url(data) else data
    if hasattr(data, "get_secret_value"):
        return REDACTED
    return data


def _leaves(value: Any) -> Iterable[str]:
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _leaves(v)
    elif hasattr(value, "get_secret_value"):
        yield from _leaves(value.get_secret_value())
    elif isinstance(value, (str, bytes)):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        yield text
        if text.lower().startswith(("bearer ", "basic ", "token ")):  # the token alone, too
            yield text.split(" ", 1)[1].strip()


def _url_secrets(url: str) -> Iterable[str]:
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return
    if parts.password:  # the user name alone is no secret (and scrubbing a short one would garble messages)
        yield parts.password
        yield urllib.parse.unquote(parts.password)
        user = urllib.parse.unquote(parts.username or "")
        # what an HTTP client sends for URL credentials: "Authorization: Basic base64(user:password)"
        yield base64.b64encode(f"{user}:{urllib.parse.unquote(parts.password)}".encode()).decode()
    for text in (parts.query, parts.fragment):
        for k, v in urllib.parse.parse_qsl(text, keep_blank_values=True):
            if _is_secret_query(k, v):
                yield v


def secret_values(data: Any, *, environ: Mapping[str, str] | None = None) -> set[str]:
    """The secret strings in a client spec or any nested mapping: values of credential-like keys, every string
    inside ``headers`` / ``extra_body``, credentials inside URLs, secret objects, and the value of the environment
    variable each ``*_env`` key names (``api_key_env: OPENAI_API_KEY`` -> the key itself). Strings shorter than
    :data:`MIN_SECRET_LENGTH` are left out (see :func:`redact_text`)."""
    env = os.environ if environ is None else environ
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for key, item in value.items():
                words = _words(str(key))
                if _is_container(key) or is_secret_key(key):
                    found.update(_leaves(item))
                elif words and words[-1] == "env" and isinstance(item, str) and env.get(item):
                    found.add(env[item])
                else:
                    walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, str) and "://" in value:
            found.update(_url_secrets(value))
        elif hasattr(value, "get_secret_value"):
            found.update(_leaves(value))

    walk(data)
    return {s for s in found if isinstance(s, str) and len(s.strip()) >= MIN_SECRET_LENGTH}


def _variants(secret: str) -> set[str]:
    """How a secret may appear in a message: as is, URL-encoded, JSON-escaped, repr-escaped."""
    out = {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
    out.add(json.dumps(secret)[1:-1])
    out.add(repr(secret)[1:-1])
    return {v for v in out if len(v) >= MIN_SECRET_LENGTH}


def scrub_values(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each known secret value (as is, URL-encoded, JSON- or repr-escaped) replaced by
    ``"[redacted]"``, and nothing else changed: for a model's reply, whose other words are data."""
    out = text
    variants = {v for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LENGTH for v in _variants(s)}
    for value in sorted(variants, key=len, reverse=True):  # longest first: a secret containing another one
        out = out.replace(value, REDACTED)
    return out


def redact_text(text: Any, secrets: Iterable[str] = ()) -> str:
    """``text`` (any object, as ``str``) with every known secret value replaced by ``"[redacted]"``, credentials
    dropped from URLs in it, and ``Bearer``/``Basic`` tokens replaced."""
    out = scrub_values(str(text), secrets)
    out = _URL_USERINFO.sub(r"\1", out)
    out = _URL.sub(lambda m: redact_url(m.group(0)) if "?" in m.group(0) or "#" in m.group(0) else m.group(0), out)
    return _AUTH_SCHEME.sub(lambda m: f"{m.group(1) or m.group(3)}{m.group(2) or m.group(4)}{REDACTED}", out)


__all__ = [
    "REDACTED",
    "is_secret_key",
    "redact_mapping",
    "redact_text",
    "redact_url",
    "scrub_values",
    "secret_values",
]
