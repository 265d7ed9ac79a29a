"""The ``evenhand`` command line: plan, assess, metrics, report, compare and demo.

Exit codes (scripts can rely on them):

* 0 - success;
* 1 - the assessment ran but a fairness threshold from the config (``thresholds:``) was not met;
* 2 - bad input: unreadable or invalid config, missing file or column, bad option;
* 3 - runtime failure: a model, scorer or server failed while the assessment ran.
"""

from __future__ import annotations

import enum
import os
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evenhand import __version__
from evenhand._files import check_outputs, remove_stale_outputs, write_text
from evenhand.config import MAX_COUNT
from evenhand.registry import METRICS
from evenhand.text.lexicon import BUILTIN_ATTRIBUTES, DEFAULT_ATTRIBUTES

_ATTRIBUTE_HELP = (
    f"Protected attribute(s), any of: {', '.join(BUILTIN_ATTRIBUTES)} (default: {', '.join(DEFAULT_ATTRIBUTES)})."
)


class ExitCode(enum.IntEnum):
    OK = 0
    THRESHOLD_FAILED = 1
    BAD_INPUT = 2
    RUNTIME_FAILURE = 3
    INTERRUPTED = 130  # Ctrl-C, by the shell's convention (128 + SIGINT)


def _click_exceptions() -> Any:
    """The click exceptions module the installed typer raises from (typer 0.24+ vendors click as typer._click)."""
    import importlib

    try:
        return importlib.import_module("typer._click.exceptions")
    except ImportError:  # older typer: click itself
        return importlib.import_module("click.exceptions")


class _OneLineUsageErrors(typer.core.TyperGroup):
    """Usage errors (a flag's value of the wrong type or out of range, an unknown option or command) as one line
    on stderr, like every other bad input, instead of a usage block and a panel:
    ``error: evenhand demo: Invalid value for '--limit': ...`` (exit code 2)."""

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        where = {"args": args, "prog_name": prog_name, "complete_var": complete_var, **extra}
        from evenhand._help_format import use_plain_help, wide_terminal

        if not wide_terminal():  # rich's help panels cut option names with "…" when narrow (and in CI logs)
            use_plain_help(self)
        if not standalone_mode:
            return super().main(**where, standalone_mode=False, windows_expand_args=windows_expand_args)
        try:
            code = super().main(**where, standalone_mode=False, windows_expand_args=windows_expand_args)
        except _click_exceptions().UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError" or exc.ctx is None:  # `evenhand` alone: typer's help
                return super().main(**where, standalone_mode=True, windows_expand_args=windows_expand_args)
            command = escape(exc.ctx.command_path)
            err_console.print(f"[bold red]error:[/] {command}: {escape(exc.format_message())}", highlight=False)
            sys.exit(exc.exit_code)
        except typer.Abort as exc:  # a question got no answer: end of input (bad input) or Ctrl-C (interrupted)
            if isinstance(exc.__context__, KeyboardInterrupt):  # click raises Abort from None, keeping the context
                err_console.print("interrupted", highlight=False)
                sys.exit(int(ExitCode.INTERRUPTED))
            err_console.print(
                "[bold red]error:[/] no answer (end of input); answer on a terminal or give flags", highlight=False
            )
            sys.exit(int(ExitCode.BAD_INPUT))
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="evenhand",
    cls=_OneLineUsageErrors,
    help=(
        "Use-case-level bias and fairness assessment of LLMs (plan, assess, metrics, report, compare, demo). "
        "Exit codes: 0 ok, 1 a threshold you set failed, 2 bad input or config, 3 runtime failure, "
        "130 interrupted."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Off a terminal (CI logs, pipes) nothing is cut: tables take the width they need instead of the default 80 columns.
console = Console(width=None if sys.stdout.isatty() else 1_000)
err_console = Console(stderr=True, soft_wrap=True)  # one line per error: easy to grep in scripts


def _fail(message: str, code: ExitCode) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(int(code))


def _version(value: bool) -> None:
    if value:
        console.print(f"evenhand {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")] = False,
) -> None:
    """Use-case-level bias and fairness assessment of LLMs, following the paper's decision framework."""
    _DEBUG["on"] = debug or _debug_from_env()  # the documented variable counts too


