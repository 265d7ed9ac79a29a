"""evenhand._files.staged_folder: a folder built in full or not at all (the model caches rely on it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evenhand._files import staged_folder


def _done(folder: Path) -> bool:
    return (folder / "done").is_file()


def test_a_finished_build_is_renamed_into_place_and_nothing_else_is_left(tmp_path: Path) -> None:
    target = tmp_path / "models" / "m"
    with staged_folder(target, _done) as work:
        assert work.parent == target.parent and not target.exists()
        (work / "done").write_text("ok")
    assert _done(target) and sorted(p.name for p in target.parent.iterdir()) == ["m"]


def test_a_failed_build_leaves_no_target_and_no_debris(tmp_path: Path) -> None:
    target = tmp_path / "m"
    with pytest.raises(RuntimeError), staged_folder(target, _done) as work:
        (work / "half").write_text("x")
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []


def test_debris_is_replaced_and_a_finished_copy_of_another_process_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "m"
    target.mkdir()
    (target / "half").write_text("debris of a killed build")
    with staged_folder(target, _done) as work:
        (work / "done").write_text("mine")
    assert (target / "done").read_text() == "mine" and not (target / "half").exists()
    with staged_folder(target, _done) as work:  # the target is complete already: the race is lost harmlessly
        (work / "done").write_text("second")
    assert (target / "done").read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["m"]
