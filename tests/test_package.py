"""Package-level contracts: light import, version, lazy names."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.subprocess
def test_import_does_not_pull_heavy_dependencies() -> None:
    code = (
        "import sys, evenhand, evenhand.metrics; "
        "heavy = [m for m in ('torch', 'ray', 'transformers', 'sentence_transformers', 'detoxify') "
        "if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_version_and_unknown_attribute() -> None:
    import pytest

    import evenhand

    assert evenhand.__version__
    with pytest.raises(AttributeError):
        _ = evenhand.no_such_thing  # type: ignore[attr-defined]
