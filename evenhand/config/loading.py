"""Reading a config file (YAML or TOML) into an :class:`AssessConfig`, every problem one line naming the file and the
key."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from evenhand._redact import is_hidden_key
from evenhand._validation import format_errors

from ._section import ConfigError
from .run_sections import RunSettings
from .schema import AssessConfig


def parse_config(data: Any, source: str = "config", base: Path | None = None) -> AssessConfig:
    """Validate an already-parsed config mapping; ``base`` resolves relative paths."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of sections, got {type(data).__name__}")
    _refuse_env_references(data, source)
    try:
        config = AssessConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_errors(source, exc, AssessConfig)) from None
    return config.resolve_paths(base) if base is not None else config


#: ``${NAME}`` anywhere in a value, or a value that is ``$NAME`` (how a shell or docker compose names a variable)
_ENV_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}|^\$[A-Z_][A-Z0-9_]*$")
#: sections of settings (every value a setting, none a text): the clients' (``model``, ``judge``, ``ftu``) and the
#: run's (``scoring``, ``generation``, ``statistics``, ``thresholds`` ...: faults18, they were not checked and
#: ``count: "${COUNT}"`` was "not a valid integer"), and keys that hold a path wherever they stand
_SETTINGS_SECTIONS = frozenset({"model", "output", *RunSettings.model_fields})
_PATH_KEYS = frozenset({"path", "dir", "store", "cache", "base_url"})
#: text sent to a model, kept as written whatever it holds
_TEXT_KEYS = frozenset({"system_prompt", "instructions", "tools", "tool_choice", "response_format", "messages"})


def _refuse_env_references(data: dict[str, Any], source: str) -> None:
    """Refuse a reference to an environment variable in a client's settings or a path: a config's values are taken
    as written, so ``base_url: "${GATEWAY_URL}/v1"`` was refused without saying why and ``model: "$MODEL_NAME"`` was
    sent as that name (faults17). The message names the key and the reference, never a value (a variable's value or
    the rest of the string may be a credential). Prompt texts and system prompts are text: left as written."""

    def walk(value: Any, key: str, checked: bool, hidden: bool) -> None:
        if isinstance(value, dict):
            for name, item in value.items():
                if str(name) not in _TEXT_KEYS:
                    place = f"{key}.{name}" if key else str(name)
                    hide = hidden or is_hidden_key(name)
                    walk(item, place, checked or str(name) in _PATH_KEYS, hide)
        elif isinstance(value, list) and checked:
            for i, item in enumerate(value):
                walk(item, f"{key}.{i}", checked, hidden)
        elif isinstance(value, str) and checked:
            found = _ENV_REFERENCE.search(value.strip())
            if found:
                # a credential's place (a header, extra_body, a key) is never quoted, whatever it reads like
                what = "its value" if hidden else found.group(0)
                raise ConfigError(
                    f"{source}: {key}: {what} reads like an environment variable, but a config's values are "
                    "taken as written (only api_key_env names a variable, the one the API key is read from); write "
                    "the value itself, or generate the config"
                )

    for section, body in data.items():
        walk(body, str(section), str(section) in _SETTINGS_SECTIONS, False)


def load_config(path: str | os.PathLike[str]) -> AssessConfig:
    """Read and validate a YAML (``.yaml``/``.yml``) or TOML (``.toml``) config file."""
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{p} is a folder; give the config file (.yaml, .yml or .toml)")
    if not p.is_file():
        raise ConfigError(f"config file not found: {p}")
    try:
        text = p.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows editors) is not part of the YAML
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not a text file (a config is UTF-8 YAML or TOML)") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        if p.suffix.lower() == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # Python 3.10: the tomli backport (a dependency there)
                import tomli as tomllib
            data: Any = tomllib.loads(text)
        elif p.suffix.lower() in (".yaml", ".yml"):
            data = yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader: no Python objects
        else:
            raise ConfigError(f"{p}: unknown config format {p.suffix!r}; use .yaml, .yml or .toml")
    except (yaml.YAMLError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"{p}: not valid {p.suffix[1:].upper()}: {_one_line(exc)}") from None
    return parse_config(data, source=str(p), base=p.parent.resolve())


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key written twice in one mapping is an error: by default the second
    silently wins, so a setting the reader sees first would not be the one that runs."""


def _unique_keys(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # "<<: *anchor" may repeat by design
            continue
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, (str, int, float, bool)):  # an odd key (a list): the schema rejects it by name
            continue
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} is written twice in one section", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_keys)


def _one_line(exc: Exception) -> str:
    """A parser's error on one line: PyYAML's spans several (the line quoted, a caret under it)."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        hint = "; indent with spaces, not tabs" if "\\t" in str(exc.problem) else ""
        return f"{exc.problem} (line {mark.line + 1}, column {mark.column + 1}){hint}"
    return " ".join(str(exc).split())
