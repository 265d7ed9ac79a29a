"""Before a run sends its first request: can the model be reached, with this key, under this name?

A run that cannot reach its model used to find out only at its first requests, after the scorers had loaded (10 s
and more): a closed port, a host that does not resolve, a bad key or a wrong model name cost that wait and then
failed. :func:`check_reachable` finds them at once, and never sends a completion (nothing paid):

- **a TCP connection** to ``base_url``'s host and port, attempted as the runner does (``UNREACHABLE_ATTEMPTS``
  times, backing off 0.25, 0.5, 1 s): refused, or a host that does not resolve, raises
  :class:`~evenhand.generation._types.ServerUnreachableError` (a runtime failure, exit 3) naming the URL without
  credentials. A connection that only times out decides nothing (a slow network is not a wrong address): the run
  goes on and its own retries judge.
- **``GET {base_url}/models``**, the OpenAI-compatible model list (not for Azure's ``api_version`` deployments,
  which have no such list at that address), with the run's headers: a 401 is the key refused, an
  :class:`InputError` (exit 2) naming the variable the key is read from; a list without the model is a warning
  naming ``model.model`` and what the server lists (Ollama's ``:latest`` tag, Gemini's ``models/`` prefix and a
  gateway's ``*`` patterns count as the name), not a refusal: servers that ignore the model name (TGI, llama.cpp's
  server, test doubles) list another one and answer every request, and a name a server really lacks fails at the
  run's first requests (the circuit breaker). ``check_model=False`` (``model.options.check_model: false``) skips
  that comparison. Any other answer (no list: 404, 405; a 403 for keys that may chat but not list; a timeout, a
  body that is not a list) decides nothing.
"""

from __future__ import annotations

import asyncio
import fnmatch
import http
import json
import urllib.parse
import warnings
from typing import Any

from evenhand.errors import InputError

from ._sync import run_sync
from ._types import ServerUnreachableError
from .breaker import UNREACHABLE_ATTEMPTS, one_line

#: The longest wait for one TCP connection or for the model list (a client's own timeout when shorter).
PROBE_TIMEOUT = 10.0
#: At most this much of the model list is read (OpenAI's own list is about 20 KiB).
MAX_LIST_BYTES = 4 * 1024 * 1024
_BACKOFF = 0.25


def check_reachable(client: Any, key: str = "model") -> None:
    """Raise before a run when ``client`` (an :class:`~evenhand.generation.OpenAIClient`) cannot work: unreachable
    (:class:`ServerUnreachableError`) or its key refused (:class:`InputError`); warn when its model is not listed.
    Other clients (a local model, a callable, a LangChain model) are not probed. ``key``: the config section the
    client comes from (``model``, ``judge``), named in the messages."""
    from .clients.openai import OpenAIClient

    if isinstance(client, OpenAIClient):
        run_sync(_probe(client, key))


async def _probe(client: Any, key: str) -> None:
    if await _connect(client, key) and client.api_version is None:
        await _check_model_list(client, key)


async def _connect(client: Any, key: str) -> bool:
    """True once a connection was made; False when it only timed out (nothing more is asked of a server that slow);
    raises :class:`ServerUnreachableError` when every attempt was refused or the host does not resolve."""
    parts = urllib.parse.urlsplit(client.base_url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    wait = min(client.timeout, PROBE_TIMEOUT)
    failure: OSError | None = None
    for attempt in range(UNREACHABLE_ATTEMPTS):
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout=wait)
        except asyncio.TimeoutError:
            return False  # no answer is not a wrong address: the run's own retries judge a slow network
        except OSError as exc:  # refused, no route, a name that does not resolve (socket.gaierror)
            failure = exc
            if attempt + 1 < UNREACHABLE_ATTEMPTS:
                await asyncio.sleep(_BACKOFF * 2**attempt)
            continue
        writer.close()
        return True
    raise ServerUnreachableError(
        client._redact(
            f"{'' if key == 'model' else key + ': '}{client.describe()} is unreachable after {UNREACHABLE_ATTEMPTS} "
            "attempts: cannot connect to "
            f"{client.public_url}: {failure}"
        )
    )


