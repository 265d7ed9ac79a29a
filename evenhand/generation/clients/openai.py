"""OpenAI-compatible chat completions over HTTP (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio, TGI …)."""

from __future__ import annotations

import asyncio
import codecs
import dataclasses
import datetime
import email.utils
import hashlib
import http
import json
import math
import os
import re
import time
import urllib.parse
from typing import Any, Literal

import aiohttp

from evenhand._validation import written_value
from evenhand.errors import InputError

from ..._redact import redact_text, redact_url, scrub_values, secret_values
from ...structured import message_reply_text
from .._types import (
    Completion,
    ConnectionFailedError,
    ContentFilteredError,
    GenerationError,
    MalformedAnswerError,
    Message,
    NoAnswerError,
    RetryableError,
    SamplingParams,
)
from .base import ChatClient
from .sse import assemble_stream, is_event_stream

_RETRY_STATUS = frozenset({408, 409, 425, 429})
#: the most bytes of one answer's body read (a chat completion is kilobytes; 16 MiB leaves room for many choices and
#: long tool calls): a server that sends more, or without end, fails that request instead of filling the memory
DEFAULT_MAX_BODY_BYTES = 16 * 2**20
_READ_PIECE = 64 * 1024
_OPENAI_MAX_N = 128
# How many answers to ``n > 1`` with exactly one valid choice it takes to conclude the server ignores ``n``. Empty,
# malformed or failed answers never count: a fault must not switch a run to one request per sample.
_N_EVIDENCE = 3
_NAMES_N = re.compile(r"(?<![\w.-])n(?![\w.-])")  # the parameter's name in a 400's message: 'n' must be 1


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (delta-seconds or an HTTP date), else None.

    Unparseable or non-finite values are ignored (None: the runner's own backoff applies); the runner caps what
    it honours at ``RetryPolicy.max_delay``.
    """
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            seconds = float(ms) / 1000.0
        except ValueError:
            seconds = math.nan
        if math.isfinite(seconds):
            return max(0.0, seconds)
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if parsed is None:
            return None
        if parsed.tzinfo is None:  # RFC 9110 dates are GMT
            parsed = parsed.replace(tzinfo=datetime.timezone.utc)
        return max(0.0, parsed.timestamp() - time.time())
    return max(0.0, seconds) if math.isfinite(seconds) else None


class OpenAIClient(ChatClient):
    """Chat completions from any OpenAI-compatible server.

    The API key comes from ``api_key`` or the environment variable ``api_key_env``; it is kept in memory only,
    sent in the ``Authorization`` header (``api-key`` for Azure), and never appears in the job key, results,
    errors or ``repr``. ``n="auto"`` asks for several samples per request and falls back to one request per
    sample only on evidence that the server ignores ``n`` (answers with exactly one valid choice, several times) or
    rejects it (a 400/422 naming ``n``, or a 400 to ``n > 1`` followed by a 2xx to the same request with ``n=1``);
    an empty, malformed or failed answer never counts; once decided, every request refused for ``n`` (also those in
    flight when another one decided) is asked again with ``n=1``. ``api_version`` switches to Azure OpenAI's URL
    scheme, where ``model`` is the deployment name. Redirects are never followed (they would re-send the key): a
    3xx is a non-retryable :class:`GenerationError` naming the status. At most ``max_body_bytes`` of a body are read
    (16 MiB by default): a larger or endless one fails its request (not retried) naming the limit.
    """

    default_concurrency = 16
    adaptive_concurrency = True  # the start of a limit that follows the server's 429/503 (generation/pacing.py)
    calls_tools = True
    formats_replies = True
    takes_tool_turns = True
    takes_images = True  # sent as given, as the API takes them

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        n: Literal["auto"] | bool = "auto",
        api_version: str | None = None,
        headers: dict[str, str] | None = None,
        extra_body: dict[str, Any] | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        check_model: bool = True,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InputError(f"base_url must be an http(s) URL, got {base_url!r}")
        if not model or not isinstance(model, str):
            raise InputError("model must be a non-empty string (the model or deployment name)")
        if not 0 < timeout < math.inf:  # NaN and infinity are refused too: aiohttp cannot wait for them
            raise InputError(f"timeout must be a positive number of seconds, got {timeout}")
        if extra_body is not None and not isinstance(extra_body, dict):
            raise InputError(f"extra_body must be a mapping of body keys to values, not a {type(extra_body).__name__}")
        check_max_body_bytes(max_body_bytes)
        self.max_body_bytes = max_body_bytes
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_version = api_version
        self.timeout = float(timeout)
        self.extra_body = dict(extra_body or {})
        url_has_credentials = "@" in urllib.parse.urlsplit(self.base_url).netloc
        header_names = {str(name).lower() for name in (headers or {})}
        if url_has_credentials and (api_key is not None or "authorization" in header_names):
            # aiohttp sends URL credentials as an Authorization header, which the API key (or that header) needs
            # too: every request would fail. Say so once, here, instead of after the retries.
            given = "api_key is set" if api_key is not None else "headers has an Authorization header"
            raise InputError(
                f"base_url carries user:password credentials and {given}: both would use the Authorization "
                "header; keep one of them (or pass the key in headers under another name)"
            )
        # Credentials written into the URL are the explicit choice: an ambient $OPENAI_API_KEY does not override them.
        ambient_key = None if url_has_credentials else os.environ.get(api_key_env)
        self._api_key = _header_value("api_key", api_key if api_key is not None else ambient_key) or None
        # No credentials at all is fine for a local server; a 401 then says which variable was meant to hold the key.
        sends_credentials = self._api_key or url_has_credentials or "authorization" in header_names
        self._unset_key_env = None if sends_credentials else api_key_env
        # where the key sent comes from, for the line that says it was refused (evenhand/generation/preflight.py)
        self.key_source = api_key_env if api_key is None and ambient_key else None
        # whether the check before a run compares the model name with the server's model list (preflight.py)
        self.check_model = bool(check_model)
        self._extra_headers = {
            name: _header_value(f"headers {name!r}", value) for name, value in (headers or {}).items()
        }
        self._n_mode = n
        self._n_supported: bool | None = None if n == "auto" else bool(n)
        self._single_choice_answers = 0  # answers to n > 1 with exactly one valid choice, while undecided
        self._session: aiohttp.ClientSession | None = None
        self._session_loop: asyncio.AbstractEventLoop | None = None
        # What no error may carry: everything the user configured to send with each request (the key, the URL's
        # credentials, every header value and every extra_body value), should a proxy or a model echo it.
        key = {self._api_key} if self._api_key else set()
        self._request_secrets = secret_values(
            {"headers": self._extra_headers, "extra_body": self.extra_body, "url": self.url}
        ) | key
        # What no reply may carry: the same, but of extra_body only values under credential-named keys. A header
        # value is the user's and may be a token whatever its header's name (X-Org-Id: <token>; faults18), while
        # extra_body also holds the words a reply is asked to be made of (vLLM's guided_choice ["approve", "deny"],
        # a JSON schema's keys and enums): masking those would make the decisions unreadable. A reply's other words
        # are data, so only these exact values (of 4 characters or more) are scrubbed.
        self._reply_secrets = secret_values({"headers": self._extra_headers, "url": self.url}) | secret_values(
            self.extra_body
        ) | key

    def __repr__(self) -> str:
        return f"OpenAIClient(base_url={redact_url(self.base_url)!r}, model={self.model!r})"

    def describe(self) -> str:
        return f"{self.model} at {self.public_url}"

    @property
    def url(self) -> str:
        """The endpoint: the path joined to ``base_url``'s path, before any query ``base_url`` carries (a gateway's
        ``?code=`` or ``?api-version=``), which is kept; Azure's ``api-version`` comes after it."""
        parts = urllib.parse.urlsplit(self.base_url)
        path = parts.path.rstrip("/")
        query = [parts.query] if parts.query else []
        if self.api_version:
            path += f"/openai/deployments/{self.model}"
            query.append(f"api-version={self.api_version}")
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"{path}/chat/completions", "&".join(query), ""))

    @property
    def public_url(self) -> str:
        """The endpoint as it may appear in errors, results and the store (no credentials)."""
        return redact_url(self.url)

    @property
    def identity(self) -> dict[str, Any]:
        # extra_body may hold secrets (user tokens, keys of a proxy): the identity, which is stored in SQLite and
        # results, keeps only a hash of it, enough to tell runs with different request bodies apart
        digest = None
        if self.extra_body:
            canonical = json.dumps(self.extra_body, sort_keys=True, separators=(",", ":"), default=str)
            digest = hashlib.sha256(canonical.encode()).hexdigest()
        return {"backend": "openai", "url": self.public_url, "model": self.model, "extra_body_sha256": digest}

    @property
    def max_n(self) -> int:  # type: ignore[override]
        return 1 if self._n_supported is False else _OPENAI_MAX_N

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", **self._extra_headers}
        if self._api_key:
            if self.api_version:
                headers["api-key"] = self._api_key
            else:
                headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _redact(self, text: str) -> str:
        """Error text as it may be stored: no key, header or extra_body value, no credentials from the URL."""
        text = text.replace(self.url, self.public_url).replace(self.base_url, redact_url(self.base_url))
        return redact_text(text, self._request_secrets)

    def _get_session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._session_loop is not loop:
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers(), timeout=aiohttp.ClientTimeout(total=self.timeout)
            )
            self._session_loop = loop
        return self._session

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    def _body(self, messages: list[Message], n: int, params: SamplingParams) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": params.temperature}
        if params.max_tokens is not None:
            body["max_tokens"] = params.max_tokens
        if params.seed is not None:
            body["seed"] = params.seed
        if n > 1:
            body["n"] = n
        body.update(params.request_options())  # tools, tool_choice, response_format: only when asked for
        body.update(self.extra_body)
        return body

    @property
    def n_supported(self) -> bool | None:
        """Whether the server honours ``n``: None while undecided (``n="auto"`` before any evidence)."""
        return self._n_supported

    async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        if n > 1 and self._n_supported is False:
            n = 1
        try:
            return await self._post(messages, n, params)
        except GenerationError as exc:
            if not self._may_be_n_refusal(n, exc):
                raise
            # A server that rejects ``n``: a 400/422 that names the parameter is enough; a 400 that does not is
            # confirmed by the same request with n=1 succeeding. Either way this call is answered with one sample,
            # also when another request decided it while this one was in flight (with many requests in flight,
            # all of them meet the refusal before the first decides): an n-refusal never reaches the runner.
            if self._n_supported is False or exc.param == "n" or _NAMES_N.search(exc.detail or ""):
                self._n_supported = False
                return await self._post(messages, 1, params)
            single = await self._post(messages, 1, params)  # raises again when the prompt itself is bad
            self._n_supported = False
            return single

    def _may_be_n_refusal(self, n: int, exc: GenerationError) -> bool:
        """Whether ``exc``, the answer to a request for ``n`` samples, may be the server refusing ``n`` itself: a
        400/422 (not a content filter) to ``n > 1`` in ``n="auto"`` mode, while ``n`` is not known to work."""
        return (
            n > 1
            and self._n_mode == "auto"
            and self._n_supported is not True
            and exc.status in (400, 422)
            and not isinstance(exc, (RetryableError, ContentFilteredError))
        )

    def _note_choices(self, n: int, choices: list[Any]) -> None:
        """Learn from a 2xx answer with choices whether the server honours ``n`` (only in ``n="auto"`` mode)."""
        if n <= 1 or self._n_mode != "auto" or self._n_supported is True:
            return
        if sum(map(_is_valid_choice, choices)) >= 2:  # several real choices to one request: ``n`` is honoured
            self._n_supported = True  # (perhaps capped: the runner asks again for what is missing)
        elif self._n_supported is None and len(choices) == 1 and _is_valid_choice(choices[0]):
            self._single_choice_answers += 1
            if self._single_choice_answers >= _N_EVIDENCE:
                self._n_supported = False

    async def _post(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        session = self._get_session()
        where = self.public_url
        try:
            # Never follow a redirect: aiohttp would re-send the request, credentials included (same host), or turn
            # the POST into a GET; a 3xx becomes a refusal naming the status (see _redirect_error).
            async with session.post(self.url, json=self._body(messages, n, params), allow_redirects=False) as resp:
                raw = await self._read_body(resp)
                charset = resp.charset
                status = resp.status
                retry_after = parse_retry_after(resp.headers)
                location = resp.headers.get("Location")
                content_type = resp.content_type
        except aiohttp.ClientConnectorError as exc:
            raise ConnectionFailedError(self._redact(f"cannot connect to {where}: {exc.os_error or exc}")) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError, aiohttp.ClientPayloadError) as exc:
            raise NoAnswerError(self._redact(f"connection to {where} dropped: {type(exc).__name__}: {exc}")) from None
        except asyncio.TimeoutError:
            raise NoAnswerError(f"no answer from {where} within {self.timeout:g} s") from None
        except aiohttp.ClientError as exc:
            raise RetryableError(self._redact(f"request to {where} failed: {type(exc).__name__}: {exc}")) from None
        if 300 <= status < 400:
            raise self._redirect_error(status, location)
        if not 200 <= status < 300:
            raise self._http_error(status, raw, retry_after)
        try:
            payload = self._payload(_body_text(raw, charset), content_type)
        except UndecodableBodyError as exc:
            raise MalformedAnswerError(f"undecodable body from {where} (HTTP {status}): {exc}", status=status) from None
        except ValueError:
            message = f"malformed JSON from {where} (HTTP {status}): {self._redact(repr(raw))[:80]}"
            raise MalformedAnswerError(message, status=status) from None
        choices = payload.get("choices") if isinstance(payload, dict) else None
        if not isinstance(choices, list):
            raise MalformedAnswerError(
                f"HTTP {status} without choices from {where}: {self._redact(repr(raw))[:120]}", status=status
            )
        if not choices:  # e.g. a proxy's empty answer, or a server under load: transient, like a 503
            raise MalformedAnswerError(f"HTTP {status} with zero choices from {where}", status=status)
        self._note_choices(n, choices)
        usage = payload.get("usage")
        completions = _completions(choices, usage if isinstance(usage, dict) else {})
        return [
            c if c.text is None else dataclasses.replace(c, text=scrub_values(c.text, self._reply_secrets))
            for c in completions
        ]

    async def _read_body(self, resp: aiohttp.ClientResponse) -> bytes:
        """The body, read piece by piece up to ``max_body_bytes`` (after decompression: a small gzip body that
        unpacks to gigabytes is cut too); one declared larger is not read at all. Beyond it the request fails, not
        retried (the server would send the same), and the connection is closed, not drained."""
        declared = resp.content_length
        if declared is not None and declared > self.max_body_bytes:
            resp.close()
            raise self._too_large(resp, f"{_size(declared)} (its Content-Length)")
        pieces: list[bytes] = []
        size = 0
        async for piece in resp.content.iter_chunked(_READ_PIECE):
            size += len(piece)
            if size > self.max_body_bytes:
                resp.close()
                raise self._too_large(resp, f"more than {_size(self.max_body_bytes)}")
            pieces.append(piece)
        return b"".join(pieces)

    def _too_large(self, resp: aiohttp.ClientResponse, how_big: str) -> GenerationError:
        """The failure of an answer whose body is over the limit. Its status decides whether it is retried, as for
        any answer (:func:`_is_retryable_status`): a 503 or 429 error page of any size is the server's "not now"
        (faults17: it was final, the prompt failed at its first overloaded answer); a 2xx would be the same again."""
        status = resp.status
        detail = (
            f"the body is larger than {_size(self.max_body_bytes)} ({how_big}), the limit for one answer; not read "
            "further (raise max_body_bytes, model.options.max_body_bytes in a config, if answers are this long)"
        )
        message = f"HTTP {status} from {self.public_url}: {detail}"
        if _is_retryable_status(status):
            retry_after = parse_retry_after(resp.headers)
            return RetryableError(message, retry_after=retry_after, status=status, detail=detail)
        return GenerationError(message, status=status, detail=detail)

    def _payload(self, text: str, content_type: str | None) -> Any:
        """The answer's JSON (the body decoded by :func:`_body_text`); a stream of server-sent events (a server that
        streams unasked, or ``extra_body``'s ``stream: true``) as the one completion it spells out. A stream cut
        short is no answer (retried), never the beginning of a reply kept as if it were all of it."""
        if not is_event_stream(content_type, text):
            return json.loads(text)
        payload, complete = assemble_stream(text)
        if not complete:
            raise NoAnswerError(f"the stream from {self.public_url} ended before its last event")
        return payload

    def _redirect_error(self, status: int, location: str | None) -> GenerationError:
        """A 3xx to the POST, not followed: non-retryable, naming the status and only the origin (scheme, host,
        port) it points to, since a redirect's path or query may carry a token. The body is not quoted."""
        try:
            phrase = f" {http.HTTPStatus(status).phrase}"
        except ValueError:
            phrase = ""
        target = ""
        try:
            parts = urllib.parse.urlsplit(urllib.parse.urljoin(self.url, location or ""))
            if location and parts.scheme in ("http", "https") and parts.hostname:
                target = f" to {parts.scheme}://{parts.netloc.rpartition('@')[2]}/..."
        except ValueError:  # an unparseable Location: the status alone says enough
            pass
        detail = (
            f"redirected{target}; evenhand does not follow redirects of a POST (it would re-send the credentials): "
            "set base_url to the final address"
        )
        message = self._redact(f"HTTP {status}{phrase} from {self.public_url}: {detail}")
        return GenerationError(message, status=status, detail=detail)

    def _http_error(self, status: int, raw: bytes, retry_after: float | None) -> GenerationError:
        text = raw.decode("utf-8", "replace")
        param = None
        try:
            err = json.loads(text).get("error") or {}
            detail = str(err.get("message") or text) if isinstance(err, dict) else str(err)
            code = str(err.get("code") or "") if isinstance(err, dict) else ""
            param = str(err["param"]) if isinstance(err, dict) and err.get("param") is not None else None
        except (ValueError, AttributeError):
            detail, code = text, ""
        try:
            phrase = f" {http.HTTPStatus(status).phrase}"
        except ValueError:
            phrase = ""
        detail = self._redact(detail)[:300]  # redacted before it is cut: no secret's prefix survives
        if status == 401 and self._unset_key_env:  # the server's words ("Incorrect API key") hide the cause
            detail += f"; no API key was sent: the environment variable {self._unset_key_env} (api_key_env) is not set"
        message = self._redact(f"HTTP {status}{phrase} from {self.public_url}: {detail}")
        if _is_retryable_status(status):
            return RetryableError(message, retry_after=retry_after, status=status, detail=detail, param=param)
        if code == "content_filter" or "content management policy" in detail:
            return ContentFilteredError(message, status=status, detail=detail, param=param)
        return GenerationError(message, status=status, detail=detail, param=param)


