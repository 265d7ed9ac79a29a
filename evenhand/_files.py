"""Writing output files safely: whole or not at all, never through a symlink, never over an input.

A results file is written to a temporary file in the same folder and renamed over the target: an interrupted run
leaves the previous file intact, and a symlink at the target is replaced (its target is never written). The file
gets the mode a plain ``open()`` would give it (0666 less the umask: 0644 under the usual 022), not the temporary
file's private 0600, so that a CI artifact server or a colleague can read the results; a stricter umask (077) keeps
them private. Nothing written here holds a secret (keys and headers are redacted before any output).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from evenhand.errors import InputError


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` atomically (temporary file + rename); returns the path."""
    return write_bytes(path, text.encode("utf-8"))


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file + rename); returns the path."""
    with atomic_writer(path, binary=True) as handle:
        handle.write(data)
    return Path(path)


@contextmanager
def atomic_writer(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """A file handle to write ``path`` piece by piece (UTF-8 text, or bytes with ``binary``), renamed onto ``path``
    when the block succeeds: a large output can be streamed without ever holding it whole, and an interrupted
    write leaves the previous file intact."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_dir():
        raise IsADirectoryError(f"cannot write {target}: it is a folder")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp's 0600 is for the temporary name, not the output
        opened = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="")
        with opened as handle:
            yield handle
        os.replace(tmp, target)  # replaces a symlink itself, never the file it points to
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def current_umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux: /proc/self/status); else
    set and restored at once (``os.umask`` has no read-only form)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_outputs(outputs: Iterable[str | os.PathLike[str]], inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Raise ValueError when an output path is one of the inputs (it would be overwritten), naming both."""
    readable = {}
    for given in inputs:
        if given is None:
            continue
        try:
            readable[Path(given).expanduser().resolve()] = given
        except OSError:
            continue
    for out in outputs:
        resolved = Path(out).expanduser().resolve()
        if resolved in readable:
            raise InputError(f"the output {out} is an input of this run ({readable[resolved]}); choose another path")


def remove_stale_outputs(folder: Path, names: Iterable[str], kept: Iterable[str]) -> list[Path]:
    """Remove the files ``names`` in ``folder`` that this run did not write (not in ``kept``): a report or responses
    file left by an earlier run would pass for this run's. A symlink is removed itself, never its target. Returns
    the paths removed."""
    written = set(kept)
    removed = []
    for name in names:
        path = folder / name
        if name not in written and (path.is_file() or path.is_symlink()):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


@contextmanager
def staged_folder(target: Path, complete: Callable[[Path], bool]) -> Iterator[Path]:
    """A temporary folder beside ``target`` to build into, renamed onto ``target`` when the block succeeds (atomic
    on one file system): a build killed half-way never passes for a finished one. Debris of such a build at
    ``target`` (``complete(target)`` false) is removed first; when another process finished ``target`` first, its
    copy is kept and this one dropped. The temporary folder is removed in every case."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        os.chmod(staging, 0o777 & ~current_umask())  # as mkdir would make it (mkdtemp's is private, 0700)
        yield staging
        if target.exists() and not complete(target):
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(staging, target)
        except OSError:  # a non-empty target: another process won the race, unless it left debris again
            if not complete(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
