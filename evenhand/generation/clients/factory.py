"""Build a client from a spec: a client, a callable, a LangChain model, a short string or a config dict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evenhand.errors import InputError, InputTypeError

from ..._redact import redact_text, secret_values
from .base import ChatClient
from .callable import CallableClient, load_function

_LOCAL_NAMES = {"local", "smollm2", "default"}


def _is_langchain_model(obj: Any) -> bool:
    return any(c.__name__ == "BaseChatModel" for c in type(obj).__mro__)


def get_client(spec: Any = None, *, allow_code: bool | None = None) -> ChatClient:
    """Return a :class:`ChatClient` for ``spec``.

    - ``None`` or ``"local"``: the bundled SmolLM2 (offline).
    - a :class:`ChatClient`: returned as is; a LangChain ``BaseChatModel``: wrapped; any other callable: wrapped.
    - a dict with ``provider`` (or ``type``): ``"openai"`` (``base_url``, ``model``, ``api_key_env``, ``timeout``,
      ``n``, ``api_version``, ``headers``, ``extra_body``), ``"local"`` (``model``, ``gguf_file``,
      ``batch_size``, ``device``: auto, cpu, cuda, cuda:N or mps) or ``"callable"`` (``function``: the function,
      or its name ``"package.module:name"``).
      Keys of other sections (e.g. ``temperature``) are rejected so typos do not pass silently; API keys belong in
      the environment.

    A spec that *names* code to import (``function: "package.module:name"``) is refused unless ``allow_code=True``
    or the environment variable ``EVENHAND_ALLOW_CODE=1`` allows it (``allow_code=None`` reads the variable;
    ``False`` refuses even when it is set): a spec read from a file must not run code by itself. Error messages
    never contain the spec's secrets (header values, ``extra_body``, URL credentials, the API key).
    """
    if spec is None:
        spec = "local"
    if isinstance(spec, ChatClient):
        return spec
    if isinstance(spec, str):
        if spec.lower() in _LOCAL_NAMES:
            from .local import LocalModelClient

            return LocalModelClient()
        raise InputError(f"unknown client {spec!r}: use 'local', a dict with provider='openai', or a client object")
    if _is_langchain_model(spec):
        from .langchain import LangChainClient

        return LangChainClient(spec)
    if isinstance(spec, dict):
        try:
            return _from_dict(dict(spec), allow_code)
        except (ValueError, TypeError) as exc:
            message = redact_text(exc, secret_values(spec))
            if message == str(exc):
                raise
            # the same kind, its secrets redacted: a refused setting stays an input error
            kind = next(k for k in (InputTypeError, InputError, ValueError, TypeError) if isinstance(exc, k))
            raise kind(message) from None
    if callable(spec):
        return CallableClient(spec)
    raise InputTypeError(f"cannot build a client from {type(spec).__name__}")


def on_cpu_unless_torch_loaded(spec: Any) -> Any:
    """``spec`` with a local model's ``device: auto`` made ``cpu`` when torch is not imported yet; any other spec as
    it is. For counting, never for running: resolving "auto" imports torch (seconds), which ``evenhand plan`` must
    not pay just to size a local model's batches (an accelerator batches more, so it sends fewer of them)."""
    import sys

    if "torch" in sys.modules:
        return spec
    if spec is None or (isinstance(spec, str) and spec.lower() in _LOCAL_NAMES):
        return {"provider": "local", "device": "cpu"}
    if isinstance(spec, Mapping):
        provider = str(spec.get("provider") or spec.get("type") or "local").lower()
        if provider in _LOCAL_NAMES and spec.get("device", "auto") == "auto":
            return {**spec, "device": "cpu"}
    return spec


def _from_dict(spec: dict[str, Any], allow_code: bool | None) -> ChatClient:
    provider = str(spec.pop("provider", None) or spec.pop("type", None) or "local").lower()
    if "api_key" in spec:
        raise InputError("put the API key in an environment variable and name it with 'api_key_env'")
    try:
        if provider in ("openai", "azure", "vllm", "ollama", "openai-compatible"):
            from .openai import OpenAIClient

            base_url, model = spec.pop("base_url", None), spec.pop("model", None)
            if not base_url or not model:
                raise InputError(f"provider {provider!r} needs 'base_url' and 'model'")
            return OpenAIClient(base_url, model, **spec)
        if provider in _LOCAL_NAMES:
            from .local import LocalModelClient

            return LocalModelClient(spec.pop("model", None), **spec)
        if provider == "callable":
            if "function" not in spec:
                raise InputError("provider 'callable' needs 'function' (a function, or 'package.module:name')")
            target = spec.pop("function")
            fn = target if callable(target) else load_function(str(target), allow_code=allow_code)
            return CallableClient(fn, **spec)
    except TypeError as exc:
        raise InputError(f"bad option for provider {provider!r}: {exc}") from exc
    raise InputError(f"unknown provider {provider!r}: expected 'openai', 'local' or 'callable'")