def _ftu_table(prompts: list[str], attributes: list[str]) -> Table:
    from evenhand.text.counterfactual import counterfactual_prompts
    from evenhand.text.ftu import check_ftu

    table = Table(title="Fairness through unawareness (FTU) and counterfactual prompts")
    for name in ("attribute", "FTU satisfied", "prompts mentioning it", "groups", "example (first two groups)"):
        table.add_column(name, overflow="fold")
    for attribute in attributes:
        ftu = check_ftu(prompts, attribute=attribute)
        example = ""
        groups: tuple[str, ...] = ()
        if not ftu.satisfied:
            cf = counterfactual_prompts(prompts, attribute=attribute)
            groups = tuple(cf.groups)
            if len(cf):
                example = " / ".join(f"{g}: {textwrap.shorten(cf[g][0], 48, placeholder=' …')}" for g in groups[:2])
        verdict = "not assessable" if not ftu.assessable else "yes" if ftu.satisfied else "no"
        cells = (attribute, verdict, f"{ftu.n_flagged} of {len(prompts)}", ", ".join(groups), example)
        table.add_row(*(escape(c) for c in cells))  # prompts and group names are data, not markup
    return table


def _write_outputs(
    assessment: Any, out: Path, html: bool = True, include_responses: bool = True, responses: str = "csv"
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # Each file is written under a hidden name first and renamed into place once all of them are written: a failure
    # half-way (a full disk, a rendering error) leaves the previous run's files whole, never a mix of two runs.
    names = ["results.json", "metrics.csv", *([f"responses.{responses}"] if responses != "none" else [])]
    staged = {name: out / f".staging.{name}" for name in [*names, *(["report.html"] if html else [])]}  # suffix kept
    try:
        assessment.write_json(staged["results.json"], include_responses=include_responses)
        from evenhand._formula_guard import guard_frame  # a text cell such as "-x" must not run in a spreadsheet

        write_text(staged["metrics.csv"], guard_frame(assessment.metrics).to_csv(index=False))
        if responses != "none":
            assessment.export_responses(staged[f"responses.{responses}"])
        if html:
            assessment.to_html(staged["report.html"])
    except BaseException:
        for path in staged.values():
            path.unlink(missing_ok=True)
        raise
    for name, path in staged.items():
        os.replace(path, out / name)  # a symlink at the target is replaced, its target untouched
    # where the results went is status, not results: stderr, so that stdout redirected to a file holds results only
    err_console.print(f"wrote {escape(str(out / 'results.json'))} and {escape(str(out / 'metrics.csv'))}")
    for name in list(staged)[2:]:  # the responses, then the report
        err_console.print(f"wrote {escape(str(out / name))}")
    # an output this run leaves out (html: false, responses: none or the other format) must not sit beside the new
    # results as if it were theirs (an output that is an input of the run was refused before it started)
    for path in remove_stale_outputs(out, ("report.html", "responses.csv", "responses.parquet"), kept=staged):
        err_console.print(f"removed {escape(str(path))} (from an earlier run; this run does not write it)")


def _run_config(
    config: Any,
    out: Path | None,
    limit: int | None,
    progress: bool | None,
    allow_code: bool | None = None,
    junit: Path | None = None,
    announce: bool = False,
) -> ExitCode:
    """Run a validated config; print the summary, write the outputs (and the JUnit file); return the exit code.
    ``announce``: say on stderr what generation will send (requests, tokens, cost) just before it starts."""
    from evenhand._redact import redact_text, secret_values
    from evenhand.generation._types import GenerationStoppedError
    from evenhand.pipeline.from_config import assess_config
    from evenhand.scorers import ModelUnavailableError

    secrets = secret_values(config.model.client_spec())  # never echoed, whatever an error message quotes
    if out is not None:
        config.output.dir = out
    try:  # before any work: the outputs must be writable where asked and must not overwrite an input
        _check_output_dir(config, junit)
        told = _print_estimate if announce else None
        assessment = assess_config(config, limit=limit, progress=progress, allow_code=allow_code, on_estimate=told)
    except (ValueError, TypeError, FileNotFoundError, KeyError, ModelUnavailableError) as exc:
        # a model named in the config that cannot be loaded is a bad setting (exit 2), like a missing file
        err_console.print(f"[bold red]error:[/] {escape(redact_text(str(exc), secrets))}", highlight=False)
        return ExitCode.BAD_INPUT
    except Exception as exc:  # a model, scorer or server failed: report it, with a distinct exit code
        message = redact_text(f"{type(exc).__name__}: {exc}", secrets)
        if isinstance(exc, GenerationStoppedError):  # the circuit breaker stopped generation: the store keeps the rest
            message = redact_text(_resume_advice(exc), secrets)
        err_console.print(f"[bold red]assessment failed:[/] {escape(message)}", highlight=False)
        return ExitCode.RUNTIME_FAILURE
    except KeyboardInterrupt:  # typer would exit 130 without a word: say what is kept and how to go on
        store = config.run_settings().generation.store if config.responses is None else None
        kept = (
            f"; the responses generated so far are kept in {store}: run the same command again to resume"
            if (store is not None and Path(store).exists())
            else ""
        )
        err_console.print(f"interrupted{escape(redact_text(kept, secrets))}", highlight=False)
        return ExitCode.INTERRUPTED
    from evenhand.report.console import print_assessment

    print_assessment(console, assessment.to_dict(include_responses=False))  # the report's order (docs/cli.md)
    oc = config.output
    _write_outputs(assessment, oc.dir, html=oc.html, include_responses=oc.include_responses, responses=oc.responses)
    if junit is not None:  # from the results document, as `evenhand compare --junit` from the comparison's
        from evenhand.junit import write_junit

        try:
            written = write_junit(junit, assessment.to_dict(include_responses=False))
        except OSError as exc:  # checked before the run; the place changed since: one line, as any bad output path
            err_console.print(f"[bold red]error:[/] --junit {escape(str(junit))}: cannot write it there "
                              f"({escape(str(exc.strerror or exc))})", highlight=False)  # fmt: skip
            return ExitCode.BAD_INPUT
        err_console.print(f"wrote {escape(str(written))}")  # status: stderr, as the other outputs' lines
    from evenhand.gate import print_gate  # passed or failed, what the gate judged, on stderr

    print_gate(err_console, assessment.threshold_checks, f"{oc.dir / 'results.json'} (thresholds)")
    # None: no threshold was set, nothing gates the exit code
    return ExitCode.THRESHOLD_FAILED if assessment.passed is False else ExitCode.OK


def _resume_advice(exc: Any) -> str:
    """One line for a generation the circuit breaker stopped: why, the counts, and how to go on."""
    if exc.store_path == ":memory:":
        return f"{exc.summary}; nothing was stored"
    return (
        f"{exc.summary}; the completed samples are kept in {exc.store_path}: fix the cause and run the same "
        "`evenhand assess` command again to resume"
    )


def _check_output_dir(config: Any, junit: Path | None = None) -> None:
    out = Path(config.output.dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"output folder {out} is a file; give a folder (--out or output.dir)")
    try:  # made now, so that an unwritable place fails in a second, not after the whole run
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"output folder {out} cannot be created ({exc.strerror or type(exc).__name__})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ValueError(f"output folder {out} is not writable; give another one (--out or output.dir)")
    if config.responses is None:  # a store that cannot be opened is a bad setting, found before the model loads
        from evenhand.config import check_store_path

        check_store_path(config.run_settings().generation.store)
    inputs = [getattr(config.prompts, "path", None), getattr(config.responses, "path", None)]
    names = ("results.json", "metrics.csv", "report.html", "responses.csv", "responses.parquet")
    check_outputs([out / name for name in names], inputs)
    if junit is not None:
        from evenhand.junit import check_junit_path

        check_junit_path(junit, inputs, [out / name for name in names])


def _load(path: Path) -> Any:
    from evenhand.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as exc:
        raise _fail(str(exc), ExitCode.BAD_INPUT) from None


# Scoring flags of assess and metrics: each sets one key of the config's scoring section (docs/cli.md).
_SPEC = "'default' for the offline default"
_Toxicity = Annotated[str | None, typer.Option(help=f"Toxicity scorer spec (scoring.toxicity; {_SPEC}).")]
_Sentiment = Annotated[str | None, typer.Option(help=f"Sentiment scorer spec (scoring.sentiment; {_SPEC}).")]
_Stereotype = Annotated[str | None, typer.Option(help="Stereotype classifier, model id or path (scoring.stereotype).")]
_Embedder = Annotated[str | None, typer.Option(help=f"Sentence embedder (scoring.embedder; {_SPEC}, 'none' skips).")]
_ScorerOption = Annotated[
    list[str] | None,
    typer.Option("--scorer-option", help="SCORER.OPTION=VALUE (YAML value), e.g. toxicity.batch_size=16; repeat."),
]
_Device = Annotated[str | None, typer.Option(help="auto, cpu, cuda, cuda:N or mps for every model (scoring.device).")]
_Engine = Annotated[str | None, typer.Option(help="Scoring engine: local or ray (scoring.engine; docs/scale.md).")]
_RayAddress = Annotated[str | None, typer.Option(help="Ray cluster: auto or ray://host:port (scoring.address).")]
_RayActors = Annotated[int | None, typer.Option(help="Ray actors per scorer (scoring.num_actors).", min=1)]
_RayGpus = Annotated[float | None, typer.Option(help="GPUs per Ray actor (scoring.num_gpus_per_actor).", min=0)]
_Cutoff = Annotated[float | None, typer.Option(min=0.0, max=1.0, help="Score cut-off (scoring.<name>_threshold).")]
_ScoreCache = Annotated[
    str | None,
    typer.Option(
        help="Persistent score cache: a SQLite file, 'default' (~/.cache/evenhand/scores.sqlite) or 'off'; a re-run "
        "scores nothing twice (scoring.cache)."
    ),
]


_JUNIT_HELP = "Also write a JUnit XML file for CI test reports (each check or finding a test case; docs/cli.md)."
_Junit = Annotated[Path | None, typer.Option("--junit", help=_JUNIT_HELP, dir_okay=False)]


def _apply_scoring_flags(cfg: Any, arguments: dict[str, Any], model_device: bool) -> Any:
    """The config with a command's scoring flags written in and checked (scorers built, device resolved)."""
    from evenhand.pipeline.scoring_flags import apply_scoring_flags, check_scoring_flags, scoring_flags_from

    flags = scoring_flags_from(arguments)
    try:
        cfg = apply_scoring_flags(cfg, flags, model_device=model_device)
        check_scoring_flags(cfg, flags)
    except ValueError as exc:  # the message quotes the flag: never a token given in it (toxicity.token=...)
        from evenhand._redact import redact_text, secret_values

        given = [{text.partition("=")[0].rpartition(".")[2]: text.partition("=")[2]} for text in flags.options]
        secrets = secret_values([*given, *(v for v in arguments.values() if isinstance(v, str))])
        raise _fail(redact_text(str(exc), secrets), ExitCode.BAD_INPUT) from None
    return cfg


@app.command()
def assess(
    config: Annotated[Path, typer.Argument(help="Config file (.yaml, .yml or .toml); see docs/cli.md.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output folder (overrides output.dir).")] = None,
    limit: Annotated[int | None, typer.Option(help="Use only the first N prompts (a quick trial run).", min=1)] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL (overrides model).")] = None,
    model: Annotated[str | None, typer.Option(help="Model name (with --base-url) or local model path.")] = None,
    count: Annotated[
        int | None,
        typer.Option(help="Responses per prompt (overrides generation.count).", min=1, max=MAX_COUNT),
    ] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="Hide progress bars.")] = False,
    allow_code: Annotated[
        bool,
        typer.Option(
            "--allow-code",
            help="Allow the config to import and run Python code (model.provider callable with options.function).",
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="State the requests, tokens and cost the run would take, send nothing, stop."),
    ] = False,
    toxicity: _Toxicity = None,
    sentiment: _Sentiment = None,
    stereotype: _Stereotype = None,
    embedder: _Embedder = None,
    scorer_option: _ScorerOption = None,
    device: _Device = None,
    engine: _Engine = None,
    ray_address: _RayAddress = None,
    ray_actors: _RayActors = None,
    ray_gpus_per_actor: _RayGpus = None,
    toxicity_threshold: _Cutoff = None,
    stereotype_threshold: _Cutoff = None,
    sentiment_threshold: _Cutoff = None,
    score_cache: _ScoreCache = None,
    junit: _Junit = None,
) -> None:
    """Run the assessment a config file describes; write results.json, metrics.csv and report.html."""
    arguments = dict(locals())
    cfg = _load(config)
    if base_url is not None or model is not None:
        update: dict[str, Any] = {"model": model or cfg.model.model}
        if base_url is not None:
            update |= {"provider": "openai", "base_url": base_url}
        try:
            cfg.model = type(cfg.model).model_validate(cfg.model.model_dump() | update)
        except ValidationError as exc:  # its messages only, never the input values (they may hold credentials)
            problems = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
            raise _fail(f"--base-url/--model: {problems}", ExitCode.BAD_INPUT) from None
    if count is not None:
        cfg.generation.count = count
    cfg = _apply_scoring_flags(cfg, arguments, model_device=True)  # --device also reaches the local model
    # None (not False) lets EVENHAND_ALLOW_CODE=1 allow it too; the config itself never can
    shown = False if no_progress else None
    if dry_run:
        raise typer.Exit(int(_dry_run(cfg, out, limit, True if allow_code else None)))
    code = _run_config(cfg, out, limit, shown, True if allow_code else None, junit=junit, announce=True)
    raise typer.Exit(int(code))


