"""Build a client from a spec: a client, a callable, a LangChain model, a short string or a config dict."""

from __future__ import annotations

import importlib
from typing import Any

from .base import ChatClient
from .callable import CallableClient

_LOCAL_NAMES = {"local", "smollm2", "default"}


def _is_langchain_model(obj: Any) -> bool:
    return any(c.__name__ == "BaseChatModel" for c in type(obj).__mro__)


def get_client(spec: Any = None) -> ChatClient:
    """Return a :class:`ChatClient` for ``spec``.

    - ``None`` or ``"local"``: the bundled SmolLM2 (offline).
    - a :class:`ChatClient`: returned as is; a LangChain ``BaseChatModel``: wrapped; any other callable: wrapped.
    - a dict with ``provider`` (or ``type``): ``"openai"`` (``base_url``, ``model``, ``api_key_env``, ``timeout``,
      ``n``, ``api_version``, ``headers``, ``extra_body``), ``"local"`` (``model``, ``gguf_file``,
      ``batch_size``) or ``"callable"`` (``function: "package.module:name"``). Keys of other sections (e.g.
      ``temperature``) are rejected so typos do not pass silently; API keys belong in the environment.
    """
    if spec is None:
        spec = "local"
    if isinstance(spec, ChatClient):
        return spec
    if isinstance(spec, str):
        if spec.lower() in _LOCAL_NAMES:
            from .local import LocalModelClient

            return LocalModelClient()
        raise ValueError(f"unknown client {spec!r}: use 'local', a dict with provider='openai', or a client object")
    if _is_langchain_model(spec):
        from .langchain import LangChainClient

        return LangChainClient(spec)
    if isinstance(spec, dict):
        return _from_dict(dict(spec))
    if callable(spec):
        return CallableClient(spec)
    raise TypeError(f"cannot build a client from {type(spec).__name__}")


def _from_dict(spec: dict[str, Any]) -> ChatClient:
    provider = str(spec.pop("provider", None) or spec.pop("type", None) or "local").lower()
    if "api_key" in spec:
        raise ValueError("put the API key in an environment variable and name it with 'api_key_env'")
    try:
        if provider in ("openai", "azure", "vllm", "ollama", "openai-compatible"):
            from .openai import OpenAIClient

            base_url, model = spec.pop("base_url", None), spec.pop("model", None)
            if not base_url or not model:
                raise ValueError(f"provider {provider!r} needs 'base_url' and 'model'")
            return OpenAIClient(base_url, model, **spec)
        if provider in _LOCAL_NAMES:
            from .local import LocalModelClient

            return LocalModelClient(spec.pop("model", None), **spec)
        if provider == "callable":
            target = str(spec.pop("function"))
            module, _, name = target.partition(":")
            return CallableClient(getattr(importlib.import_module(module), name), **spec)
    except TypeError as exc:
        raise ValueError(f"bad option for provider {provider!r}: {exc}") from exc
    raise ValueError(f"unknown provider {provider!r}: expected 'openai', 'local' or 'callable'")
