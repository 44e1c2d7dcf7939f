"""The one packaging rule pyproject.toml cannot say: the repository's top-level ``scenarios/``
(the scenario scripts and the benchmark) is installed inside the package, as ``fakes.scenarios``,
so that the wheel claims no top-level name but ``fakes`` (a user's own ``scenarios/`` stays theirs).
Everything else is in pyproject.toml. Run them as ``fakes scenarios ...`` and ``fakes bench ...``
(``python -m scenarios ...`` still works from a checkout)."""

from setuptools import find_packages, setup

SCENARIOS = find_packages(include=["scenarios", "scenarios.*"])

setup(
    packages=[*find_packages(include=["fakes", "fakes.*"]), *(f"fakes.{name}" for name in SCENARIOS)],
    package_dir={"fakes.scenarios": "scenarios"},
)