def _print_estimate(estimate: Any) -> None:
    """What generation will send (requests, tokens, cost), on stderr: stdout keeps the results."""
    for line in estimate.lines():
        err_console.print(f"estimate: {escape(line)}", highlight=False)


def _dry_run(config: Any, out: Path | None, limit: int | None, allow_code: bool | None) -> ExitCode:
    """``assess --dry-run``: the estimate of what the run would send, and nothing else (no request, no scorer, no
    store, no output folder)."""
    from evenhand._redact import redact_text, secret_values
    from evenhand.pipeline.from_config import estimate_config

    if out is not None:  # the store's default place is in the output folder
        config.output.dir = out
    try:
        estimate = estimate_config(config, limit, allow_code=allow_code)
    except (ValueError, TypeError, FileNotFoundError, KeyError) as exc:
        raise _fail(redact_text(str(exc), secret_values(config.model.client_spec())), ExitCode.BAD_INPUT) from None
    if estimate is None:
        err_console.print(f"nothing to send: the responses come from {escape(str(config.responses.path))}")
    else:
        _print_estimate(estimate)
    err_console.print("dry run: nothing was sent and nothing was written", highlight=False)
    return ExitCode.OK


@app.command()
def metrics(
    responses: Annotated[Path, typer.Argument(help="Responses table: CSV, TSV, JSONL, JSON or Parquet.")],
    task: Annotated[str, typer.Option(help="text_generation, summarization, classification or recommendation.")] = (
        "text_generation"
    ),
    attribute: Annotated[list[str] | None, typer.Option("--attribute", "-a", help=_ATTRIBUTE_HELP)] = None,
    config: Annotated[Path | None, typer.Option(help="Config with the use-case answers and settings.")] = None,
    prompt_column: Annotated[str, typer.Option(help="Column with the prompt (responses.prompt_column).")] = "prompt",
    response_column: Annotated[
        str, typer.Option(help="Column with the response (responses.response_column).")
    ] = "response",
    prompt_id_column: Annotated[
        str, typer.Option(help="Column linking the versions of one prompt (responses.prompt_id_column).")
    ] = "prompt_id",
    attribute_column: Annotated[
        str, typer.Option(help="Column with a counterfactual row's attribute (responses.attribute_column).")
    ] = "attribute",
    counterfactual_group_column: Annotated[
        str, typer.Option(help="Column with a counterfactual row's group (responses.group_column).")
    ] = "group",
    sample_column: Annotated[str, typer.Option(help="Column with the sample number (responses.sample_column).")] = (
        "sample"
    ),
    label_column: Annotated[
        str | None, typer.Option(help="Classification: ground-truth column (responses.label_column).")
    ] = None,
    group_column: Annotated[
        str | None,
        typer.Option(
            "--group-column",
            "--person-group-column",
            help="Classification: the person's group column (responses.person_group_column).",
        ),
    ] = None,
    group_columns: Annotated[
        list[str] | None,
        typer.Option(
            help="Classification: ATTRIBUTE=COLUMN, the person's group of one attribute; repeat per attribute "
            "(classification.group_columns)."
        ),
    ] = None,
    intersection: Annotated[
        list[str] | None,
        typer.Option(help="Attributes assessed together, e.g. gender+race; repeatable (use_case.intersections)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (default: output.dir of --config, or evenhand-out)."),
    ] = None,
    html: Annotated[bool, typer.Option(help="Also write report.html.")] = True,
    ci: Annotated[float | None, typer.Option(help="Interval level (0 for none).")] = 0.95,
    toxicity: _Toxicity = None,
    sentiment: _Sentiment = None,
    stereotype: _Stereotype = None,
    embedder: _Embedder = None,
    scorer_option: _ScorerOption = None,
    device: _Device = None,
    engine: _Engine = None,
    ray_address: _RayAddress = None,
    ray_actors: _RayActors = None,
    ray_gpus_per_actor: _RayGpus = None,
    toxicity_threshold: _Cutoff = None,
    stereotype_threshold: _Cutoff = None,
    sentiment_threshold: _Cutoff = None,
    score_cache: _ScoreCache = None,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Stage progress with ETA on stderr (default: on a terminal)."),
    ] = None,
    junit: _Junit = None,
) -> None:
    """Metrics from your own responses (no model is called): one row per response, with columns prompt and
    response, plus attribute and group for responses to counterfactual prompts."""
    from evenhand.config import ConfigError, parse_config

    arguments = dict(locals())

    if config is not None:
        cfg = _load(config)
        data = cfg.model_dump(mode="python")
    else:
        data = {"use_case": {"task": task}}
        if attribute:
            data["use_case"]["attributes"] = list(attribute)
        if group_column:  # a group per row means each response is about a person of that group
            data["use_case"]["person_level"] = True
        data["statistics"] = {"ci": ci if ci else None}
    if group_columns:
        data.setdefault("classification", {})["group_columns"] = _group_columns(group_columns)
        if data["use_case"].get("person_level") is None:  # a group column per attribute: person-level data
            data["use_case"]["person_level"] = True
    if intersection:
        data["use_case"]["intersections"] = [*data["use_case"].get("intersections", []),
                                             *(names.split("+") for names in intersection)]  # fmt: skip
    data["prompts"] = None  # the prompts come from the responses file
    # every column mapping is a flag named after its config key (responses.<key>)
    data["responses"] = {
        "path": responses.resolve(),
        "prompt_column": prompt_column,
        "response_column": response_column,
        "prompt_id_column": prompt_id_column,
        "attribute_column": attribute_column,
        "group_column": counterfactual_group_column,
        "sample_column": sample_column,
        "label_column": label_column,
        "person_group_column": group_column,
    }
    data["output"] = {**data.get("output", {}), "html": html}
    if out is not None or config is None:
        data["output"]["dir"] = out or Path("evenhand-out")
    try:
        cfg = parse_config(data, source=str(config or "options"))
    except ConfigError as exc:
        raise _fail(str(exc), ExitCode.BAD_INPUT) from None
    cfg = _apply_scoring_flags(cfg, arguments, model_device=False)
    # off a terminal (CI logs, pipes) only on request: --progress prints a line per stage and one every few seconds
    shown = progress if progress is not None else (None if sys.stderr.isatty() else False)
    raise typer.Exit(int(_run_config(cfg, None, None, shown, junit=junit)))


