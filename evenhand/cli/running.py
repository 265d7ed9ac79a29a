"""Running a validated config from the command line: the estimate, the run, its outputs, its exit code.

Failures are sorted by :mod:`evenhand.cli.exit_codes` (bad input 2, anything else 3), each one line on stderr with
the run's credentials redacted, whatever the message quotes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.markup import escape

from evenhand.cli.consoles import console, err_console
from evenhand.cli.exit_codes import ExitCode, exit_code_for, fail, failure_name, is_bad_input, print_error


def run_config(
    config: Any,
    out: Path | None,
    limit: int | None,
    progress: bool | None,
    allow_code: bool | None = None,
    junit: Path | None = None,
    announce: bool = False,
    all_rows: bool = False,
    more_caveats: Callable[[list[str]], list[str]] | None = None,
) -> ExitCode:
    """Run a validated config; print the summary, write the outputs (and the JUnit file); return the exit code.
    ``announce``: say on stderr what generation will send (requests, tokens, cost) just before it starts;
    ``all_rows``: print every metric row after the verdict (``--all``), not only those behind its concerns and
    watches; ``more_caveats``: the caveats a command adds, given the run's (the demo says why its replies are cut),
    in the console, results.json and the report alike."""
    from evenhand.pipeline.from_config import assess_config

    if out is not None:
        config.output.dir = out
    told = print_estimate if announce else None
    assessment = guarded_run(
        config, junit, "assessment",
        lambda: assess_config(config, limit=limit, progress=progress, allow_code=allow_code, on_estimate=told),
    )  # fmt: skip
    if isinstance(assessment, ExitCode):
        return assessment
    if more_caveats is not None:
        assessment.caveats.extend(more_caveats(list(assessment.caveats)))
    from evenhand.report.console import print_assessment

    doc = assessment.to_dict(include_responses=False)
    print_assessment(console, doc, all_rows=all_rows)  # the report's order (docs/cli.md)
    oc = config.output
    try:
        write_outputs(assessment, oc.dir, html=oc.html, include_responses=oc.include_responses, responses=oc.responses)
    except OSError as exc:  # a full disk, a folder made read-only during the run: no traceback, and what is kept
        return outputs_failed(exc, Path(oc.dir), kept_in_store(config))
    return finish(assessment, doc, Path(oc.dir), junit)


def outputs_failed(exc: OSError, out: Path, kept: str) -> ExitCode:
    """One line for outputs that could not be written (exit 3): where, why, that nothing was half-written, and what
    the store keeps (``kept``: :func:`kept_in_store`)."""
    why = exc.strerror or type(exc).__name__
    err_console.print(
        f"[bold red]writing the outputs failed:[/] {escape(str(out))}: {escape(why)}; nothing was written there (an "
        f"earlier run's files are left whole){escape(kept)}",
        highlight=False,
    )
    return ExitCode.RUNTIME_FAILURE


def guarded_run(config: Any, junit: Path | None, what: str, action: Callable[[], Any], command: str = "assess") -> Any:
    """Check the outputs (writable where asked, overwriting no input), then ``action()``; its result, or the exit
    code of its failure, said in one line on stderr with the run's credentials redacted: bad input 2, a model,
    scorer or server that failed (or a bug) 3, an interrupt with what the store keeps and how to go on.
    ``command``: the ``evenhand`` subcommand the advice to resume names (``assess``, ``redteam``)."""
    from evenhand._redact import redact_text, secret_values
    from evenhand.generation._types import GenerationStoppedError
    from evenhand.generation.breaker import one_line

    secrets = secret_values(config.model.client_spec())  # never echoed, whatever an error message quotes
    try:  # before any work: the outputs must be writable where asked and must not overwrite an input
        check_outputs(config, junit)
        return action()
    except Exception as exc:
        if exit_code_for(exc) == ExitCode.BAD_INPUT:  # a model named in the config that cannot be loaded included
            print_error(one_line(redact_text(str(exc), secrets)))
            return ExitCode.BAD_INPUT
        message = redact_text(f"{failure_name(exc)}: {exc}", secrets)
        if isinstance(exc, GenerationStoppedError):  # the circuit breaker stopped generation: the store keeps the rest
            message = redact_text(resume_advice(exc, command), secrets)
        else:  # a scorer or a stage after generation failed: the responses are not lost, and a rerun reuses them
            message += redact_text(kept_in_store(config), secrets)
        # one line, whatever a library's message spans (transformers: "We couldn't connect ...\nCheck your ...")
        err_console.print(f"[bold red]{what} failed:[/] {escape(one_line(message))}", highlight=False)
        return ExitCode.RUNTIME_FAILURE
    except KeyboardInterrupt:  # typer would exit 130 without a word: say what is kept and how to go on
        err_console.print(f"interrupted{escape(redact_text(kept_in_store(config), secrets))}", highlight=False)
        return ExitCode.INTERRUPTED


def kept_in_store(config: Any) -> str:
    """``"; the responses generated so far are kept in STORE: run the same command again to resume"`` when the run
    generates into a store that exists, else ``""``: what a run that stopped half-way says it kept."""
    store = config.run_settings().generation.store if config.responses is None else None
    if store is None or not Path(store).exists():
        return ""
    return f"; the responses generated so far are kept in {store}: run the same command again to resume"


def finish(result: Any, doc: dict[str, Any], out_dir: Path, junit: Path | None) -> ExitCode:
    """After the outputs: the JUnit file from the results document (as `evenhand compare --junit` from the
    comparison's), the gate on stderr, and the exit code (1 when a threshold failed)."""
    if junit is not None:
        from evenhand.junit import write_junit

        try:
            written = write_junit(junit, doc)
        except OSError as exc:  # checked before the run; the place changed since: one line, as any bad output path
            print_error(f"--junit {junit}: cannot write it there ({exc.strerror or exc})")
            return ExitCode.BAD_INPUT
        err_console.print(f"wrote {escape(str(written))}")  # status: stderr, as the other outputs' lines
    from evenhand.gate import print_gate  # passed or failed, what the gate judged, on stderr

    print_gate(err_console, result.threshold_checks, f"{out_dir / 'results.json'} (thresholds)")
    # None: no threshold was set, nothing gates the exit code
    return ExitCode.THRESHOLD_FAILED if result.passed is False else ExitCode.OK


def check_outputs(config: Any, junit: Path | None = None) -> None:
    """The output folder (and the JUnit file) can be written and overwrite no input; raises InputError."""
    from evenhand.pipeline.results.outputs import check_output_folder, output_paths

    inputs = check_output_folder(config)
    if junit is not None:
        from evenhand.junit import check_junit_path

        check_junit_path(junit, inputs, output_paths(Path(config.output.dir)))


def write_outputs(
    assessment: Any, out: Path, html: bool = True, include_responses: bool = True, responses: str = "csv"
) -> None:
    """Write the run's outputs into ``out`` and say on stderr what was written and what was removed."""
    from evenhand.pipeline.results.outputs import write_outputs as write

    done = write(assessment, out, html=html, include_responses=include_responses, responses=responses)
    # where the results went is status, not results: stderr, so that stdout redirected to a file holds results only
    err_console.print(f"wrote {escape(str(done.written[0]))} and {escape(str(done.written[1]))}")
    for path in done.written[2:]:  # the responses, then the report
        err_console.print(f"wrote {escape(str(path))}")
    for path in done.removed:
        err_console.print(f"removed {escape(str(path))} (from an earlier run; this run does not write it)")


def resume_advice(exc: Any, command: str = "assess") -> str:
    """One line for a generation the circuit breaker stopped: why, the counts, and how to go on (run the same
    ``evenhand <command>`` again)."""
    if exc.store_path == ":memory:":
        return f"{exc.summary}; nothing was stored"
    return (
        f"{exc.summary}; the completed samples are kept in {exc.store_path}: fix the cause and run the same "
        f"`evenhand {command}` command again to resume"
    )


def print_estimate(estimate: Any) -> None:
    """What generation will send (requests, tokens, cost), on stderr: stdout keeps the results."""
    for line in estimate.lines():
        err_console.print(f"estimate: {escape(line)}", highlight=False)


def dry_run(config: Any, out: Path | None, limit: int | None, allow_code: bool | None) -> ExitCode:
    """``assess --dry-run``: the estimate of what the run would send, and nothing else (no request, no scorer, no
    store, no output folder)."""
    from evenhand._redact import redact_text, secret_values
    from evenhand.pipeline.from_config import estimate_config

    if out is not None:  # the store's default place is in the output folder
        config.output.dir = out
    try:
        estimate = estimate_config(config, limit, allow_code=allow_code)
    except Exception as exc:
        if not is_bad_input(exc):
            raise
        raise fail(redact_text(str(exc), secret_values(config.model.client_spec())), ExitCode.BAD_INPUT) from None
    if estimate is None:
        err_console.print(f"nothing to send: the responses come from {escape(str(config.responses.path))}")
    else:
        print_estimate(estimate)
    err_console.print("dry run: nothing was sent and nothing was written", highlight=False)
    return ExitCode.OK
