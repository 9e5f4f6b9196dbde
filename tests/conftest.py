"""Shared fixtures: the bundled excerpts, and the full real data when it is present.

Tests marked ``shared`` read ``../shared/data`` (the full WMT data). They are
skipped, with a reason, when it is absent (a user's clone); with
``--require-shared-data`` (what ``.ci/run`` passes) a missing copy is a failure.
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"
TESTDATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared" / "data"

#: run by the neural extra's interpreter (it imports COMET and SentencePiece), never imported by pytest
collect_ignore = [
    "neural/build_tiny_comet.py",
    "neural/pearmut_session.py",
    "judges/build_tiny_judge.py",
    "neural/build_tiny_metricx.py",
    "neural/google_metricx",
]  # scripts run in other environments

PAIRS = ["de-en", "zh-en", "ja-en", "cs-en", "en-de", "en-cs", "en-ja", "en-zh"]


def pytest_addoption(parser):
    parser.addoption(
        "--require-shared-data",
        action="store_true",
        help="fail (instead of skipping) tests that need ../shared/data when it is missing",
    )
    parser.addoption(
        "--require-browser",
        action="store_true",
        help="fail (instead of skipping) browser tests when /usr/bin/chromium or playwright is missing",
    )
    parser.addoption(
        "--require-services",
        action="store_true",
        help="fail (instead of skipping) the tests of a real PostgreSQL server when its binaries or psycopg are missing",
    )
    parser.addoption(
        "--require-neural",
        action="store_true",
        help="fail (instead of skipping) the COMET tests when the neural extra (.venv-neural) is missing",
    )


def pytest_configure(config):
    """Tests never touch the user's workspace: every test process (and the servers it starts) uses
    a fresh data directory."""
    import os
    import tempfile

    os.environ["MTLENS_DATA_DIR"] = tempfile.mkdtemp(prefix="mtlens-test-store-")
    # a bug in a page reaches AppTest as the exception it is (visitors see only an error id: ui/guard.py)
    os.environ["MTLENS_RAISE_ERRORS"] = "1"
    # the suite's two processes share two cores: the torch processes the tests start (mtlens's workers, comet-score,
    # Google's MetricX runner) let their idle OpenMP threads sleep, as a dashboard's jobs do, instead of spinning on
    # each other's cores (docs/testing.md); the numbers do not depend on it
    from mtlens.neural.environment import sleep_idle_threads

    sleep_idle_threads()


def pytest_unconfigure(config):
    """The test process's data directory is removed when it ends (each xdist worker has its own)."""
    import os
    import shutil

    folder = os.environ.get("MTLENS_DATA_DIR", "")
    if os.path.basename(folder).startswith("mtlens-test-store-"):
        shutil.rmtree(folder, ignore_errors=True)


#: test files that drive real headless Chromium (marked ``browser``)
BROWSER_FILES = ("test_browser", "test_load")
#: fixtures that need the neural extra (marked ``neural``)
NEURAL_FIXTURES = {"neural_python", "tiny_models", "tiny_metricx", "google_metricx"}
#: fixtures for a real server started on loopback (PostgreSQL, a Ray cluster, ``transformers serve``; marked
#: ``services``)
SERVICE_FIXTURES = {"pg_server", "ray_cluster", "serve_python"}


def pytest_collection_modifyitems(config, items):
    """Marks by what a test needs, so a fast subset can be chosen (README, "Tests"): ``browser`` (real
    Chromium), ``neural`` (the COMET extra), ``shared`` (the full data); and the full-data tests are
    skipped, with the reason, when the data is absent (failed instead with --require-shared-data)."""
    for item in items:
        if item.path.name.startswith(BROWSER_FILES):
            item.add_marker(pytest.mark.browser)
        if NEURAL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.neural)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (
            SERVICE_FIXTURES & set(getattr(item, "fixturenames", ())) - {"backend"}
            or params.get("backend") == "postgresql"
        ):
            item.add_marker(pytest.mark.services)
    if SHARED.is_dir():
        return
    if config.getoption("--require-shared-data"):
        raise pytest.UsageError(f"--require-shared-data was given but {SHARED} does not exist")
    skip = pytest.mark.skip(reason=f"{SHARED} is absent (a user's clone): full-data parity not run")
    for item in items:
        if "shared" in item.keywords:
            item.add_marker(skip)


