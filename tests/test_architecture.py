"""The floors of the house (docs/architecture.md), checked on the real import graph of the package:
every import, also those inside functions, so a cycle cannot hide behind a late import."""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys

from .conftest import ROOT

PKG = ROOT / "mtlens"

#: floor of each part of mtlens; a module imports only modules of its own floor or below
FLOORS = {
    0: {"core", "version"},
    1: {"scores"},
    2: {"metrics", "checks"},
    3: {"readers", "storage"},
    4: {"neural", "judges"},
    5: {"runtime"},
    6: {"analysis"},
    7: {"exports"},
    8: {"service"},
    9: {"cli", "__main__", ""},
    10: {"ui"},
}
_FLOOR_OF = {part: floor for floor, parts in FLOORS.items() for part in parts}


def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def _mtlens_imports(tree: ast.Module, package: str, is_module) -> set[str]:
    """Every mtlens module a tree imports, also inside functions: relative imports resolved from ``package``,
    ``from X import name`` counted as X.name when ``is_module(X.name)``."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "mtlens"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            if full.split(".")[0] != "mtlens":
                continue
            for a in node.names:
                found.add(f"{full}.{a.name}" if is_module(f"{full}.{a.name}") else full)
    return found


def _imports(name: str, tree: ast.Module, modules) -> set[str]:
    is_pkg = (PKG / name.replace("mtlens", "", 1).lstrip(".").replace(".", "/") / "__init__.py").exists()
    package = name if is_pkg else name.rsplit(".", 1)[0]
    found = _mtlens_imports(tree, package, modules.__contains__)
    return {m for m in found if m in modules and m != name}


def _graph():
    modules = _modules()
    return {name: _imports(name, tree, modules) for name, tree in modules.items()}


def _floor(module: str) -> int:
    part = module.split(".")[1] if "." in module else ""
    return _FLOOR_OF[part]


def test_every_module_has_a_floor():
    for module in _graph():
        assert _floor(module) is not None, module


def test_no_module_imports_a_floor_above_its_own():
    upward = [(m, d) for m, deps in _graph().items() for d in deps if _floor(d) > _floor(m)]
    assert upward == []


def test_metrics_import_nothing_above_them():
    graph = _graph()
    for module, deps in graph.items():
        if module.startswith("mtlens.metrics"):
            assert all(_floor(d) <= 2 for d in deps), (module, deps)


def test_no_import_cycle():
    graph = _graph()
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], itertools.count()

    def visit(v):
        index[v] = low[v] = next(counter)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []


def _imported_names(path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_the_ui_floor_and_the_pages_import_streamlit():
    for path in PKG.rglob("*.py"):
        if "ui" in path.relative_to(PKG).parts:
            continue
        assert not any(n.split(".")[0] == "streamlit" for n in _imported_names(path)), path


#: the most lines a page script has: it sets the page up and calls its screen (mtlens/ui/screens)
MAX_PAGE_LINES = 60


def test_pages_are_thin():
    """Pages set themselves up and call mtlens.ui: of the core they import only its errors, and each is at
    most MAX_PAGE_LINES lines."""
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        core = {n for n in _imported_names(path) if n.split(".")[0] == "mtlens"}
        assert {n for n in core if not n.startswith("mtlens.ui")} <= {"mtlens.core.errors"}, (path.name, core)
        assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_PAGE_LINES, path.name


#: what the faces (the command line, the UI package) may import besides the service: the pure floors, which hold no
#: state, read no file and decide no right (issue 59, docs/architecture.md "The gateway"): the vocabulary (core), the
#: model of a source of scores (scores), the computations on results (analysis), the presentation library (exports)
FACE_MAY_IMPORT = ("mtlens.core", "mtlens.scores", "mtlens.analysis", "mtlens.exports", "mtlens.version")


def _faces():
    return [
        *sorted((PKG / "cli").rglob("*.py")),
        *sorted((PKG / "ui").rglob("*.py")),
        ROOT / "app.py",
        *sorted((ROOT / "pages").glob("*.py")),
    ]


def _full_imports(path, package: str | None = None) -> set[str]:
    """Every mtlens module ``path`` imports (relative imports resolved; ``from X import name`` counts as
    X.name when that is a module), also inside functions."""
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])

    def is_module(name: str) -> bool:
        return (ROOT / (name.replace(".", "/") + ".py")).exists() or (ROOT / name.replace(".", "/")).is_dir()

    return _mtlens_imports(ast.parse(path.read_text(encoding="utf-8")), package, is_module)


def test_the_faces_ask_the_service():
    """The command line and everything under the UI import of the core only the service and the pure floors: a
    decision a face needs (anything with the store, a file, a job, a metric's scoring or a right) is made once, in the
    service, for both faces."""
    for path in _faces():
        assert _outside_the_gateway(path) == [], path.relative_to(ROOT)


def _outside_the_gateway(path, package: str | None = None) -> list[str]:
    core = {m for m in _full_imports(path, package) if not m.startswith(("mtlens.ui", "mtlens.service", "mtlens.cli"))}
    return sorted(m for m in core if m != "mtlens" and not m.startswith(FACE_MAY_IMPORT))


def test_the_face_check_sees_a_forbidden_import(tmp_path):
    """The check above finds a face's import of the store, the engine, the metrics, a reader, a job or a judge:
    relative or absolute, inside a function too; the service and the pure floors pass."""
    probe = tmp_path / "probe.py"
    for text, found in [
        ("def f():\n    from ..storage.store import Store\n", ["mtlens.storage.store"]),
        ("import mtlens.runtime.engine\n", ["mtlens.runtime.engine"]),
        ("from mtlens.metrics import REGISTRY\n", ["mtlens.metrics"]),
        ("from ..readers.lines import read_bytes\n", ["mtlens.readers.lines"]),
        ("def f():\n    from mtlens.judges import registry\n", ["mtlens.judges.registry"]),
        ("from ..neural.models import models\n", ["mtlens.neural.models"]),
        ("from ..service.results import REGISTRY\nfrom ..core.errors import InputError\n", []),
        ("from ..analysis.policy import ALPHA\nfrom ..exports.tables import to_csv\nimport mtlens.core.names\n", []),
    ]:
        probe.write_text(text)
        assert _outside_the_gateway(probe, "mtlens.ui") == found, text


def test_the_lint_rule_bans_streamlit_outside_the_ui():
    """ruff's TID251 (pyproject.toml) says the same as the test above while one edits: a core module that
    imports streamlit is flagged, the same text in the UI package is not (read from standard input under a
    file name, so no file is written into the package)."""

    def check(name: str):
        return subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--no-cache", "--stdin-filename", name, "-"],
            input="import streamlit as st\n\nst.write(1)\n",
            capture_output=True,
            text=True,
            cwd=ROOT,
        )

    core = check("mtlens/service/_streamlit_probe.py")
    assert core.returncode == 1 and "TID251" in core.stdout
    assert check("mtlens/ui/_streamlit_probe.py").returncode == 0


def test_the_samples_id_is_told_apart_only_in_the_service_and_the_store():
    """The bundled sample is a read-only stored set: outside mtlens/service and mtlens/storage no code names
    its id (SAMPLE_ID) or compares a set id with its value."""
    from mtlens.storage.store import SAMPLE_ID

    found = []
    for path in [*PKG.rglob("*.py"), ROOT / "app.py", *(ROOT / "pages").glob("*.py")]:
        rel = path.relative_to(ROOT).parts
        if rel[:2] in (("mtlens", "service"), ("mtlens", "storage")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (isinstance(node, ast.Name) and node.id == "SAMPLE_ID") or (
                isinstance(node, ast.Attribute) and node.attr == "SAMPLE_ID"
            )
            imported = isinstance(node, ast.ImportFrom) and any(a.name == "SAMPLE_ID" for a in node.names)
            compared = isinstance(node, ast.Compare) and any(
                isinstance(c, ast.Constant) and c.value == SAMPLE_ID and "set" in ast.unparse(node)
                for c in [node.left, *node.comparators]
            )
            if named or imported or compared:
                found.append(f"{'/'.join(rel)}:{node.lineno}")
    assert found == []


def _public_and_handed_on(path) -> tuple[list[str], list[str]]:
    """A service module's public names (its ``__all__``) and those of them it only hands on (not defined in it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    public = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "__all__"
    )
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                defined |= {e.id for e in (target.elts if isinstance(target, ast.Tuple) else [target])}
    return public, [n for n in public if n not in defined]


