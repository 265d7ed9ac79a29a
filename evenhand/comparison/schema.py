"""The comparison document's name and version: the one fact both its writer (``result.py``) and its renderers
(``render.py``) need, kept below both so neither imports the other for it."""

from __future__ import annotations

SCHEMA = "evenhand/comparison"
SCHEMA_VERSION = "1.1"  # 1.1: a row's signed gap (``signed``) and its differences' ``size_change``
