"""The ``model`` section: which LLM answers (the client spec), how it samples, and what its tokens cost."""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from evenhand._validation import written_value
from evenhand.errors import InputError

from ._section import MAX_CONCURRENCY, MAX_TIMEOUT_S, MAX_TOKENS, Seed, _Section


def _positive_seconds(value: Any) -> bool:
    """A number above zero and at most :data:`MAX_TIMEOUT_S` (not a yes/no, which YAML reads as a number's cousin,
    nor a quoted text)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0 < value <= MAX_TIMEOUT_S


class PricesConfig(_Section):
    """What the model's tokens cost, per 1M, for the estimate before a run (``evenhand plan``, ``evenhand assess``)."""

    # strict: a number as YAML/TOML write it (a quoted "0.15" or a true is a mistake to point at, not to convert)
    input_per_1m: Annotated[float, Field(ge=0.0, strict=True, allow_inf_nan=False, description="per 1M prompt tokens")]
    output_per_1m: Annotated[
        float, Field(ge=0.0, strict=True, allow_inf_nan=False, description="per 1M completion tokens")
    ]


class ModelConfig(_Section):
    """The LLM: ``local`` (bundled SmolLM2 or a local Hugging Face path), any OpenAI-compatible server, or
    ``callable`` (a Python function named in ``options.function`` as ``"package.module:name"``)."""

    #: the config key this section is read from, as its error messages name it (an assistant's section: its own)
    key: ClassVar[str] = "model"

    provider: Literal["local", "openai", "callable"] = "local"
    model: Annotated[str | None, Field(description="model name (openai) or local path / Hugging Face id (local)")] = (
        None
    )
    base_url: str | None = None
    api_key_env: Annotated[str, Field(description="name of the environment variable holding the key")] = (
        "OPENAI_API_KEY"
    )
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] = 1.0
    max_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS)] = 96
    system_prompt: str | None = None
    seed: Seed | None = None
    concurrency: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_CONCURRENCY,
            description="requests in flight, fixed; null: provider openai adapts to the server's pace (from 16 up "
            "to max_concurrency, backing off on 429/503), the other providers keep 8",
        ),
    ] = None
    max_concurrency: Annotated[
        int | None,
        Field(ge=1, le=MAX_CONCURRENCY, description="the most requests in flight, ever (null: 64 when adapting)"),
    ] = None
    options: dict[str, Any] = Field(default_factory=dict, description="extra client options")
    device: Annotated[str | None, Field(description="provider local: auto, cpu, cuda, cuda:N or mps (None: auto)")] = (
        None
    )
    prices: Annotated[PricesConfig | None, Field(description="per 1M tokens: the cost estimate states the cost")] = None
    tools: Annotated[
        list[dict[str, Any]] | None,
        Field(
            description="function definitions sent with every request (OpenAI's tools); classification.tool reads "
            "the call"
        ),
    ] = None
    tool_choice: Annotated[
        Any, Field(description="auto, required, none or {type: function, function: {name: ...}}")
    ] = None
    response_format: Annotated[
        dict[str, Any] | None, Field(description="e.g. {type: json_object}; classification.json_field reads the reply")
    ] = None

    @field_validator("options")
    @classmethod
    def _header_mappings(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Headers are name -> value; said here by key, never quoting a value (it may be a credential)."""
        for key in ("headers", "default_headers", "extra_headers"):
            given = value.get(key)
            if given is not None and not (
                isinstance(given, dict) and all(isinstance(v, (str, int, float)) for v in given.values())
            ):
                raise InputError(f"{cls.key}.options.{key} must map header names to text values, e.g. {{X-Team: a}}")
        return value

    @field_validator("base_url")
    @classmethod
    def _requestable_url(cls, value: str | None) -> str | None:
        """An http(s) URL with a host and a valid port, checked here rather than retried as a failing request; the
        message never quotes the URL (it may carry user:password)."""
        if value is None:
            return value
        problem = None
        try:
            parts = urllib.parse.urlsplit(value)
            parts.port  # noqa: B018 -- raises ValueError for a port out of range or not a number
        except ValueError as exc:
            problem = f"cannot be parsed ({exc})"
        else:
            if parts.scheme not in ("http", "https"):
                problem = "must start with http:// or https://, e.g. http://localhost:8000/v1"
            elif not parts.hostname:
                problem = "has no host, e.g. http://localhost:8000/v1"
        if problem is not None:  # the error's location names the key (model.base_url, ftu.reader.base_url, ...)
            raise InputError(f"the URL {problem}")
        return value

    @model_validator(mode="after")
    def _openai_needs_url(self) -> ModelConfig:
        if self.provider == "openai" and (not self.base_url or not self.model):
            k = self.key
            raise InputError(f"{k}.provider 'openai' needs {k}.base_url and {k}.model")
        if self.concurrency is not None and self.max_concurrency is not None:
            if self.concurrency > self.max_concurrency:
                raise InputError(f"{self.key}.concurrency {self.concurrency} is above {self.key}.max_concurrency")
        # a local model folder is checked when the model is used (evenhand.pipeline.from_config.check_local_model),
        # relative to the config file's folder: `evenhand plan` never needs it, and the working directory is no base
        if self.tools is not None or self.tool_choice is not None or self.response_format is not None:
            from evenhand.generation.settings import check_reply_shape

            check_reply_shape(self.tools, self.tool_choice, self.response_format)
            if self.provider == "local":
                key = "tools" if self.tools is not None else "response_format"
                raise InputError(
                    f"model.{key}: the local model cannot be sent {key}; ask for JSON in the prompt and read it with "
                    "classification.json_field, or use an OpenAI-compatible server"
                )
        if self.provider == "openai":
            self._check_openai_options()
        if self.device is not None:
            from evenhand.scorers._base import check_device

            check_device(self.device)
            if self.provider != "local":
                raise InputError(f"{self.key}.device applies to provider local, not {self.provider!r}; remove it")
        return self

    def _check_openai_options(self) -> None:
        """Every ``options`` key is an option of the OpenAI-compatible client, and its timeout is positive: said here,
        naming the key, not when the client is built after the scorers have loaded."""
        import inspect

        from evenhand.generation.clients.openai import OpenAIClient

        accepted = set(inspect.signature(OpenAIClient.__init__).parameters) - {"self", "base_url", "model", "api_key"}
        unknown = sorted(set(self.options) - accepted)
        if "api_key" in self.options:  # the value is never quoted: it is a key
            raise InputError(f"{self.key}.options.api_key: put the API key in an environment variable and name it with "
                             f"{self.key}.api_key_env")  # fmt: skip
        if unknown:
            raise InputError(
                f"{self.key}.options.{unknown[0]} is not an option of provider openai; its options: "
                f"{', '.join(sorted(accepted - {'api_key_env'}))}"
            )
        timeout = self.options.get("timeout")
        if timeout is not None and not _positive_seconds(timeout):  # NaN and infinity are no time to wait
            raise InputError(
                f"{self.key}.options.timeout must be a positive number of seconds, got {written_value(timeout)}; at "
                f"most {MAX_TIMEOUT_S:,} (a day)"
            )
        if "max_body_bytes" in self.options:
            from evenhand.generation.clients.openai import check_max_body_bytes

            try:
                check_max_body_bytes(self.options["max_body_bytes"])
            except InputError as exc:
                raise InputError(f"{self.key}.options.{exc}") from None
        extra_body = self.options.get("extra_body")
        if extra_body is not None and not isinstance(extra_body, dict):  # its value is never quoted: it may be a key
            raise InputError(f"{self.key}.options.extra_body must map body keys to values, e.g. {{user: team-a}}")
        n = self.options.get("n", "auto")
        if n != "auto" and not isinstance(n, bool):
            raise InputError(f"{self.key}.options.n must be auto, true or false, got {n!r}")

    def local_folder(self) -> Path | None:
        """The local model's folder when ``model`` is written as a path (``/``, ``~``, ``./``, ``../``), else None
        (a Hugging Face id, another provider)."""
        written_as_path = self.model is not None and self.model.startswith(("/", "~", "./", "../", ".\\"))
        return Path(str(self.model)).expanduser() if self.provider == "local" and written_as_path else None

    def fixed_concurrency(self) -> int | None:
        """``concurrency`` for the run: None lets an OpenAI-compatible server set the pace; a local model or a
        callable keeps the fixed 8 it always had (nothing to adapt to)."""
        if self.concurrency is None and self.provider != "openai":
            return min(8, self.max_concurrency or 8)
        return self.concurrency

    def client_spec(self) -> dict[str, Any]:
        """The dict :func:`evenhand.generation.get_client` takes (the API key stays in the environment)."""
        spec: dict[str, Any] = {"provider": self.provider, **self.options}
        if self.provider != "callable":
            spec["model"] = self.model
        if self.device is not None:
            spec["device"] = self.device
        if self.provider == "openai":
            spec |= {"base_url": self.base_url, "api_key_env": self.api_key_env}
        return spec
