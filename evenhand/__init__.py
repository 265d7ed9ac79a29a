"""evenhand: use-case-level bias and fairness assessment of large language models.

The top-level names are loaded lazily so that ``import evenhand`` stays light (no torch, no models).
"""

from __future__ import annotations

from typing import Any

from evenhand import _assistants, _display
from evenhand._lazy import load_lazy
from evenhand._version import __version__

# The core objects' notebook view and the report are the presentation layer's; the core reaches them only through
# evenhand._display, by these names (imported when first used, so ``import evenhand`` stays light).
_display.register(_display.NOTEBOOK, "evenhand.report.notebook:notebook_html")
_display.register(_display.REPORT, "evenhand.report:render_html")
# A second reader of identity cues built from a client spec (check_ftu(..., reader=client)) lives in the generation
# layer, which the text core may not import: it asks evenhand._assistants for the builder named here.
_assistants.register(_assistants.CUE_READER, "evenhand.generation.cue_reader:cue_reader")

# public name -> module that defines it
_LAZY: dict[str, str] = {
    "check_ftu": "evenhand.text.ftu",
    "FTUResult": "evenhand.text.ftu",
    "counterfactual_prompts": "evenhand.text.counterfactual",
    "CounterfactualPrompts": "evenhand.text.counterfactual",
    "neutralize": "evenhand.text.counterfactual",
    "Lexicon": "evenhand.text.lexicon",
    "load_lexicon": "evenhand.text.lexicon",
    "load_lexicon_file": "evenhand.text.lexicon",
    "intersectional_prompts": "evenhand.text.counterfactual",
    "mask_names": "evenhand.text.name_masking",
    "metrics": "evenhand.metrics",
    "scorers": "evenhand.scorers",
    "generation": "evenhand.generation",
    "stats": "evenhand.stats",
    "UseCase": "evenhand.framework",
    "plan": "evenhand.framework",
    "Plan": "evenhand.framework",
    "assess": "evenhand.pipeline",
    "estimate_cost": "evenhand.pipeline.from_config",
    "Assessment": "evenhand.pipeline",
    "compare": "evenhand.comparison",
    "redteam": "evenhand.redteaming",
    "RedTeam": "evenhand.redteaming",
    "RunComparison": "evenhand.comparison",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