def read(path: Path) -> list[str]:
    """Lines of a clean test file (the same splitting sacrebleu's users do)."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def pair_files(folder: Path) -> tuple[list[list[str]], dict[str, list[str]]]:
    """References (ref.txt, ref2.txt, ...) and systems of a pair folder."""
    refs = [read(p) for p in sorted(folder.glob("ref*.txt"))]
    systems = {p.stem: read(p) for p in sorted(folder.glob("*.txt")) if not p.stem.startswith(("ref", "src"))}
    return refs, systems


@pytest.fixture(scope="session")
def sample():
    return pair_files(SAMPLE)


@pytest.fixture(scope="session")
def excerpts():
    """All bundled real test-set excerpts (folders with references): name -> (refs, systems)."""
    out = {"sample_en-de": pair_files(SAMPLE)}
    for folder in sorted(TESTDATA.iterdir()):
        if folder.is_dir() and (folder / "ref.txt").exists():  # mqm/ holds annotations, not a test set
            out[folder.name] = pair_files(folder)
    return out


@pytest.fixture(scope="session")
def pg_server(request):
    """A real PostgreSQL server on 127.0.0.1 for the session (tests/pgserver.py); the tests that need it
    skip, with the reason, when PostgreSQL or psycopg is missing, unless ``--require-services`` (what
    .ci/run passes) makes that a failure."""
    from .pgserver import Server, Unavailable

    server = _service(request, Server, Unavailable)
    yield server
    server.stop()


def _service(request, start, unavailable: type[Exception]):
    """A service the tests start (``start()``); when what it needs is missing, the test is skipped with
    the reason, or fails under ``--require-services`` (CI)."""
    try:
        return start()
    except unavailable as err:
        if request.config.getoption("--require-services"):
            pytest.fail(f"--require-services was given but {err}")
        pytest.skip(str(err))


class Backend:
    """One store backend for the parametrized store tests: ``store()`` opens the workspace (``store("b")``
    a second, empty one), ``env`` points a child process at it, ``rows(sql)`` reads it without mtlens."""

    def __init__(self, name: str, tmp_path: Path, server=None):
        self.name, self.tmp_path, self.server = name, tmp_path, server
        self._urls: dict[str, str] = {}

    def where(self, which: str = "a") -> str:
        if self.server is None:
            return str(self.tmp_path / which)
        if which not in self._urls:
            self._urls[which] = self.server.database()
        return self._urls[which]

    def store(self, which: str = "a", **kw):
        from mtlens.storage.store import Store

        return Store(url=self.where(which), **kw)

    def env(self, which: str = "a") -> dict:
        import os

        return {**os.environ, "MTLENS_STORE": self.where(which), "PYTHONPATH": str(ROOT)}

    def rows(self, sql: str, params=(), which: str = "a") -> list[tuple]:
        if self.server is None:
            import sqlite3

            from mtlens.storage.store import FILE_NAME

            con = sqlite3.connect(Path(self.where(which)) / FILE_NAME)
            try:
                return [tuple(r) for r in con.execute(sql, params)]
            finally:
                con.close()
        import psycopg

        with psycopg.connect(self.where(which)) as con:
            return [tuple(r) for r in con.execute(sql.replace("?", "%s"), params)]

    def close(self) -> None:
        for url in self._urls.values():
            self.server.drop(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """Each store test twice: on a SQLite file, and on a real PostgreSQL server (a fresh database)."""
    server = request.getfixturevalue("pg_server") if request.param == "postgresql" else None
    b = Backend(request.param, tmp_path, server)
    yield b
    if server is not None:
        from mtlens.storage import postgres

        postgres.close_idle()
        b.close()


@pytest.fixture(scope="session")
def neural_python(request):
    """The neural extra's interpreter (scripts/install-neural.sh); the COMET tests skip without it, with
    a reason, unless ``--require-neural`` (what scripts/test.sh passes) makes that a failure."""
    from mtlens.neural import environment as neural_env

    try:
        return neural_env.python()
    except neural_env.NeuralUnavailable as err:
        if request.config.getoption("--require-neural"):
            pytest.fail(f"--require-neural was given but {err}")
        pytest.skip(str(err))


@pytest.fixture(scope="session")
def pearmut_python(request):
    """Pearmut's interpreter (.venv-pearmut, scripts/install-pearmut.sh: Pearmut needs Python 3.12+); its tests skip
    without it, with a reason, unless ``--require-services`` (what CI passes) makes that a failure."""
    python = ROOT / ".venv-pearmut" / "bin" / "python"
    if not python.exists():
        why = f"{python} is missing: run bash scripts/install-pearmut.sh (Pearmut needs Python 3.12 or newer)"
        if request.config.getoption("--require-services"):
            pytest.fail(f"--require-services was given but {why}")
        pytest.skip(why)
    return str(python)


@pytest.fixture(scope="session")
def serve_python(request):
    """The serving environment's interpreter (.venv-serve, scripts/install-serve.sh: transformers with its
    OpenAI-compatible ``transformers serve``); its tests skip without it, with a reason, unless
    ``--require-services`` (what CI passes) makes that a failure."""
    python = ROOT / ".venv-serve" / "bin" / "python"
    if not python.exists():
        why = f"{python} is missing: run bash scripts/install-serve.sh"
        if request.config.getoption("--require-services"):
            pytest.fail(f"--require-services was given but {why}")
        pytest.skip(why)
    return str(python)


@pytest.fixture(scope="session")
def ray_cluster(request, neural_python):
    """A real local Ray cluster on 127.0.0.1 (two nodes of one CPU, tests/raycluster.py) with the neural
    extra's Ray; skipped with the reason when Ray is missing, unless ``--require-services`` fails it."""
    from .raycluster import Cluster, Unavailable

    cluster = _service(request, lambda: Cluster(neural_python), Unavailable)
    yield cluster
    cluster.stop()