def _is_retryable_status(status: int) -> bool:
    """Whether an answer with this HTTP status is asked again: a timeout, conflict, too early, too many requests
    or any 5xx; what its body holds (or how big it is) does not change that."""
    return status in _RETRY_STATUS or status >= 500


def check_max_body_bytes(value: Any) -> None:
    """Refuse a ``max_body_bytes`` that is not a whole number of bytes in 1..2**63-1 (the config names its key)."""
    if type(value) is not int or not 0 < value <= 2**63 - 1:
        raise InputError(
            f"max_body_bytes must be a positive whole number of bytes (default 16 MiB: {DEFAULT_MAX_BODY_BYTES}), "
            f"got {written_value(value)}"
        )


def _size(count: int) -> str:
    """A byte count as people read it: ``16 MiB``, ``256 KiB``, ``1.5 GiB``, ``900 bytes``."""
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= factor:
            return f"{count / factor:.4g} {unit}"
    return f"{count} bytes"


def _header_value(what: str, value: Any) -> Any:
    """A credential or header value as sent: without the line end a key read from a file or a CRLF ``.env`` keeps
    (aiohttp refused every request for it, "Forbidden control character detected in headers"); a control character
    inside it is refused, naming ``what``, never quoting the value (it may be a key)."""
    if not isinstance(value, str):
        return value
    value = value.strip()
    if any(not char.isprintable() for char in value):
        raise InputError(f"{what} holds a control character (a line break inside it?); no HTTP header can carry it")
    return value


