"""The kinds of evidence (evenhand/pipeline/verdict/kinds/, the red team's in evenhand/redteaming/): one module each,
found through the registry, and the only places that know how a metric's evidence is judged, worded, illustrated
and recomputed (issue 35)."""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

import evenhand
from evenhand.pipeline.verdict.kinds import KINDS, kind_of
from evenhand.pipeline.verdict.kinds.base import EvidenceKind
from evenhand.pipeline.verdict.qualifiers import FewUnits, ThinEvidence
from evenhand.pipeline.verdict.rules import RULES
from evenhand.registry import EVIDENCE_KINDS, METRICS, EvidenceKindName

PACKAGE = Path(evenhand.__file__).parent
_METRIC_WORDS = "|".join(re.escape(k) for k in METRICS) + "|" + "|".join(re.escape(m.name) for m in METRICS.values())


def test_every_kind_is_registered_once_and_bound_by_its_name() -> None:
    assert set(EVIDENCE_KINDS) == set(typing.get_args(EvidenceKindName))
    for name, kind in KINDS.items():
        assert isinstance(kind, EvidenceKind) and kind.name == name, EVIDENCE_KINDS[name]
    for spec in METRICS.values():
        assert kind_of(spec) is KINDS[spec.judge]


def test_the_red_teams_kind_lives_in_the_red_team_and_the_registry_names_kinds_as_strings() -> None:
    assert EVIDENCE_KINDS["adversarial"].startswith("evenhand.redteaming.")
    registry = (PACKAGE / "registry.py").read_text(encoding="utf-8")
    assert "import evenhand.pipeline" not in registry and "from evenhand.pipeline" not in registry


def test_every_rule_of_every_kind_and_qualifier_is_in_the_verdicts_rules() -> None:
    for kind in KINDS.values():
        assert set(kind.rules) <= set(RULES), kind.name
    assert FewUnits.rule in RULES and ThinEvidence.rule in RULES
    assert len(RULES) == len(set(RULES))


def test_a_kind_with_example_columns_picks_its_own_example() -> None:
    for kind in KINDS.values():
        if kind.example_columns is not None:
            assert type(kind).read_pairs is not EvidenceKind.read_pairs, kind.name


def _modules() -> list[Path]:
    verdict = PACKAGE / "pipeline" / "verdict"
    return [*sorted(verdict.rglob("*.py")), PACKAGE / "redteaming" / "adversarial_shift.py"]


def test_no_kind_and_no_verdict_module_branches_on_a_metric_key() -> None:
    """A kind words several metrics from the registry's data (unit, scope, settings, ``words``), never by a
    metric's key or short name (the registry is the one place that names them)."""
    for path in _modules():
        found = re.findall(rf"[\"']({_METRIC_WORDS})[\"']", path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(PACKAGE)} names {found}"


def test_the_verdict_never_reads_its_own_words_back() -> None:
    """Qualifiers are data: no module of the verdict tests what a sentence or claim says."""
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                sides = [node.left, *node.comparators]
                read = [s for s in sides if isinstance(s, ast.Attribute) and s.attr in ("sentence", "claim")]
                assert not read, f"{path.relative_to(PACKAGE)}:{node.lineno} reads a sentence back"