def built_once(tmp_path_factory, name: str, build) -> Path:
    """A folder ``build(folder)`` fills once for the whole run: the xdist workers of one run share it (the first to
    ask builds it, under a lock; the others wait and read it), instead of each worker building the same tiny
    checkpoints again (about 26 CPU seconds for COMET's and MetricX's, docs/testing.md). The tests only read it. A
    build that fails leaves no mark: the next worker to ask tries again, and fails the same way."""
    import fcntl
    import os

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's own folder, not older runs'
    out, done = root / f"shared-{name}", root / f"shared-{name}.done"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            import shutil

            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            build(out)
            done.touch()
    return out


def _tiny(neural_python, tmp_path_factory, name: str, texts: list[Path]) -> Path:
    """The folder ``tests/neural/build_<name>.py`` builds offline from ``texts`` (its tokenizer's training text), once
    per run (:func:`built_once`)."""

    def build(out):
        proc = subprocess.run(
            [neural_python, "-I", str(ROOT / "tests" / "neural" / f"build_{name}.py"), str(out), *map(str, texts)],
            capture_output=True,
            text=True,
            env={**__import__("os").environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"},
        )
        assert proc.returncode == 0, proc.stderr[-3000:]

    return built_once(tmp_path_factory, name.replace("_", "-"), build)


@pytest.fixture(scope="session")
def tiny_models(neural_python, tmp_path_factory):
    """Tiny COMET checkpoints built offline (tests/neural/build_tiny_comet.py): name -> model folder."""
    out = _tiny(
        neural_python, tmp_path_factory, "tiny_comet", [SAMPLE / n for n in ("src.txt", "ref.txt", "UEdin.txt")]
    )
    return {name: out / name for name in ("tiny-comet", "tiny-kiwi", "tiny-xcomet")}


@pytest.fixture(scope="session")
def tiny_metricx(neural_python, tmp_path_factory):
    """Tiny MetricX-24 checkpoints built offline (tests/neural/build_tiny_metricx.py): name -> folder
    (``tiny-metricx``, ``tiny-metricx-bf16``, ``tiny-metricx-bin`` and its apart ``tokenizer``)."""
    texts = [SAMPLE / n for n in ("src.txt", "ref.txt", "UEdin.txt")]
    texts += [TESTDATA / "en-zh" / "ref.txt", TESTDATA / "ja-en" / "src.txt"]  # Chinese and Japanese
    out = _tiny(neural_python, tmp_path_factory, "tiny_metricx", texts)
    names = ("tiny-metricx", "tiny-metricx-bf16", "tiny-metricx-bin", "tiny-metricx-tied", "tokenizer")
    return {name: out / name for name in names}


@pytest.fixture(scope="session")
def google_metricx(neural_python, request):
    """Google's own MetricX-24 runner (tests/neural/google_metricx, vendored) in the neural extra's environment:
    ``run(model, tokenizer, rows, qe=False) -> [prediction, ...]`` at batch size 1, as its README runs it. Its
    ``datasets`` and ``accelerate`` come from requirements-metricx-oracle.txt (the test command installs them);
    without them the tests skip with the reason, unless ``--require-neural`` makes that a failure."""
    import json
    import os
    import subprocess

    probe = subprocess.run([neural_python, "-c", "import datasets, accelerate"], capture_output=True, text=True)
    if probe.returncode != 0:
        why = "Google's MetricX runner needs datasets and accelerate: pip install -r requirements-metricx-oracle.txt"
        if request.config.getoption("--require-neural"):
            pytest.fail(f"--require-neural was given but {why} into the neural environment")
        pytest.skip(why)
    where = ROOT / "tests" / "neural" / "google_metricx"
    out_dir = request.config._tmp_path_factory.mktemp("google-metricx")
    calls = [0]
    #: Google's prediction of each row already run in this session: at batch size 1 a row's prediction depends on
    #: that row alone, so a row asked again (the same checkpoint, tokenizer, mode and texts) is not run again
    known: dict[tuple, float] = {}

    def run(model, tokenizer, rows, qe: bool = False) -> list[float]:
        def key(r):
            return str(model), str(tokenizer), qe, r["src"], r["mt"], None if qe else r["ref"]

        todo = list({key(r): r for r in rows if key(r) not in known}.values())
        if todo:
            for r, prediction in zip(todo, runner(model, tokenizer, todo, qe), strict=True):
                known[key(r)] = prediction
        return [known[key(r)] for r in rows]

    def runner(model, tokenizer, rows, qe: bool) -> list[float]:
        calls[0] += 1
        given, got = out_dir / f"in-{calls[0]}.jsonl", out_dir / f"out-{calls[0]}.jsonl"
        with given.open("w", encoding="utf-8") as f:
            for r in rows:
                doc = {"source": r["src"], "hypothesis": r["mt"]}
                if not qe:
                    doc["reference"] = r["ref"]
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
        cmd = [neural_python, "-m", "metricx24.predict", "--tokenizer", str(tokenizer), "--model_name_or_path",
               str(model), "--max_input_length", "1536", "--batch_size", "1", "--input_file", str(given),
               "--output_file", str(got)]  # fmt: skip
        if qe:
            cmd.append("--qe")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore", "TOKENIZERS_PARALLELISM": "false"}
        proc = subprocess.run(cmd, cwd=where, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return [json.loads(line)["prediction"] for line in got.read_text(encoding="utf-8").splitlines()]

    return run


@pytest.fixture(scope="session")
def shared_pairs():
    """All eight full WMT pairs: pair -> (refs, systems)."""
    return {pair: pair_files(SHARED / "wmt" / pair) for pair in PAIRS}


def run_python(code: str, **env) -> dict:
    """Run ``code`` in a fresh interpreter (mtlens importable, only the given environment) and
    return the JSON object it printed last; fails with the interpreter's stderr."""
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **env},
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def tmpfs(path: Path, size_mb: int = 16, read_only: bool = False):
    """A small tmpfs mounted at ``path`` (created) for the test's body, unmounted after (root only):
    a file system that can be filled or made read-only. ``read_only``: remounted read-only at once."""
    path.mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(path)], check=True)
    try:
        if read_only:
            remount_read_only(path)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def remount_read_only(path: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)


def fill(folder: Path) -> None:
    """Take whatever room is left on ``folder``'s file system (a file ``filler``)."""
    with open(folder / "filler", "wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 4096)


#: the reports of tests whose servers were stalled (tests/app/stalls.py): printed at the end of the run
_STALLED: list[tuple[str, str]] = []
STALLED_SECTION = "stalled servers"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A browser test that ran past tests/app/stalls.STALL_S carries what its servers logged during it."""
    outcome = yield
    if call.when == "call" and "browser" in item.keywords:
        from .app import stalls

        text = stalls.test_ends(call.duration)
        if text:
            outcome.get_result().sections.append((STALLED_SECTION, text))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if "browser" in item.keywords:
        from .app import stalls

        stalls.test_begins()
    yield


def pytest_runtest_logreport(report):
    for name, text in report.sections:
        if name == STALLED_SECTION:
            _STALLED.append((report.nodeid, text))


def pytest_terminal_summary(terminalreporter):
    for nodeid, text in _STALLED:
        terminalreporter.section(f"slow browser test: {nodeid}", sep="-")
        terminalreporter.write_line(text)