class UndecodableBodyError(ValueError):
    """A body whose bytes are not text in the encoding it declares, or (undeclared) in the one JSON allows."""


def _body_text(raw: bytes, charset: str | None) -> str:
    """The body as text. A declared ``charset`` (``application/json; charset=ISO-8859-1``) is honoured; without one,
    or with one Python does not know, the body is JSON and so UTF-8 (RFC 8259 section 8.1), its UTF-16/32 form or
    BOM told from the first bytes as :func:`json.detect_encoding` does. A leading BOM is dropped. Bytes that are not
    text in that encoding raise :class:`UndecodableBodyError` naming the encoding, the first bad byte and its offset
    (never the body's words): before, an undeclared Latin-1 body was "malformed JSON" at every retry, and an
    undeclared Latin-1 event stream was stored with its accented letters turned into U+FFFD."""
    declared: str | None = None
    if charset:
        try:
            declared = codecs.lookup(charset).name
        except LookupError:
            declared = None
    codec = declared or json.detect_encoding(raw)
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        name = "UTF-8" if codecs.lookup(codec).name in ("utf-8", "utf-8-sig") else codec
        said = f"its declared charset {charset!r}" if declared else "no charset was declared"
        bad = raw[exc.start : exc.start + 1].hex()
        raise UndecodableBodyError(
            f"the body is not valid {name} (byte 0x{bad} at offset {exc.start}) and {said}; a JSON body must be "
            "UTF-8 (RFC 8259) or name its encoding in the Content-Type"
        ) from None
    return text.removeprefix("\ufeff")