def models_url(client: Any) -> str:
    """``base_url`` + ``/models``, its query (a gateway's ``?code=``) kept."""
    parts = urllib.parse.urlsplit(client.base_url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/models", parts.query, ""))


async def _check_model_list(client: Any, key: str) -> None:
    import aiohttp

    url = models_url(client)
    timeout = aiohttp.ClientTimeout(total=min(client.timeout, PROBE_TIMEOUT))
    try:
        async with aiohttp.ClientSession(headers=client._headers(), timeout=timeout) as session:
            async with session.get(url, allow_redirects=False) as resp:
                status = resp.status
                raw = await resp.content.read(MAX_LIST_BYTES)
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
        return  # the list is a courtesy some servers do not offer: the run's requests judge the rest
    where = client._redact(urllib.parse.urlsplit(url)._replace(query="").geturl())
    if status == 401:
        raise InputError(one_line(_key_refused(client, where, raw, key)))
    if status == 200 and client.check_model:
        served = _served_models(raw)
        if served and not _serves(served, client.model):
            shown = ", ".join(repr(m) for m in served[:8]) + (f" and {len(served) - 8} more" if len(served) > 8 else "")
            # a warning, not a refusal: servers that ignore the name (TGI, llama.cpp's server, many test doubles)
            # list another and answer every request; a name a server really lacks fails at its first requests
            warnings.warn(
                client._redact(
                    f"{key}.model: the server at {where} does not list {client.model!r} (it lists {shown}); if its "
                    f"requests fail, check the model name ({key}.options.check_model: false silences this for a "
                    "server that ignores the name)"
                ),
                UserWarning,
                stacklevel=2,
            )


def _key_refused(client: Any, where: str, raw: bytes, key: str) -> str:
    """The one line for a 401 to the model list: the server's words, and where the key comes from."""
    try:
        error = json.loads(raw.decode("utf-8", "replace")).get("error")
        said = str(error.get("message") or "") if isinstance(error, dict) else str(error or "")
    except (ValueError, AttributeError):
        said = ""
    said = client._redact(said)[:200]
    phrase = f"HTTP 401 {http.HTTPStatus(401).phrase}" + (f": {said}" if said else "")
    if client._unset_key_env:
        cause = f"no API key was sent: the environment variable {client._unset_key_env} ({key}.api_key_env) is not set"
    elif client.key_source is not None:
        cause = f"check the key in the environment variable {client.key_source} ({key}.api_key_env)"
    else:
        cause = f"check the credentials given in {key}.base_url or {key}.headers"
    return client._redact(f"the server at {where} refused the credentials ({phrase}); {cause}")


def _served_models(raw: bytes) -> list[str]:
    """The model ids of an OpenAI-style list (``{"data": [{"id": ...}]}``); [] when it is not one, or says it is
    only a page of a longer list (``has_more``)."""
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return []
    if not isinstance(payload, dict) or payload.get("has_more") or not isinstance(payload.get("data"), list):
        return []
    return [str(m["id"]) for m in payload["data"] if isinstance(m, dict) and isinstance(m.get("id"), str)]


def _serves(served: list[str], model: str) -> bool:
    """Whether ``model`` is among ``served`` as servers name them: exactly, with Ollama's default tag
    (``llama3.2`` is ``llama3.2:latest``), without Gemini's ``models/`` prefix, or matched by a gateway's pattern
    (LiteLLM's ``openai/*``)."""
    for name in served:
        if model in (name, name.removeprefix("models/")) or f"{model}:latest" == name:
            return True
        if "*" in name and fnmatch.fnmatchcase(model, name):
            return True
    return False
