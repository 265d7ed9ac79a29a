"""Flags -> config: the one place command-line flags become settings of a validated config.

Every flag names the config key it sets (docs/cli.md), so a command line and a config file can say the same things;
a bad value is one error line naming the flag (exit code 2), never a credential given in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from evenhand.cli.exit_codes import ExitCode, fail, is_bad_input
from evenhand.cli.scoring_flags import ScoringFlags


def load_config(path: Path) -> Any:
    """The validated config in ``path``, or exit 2 with the one line that names the file and the key."""
    from evenhand.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as exc:
        raise fail(str(exc), ExitCode.BAD_INPUT) from None


def override_model(cfg: Any, base_url: str | None, model: str | None) -> None:
    """``assess --base-url/--model``: point the config's model at another server or model."""
    if base_url is None and model is None:
        return
    from pydantic import ValidationError

    update: dict[str, Any] = {"model": model or cfg.model.model}
    if base_url is not None:
        update |= {"provider": "openai", "base_url": base_url}
    try:
        cfg.model = type(cfg.model).model_validate(cfg.model.model_dump() | update)
    except ValidationError as exc:  # its messages only, never the input values (they may hold credentials)
        problems = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise fail(f"--base-url/--model: {problems}", ExitCode.BAD_INPUT) from None


def apply_scoring_flags(cfg: Any, flags: ScoringFlags, model_device: bool, mentioned: Iterable[Any] = ()) -> Any:
    """The config with a command's scoring flags written in and checked (scorers built, device resolved).
    ``mentioned``: the command's other values, whose credentials an error message must not quote either."""
    from evenhand.cli.scoring_flags import apply_scoring_flags as apply
    from evenhand.cli.scoring_flags import check_scoring_flags

    try:
        cfg = apply(cfg, flags, model_device=model_device)
        check_scoring_flags(cfg, flags)
    except Exception as exc:  # the message quotes the flag: never a token given in it (toxicity.token=...)
        if not is_bad_input(exc):
            raise
        from evenhand._redact import redact_text, secret_values

        given = [{text.partition("=")[0].rpartition(".")[2]: text.partition("=")[2]} for text in flags.options]
        values = [getattr(flags, f.name) for f in fields(flags)] + list(mentioned)
        secrets = secret_values([*given, *(v for v in values if isinstance(v, str))])
        raise fail(redact_text(str(exc), secrets), ExitCode.BAD_INPUT) from None
    return cfg


def group_columns(pairs: Sequence[str]) -> dict[str, str]:
    """``["gender=applicant_gender"]`` -> ``{"gender": "applicant_gender"}`` (``--group-columns``)."""
    out: dict[str, str] = {}
    for pair in pairs:
        attribute, _, name = pair.partition("=")
        if not attribute.strip() or not name.strip():
            raise fail(f"--group-columns: expected ATTRIBUTE=COLUMN, got {pair!r}", ExitCode.BAD_INPUT)
        out[attribute.strip()] = name.strip()
    return out


def metrics_config(
    responses: Path,
    config: Path | None,
    *,
    task: str,
    attributes: Sequence[str] | None,
    columns: dict[str, str | None],
    group_columns_given: Sequence[str] | None,
    intersections: Sequence[str] | None,
    out: Path | None,
    html: bool,
    ci: float | None,
) -> Any:
    """The validated config of ``evenhand metrics``: the config file's (when given) with the flags written in.
    ``columns``: every column mapping, by its key in the config's ``responses`` section."""
    from evenhand.config import ConfigError, parse_config

    if config is not None:
        data = load_config(config).model_dump(mode="python")
    else:
        data = {"use_case": {"task": task}}
        if attributes:
            data["use_case"]["attributes"] = list(attributes)
        data["statistics"] = {"ci": ci if ci else None}
    if group_columns_given:
        used = data["use_case"].get("task")
        if used != "classification":  # the flag writes the classification section: name the flag, not the section
            raise fail(
                f"--group-columns: a person's group columns are read by task classification only; the use case's "
                f"task is {used}, which never reads them: remove the flag", ExitCode.BAD_INPUT,
            )  # fmt: skip
        data.setdefault("classification", {})["group_columns"] = group_columns(group_columns_given)
    if intersections:
        data["use_case"]["intersections"] = [*data["use_case"].get("intersections", []),
                                             *(names.split("+") for names in intersections)]  # fmt: skip
    data["prompts"] = None  # the prompts come from the responses file
    data["responses"] = {"path": responses.resolve(), **columns}  # each mapping is a flag named after its key
    data["output"] = {**data.get("output", {}), "html": html}
    if out is not None or config is None:
        data["output"]["dir"] = out or Path("evenhand-out")
    try:
        return parse_config(data, source=str(config or "options"))
    except ConfigError as exc:
        message = str(exc)
        if config is None:  # name the flag that set the key ("--ci (statistics.ci): ..."), not a config's "options"
            for key, flag in _FLAG_OF_KEY.items():
                message = message.replace(f"options: {key}", f"{flag} ({key})")
        raise fail(message, ExitCode.BAD_INPUT) from None


#: the ``evenhand metrics`` flags that write a config key, for errors about that key
_FLAG_OF_KEY = {
    "use_case.task": "--task",
    "use_case.attributes": "-a/--attribute",
    "statistics.ci": "--ci",
    "classification.group_columns": "--group-columns",
}


def run_config_from(
    config: Path, base_url: str | None, model: str | None, count: int | None, flags: ScoringFlags
) -> Any:
    """The config a run command (assess, redteam) runs: the file's, with ``--base-url``/``--model``, ``--count`` and
    the scoring flags written in (``--device`` also reaches the local model)."""
    cfg = load_config(config)
    override_model(cfg, base_url, model)
    if count is not None:
        cfg.generation.count = count
    return apply_scoring_flags(cfg, flags, model_device=True, mentioned=(base_url, model))