def _content(choice: Any) -> str | None:
    """The text of one choice: ``message.content`` as a string or a list of text parts; a reply that calls tools
    as the text :func:`evenhand.structured.tool_reply_text` writes (its content, if any, inside); None when missing."""
    message = choice.get("message") if isinstance(choice, dict) else None
    return message_reply_text(message) if isinstance(message, dict) else None


def _is_valid_choice(choice: Any) -> bool:
    """A choice that is a real answer: non-blank text, or a content-filter refusal."""
    if isinstance(choice, dict) and choice.get("finish_reason") == "content_filter":
        return True
    text = _content(choice)
    return text is not None and bool(text.strip())


def _completions(choices: list[Any], usage: dict[str, Any]) -> list[Completion]:
    """Split one response into per-sample completions; the prompt's tokens are counted on the first sample.

    A choice without text becomes a completion whose text is None (the runner retries it unless it was filtered).
    """
    k = max(1, len(choices))
    total_out = usage.get("completion_tokens")
    out: list[Completion] = []
    for i, choice in enumerate(choices):
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        finish = finish if isinstance(finish, str) else None
        content = _content(choice)
        share = None
        if isinstance(total_out, int):
            share = total_out // k + (total_out % k if i == 0 else 0)
        prompt_tokens = usage.get("prompt_tokens") if i == 0 else 0
        out.append(
            Completion(
                text=content,
                status="filtered" if finish == "content_filter" else "ok",
                finish_reason=finish,
                prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int) else None,
                completion_tokens=share,
            )
        )
    return out
