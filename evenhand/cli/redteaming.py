"""Running ``evenhand redteam`` on a validated config: the estimate over every condition, the runs, the outputs (the
red team's results.json, metrics.csv and report.html, and each condition's own assessment under
``conditions/<name>/``), and the exit code, as ``evenhand assess`` (:mod:`evenhand.cli.running`) does them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape

from evenhand.cli.consoles import console, err_console
from evenhand.cli.exit_codes import ExitCode, fail, is_bad_input
from evenhand.cli.running import finish, guarded_run, kept_in_store, outputs_failed, print_estimate, write_outputs


def run_redteam(
    config: Any,
    out: Path | None,
    limit: int | None,
    progress: bool | None,
    allow_code: bool | None = None,
    junit: Path | None = None,
    all_rows: bool = False,
) -> ExitCode:
    """Run the red team a validated config describes; print the verdict and the conditions, write the outputs (and
    the JUnit file); return the exit code (0 ok, 1 a threshold failed, 2 bad input, 3 runtime failure).
    ``all_rows``: print every metric row after the verdict (``--all``), not only those behind its concerns and
    watches."""
    from evenhand.redteaming import redteam_config

    if out is not None:
        config.output.dir = out
    result = guarded_run(
        config, junit, "red team",
        lambda: redteam_config(config, limit=limit, progress=progress, allow_code=allow_code,
                               on_estimate=print_estimate, on_condition=_announce),
        command="redteam",
    )  # fmt: skip
    if isinstance(result, ExitCode):
        return result
    from evenhand.redteaming.result import summary_lines
    from evenhand.report.console import print_assessment

    doc = result.to_dict(include_responses=False)
    print_assessment(console, doc, all_rows=all_rows)
    console.print("[bold]system prompts[/] (replies: no reply, toxic, refused; the worst adversarial finding):")
    for line in summary_lines(result):
        console.print(f"  {escape(line)}", highlight=False)
    if result.probes is not None:  # model-level: printed after the use case's verdict, apart from it
        from evenhand.report.probes import print_probes

        print_probes(console, result.probes)
    oc = config.output
    out_dir = Path(oc.dir)
    try:
        _write_all(result, out_dir, oc)
    except OSError as exc:  # a full disk, a folder made read-only during the run: no traceback, and what is kept
        return outputs_failed(exc, out_dir, kept_in_store(config))
    return finish(result, doc, out_dir, junit)


def _write_all(result: Any, out_dir: Path, oc: Any) -> None:
    """The red team's outputs: its combined assessment, then each condition's as ``evenhand assess`` writes it."""
    write_outputs(result, out_dir, html=oc.html, include_responses=oc.include_responses, responses=oc.responses)
    for name, folder in result.folders.items():  # each condition's own assessment, as evenhand assess writes it
        if name in result.blocked:  # no reply at all: a note of what happened, no assessment to write
            note, removed = result.write_blocked(name, out_dir / "conditions" / folder, requests=oc.responses != "none")
            err_console.print(f"wrote {escape(str(note))} (no request got a reply under {escape(name)!r})")
            for path in removed:
                err_console.print(f"removed {escape(str(path))} (from an earlier run; this run does not write it)")
            continue
        write_outputs(result.assessments[name], out_dir / "conditions" / folder, html=oc.html,
                      include_responses=oc.include_responses, responses=oc.responses)  # fmt: skip
        _drop_note(out_dir / "conditions" / folder)


def _drop_note(folder: Path) -> None:
    """An earlier run's note that the condition got no reply, removed once the condition is assessed."""
    from evenhand.redteaming.result import BLOCKED_NOTE

    note = folder / BLOCKED_NOTE
    if note.exists():  # said, as every other stale output's removal is
        note.unlink()
        err_console.print(f"removed {escape(str(note))} (from an earlier run; this run does not write it)")


def _announce(condition: Any) -> None:
    err_console.print(f"system prompt: {escape(condition.name)} ({condition.kind})", highlight=False)


def dry_run_redteam(config: Any, out: Path | None, limit: int | None, allow_code: bool | None) -> ExitCode:
    """``redteam --dry-run``: what every condition together would send, and nothing else."""
    from evenhand._redact import redact_text, secret_values
    from evenhand.generation.clients.callable import code_allowed
    from evenhand.redteaming.running import conditions, estimate

    if out is not None:
        config.output.dir = out
    try:
        chosen = conditions(config, limit)
        total = estimate(config, chosen, limit, allow_code=code_allowed(allow_code))
    except Exception as exc:
        if not is_bad_input(exc):
            raise
        raise fail(redact_text(str(exc), secret_values(config.model.client_spec())), ExitCode.BAD_INPUT) from None
    names = ", ".join(c.name for c in chosen)
    err_console.print(f"system prompts: {escape(names)} ({len(chosen)} conditions)", highlight=False)
    if total is not None:
        print_estimate(total)
    err_console.print("dry run: nothing was sent and nothing was written", highlight=False)
    return ExitCode.OK
