"""Text core: protected-attribute lexicons, the FTU check, counterfactual prompts and neutralisation."""

from __future__ import annotations

from evenhand.text._engine import AttributeMatch
from evenhand.text.counterfactual import CounterfactualPrompts, counterfactual_prompts, neutralize
from evenhand.text.ftu import FTUResult, check_ftu
from evenhand.text.lexicon import Lexicon, load_lexicon

__all__ = [
    "AttributeMatch",
    "CounterfactualPrompts",
    "FTUResult",
    "Lexicon",
    "check_ftu",
    "counterfactual_prompts",
    "load_lexicon",
    "neutralize",
]
