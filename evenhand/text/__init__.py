"""Text core: protected-attribute lexicons, the FTU check, counterfactual prompts and neutralisation."""

from __future__ import annotations

from evenhand.text._engine import AttributeMatch
from evenhand.text.counterfactual import (
    CounterfactualPrompts,
    counterfactual_prompts,
    intersectional_prompts,
    neutralize,
)
from evenhand.text.ftu import FTUResult, check_ftu
from evenhand.text.lexicon import (
    BUILTIN_ATTRIBUTES,
    DEFAULT_ATTRIBUTES,
    Lexicon,
    builtin_attributes,
    default_attributes,
    load_lexicon,
    load_lexicon_file,
)
from evenhand.text.name_masking import NAME_PLACEHOLDER, mask_names
from evenhand.text.name_templates import fill_templates
from evenhand.text.names import NameMatch

__all__ = [
    "BUILTIN_ATTRIBUTES",
    "DEFAULT_ATTRIBUTES",
    "NAME_PLACEHOLDER",
    "AttributeMatch",
    "CounterfactualPrompts",
    "FTUResult",
    "Lexicon",
    "NameMatch",
    "builtin_attributes",
    "check_ftu",
    "counterfactual_prompts",
    "default_attributes",
    "fill_templates",
    "intersectional_prompts",
    "load_lexicon",
    "load_lexicon_file",
    "mask_names",
    "neutralize",
]
