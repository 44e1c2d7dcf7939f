"""The wheel claims no top-level name but ``fakes``: the repository's scenarios/ directory is
installed as ``fakes.scenarios`` (setup.py) and run as `fakes scenarios ...` and `fakes bench ...`,
so a user's own ``scenarios`` package is never shadowed. Every module of scenarios/ imports its
siblings relatively, so it works under both names (``python -m scenarios`` in a checkout)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support.serving import ROOT, VENV_BIN, clean_env, fakes_command, run

from .context import context_files


def wheel_env(site: Path) -> dict[str, str]:
    """The wheel's code first on the path (ahead of the editable checkout the tests run from)."""
    return clean_env({"PYTHONPATH": str(site), "PATH": f"{VENV_BIN}:/usr/bin:/bin"})


def scenario_names() -> set[str]:
    from scenarios.runner import discover

    return set(discover())


def listed(stdout: str) -> set[str]:
    return {line.split()[0] for line in stdout.splitlines() if line.strip()}


def test_the_wheel_installs_one_top_level_package(image_site: Path) -> None:
    top = {path.name for path in image_site.iterdir()}
    (dist_info,) = (name for name in top if name.endswith(".dist-info"))
    assert top == {"fakes", dist_info}, f"the wheel installs {sorted(top)} into site-packages"
    assert (image_site / "fakes" / "scenarios" / "runner.py").is_file()
    assert (image_site / "fakes" / "scenarios" / "bench" / "__main__.py").is_file()
    top_level = image_site / dist_info / "top_level.txt"
    if top_level.exists():
        assert top_level.read_text().split() == ["fakes"]
    record = (image_site / dist_info / "RECORD").read_text()
    assert not re.search(r"^scenarios/", record, re.M), "the wheel's RECORD names a top-level scenarios/"


def test_the_installed_scenarios_run_as_fakes_subcommands(image_site: Path, image_workdir: Path) -> None:
    env = wheel_env(image_site)
    python = str(VENV_BIN / "python")
    shadow = run([python, "-c", "import scenarios"], env, cwd=image_workdir)
    assert shadow.returncode == 1 and "No module named 'scenarios'" in shadow.stderr, shadow.stderr

    where = run([python, "-c", "import fakes.scenarios.runner as r; print(r.__file__)"], env, cwd=image_workdir)
    assert Path(where.stdout.strip()).is_relative_to(image_site), where.stdout + where.stderr

    fakes = fakes_command()
    scenarios = run([fakes, "scenarios", "list"], env, cwd=image_workdir)
    assert scenarios.returncode == 0, scenarios.stderr
    assert listed(scenarios.stdout) == scenario_names()
    as_module = run([python, "-m", "fakes.scenarios", "list"], env, cwd=image_workdir)
    assert listed(as_module.stdout) == scenario_names(), as_module.stderr

    unknown = run([fakes, "scenarios", "run", "nope", "--base-url", "http://127.0.0.1:9"], env, cwd=image_workdir)
    assert unknown.returncode == 2
    assert unknown.stderr == "scenarios: error: unknown scenario 'nope'; see `fakes scenarios list`\n"

    # the benchmark's child processes run the installed package too (python -m fakes.scenarios.bench)
    bench = run([fakes, "bench", "--quick", "--parts", "inprocess", "--only", "filings", "--no-kernel",
                 "--inproc-seconds", "0.2", "--fresh-runs", "3"], env, cwd=image_workdir, timeout=120)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    assert re.search(r"^filings\s+\d+", bench.stdout, re.M), bench.stdout
    assert "Traceback" not in bench.stderr, bench.stderr
    usage = run([fakes, "bench", "--help"], env, cwd=image_workdir)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: fakes bench"), usage.stdout


def test_the_editable_install_serves_both_names(image_workdir: Path) -> None:
    """`pip install -e .` (what .ci/run does): `fakes scenarios` anywhere, `python -m scenarios` in the checkout."""
    outside = run([fakes_command(), "scenarios", "list"], clean_env(), cwd=image_workdir)
    assert listed(outside.stdout) == scenario_names(), outside.stderr
    shadow = run([str(VENV_BIN / "python"), "-c", "import scenarios"], clean_env(), cwd=image_workdir)
    assert shadow.returncode == 1, "the editable install puts a top-level scenarios on every path"
    checkout = run([str(VENV_BIN / "python"), "-m", "scenarios", "list"], clean_env(), cwd=ROOT)
    assert listed(checkout.stdout) == scenario_names(), checkout.stderr


def test_scenario_modules_import_their_siblings_relatively() -> None:
    for rel in context_files(ROOT):
        if not (rel.startswith("scenarios/") and rel.endswith(".py")):
            continue
        tree = ast.parse((ROOT / rel).read_text(), rel)
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            absolute = [name for name in names if name == "scenarios" or name.startswith("scenarios.")]
            assert not absolute, (f"{rel}:{node.lineno} imports {absolute[0]}: use a relative import "
                                  "(`from .runner import ...`), the package is fakes.scenarios once installed")
