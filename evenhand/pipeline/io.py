"""The documented import path of the table readers, kept for one release: they live in
:mod:`evenhand.pipeline.responses.tables` since issue 35."""

from __future__ import annotations

from evenhand.pipeline.responses.tables import SUFFIXES, column, demo_dir, demo_prompts, is_missing, read_table

__all__ = ["SUFFIXES", "column", "demo_dir", "demo_prompts", "is_missing", "read_table"]
