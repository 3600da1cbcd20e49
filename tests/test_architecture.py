"""The package's import graph: dependencies run one way and nothing imports in a circle.

Every ``import`` statement of every module (module level or inside a function: a lazy import
is still a dependency) is read from the source with :mod:`ast`, so the test sees what the
interpreter would import without importing anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]

#: Lowest first. A module may import its own layer and the layers below it, never above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # registration is a table of ids and entry-point strings: it imports no env.
    (
        "foundation",
        (
            "mtp_gym.core",
            "mtp_gym.spaces",
            "mtp_gym.parsing",
            "mtp_gym.data",
            "mtp_gym.wordnet",
            "mtp_gym.episode",
            "mtp_gym.history",
            "mtp_gym.registration",
        ),
    ),
    (
        "puzzles",
        (
            "mtp_gym.envs",
            "mtp_gym.games",
            "mtp_gym.turing_machine",
            "mtp_gym.circuit_decoding",
            "mtp_gym.multiagent",
            "mtp_gym.inference",
        ),
    ),
    ("wrappers", ("mtp_gym.wrappers", "mtp_gym.vector")),
    # the package root registers the ids and re-exports the public API.
    ("package", ("mtp_gym",)),
    ("agents", ("mtp_gym.agents",)),
    ("eval", ("mtp_gym.eval", "mtp_gym.rollout")),
    # the local web apps (human play, report viewer) on top of the harness.
    ("web", ("mtp_gym.web",)),
    # framework adapters (optional extras); mtp_gym_verifiers re-exports the verifiers one.
    ("integrations", ("mtp_gym.integrations", "mtp_gym_verifiers")),
    ("cli", ("mtp_gym.cli",)),
)

#: Where each installed package's source lives in the checkout (pyproject's package-dir).
SOURCES = {
    "mtp_gym": ROOT / "mtp_gym",
    "mtp_gym.agents": ROOT / "agents",
    "mtp_gym_verifiers": ROOT / "mtp_gym_verifiers",
}

#: Heavy optional dependencies and the only modules allowed to import them (their extras).
OPTIONAL = {
    "torch": ("mtp_gym.agents.llm.hf_agent", "mtp_gym.integrations.trl"),
    "trl": ("mtp_gym.integrations.trl",),
    "stable_baselines3": ("mtp_gym.agents.sb3_agent",),
    "sb3_contrib": ("mtp_gym.agents.sb3_agent",),
    "transformers": ("mtp_gym.agents.llm.hf_agent",),
    "datasets": ("mtp_gym.rollout", "mtp_gym.integrations.trl"),
    "ray": ("mtp_gym.eval.backends",),
    "inspect_ai": ("mtp_gym.integrations.inspect_tasks",),
    "verifiers": ("mtp_gym.integrations.verifiers_env",),
    "openenv": ("mtp_gym.integrations.openenv_server",),
    "uvicorn": ("mtp_gym.integrations.openenv_server",),
}


def modules(sources: dict[str, Path] = SOURCES) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of the installed packages."""
    found = {}
    for package, folder in sources.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The most specific known module that ``name`` (a module or ``module.attribute``) lives in."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules that ``module`` imports (absolute and relative, at any depth)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name, known)
            if target and target != module:
                found.add(target)
    return found


def third_party(path: Path) -> set[str]:
    """Top-level names of every package that ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def layer_of(module: str) -> int:
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    if best is None:
        raise AssertionError(f"{module} is in no layer of LAYERS: add it where it belongs")
    return best


def graph(sources: dict[str, Path] = SOURCES) -> dict[str, set[str]]:
    known = modules(sources)
    return {module: imports(module, path, known) for module, path in known.items()}


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for module, targets in edges.items()
        for target in targets
        if layer_of(target) > layer_of(module)
    )


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_module_has_a_layer():
    for module in modules():
        layer_of(module)


def test_no_module_imports_a_higher_layer():
    assert upward_imports(graph()) == []


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_heavy_dependencies_only_where_their_extra_is_needed():
    found = [
        f"{module} imports {name}"
        for module, path in modules().items()
        for name in third_party(path) & OPTIONAL.keys()
        if module not in OPTIONAL[name]
    ]
    assert found == []


def test_core_install_needs_no_training_stack():
    """``pip install .`` brings the envs and the eval CLI; torch and SB3 come with extras."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = " ".join(project["dependencies"]).lower()
    for heavy in ("torch", "stable-baselines3", "transformers", "trl", "ray"):
        assert heavy not in core
    extras = project["optional-dependencies"]
    assert any("stable-baselines3" in d for d in extras["sb3"])
    test_extra = " ".join(extras["test"]).lower()
    # verifiers 0.4 pins openai<3, which Inspect's providers in [test] cannot share: its test
    # installs it in a side environment (tests/test_integrations.py).
    separate = {"verifiers"}
    for extra, deps in extras.items():
        if extra in separate:
            continue
        for dep in deps:
            name = dep.split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
            assert name in test_extra or dep.startswith("mtp-gym"), f"[test] lacks {dep} of [{extra}]"


def test_the_checker_sees_upward_imports_and_cycles(tmp_path):
    """The graph is built from real files: a planted upward import and a cycle are found."""
    pkg = tmp_path / "mtp_gym"
    (pkg / "envs").mkdir(parents=True)
    (pkg / "eval").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "core.py").write_text("def f():\n    from mtp_gym.eval.runner import run\n")
    (pkg / "envs" / "__init__.py").write_text("")
    (pkg / "envs" / "a.py").write_text("from . import b\n")
    (pkg / "envs" / "b.py").write_text("import mtp_gym.envs.a\n")
    (pkg / "eval" / "__init__.py").write_text("")
    (pkg / "eval" / "runner.py").write_text("from mtp_gym.core import f\nrun = 1\n")
    edges = graph({"mtp_gym": pkg})
    assert upward_imports(edges) == ["mtp_gym.core (foundation) imports mtp_gym.eval.runner (eval)"]
    assert cycles(edges) == [["mtp_gym.core", "mtp_gym.eval.runner"], ["mtp_gym.envs.a", "mtp_gym.envs.b"]]


if __name__ == "__main__":  # pragma: no cover - the figures of the closing note
    import sys

    root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    edges = graph({"mtp_gym": root / "mtp_gym", "mtp_gym.agents": root / "agents"})
    up, loops = upward_imports(edges), cycles(edges)
    print("\n".join(up))
    print(f"{len(up)} upward imports, {len(loops)} cycles: {loops}")


#: The CLI and the harness stay readable (issue 31): no function there longer than this.
MAX_FUNCTION_LINES = 60


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path:function lines`` of every function under ``root`` longer than ``limit`` lines
    (docstring included)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    found.append(f"{path.relative_to(root)}:{node.name} {lines}")
    return found


def test_no_long_functions_in_the_cli_and_the_harness(tmp_path):
    assert long_functions(ROOT / "mtp_gym" / "cli") + long_functions(ROOT / "mtp_gym" / "eval") == []
    (tmp_path / "long.py").write_text("def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES)
    (tmp_path / "short.py").write_text("def g():\n" + "    x = 1\n" * (MAX_FUNCTION_LINES - 1))
    assert long_functions(tmp_path) == [f"long.py:f {MAX_FUNCTION_LINES + 1}"]