def _group_columns(pairs: list[str]) -> dict[str, str]:
    """``["gender=applicant_gender"]`` -> ``{"gender": "applicant_gender"}`` (``--group-columns``)."""
    out: dict[str, str] = {}
    for pair in pairs:
        attribute, _, name = pair.partition("=")
        if not attribute.strip() or not name.strip():
            raise _fail(f"--group-columns: expected ATTRIBUTE=COLUMN, got {pair!r}", ExitCode.BAD_INPUT)
        out[attribute.strip()] = name.strip()
    return out


@app.command()
def report(
    results: Annotated[Path, typer.Argument(help="results.json written by evenhand assess / metrics.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="HTML file (default: next to the JSON).")] = None,
) -> None:
    """Turn a results.json into the self-contained HTML report."""
    from evenhand.pipeline.assessment import load_results
    from evenhand.report import render_html

    target = out or results.with_name("report.html")
    if results.is_dir():  # "no such file" would mislead: it is there, but a folder
        raise _fail(f"{results} is a folder; give its results.json", ExitCode.BAD_INPUT)
    try:
        check_outputs([target], [results])
        doc = load_results(results)
        html = render_html(doc)
    except (FileNotFoundError, ValueError, KeyError, TypeError) as exc:
        raise _fail(str(exc) if isinstance(exc, (FileNotFoundError, ValueError)) else f"{results}: {exc!r}",
                    ExitCode.BAD_INPUT) from None  # fmt: skip
    try:
        path = write_text(target, html)
    except OSError as exc:  # --out is a folder, inside a file, or not writable: bad input, one line
        message = f"--out {target}: cannot write the report there ({exc.strerror or exc})"
        raise _fail(message, ExitCode.BAD_INPUT) from None
    from evenhand.report.console import print_verdict

    print_verdict(console, doc)  # what the report leads with: the headlines, concerns, watches, ok per attribute
    err_console.print(f"wrote {escape(str(path))}")  # status: stderr (stdout carries results only)


_TASKS = ["text_generation", "summarization", "classification", "recommendation"]


def _ask_bool(question: str, given: bool | None, interactive: bool, default: bool | None) -> bool | None:
    if given is not None or not interactive:
        return given if given is not None else default
    answer = typer.prompt(f"{question} [y/n/skip]", default="skip" if default is None else ("y" if default else "n"))
    return {"y": True, "yes": True, "n": False, "no": False}.get(str(answer).strip().lower())


@app.command()
def plan(
    config: Annotated[Path | None, typer.Argument(help="Config file to read the answers from.")] = None,
    task: Annotated[str | None, typer.Option(help="|".join(_TASKS))] = None,
    prompts: Annotated[Path | None, typer.Option(help="Prompts file, to check FTU (CSV/JSONL/Parquet/txt).")] = None,
    attribute: Annotated[list[str] | None, typer.Option("--attribute", "-a", help=_ATTRIBUTE_HELP)] = None,
    mentions_groups: Annotated[
        bool | None, typer.Option("--mentions-groups/--no-mentions-groups", help="Prompts mention groups (no file).")
    ] = None,
    invariance: Annotated[
        bool | None, typer.Option("--invariance/--no-invariance", help="Counterfactual invariance is desired.")
    ] = None,
    content_may_differ: Annotated[
        bool | None, typer.Option("--content-may-differ/--same-content", help="Content ought to differ by group.")
    ] = None,
    prevalence_parity: Annotated[
        bool | None, typer.Option("--prevalence-parity/--no-prevalence-parity", help="Equal predicted prevalence.")
    ] = None,
    intervention: Annotated[str | None, typer.Option(help="assistive or punitive (classification).")] = None,
    person_level: Annotated[
        bool | None, typer.Option("--person-level/--not-person-level", help="Each input is a person.")
    ] = None,
    interactive: Annotated[
        bool | None, typer.Option("--ask/--no-ask", help="Ask the questions (default: when on a terminal).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Which metrics fit your use case, and why (the paper's decision framework, section 4)."""
    import json

    from pydantic import ValidationError

    from evenhand.framework import UseCase
    from evenhand.framework import plan as make_plan

    ask = sys.stdin.isatty() if interactive is None else interactive
    estimate = None
    try:
        if config is not None:
            flags = {"--task": task, "--prompts": prompts, "--attribute": attribute or None,
                     "--mentions-groups": mentions_groups, "--invariance": invariance,
                     "--content-may-differ": content_may_differ, "--prevalence-parity": prevalence_parity,
                     "--intervention": intervention, "--person-level": person_level}  # fmt: skip
            given = [flag for flag, value in flags.items() if value is not None]
            if given:  # silently preferring the file would answer a question the user asked differently
                raise _fail(
                    f"{given[0]}: the use case comes from {config}; edit the file, or leave the config out to "
                    "describe the use case with flags",
                    ExitCode.BAD_INPUT,
                )
            cfg = _load(config)
            from evenhand.pipeline.from_config import estimate_config, response_source

            use_case = cfg.use_case_with(response_source(cfg)[1])
            # what assess would send to the model; plan imports no code the config names
            estimate = estimate_config(cfg, allow_code=False)
        else:
            if task is None:
                if not ask:
                    raise _fail("--task is required (or a config file, or --ask)", ExitCode.BAD_INPUT)
                task = typer.prompt(f"Task ({', '.join(_TASKS)})", default="text_generation")
            fields: dict[str, Any] = {"task": task}
            if attribute:
                fields["attributes"] = list(attribute)
            if prompts is not None:
                from evenhand.pipeline.io import column, read_table

                rows = read_table(prompts)
                col = "prompt" if "prompt" in rows.columns else str(rows.columns[0])
                fields["prompts"] = [str(p) for p in column(rows, col, source=str(prompts), role="prompts")]
                if not fields["prompts"]:
                    raise _fail(f"{prompts} has no prompts (only a header?)", ExitCode.BAD_INPUT)
            elif mentions_groups is None and ask:
                fields["mentions_protected_groups"] = _ask_bool(
                    "Do the prompts mention protected groups (e.g. she/he, race terms)?", None, True, True
                )
            else:
                fields["mentions_protected_groups"] = mentions_groups
            norm = UseCase.model_validate({"task": task}).task
            if norm in ("text_generation", "summarization", "recommendation"):
                fields["counterfactual_invariance"] = _ask_bool(
                    "Should responses stay the same when only the group mentioned changes?", invariance, ask, True
                )
            if norm in ("text_generation", "summarization"):
                fields["content_may_differ"] = _ask_bool(
                    "Is content expected to differ across groups (e.g. clinical)?", content_may_differ, ask, False
                )
            if norm == "classification":
                fields["person_level"] = _ask_bool("Does each input correspond to a person?", person_level, ask, None)
                fields["prevalence_parity"] = _ask_bool(
                    "Should predicted prevalence be equal across groups?", prevalence_parity, ask, None
                )
                if intervention is None and ask:
                    intervention = typer.prompt("Interventions: assistive, punitive or skip", default="skip")
                fields["intervention"] = None if intervention in (None, "", "skip") else intervention
            use_case = UseCase(**fields)
        result = make_plan(use_case)
    except ValidationError as exc:
        from evenhand.config import format_errors

        raise _fail(format_errors("use case", exc), ExitCode.BAD_INPUT) from None
    except (ValueError, FileNotFoundError) as exc:
        raise _fail(str(exc), ExitCode.BAD_INPUT) from None
    if as_json:
        doc = result.to_dict() | ({"generation_estimate": estimate.as_dict()} if estimate is not None else {})
        console.print_json(json.dumps(doc, default=str))
        return
    table = Table(title=f"Plan: {use_case.task.replace('_', ' ')}")
    for name in ("metric", "attribute", "reason"):
        table.add_column(name, overflow="fold")
    for m in result.metrics:
        table.add_row(escape(METRICS[m.key].title), escape(m.attribute or "-"), escape(m.reason))
    for f in result.ftu.values():
        console.print(f"- {escape(f.describe())}", highlight=False)
    console.print(table)
    for n in result.not_applicable:
        scope = f"{n.family} ({n.attribute or 'all'})"
        console.print(f"[dim]not applicable:[/] {escape(scope)}: {escape(n.reason)}", highlight=False)
    for note in result.notes:
        console.print(f"[dim]note:[/] {escape(note)}", highlight=False)
    for caveat in result.caveats:
        console.print(f"[yellow]caveat:[/] {escape(caveat)}", highlight=False)
    for line in estimate.lines() if estimate is not None else []:
        console.print(f"[bold]estimate:[/] {escape(line)}", highlight=False)


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.json and report.html.")] = Path(
        "evenhand-out"
    ),
    ftu_only: Annotated[
        bool, typer.Option("--ftu-only", help="Only run the FTU check and build counterfactual prompts (seconds).")
    ] = False,
    limit: Annotated[int | None, typer.Option(help="Use only the first N demo prompts.", min=1)] = None,
    count: Annotated[
        int | None,
        typer.Option(help="Responses per original prompt (each counterfactual prompt keeps 2).", min=1, max=MAX_COUNT),
    ] = None,
) -> None:
    """Assess the bundled customer-outreach demo use case offline with the embedded SmolLM2 model."""
    from evenhand.pipeline.io import demo_dir, demo_prompts

    prompts = [str(p) for p in demo_prompts()["prompt"].tolist()][:limit]
    console.print(f"evenhand demo: {len(prompts)} customer-outreach prompts (bundled in {escape(str(demo_dir()))})")
    console.print(_ftu_table(prompts, list(DEFAULT_ATTRIBUTES)))
    if ftu_only:
        return
    cfg = _load(demo_dir() / "demo.yaml")
    if count is not None:
        cfg.generation.count = count
    err_console.print(  # status, not results: stderr
        "generating responses with SmolLM2-135M-Instruct (offline, CPU); to assess your own model, copy "
        f"{demo_dir() / 'demo.yaml'}, point prompts.path at your prompts and set model.provider/base_url/model "
        "(see README: Assess your own model)"
    )
    raise typer.Exit(int(_run_config(cfg, out, limit, None)))


def _debug_from_env() -> bool:
    """``EVENHAND_DEBUG`` set to anything but empty, ``0``, ``false``, ``no`` or ``off``."""
    return os.environ.get("EVENHAND_DEBUG", "").strip().lower() not in ("", "0", "false", "no", "off")


_DEBUG = {"on": _debug_from_env()}


@app.command()
def compare(
    results: Annotated[list[Path], typer.Argument(help="Two or more results.json files; the first is the baseline.")],
    label: Annotated[list[str] | None, typer.Option("--label", "-l", help="A name per run, in order.")] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder for comparison.json/.html (default: evenhand-compare).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON instead of tables.")] = False,
    ci: Annotated[float, typer.Option(help="Level of the intervals of the differences.", min=0.5, max=0.999)] = 0.95,
    n_resamples: Annotated[int, typer.Option(help="Bootstrap replicates per difference.", min=10)] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
    fail_on: Annotated[
        str, typer.Option(help="never|worse|any: exit 1 when a finding got worse (any: or a metric did).")
    ] = "never",
    junit: _Junit = None,
) -> None:
    """Compare runs side by side: each metric per run, differences with intervals, findings that changed."""
    from evenhand.comparison.cli import run_compare

    for path in results:
        if path.is_dir():  # "no such file" would mislead: it is there, but a folder
            raise _fail(f"{path} is a folder; give its results.json", ExitCode.BAD_INPUT)
    blocking = next((p for p in [out, *(out.parents if out else ())] if p is not None and p.exists()), None)
    if blocking is not None and not blocking.is_dir():  # found before the bootstrap, not after the tables
        raise _fail(f"--out {out}: cannot write the comparison there ({blocking} is a file)", ExitCode.BAD_INPUT)
    try:
        code = run_compare(results, labels=label, out=out, as_json=as_json, ci=ci, n_resamples=n_resamples, seed=seed,
                           fail_on=fail_on, console=console, err_console=err_console, junit=junit)  # fmt: skip
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc), ExitCode.BAD_INPUT) from None
    raise typer.Exit(code)


def main(argv: list[str] | None = None) -> Any:
    """Entry point of the ``evenhand`` console script: an unexpected error is one line on stderr and exit code 3
    (the traceback only with ``--debug`` or ``EVENHAND_DEBUG=1``); exit code 1 stays "a threshold failed"."""
    try:
        return app(args=argv if argv is not None else sys.argv[1:], prog_name="evenhand")
    except KeyboardInterrupt:
        err_console.print("interrupted", highlight=False)
        raise SystemExit(130) from None
    except Exception as exc:
        if _DEBUG["on"]:
            raise
        err_console.print(
            f"[bold red]error:[/] unexpected {type(exc).__name__}: {escape(str(exc))} (rerun with --debug for the "
            "traceback)",
            highlight=False,
        )
        raise SystemExit(int(ExitCode.RUNTIME_FAILURE)) from None


if __name__ == "__main__":  # pragma: no cover
    main()
