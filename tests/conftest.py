"""Shared test configuration: never reach a model hub, make hypothesis deterministic, the fast loop (``--fast``)
and the parallel schedule (pytest-xdist)."""

from __future__ import annotations

import ast
import functools
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

#: The developer's loop (``pytest --fast``, ``bash scripts/test.sh --fast``) leaves out the tests marked with these
#: cost markers (pyproject.toml) and runs the property tests with at most ``FAST_MAX_EXAMPLES`` examples each; the
#: whole suite (what CI runs) keeps every test and every test's own example budget (the profile "evenhand").
FAST_SKIPS = ("model", "subprocess", "ray", "server", "slow", "pipeline")
FAST_PROFILE, FAST_MAX_EXAMPLES = "evenhand-fast", 10

try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "evenhand", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
    )
    settings.register_profile(FAST_PROFILE, settings.get_profile("evenhand"), max_examples=FAST_MAX_EXAMPLES)
    settings.load_profile("evenhand")
except ImportError:  # pragma: no cover
    settings = None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast", action="store_true",
        help=f"leave out the tests marked {', '.join(FAST_SKIPS)}; at most {FAST_MAX_EXAMPLES} hypothesis examples",
    )  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("fast"):
        return
    skipped = f"not ({' or '.join(FAST_SKIPS)})"
    given = config.option.markexpr
    config.option.markexpr = f"({given}) and {skipped}" if given else skipped
    if settings is not None:
        settings.load_profile(FAST_PROFILE)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With --fast, a module marked whole with a cost marker (``pytestmark``) is not even imported: its imports
    (torch, Ray, transformers) would cost the loop seconds for tests it leaves out anyway."""
    if config.getoption("fast") and collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        if _module_facts(collection_path).marks & set(FAST_SKIPS):
            return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("fast"):
        for item in items:
            _cap_examples(item)


def _cap_examples(item: pytest.Item) -> None:
    """At most ``FAST_MAX_EXAMPLES`` examples for a hypothesis test whose ``@settings`` asks for more. Hypothesis
    reads the test's settings from this attribute when the test runs, so replacing it changes only this run."""
    test = getattr(item, "obj", None)
    test = getattr(test, "__func__", test)  # a method's function
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if settings is not None and current is not None and current.max_examples > FAST_MAX_EXAMPLES:
        test._hypothesis_internal_use_settings = settings(current, max_examples=FAST_MAX_EXAMPLES)


# --- parallel runs (pytest-xdist: -n N) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ModuleFacts:
    marks: frozenset[str]  # the markers of the module's ``pytestmark``
    shared_setup: bool  # it defines a module- or session-scoped fixture


@functools.cache
def _module_facts(path: Path) -> ModuleFacts:
    """What a test module declares, read from its source (the xdist controller never imports the tests)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ModuleFacts(frozenset(), False)
    marks: set[str] = set()
    shared = False
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            marks |= {
                n.attr for n in ast.walk(node.value)
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and n.value.attr == "mark"
            }  # fmt: skip
        if isinstance(node, ast.FunctionDef):
            shared |= any(
                isinstance(keyword.value, ast.Constant) and keyword.value.value in ("module", "session")
                for decorator in node.decorator_list if isinstance(decorator, ast.Call)
                for keyword in decorator.keywords if keyword.arg == "scope"
            )  # fmt: skip
    return ModuleFacts(frozenset(marks), shared)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n N`` (``--dist load`` or ``loadgroup``) spreads single tests over the workers, except: a module with a
    module- or session-scoped fixture (a loaded model, a finished run, a kernel, a server) goes to one worker whole,
    so the fixture is built once; and the modules marked ``ray`` share one worker, one after another, so two Ray
    clusters never start at once. A test's own ``xdist_group`` (the ``@name`` pytest-xdist appends to its id) is
    honoured as ``loadgroup`` does; but pytest-xdist 3.8 drops that suffix silently under pytest 9.2 (pytest-xdist
    issue 1386), which is why the groups above are read from the modules' source. Another ``--dist`` keeps
    pytest-xdist's own scheduling."""
    if config.getvalue("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    root = config.rootpath

    class SharedSetupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.rfind("@") > nodeid.rfind("]"):  # an xdist_group mark, where pytest-xdist still sees it
                return nodeid.rsplit("@", 1)[-1]
            module = nodeid.split("::", 1)[0]
            facts = _module_facts(root / module)
            if "ray" in facts.marks:
                return "ray"
            return module if facts.shared_setup else nodeid

    return SharedSetupScheduling(config, log)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def chromium() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``chromium(url, *args)``: headless Chromium on a page (a screenshot, ``--dump-dom``); skips without it."""
    path = chromium_path()
    if path is None:
        pytest.skip("headless Chromium is not installed")

    def run(url: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [path, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", *args, url],
            capture_output=True,
            text=True,
            timeout=300,  # headless chromium under a loaded CI (two heavy tests at once): 120 s was once too short
        )

    return run