def _service_modules():
    return [p for p in sorted((PKG / "service").glob("*.py")) if p.name != "__init__.py"]


def test_the_service_decides_more_than_it_hands_on():
    """Issue 59: no PEP 562 table (``__getattr__``) in the service, every module says its public names (``__all__``,
    written out), and at most a fifth of them are names it only hands on from below (a type the faces annotate with,
    a reader); the rest are the service's own decisions."""
    public = handed_on = 0
    for path in _service_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("__getattr__", "__dir__")]
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "__getattr__"], path.name
        names, on = _public_and_handed_on(path)
        public, handed_on = public + len(names), handed_on + len(on)
    assert handed_on * 5 <= public, (handed_on, public)


def test_a_face_takes_of_a_service_module_only_its_public_names():
    """Every name a face imports from a service module, or reads from it as ``module.name``, is in that module's
    ``__all__``: the count above is the faces' real surface, and nothing private is reached past it."""
    public = {f"mtlens.service.{p.stem}": set(_public_and_handed_on(p)[0]) for p in _service_modules()}
    bad = []
    for path in _faces():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
        aliases = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            for a in node.names:
                if module in public:
                    if a.name not in public[module]:
                        bad.append(f"{path.name}: {module}.{a.name}")
                elif f"{module}.{a.name}" in public:
                    aliases[a.asname or a.name] = f"{module}.{a.name}"
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr not in public[aliases[node.value.id]]
            ):
                bad.append(f"{path.name}: {aliases[node.value.id]}.{node.attr}")
    assert bad == []


