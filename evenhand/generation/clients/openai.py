"""OpenAI-compatible chat completions over HTTP (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio, TGI …)."""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import os
import time
import urllib.parse
from typing import Any, Literal

import aiohttp

from .._types import (
    Completion,
    ConnectionFailedError,
    ContentFilteredError,
    GenerationError,
    Message,
    RetryableError,
    SamplingParams,
)
from .base import ChatClient

_RETRY_STATUS = frozenset({408, 409, 425, 429})
_OPENAI_MAX_N = 128


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (delta-seconds or an HTTP date), else None."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return None if parsed is None else max(0.0, parsed.timestamp() - time.time())


def redact_url(url: str) -> str:
    """``url`` without user:password and without query values whose names look like credentials."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    query = urllib.parse.urlencode(
        [
            (k, "***" if any(h in k.lower() for h in ("key", "token", "secret", "sig")) else v)
            for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="*",
    )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class OpenAIClient(ChatClient):
    """Chat completions from any OpenAI-compatible server.

    The API key comes from ``api_key`` or the environment variable ``api_key_env``; it is kept in memory only,
    sent in the ``Authorization`` header (``api-key`` for Azure), and never appears in the job key, results,
    errors or ``repr``. ``n="auto"`` asks for several samples per request and falls back to one request per
    sample when the server ignores or rejects ``n``. ``api_version`` switches to Azure OpenAI's URL scheme, where
    ``model`` is the deployment name.
    """

    default_concurrency = 16

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
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        if not model or not isinstance(model, str):
            raise ValueError("model must be a non-empty string (the model or deployment name)")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_version = api_version
        self.timeout = float(timeout)
        self.extra_body = dict(extra_body or {})
        self._api_key = api_key if api_key is not None else os.environ.get(api_key_env)
        self._extra_headers = dict(headers or {})
        self._n_mode = n
        self._n_supported: bool | None = None if n == "auto" else bool(n)
        self._session: aiohttp.ClientSession | None = None
        self._session_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAIClient(base_url={redact_url(self.base_url)!r}, model={self.model!r})"

    def describe(self) -> str:
        return f"{self.model} at {self.public_url}"

    @property
    def url(self) -> str:
        if self.api_version:
            return f"{self.base_url}/openai/deployments/{self.model}/chat/completions?api-version={self.api_version}"
        return f"{self.base_url}/chat/completions"

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
        """Error text as it may be stored: no key, no credentials from the URL."""
        if self._api_key and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return text.replace(self.url, self.public_url).replace(self.base_url, redact_url(self.base_url))

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
        body.update(self.extra_body)
        return body

    async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        if n > 1 and self._n_supported is False:
            n = 1
        try:
            return await self._post(messages, n, params)
        except GenerationError as exc:
            # A server that rejects ``n`` outright: remember it and answer this call with one sample.
            if n > 1 and self._n_supported is None and getattr(exc, "status", None) in (400, 422):
                single = await self._post(messages, 1, params)  # raises again when the prompt itself is bad
                self._n_supported = False
                return single
            raise

    async def _post(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        session = self._get_session()
        where = self.public_url
        try:
            async with session.post(self.url, json=self._body(messages, n, params)) as resp:
                raw = await resp.read()
                status = resp.status
                retry_after = parse_retry_after(resp.headers)
        except aiohttp.ClientConnectorError as exc:
            raise ConnectionFailedError(self._redact(f"cannot connect to {where}: {exc.os_error or exc}")) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError, aiohttp.ClientPayloadError) as exc:
            raise RetryableError(self._redact(f"connection to {where} dropped: {type(exc).__name__}: {exc}")) from None
        except asyncio.TimeoutError:
            raise RetryableError(f"no answer from {where} within {self.timeout:g} s") from None
        except aiohttp.ClientError as exc:
            raise RetryableError(self._redact(f"request to {where} failed: {type(exc).__name__}: {exc}")) from None
        if status != 200:
            raise self._http_error(status, raw, retry_after)
        try:
            payload = json.loads(raw)
            choices = payload["choices"]
        except (ValueError, KeyError, TypeError):
            raise RetryableError(f"malformed JSON from {where}: {raw[:80]!r}") from None
        if n > 1 and self._n_supported is None:
            self._n_supported = len(choices) >= n
        return _completions(choices, payload.get("usage") or {})

    def _http_error(self, status: int, raw: bytes, retry_after: float | None) -> GenerationError:
        text = raw.decode("utf-8", "replace")
        try:
            err = json.loads(text).get("error") or {}
            detail = err.get("message") or text if isinstance(err, dict) else str(err)
            code = str(err.get("code") or "") if isinstance(err, dict) else ""
        except (ValueError, AttributeError):
            detail, code = text, ""
        message = self._redact(f"HTTP {status} from {self.public_url}: {str(detail)[:300]}")
        error: GenerationError
        if status in _RETRY_STATUS or status >= 500:
            error = RetryableError(message, retry_after=retry_after)
        elif code == "content_filter" or "content management policy" in str(detail):
            error = ContentFilteredError(message)
        else:
            error = GenerationError(message)
        error.status = status  # type: ignore[attr-defined]
        return error


def _completions(choices: list[dict[str, Any]], usage: dict[str, Any]) -> list[Completion]:
    """Split one response into per-sample completions; the prompt's tokens are counted on the first sample."""
    k = max(1, len(choices))
    total_out = usage.get("completion_tokens")
    out: list[Completion] = []
    for i, choice in enumerate(choices):
        finish = choice.get("finish_reason")
        content = (choice.get("message") or {}).get("content")
        share = None
        if isinstance(total_out, int):
            share = total_out // k + (total_out % k if i == 0 else 0)
        out.append(
            Completion(
                text=content if isinstance(content, str) else None,
                status="filtered" if finish == "content_filter" else "ok",
                finish_reason=finish,
                prompt_tokens=usage.get("prompt_tokens") if i == 0 else 0,
                completion_tokens=share,
            )
        )
    return out
