"""Issue 51, D4: an installed package (the wheel pip builds from this repository, installed in a fresh environment,
run from a folder that is not a checkout) has a command line that scores, and a ``dashboard`` that starts and serves
the pages and the bundled sample (it refused: "run from a checkout"), with the dashboard's own configuration
(loopback, no error details)."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ..conftest import ROOT, SAMPLE
from ..ports import free_port


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh environment holding the wheel (no checkout on its path); the dependencies are this test
    environment's, through a .pth file (nothing is downloaded)."""
    tmp = tmp_path_factory.mktemp("installed")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp / "wheel"),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(purelib, "mtlens-test-deps.pth").write_text("\n".join(deps) + "\n")
    wheel = next((tmp / "wheel").glob("mtlens-*.whl"))
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True
    )
    _copy_built_kernels(Path(purelib) / "mtlens" / "metrics" / "__pycache__")
    return venv


def _copy_built_kernels(target: Path) -> None:
    """The README's installation ends with ``mtlens build``. Its output for these sources is this checkout's (built
    once for the suite, here if no test has yet): the files' names hold a hash of the kernels' sources, numba's and
    numpy's versions and the interpreter, all the same in the wheel, so the installed package loads them as its own.
    Copied rather than compiled a second time (about 30 CPU seconds, which the dashboard's warm-up otherwise spends
    during the browser test): building them from nothing is test_cli's
    ``test_build_compiles_every_kernel_into_a_fresh_cache``."""
    import shutil

    from mtlens.metrics import _compiled
    from mtlens.runtime.kernels import kernel_modules

    subprocess.run([sys.executable, "-m", "mtlens", "build"], cwd=ROOT, check=True, capture_output=True)
    target.mkdir(parents=True, exist_ok=True)
    for module in set(kernel_modules().values()):
        path = _compiled.aot_path(module)
        if path.is_file():  # not without a C compiler: then the dashboard's warm-up compiles numba's
            shutil.copy2(path, target / path.name)


def test_the_installed_package_is_not_the_checkout_and_scores(installed, tmp_path):
    py = installed / "bin" / "python"
    where = subprocess.run(
        [str(py), "-c", "import mtlens; print(mtlens.__file__)"], capture_output=True, text=True, cwd=tmp_path
    )
    assert where.returncode == 0 and str(installed) in where.stdout and str(ROOT) not in where.stdout
    out = subprocess.run(
        [
            str(installed / "bin" / "mtlens"),
            "score",
            "--ref",
            str(SAMPLE / "ref.txt"),
            "--sys",
            str(SAMPLE / "UEdin.txt"),
            "--metrics",
            "bleu",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    from sacrebleu.metrics import BLEU

    refs = (SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()
    hyp = (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").splitlines()
    doc = json.loads(out.stdout)
    got = doc["systems"][0]["scores"]["bleu"]
    assert got == pytest.approx(BLEU().corpus_score(hyp, [refs]).score, abs=1e-9), doc


@pytest.mark.browser
def test_the_installed_dashboard_starts_and_serves_the_sample(installed, tmp_path):
    pytest.importorskip("playwright")
    from playwright.sync_api import sync_playwright

    from ..app.test_browser import ARGS, CHROMIUM, SIGNATURES, _goto, _idle, wait_until_healthy

    port = free_port()
    env = dict(os.environ, MTLENS_DATA_DIR=str(tmp_path / "ws"))
    log = open(tmp_path / "dashboard.log", "w")  # noqa: SIM115 (closed in the finally below)
    proc = subprocess.Popen(
        [str(installed / "bin" / "mtlens"), "dashboard", "--port", str(port)],
        cwd=tmp_path,  # not a checkout
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_healthy(url, proc, tmp_path / "dashboard.log")
        config = json.loads(urllib.request.urlopen(f"{url}/_stcore/host-config", timeout=5).read())
        assert config is not None
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 2200})
            page.goto(url)
            page.get_by_text("Dataset", exact=True).wait_for(timeout=120_000)
            _idle(page)
            main = page.locator('[data-testid="stMain"]').inner_text()
            assert "200 lines" in main, main[:2000]  # the bundled sample, read from the installed files
            assert page.locator(".st-key-mtlens_nav").get_by_text("Home", exact=True).count() == 1  # mtlens's own list
            _goto(page, "Rankings")
            page.get_by_text("Signatures").wait_for(timeout=120_000)
            signatures = page.locator(SIGNATURES).first.inner_text()
            assert "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp" in signatures, signatures
            browser.close()
        log_text = (tmp_path / "dashboard.log").read_text()
        assert "run from a checkout" not in log_text and "Traceback" not in log_text
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
        log.close()