def _number_literals(value: float, skip=()) -> list[str]:
    """Where ``value`` is written as a number in mtlens, the pages and app.py (docstrings and comments are
    text, not code: left out)."""
    found = []
    for path in [*PKG.rglob("*.py"), ROOT / "app.py", *(ROOT / "pages").glob("*.py")]:
        rel = "/".join(path.relative_to(ROOT).parts)
        if rel in skip:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == value:
                found.append(f"{rel}:{node.lineno}")
    return found


def test_the_significance_level_and_seed_are_written_in_one_module():
    """The statistics policy (mtlens/analysis/policy.py) is the only module that writes the significance level
    0.05 or the seed 12345 as a number; everything else reads them from it. (0.05 is also a step of the tBLEU
    epsilon, an option's step and the sweep's grid: those name it as such.)"""
    epsilon_uses = {"mtlens/core/options.py", "mtlens/analysis/sweep.py"}
    assert _number_literals(0.05, skip={"mtlens/analysis/policy.py", *epsilon_uses}) == []
    assert _number_literals(12345, skip={"mtlens/analysis/policy.py"}) == []


def test_the_resample_rule_is_written_once():
    """Only the policy turns a family of tests into a resample count (``resamples_needed``), so every test draws
    by the same rule, memory cap included."""
    callers = []
    for path in PKG.rglob("*.py"):
        rel = "/".join(path.relative_to(ROOT).parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("resamples_needed"):
                callers.append(rel)
    assert set(callers) <= {"mtlens/analysis/policy.py"}


def test_every_import_of_mtlens_inside_mtlens_resolves():
    """Every ``from ... import name`` of an mtlens module, inside functions too, names a module that exists and
    a name it has: an import that runs only when a page or a command gets there is checked here, not by the
    first user who clicks (rooms were split in issue 47; a function's import of a moved name broke pages)."""
    import importlib

    bad = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name == "worker.py":  # runs in the neural extra's interpreter, with its own imports
            continue
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (node.level or (node.module or "").startswith("mtlens")):
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            try:
                found = importlib.import_module(module)
            except ImportError as err:
                bad.append(f"{where}: {err}")
                continue
            for alias in node.names:
                if not hasattr(found, alias.name):
                    try:
                        importlib.import_module(f"{module}.{alias.name}")
                    except ImportError:
                        bad.append(f"{where}: {module} has no {alias.name}")
    assert bad == []


#: modules that may be longer than a room, each with its reason (issue 59: "a kernel that must stay whole")
WHOLE_KERNELS = {
    # numba compiles the module's functions together, ahead of time, into one extension (mtlens.metrics._aot): a
    # port of sacrebleu's lib_ter.py whose shift search, beam and bit-parallel distance call one another
    "mtlens/metrics/_ter_kernel.py": "one compiled unit (numba ahead of time): TER's shifts and edit distances",
}


def test_the_front_page_is_short_and_every_room_is_small():
    """The README is a front page (at most about 400 lines, both set-up commands), and every module of the package is
    a room of one concern: none over 400 lines (issue 59; issue 47 split the first), the whole kernels named above
    aside."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 400
    assert "&& .venv/bin/streamlit run app.py\n" in readme and "\nbash scripts/test.sh\n" in readme
    long = {
        path: n
        for p in PKG.rglob("*.py")
        if (path := p.relative_to(ROOT).as_posix()) not in WHOLE_KERNELS
        and (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}
    assert all((ROOT / k).is_file() for k in WHOLE_KERNELS)  # a kernel split or gone leaves the list
