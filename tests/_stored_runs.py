"""A finished run as ``compare`` reads it (the ``StoredRun`` protocol of evenhand.pipeline.verdict.kinds.base), made
from a response frame: for tests of compare's rebuilds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd


@dataclass
class StoredFrame:
    """A run's stored responses (and results document), labelled as compare labels runs."""

    responses: pd.DataFrame
    label: str = "A"
    doc: dict[str, Any] = field(default_factory=dict)
    responses_note: str = ""

    @property
    def settings(self) -> dict[str, Any]:
        return {}
