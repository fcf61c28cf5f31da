"""The import graph stays layered and acyclic (README, "Map of the code"):

    app.py, app_pages -> ui -> engine, catalog -> domain

``engine`` never imports ``catalog``, ``ui``, pages, Streamlit or DuckDB; ``catalog`` never imports ``engine``, ``ui``,
pages or Streamlit; ``domain`` imports only the standard library. Inside ``engine`` the packages and modules form a
DAG, a module of a package imports its siblings (never its own package's ``__init__``), pandas is read only by the
boundary module ``engine.adapters`` (lazily), and no other engine module imports that boundary.

No project module (app.py, app_pages, ui, catalog, engine, domain, bench) passes 600 lines, the modules import
each other without a cycle, and none imports another's underscore (private) name: a name another module uses is
public (issue #32).

The imports are read from the source with :mod:`ast` (every ``import`` statement, at any depth, including
imports inside functions), so a lazy import cannot hide a violation.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app_pages", "bench", "catalog", "domain", "engine", "ui")


@dataclass(frozen=True)
class Import:
    source: str  # importing module, e.g. "engine.scoring.ranking"
    target: str  # imported module, e.g. "engine.scoring.matrix" (a ``from m import name`` of a submodule: m.name)
    lazy: bool  # inside a function, or under ``if TYPE_CHECKING:``


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    found = {"app": ROOT / "app.py"}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _imports_of(name: str, path: Path) -> list[Import]:
    tree = ast.parse(path.read_text(), filename=str(path))
    out: list[Import] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            child_lazy = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.Import):
                out.extend(Import(name, alias.name, lazy) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative import
                    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    base = ".".join(package[: len(package) - child.level + 1] + ([base] if base else []))
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    out.append(Import(name, sub if sub in MODULES else base, lazy))
            visit(child, child_lazy)

    visit(tree, False)
    return out


IMPORTS = [imp for name, path in MODULES.items() for imp in _imports_of(name, path)]


def _top(module: str) -> str:
    return module.split(".")[0]


def _violations(imports: Iterable[Import], source_package: str, forbidden: Iterable[str]) -> list[str]:
    forbidden = tuple(forbidden)
    return sorted(f"{i.source} imports {i.target}" for i in imports
                  if _top(i.source) == source_package and _top(i.target) in forbidden)


def find_cycle(edges: Mapping[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph as [a, b, ..., a], or None (depth-first search, three colours)."""
    colour: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if colour.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if colour.get(nxt) is None and (cycle := dfs(nxt)):
                return cycle
        stack.pop()
        colour[node] = 2
        return None

    for node in sorted(edges):
        if colour.get(node) is None and (cycle := dfs(node)):
            return cycle
    return None


# --- layers ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("package", "forbidden"), [
    ("engine", ("catalog", "ui", "app_pages", "app", "streamlit", "duckdb", "plotly")),
    ("catalog", ("engine", "ui", "app_pages", "app", "streamlit", "plotly")),
    ("ui", ("app_pages", "app")),
])
def test_a_layer_never_imports_the_layers_above_it(package, forbidden):
    assert _violations(IMPORTS, package, forbidden) == []


def test_domain_imports_only_the_standard_library():
    targets = {i.target for i in IMPORTS if _top(i.source) == "domain"}
    assert {t for t in targets if _top(t) not in sys.stdlib_module_names} == set()


def test_pandas_is_read_only_by_the_engine_boundary_and_only_lazily():
    pandas = [i for i in IMPORTS if _top(i.source) == "engine" and _top(i.target) == "pandas"]
    assert pandas, "engine.adapters builds frames with pandas: the check must see that import"
    assert {i.source for i in pandas} == {"engine.adapters"}
    assert all(i.lazy for i in pandas), "pandas is imported inside functions (or for type checking) only"


def test_no_engine_module_imports_the_boundary():
    assert sorted(i.source for i in IMPORTS if i.target == "engine.adapters" and _top(i.source) == "engine") == []


# --- cycles inside the engine ------------------------------------------------------------------------------------


def _unit(module: str) -> str:
    """engine.scoring.ranking -> engine.scoring; engine.fast -> engine.fast."""
    return ".".join(module.split(".")[:2])


def test_engine_packages_and_modules_form_a_dag():
    edges: dict[str, set[str]] = {}
    for i in IMPORTS:
        if _top(i.source) == "engine" and _top(i.target) == "engine" and _unit(i.source) != _unit(i.target) \
                and _unit(i.target) != "engine":
            edges.setdefault(_unit(i.source), set()).add(_unit(i.target))
    assert len(edges) > 5  # the graph was read (scoring, placement, workload, tco, adapters, ...)
    assert find_cycle(edges) is None


