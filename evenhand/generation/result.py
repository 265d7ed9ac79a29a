"""What a generation run returns: one record per prompt × group × sample, plus summaries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evenhand.conversation import Prompt
from evenhand.errors import InputError

COLUMNS = (
    "prompt_id", "prompt", "group", "sample", "response", "status", "error", "finish_reason",
    "prompt_tokens", "completion_tokens", "attempts", "latency_s", "from_store",
)  # fmt: skip


@dataclass(frozen=True)
class SampleRecord:
    """One sample's outcome; ``prompt`` as given (a text, or a :class:`~evenhand.conversation.Conversation`)."""

    prompt_id: int
    prompt: Prompt
    group: str | None
    sample: int
    response: str | None
    status: str
    error: str | None
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int
    latency_s: float | None
    from_store: bool


@dataclass
class GenerationResult:
    """Responses in input order: prompt-major, then group (counterfactual runs), then sample.

    ``responses`` holds None where a sample failed or was filtered: never replacement text. ``job`` is the
    resume key in the store; ``client`` describes the model configuration (no credentials).
    """

    records: list[SampleRecord]
    count: int
    groups: tuple[str, ...] | None = None
    job: str = ""
    client: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0
    store_path: str | None = None

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        ok = sum(r.status == "ok" for r in self.records)
        return (
            f"GenerationResult({len(self.records)} samples, {ok} ok, non-completion rate "
            f"{self.non_completion_rate():.3f}, job={self.job!r})"
        )

    @property
    def responses(self) -> list[str | None]:
        return [r.response if r.status == "ok" else None for r in self.records]

    @property
    def prompts(self) -> list[Prompt]:
        return [r.prompt for r in self.records]

    def to_frame(self) -> pd.DataFrame:
        """One row per prompt × [group ×] sample with the columns in :data:`COLUMNS`."""
        frame = pd.DataFrame([r.__dict__ for r in self.records], columns=list(COLUMNS))
        for col in ("prompt_tokens", "completion_tokens"):
            frame[col] = frame[col].astype("Int64")
        return frame

    def non_completion_rate(self, by_group: bool = False) -> Any:
        """Share of samples without a usable response (error or filtered); per group as a dict when asked."""
        if not by_group:
            return _rate(self.records)
        keys = list(self.groups) if self.groups else [None]
        return {k: _rate([r for r in self.records if r.group == k]) for k in keys}

    def status_counts(self) -> dict[str, int]:
        counts = {"ok": 0, "error": 0, "filtered": 0}
        for r in self.records:
            counts[r.status] = counts.get(r.status, 0) + 1
        return counts

    def token_usage(self) -> dict[str, int]:
        """Total prompt / completion tokens reported by the backend (samples without usage count as 0)."""
        prompt = sum(r.prompt_tokens or 0 for r in self.records)
        completion = sum(r.completion_tokens or 0 for r in self.records)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def by_group(self) -> dict[str, list[str | None]]:
        """Counterfactual runs: ``{group: responses}``, each aligned by (prompt, sample) across groups."""
        if not self.groups:
            raise InputError("by_group() needs a counterfactual run (generate_counterfactual)")
        return {
            g: [r.response if r.status == "ok" else None for r in self.records if r.group == g] for g in self.groups
        }

    def errors(self) -> pd.DataFrame:
        frame = self.to_frame()
        return frame[frame["status"] != "ok"]


def _rate(records: Sequence[SampleRecord]) -> float:
    if not records:
        return float("nan")
    return sum(r.status != "ok" for r in records) / len(records)
