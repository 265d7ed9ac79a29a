"""The output folder of a run: checked before any work, written whole or not at all.

:func:`check_output_folder` fails in a second (an :class:`~evenhand.errors.InputError` naming ``--out`` or
``output.dir``) when the folder is a file, cannot be made, is not writable, or would overwrite an input of the run;
:func:`write_outputs` writes results.json, metrics.csv, the responses and the HTML report atomically and removes
what an earlier run left there that this run does not write. Neither prints: the command line says what happened.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evenhand._files import check_outputs, remove_stale_outputs, write_text
from evenhand.errors import InputError

#: Every file a run may write into its output folder.
OUTPUT_NAMES = ("results.json", "metrics.csv", "report.html", "responses.csv", "responses.parquet")
#: Those a run leaves out by its settings (html: false, responses: none or the other format).
OPTIONAL_NAMES = ("report.html", "responses.csv", "responses.parquet")


@dataclass
class WrittenOutputs:
    """What :func:`write_outputs` did: the files written (results.json, metrics.csv, then the responses and the
    report) and those of an earlier run it removed."""

    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


def check_output_folder(config: Any) -> list[Path]:
    """Check (and make) the output folder of ``config`` before any work; return the run's input files, which no
    output may overwrite. Raises :class:`InputError` naming the folder."""
    out = Path(config.output.dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"output folder {out} is a file; give a folder (--out or output.dir)")
    try:  # made now, so that an unwritable place fails in a second, not after the whole run
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"output folder {out} cannot be created ({exc.strerror or type(exc).__name__})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(f"output folder {out} is not writable; give another one (--out or output.dir)")
    if config.responses is None:  # a store that cannot be opened is a bad setting, found before the model loads
        from evenhand.config import check_store_path

        check_store_path(config.run_settings().generation.store)
    inputs = [getattr(config.prompts, "path", None), getattr(config.responses, "path", None)]
    check_outputs(output_paths(out), inputs)
    return [path for path in inputs if path is not None]


def output_paths(out: Path) -> list[Path]:
    """Every file a run may write into ``out``."""
    return [out / name for name in OUTPUT_NAMES]


def write_outputs(
    assessment: Any, out: Path, html: bool = True, include_responses: bool = True, responses: str = "csv"
) -> WrittenOutputs:
    """Write the outputs of ``assessment`` into ``out``: all of them, or (on a failure) none, the earlier run's
    files left whole."""
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
    # an output this run leaves out must not sit beside the new results as if it were theirs (an output that is an
    # input of the run was refused before it started)
    removed = remove_stale_outputs(out, OPTIONAL_NAMES, kept=staged)
    return WrittenOutputs(written=[out / name for name in staged], removed=removed)
