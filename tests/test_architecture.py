"""House rules checked on the source itself: the layers, no import circle at any depth, no module over 600 lines
(that ``import evenhand`` stays light is tests/test_package.py's).

The import graph is built with the standard library's ``ast`` and counts every import a module can make: at module
level, inside functions, under ``TYPE_CHECKING`` (still a tie between two modules, even if it costs nothing at run
time), relative imports resolved, and ``importlib.import_module("evenhand.x")`` / ``sys.modules["evenhand.x"]``
with a literal name. The layers are read from the import-linter contract (``[tool.importlinter]`` in pyproject.toml,
which ``lint-imports`` in scripts/test.sh checks too): this file adds what import-linter does not see (imports by a
literal name), circles inside one layer, and module sizes.
"""

from __future__ import annotations

import ast
import itertools
import sys
from collections import deque
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest

PACKAGE = "evenhand"
PACKAGE_DIR = Path(__file__).resolve().parent.parent / PACKAGE
MAX_MODULE_LINES = 600
# Call forms that import a module named by a string literal: ``importlib.import_module("m")``, ``import_module("m")``,
# ``__import__("m")`` and ``sys.modules.get("m")`` (reaching a module through the import system's own table).
_IMPORTING_CALLS = {"import_module", "__import__"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _is_sys_modules(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "modules" and getattr(node.value, "id", None) == "sys"


def imported_names(module: str, path: Path, known: Collection[str]) -> Iterator[tuple[str, int]]:
    """Every module name ``module`` imports (with the line), at any depth of its source.

    ``from a import b`` names the submodule ``a.b`` when ``known`` has one (as import-linter's grimp counts it),
    else the module ``a``.
    """
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = _resolve_relative(module, is_package, node.level, node.module)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in known else base), node.lineno
        elif isinstance(node, ast.Call) and node.args:
            literal = _literal(node.args[0])
            if literal is not None and _is_importing_call(node.func):
                if literal.startswith(".") and len(node.args) > 1:
                    anchor = _literal(node.args[1])
                    if anchor is not None:
                        level = len(literal) - len(literal.lstrip("."))
                        literal = _resolve_relative(anchor, True, level, literal.lstrip(".") or None)
                yield literal, node.lineno
        elif isinstance(node, ast.Subscript) and _is_sys_modules(node.value):
            literal = _literal(node.slice)
            if literal is not None:
                yield literal, node.lineno


def _is_importing_call(func: ast.AST) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name in _IMPORTING_CALLS:
        return True
    return name == "get" and isinstance(func, ast.Attribute) and _is_sys_modules(func.value)


def import_graph() -> dict[str, dict[str, int]]:
    """``{module: {imported evenhand module: first line of that import}}`` for every module of the package."""
    modules = package_modules()
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        edges: dict[str, int] = {}
        for name, line in imported_names(module, path, modules):
            if name in modules and name != module:
                edges[name] = min(line, edges.get(name, line))
        graph[module] = edges
    return graph


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (each one is a set of circles)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        # Iterative depth-first search: the graph is a few hundred modules, but recursion depth is not ours to spend.
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def shortest_cycle(graph: dict[str, dict[str, int]], component: list[str]) -> list[str]:
    """One shortest circle through the component's first module, as ``a -> b -> ... -> a``."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph[node]):
            if child not in members:
                continue
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    return [start]


def describe_circles(graph: dict[str, dict[str, int]]) -> list[str]:
    lines = []
    for component in strongly_connected(graph):
        cycle = shortest_cycle(graph, component)
        steps = " -> ".join(f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(cycle))
        lines.append(f"{len(component)} modules {component}; e.g. {steps} -> {cycle[-1]}")
    return lines


def test_graph_sees_imports_at_every_depth(tmp_path: Path) -> None:
    source = (
        "from __future__ import annotations\n"
        "import importlib\n"
        "import sys\n"
        "from typing import TYPE_CHECKING\n"
        "from . import sibling\n"
        "from ..other import thing\n"
        "if TYPE_CHECKING:\n"
        "    from evenhand.typed import T\n"
        "def f():\n"
        "    import evenhand.inner\n"
        "    importlib.import_module('evenhand.dynamic')\n"
        "    sys.modules.get('evenhand.peeked')\n"
        "    return sys.modules['evenhand.indexed']\n"
    )
    path = tmp_path / "evenhand" / "pkg" / "mod.py"
    path.parent.mkdir(parents=True)
    path.write_text(source, encoding="utf-8")
    known = {"evenhand.pkg.sibling"}
    names = {name for name, _ in imported_names("evenhand.pkg.mod", path, known)}
    assert {
        "evenhand.pkg.sibling",
        "evenhand.other",
        "evenhand.typed",
        "evenhand.inner",
        "evenhand.dynamic",
        "evenhand.peeked",
        "evenhand.indexed",
    } <= names


def test_layer_check_catches_an_upward_import_and_a_sibling() -> None:
    graph = {
        "evenhand.metrics.x": {"evenhand.pipeline.run": 3, "evenhand.registry": 4},
        "evenhand.scorers.y": {"evenhand.generation.z": 5},
        "evenhand.text.w": {"evenhand": 6},
    }
    assert layer_violations(graph) == [
        "evenhand.metrics.x (line 3) imports evenhand.pipeline.run: a higher layer",
        "evenhand.scorers.y (line 5) imports evenhand.generation.z: an independent sibling",
        "evenhand.text.w (line 6) imports the facade evenhand",
    ]


def test_cycle_finder_reports_the_circle() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3, "d": 4}, "d": {}}
    assert strongly_connected(graph) == [["a", "b", "c"]]
    assert shortest_cycle(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]


@pytest.mark.slow
def test_no_import_circle_at_any_depth() -> None:
    graph = import_graph()
    circles = describe_circles(graph)
    assert not circles, "import circles (imports at any depth count):\n" + "\n".join(circles)


def test_no_module_over_the_size_limit() -> None:
    sizes = {
        str(path.relative_to(PACKAGE_DIR.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
    }
    too_long = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def layer_contracts() -> list[tuple[str, list[list[str]], list[bool]]]:
    """Every ``layers`` contract of pyproject.toml's import-linter section (evenhand's, the pipeline's rooms): its
    container, its layers highest first as module tails under the container, and whether each layer's siblings are
    independent (``a | b``) rather than one layer (``a : b``)."""
    text = (PACKAGE_DIR.parent / "pyproject.toml").read_text(encoding="utf-8")
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the tomli backport (a dependency there)
        import tomli as tomllib
    contracts = tomllib.loads(text)["tool"]["importlinter"]["contracts"]
    out = []
    for contract in contracts:
        if contract.get("type") != "layers":
            continue
        layers = contract["layers"]
        tails = [[t.strip().strip("()") for t in layer.replace("|", ":").split(":")] for layer in layers]
        for container in contract.get("containers", [PACKAGE]):
            out.append((container, tails, ["|" in layer for layer in layers]))
    return out


def layer_violations(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import of a higher layer, of an independent sibling, or of the facade, with its line (in every layers
    contract: evenhand's layers and the pipeline's rooms)."""
    found = []
    for container, tails, independent in layer_contracts():
        rank = {tail: i for i, layer in enumerate(tails) for tail in layer}
        depth = container.count(".") + 1

        def place(module: str, rank: dict[str, int] = rank, depth: int = depth, container: str = container) -> (
            tuple[int, str] | None
        ):
            parts = module.split(".")
            if not module.startswith(container + ".") or len(parts) <= depth or parts[depth] not in rank:
                return None
            return rank[parts[depth]], parts[depth]

        for importer, edges in sorted(graph.items()):
            here = place(importer)
            for imported, line in sorted(edges.items()):
                if container == PACKAGE and imported == PACKAGE and importer != PACKAGE:
                    found.append(f"{importer} (line {line}) imports the facade {PACKAGE}")
                    continue
                there = place(imported)
                if here is None or there is None:
                    continue
                upward = there[0] < here[0]
                sibling = there[0] == here[0] and there[1] != here[1] and independent[here[0]]
                if upward or sibling:
                    why = "a higher layer" if upward else "an independent sibling"
                    found.append(f"{importer} (line {line}) imports {imported}: {why}")
    return found


def sibling_graphs(graph: dict[str, dict[str, int]]) -> dict[str, dict[str, dict[str, int]]]:
    """For every package, the import graph of its children (modules and subpackages, each with everything under
    it): ``{package: {child: {other child: first line}}}``, as import-linter's ``acyclic_siblings`` sees them."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for importer, edges in graph.items():
        for imported, line in edges.items():
            a, b = importer.split("."), imported.split(".")
            common = 0
            while common < min(len(a), len(b)) - 1 and a[common] == b[common]:
                common += 1
            if common == 0 or common >= len(a) or common >= len(b):
                continue  # outside evenhand, or one is the other's package
            package = ".".join(a[:common])
            here, there = f"{package}.{a[common]}", f"{package}.{b[common]}"
            children = out.setdefault(package, {})
            children.setdefault(there, {})
            targets = children.setdefault(here, {})
            targets[there] = min(line, targets.get(there, line))
    return out


def test_sibling_circle_check_catches_two_packages_that_import_each_other() -> None:
    graph = {"evenhand.p.a.x": {"evenhand.p.b.y": 3}, "evenhand.p.b.z": {"evenhand.p.a.w": 7}, "evenhand.p.a.w": {}}
    assert strongly_connected(sibling_graphs(graph)["evenhand.p"]) == [["evenhand.p.a", "evenhand.p.b"]]


@pytest.mark.slow
def test_no_import_circle_between_the_children_of_any_package() -> None:
    """No circle among the modules and subpackages of one package (e.g. the pipeline's rooms), counting every import
    of anything under each: the rooms stay in one order even where no two modules form a circle."""
    circles = []
    for package, children in sorted(sibling_graphs(import_graph()).items()):
        circles.extend(f"in {package}: {line}" for line in describe_circles(children))
    assert not circles, "circles between the children of a package:\n" + "\n".join(circles)


def test_every_module_has_a_layer() -> None:
    for container, tails, _ in layer_contracts():
        declared = {tail for layer in tails for tail in layer}
        depth = container.count(".") + 1
        children = {
            name.split(".")[depth] for name in package_modules() if name.startswith(container + ".")
        }
        missing = sorted(children - declared)
        assert not missing, f"place these in [tool.importlinter]'s layers of {container}: {missing}"


@pytest.mark.slow
def test_no_import_from_a_lower_layer_into_a_higher_one() -> None:
    """The import-linter contract again, over this file's graph: it also sees imports by a literal name."""
    violations = layer_violations(import_graph())
    assert not violations, "imports against the layers:\n" + "\n".join(violations)