@pytest.mark.parametrize("package", sorted({m for m in MODULES if m.count(".") == 1 and _top(m) == "engine"
                                            and (MODULES[m].name == "__init__.py")}))
def test_modules_of_an_engine_package_form_a_dag_and_import_their_siblings(package):
    inside = [i for i in IMPORTS if i.source.startswith(package + ".") and i.target.startswith(package)]
    assert [f"{i.source} imports {i.target}" for i in inside if i.target == package] == [], \
        "import the sibling module, not the package's __init__ (which imports every module)"
    edges: dict[str, set[str]] = {}
    for i in inside:
        edges.setdefault(i.source, set()).add(i.target)
    assert find_cycle(edges) is None


# --- the checks can fail -----------------------------------------------------------------------------------------


def test_cycle_finder_finds_a_cycle_and_accepts_a_dag():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) in (["a", "b", "c", "a"],)
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_parser_sees_lazy_and_type_checking_imports():
    path = ROOT / "engine" / "adapters.py"
    seen = {(i.target, i.lazy) for i in _imports_of("engine.adapters", path)}
    assert ("pandas", True) in seen  # inside a function / under TYPE_CHECKING
    assert ("engine.scoring.matrix", False) in seen  # a module-level import of a submodule
    assert _violations([Import("engine.x", "catalog.store", True)], "engine", ("catalog",)) == [
        "engine.x imports catalog.store"]


# --- size ------------------------------------------------------------------------------------------------------------

#: A module past this many lines holds more than one concept: make it a package (README, "Map of the code").
MAX_MODULE_LINES = 600


def test_no_module_passes_the_size_limit():
    sizes = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}
    assert {_top(name) for name in sizes} == {"app", *PACKAGES}  # every package was read, subpackages included
    assert "catalog.storage.common" in sizes and "bench.load.run" in sizes
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


# --- no cycle among the project's modules ------------------------------------------------------------------------


def project_edges(imports: Iterable[Import]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (at any depth: a function-level import counts)."""
    edges: dict[str, set[str]] = {}
    for i in imports:
        if i.target in MODULES and i.target != i.source:
            edges.setdefault(i.source, set()).add(i.target)
    return edges


def test_no_import_cycle_among_project_modules():
    edges = project_edges(IMPORTS)
    assert "ui.workshop" in edges.get("ui.exports", set())  # the graph holds the ui modules' imports
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or []) + (
        " (move the piece both need into the lower module; a function-level import does not break a cycle)")


def test_a_function_level_import_makes_a_cycle_too():
    lazy_back = [Import("ui.a", "ui.b", False), Import("ui.b", "ui.a", True)]
    assert find_cycle({i.source: {i.target} for i in lazy_back}) == ["ui.a", "ui.b", "ui.a"]


# --- private names stay private ----------------------------------------------------------------------------------


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names_used(name: str, tree: ast.AST, is_init: bool = False) -> list[str]:
    """Underscore names module ``name`` takes from another project module: ``from m import _x`` (at any depth)
    and ``m._x`` where ``m`` is a project module bound by an import."""
    found: list[str] = []
    bound: dict[str, str] = {}  # local name -> project module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_init else name.split(".")[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            if _top(base) not in ("app", *PACKAGES) or base == name:
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{name} imports {alias.name} from {base}")
                elif f"{base}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    bound[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr) and isinstance(node.value, ast.Name) \
                and bound.get(node.value.id, name) != name:
            found.append(f"{name} uses {node.value.id}.{node.attr} of {bound[node.value.id]}")
    return found


def test_no_project_module_imports_another_modules_private_name():
    found = [hit for name, path in MODULES.items()
             for hit in private_names_used(name, ast.parse(path.read_text()), path.name == "__init__.py")]
    assert not found, ("a name another module uses is public: drop its underscore (and give it a docstring):\n"
                       + "\n".join(found))


def test_the_private_name_check_sees_imports_and_attributes():
    source = ("from engine.outliers import _reason, robust_z\n"
              "def f():\n    from engine.scoring.matrix import _bool_or_none\n"
              "from ui import brief_scope\nimport engine.adapters as adapters\n"
              "x = brief_scope._relaxations, adapters._PRICE_COLUMNS, brief_scope.__name__\n"
              "from ui.catalog import __doc__\n")
    assert sorted(private_names_used("ui.x", ast.parse(source))) == [
        "ui.x imports _bool_or_none from engine.scoring.matrix",
        "ui.x imports _reason from engine.outliers",
        "ui.x uses adapters._PRICE_COLUMNS of engine.adapters",
        "ui.x uses brief_scope._relaxations of ui.brief_scope",
    ]
    # the module's own private names, and names from outside the project, are not the check's business
    assert private_names_used("engine.outliers", ast.parse("from engine.outliers import _reason\n"
                                                           "from os import _exit\n")) == []
