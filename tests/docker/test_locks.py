"""The image's locks (docker/requirements.lock, docker/build-requirements.lock, made by docker/lock.sh):
every dependency the image installs is pinned to one version with the sha256 of its files, the
pins satisfy pyproject.toml, and the lock holds the whole dependency tree, so a changed dependency
fails here (and the image's `pip check`) until the locks are regenerated."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from .conftest import DOCKERFILE, ROOT
from .context import context_files

RUNTIME_LOCK = ROOT / "docker" / "requirements.lock"
BUILD_LOCK = ROOT / "docker" / "build-requirements.lock"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

Lock = dict[str, tuple[Version, list[str]]]


def read_lock(path: Path) -> Lock:
    """{canonical name: (pinned version, sha256 hashes)} of a pip-compile --generate-hashes file."""
    entries: Lock = {}
    current = None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        pin = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+?)\s*\\?", text)
        digest = re.fullmatch(r"--hash=sha256:([0-9a-f]{64})\s*\\?", text)
        if pin:
            current = canonicalize_name(pin[1])
            assert current not in entries, f"{path.name}:{number}: {current} pinned twice"
            entries[current] = (Version(pin[2]), [])
        elif digest and current is not None:
            entries[current][1].append(digest[1])
        else:
            raise AssertionError(f"{path.name}:{number}: not a pin or a hash: {line!r}")
    return entries


def runtime_tree() -> dict[str, list[Requirement]]:
    """Every distribution the project needs at run time (no extras of its own), with the
    requirements that name it, read from the installed distributions' metadata."""
    found: dict[str, list[Requirement]] = {}
    queue = [(Requirement(text), ("",)) for text in PYPROJECT["project"]["dependencies"]]
    seen: set[tuple[str, str]] = set()
    while queue:
        requirement, parent_extras = queue.pop()
        if requirement.marker and not any(requirement.marker.evaluate({"extra": e}) for e in parent_extras):
            continue
        name = canonicalize_name(requirement.name)
        found.setdefault(name, []).append(requirement)
        extras = ("", *sorted(requirement.extras))
        if all((name, extra) in seen for extra in extras):
            continue
        seen.update((name, extra) for extra in extras)
        queue += [(Requirement(text), extras) for text in metadata.requires(requirement.name) or []]
    return found


def test_every_pin_has_file_hashes() -> None:
    for path in (RUNTIME_LOCK, BUILD_LOCK):
        lock = read_lock(path)
        assert lock, f"{path.name} pins nothing"
        bare = sorted(name for name, (_, hashes) in lock.items() if not hashes)
        assert not bare, f"{path.name}: no hash for {bare} (pip's --require-hashes would refuse the build)"


def test_the_runtime_lock_holds_the_whole_tree_at_versions_that_fit() -> None:
    lock = read_lock(RUNTIME_LOCK)
    tree = runtime_tree()
    missing = sorted(set(tree) - set(lock))
    assert not missing, f"docker/requirements.lock lacks {missing}: run docker/lock.sh"
    unfit = [f"{name}=={lock[name][0]} vs {requirement}" for name, requirements in tree.items()
             for requirement in requirements if not requirement.specifier.contains(lock[name][0], prereleases=True)]
    assert not unfit, f"locked versions outside what is required: {unfit}; run docker/lock.sh"
    extra = sorted(set(lock) - set(tree))
    assert not extra, f"docker/requirements.lock pins what nothing needs: {extra}; run docker/lock.sh"


def test_the_build_lock_pins_the_build_backend() -> None:
    lock = read_lock(BUILD_LOCK)
    for text in PYPROJECT["build-system"]["requires"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in lock and requirement.specifier.contains(lock[name][0]), (text, lock.get(name))


def test_the_locks_are_in_the_build_context_and_say_how_to_regenerate_them() -> None:
    files = context_files(ROOT)
    for path in (RUNTIME_LOCK, BUILD_LOCK):
        assert str(path.relative_to(ROOT)) in files, f"{path.name} is not sent to docker build"
        assert f"--output-file={path.relative_to(ROOT)}" in path.read_text(), "made by docker/lock.sh"
    script = (ROOT / "docker" / "lock.sh").read_text()
    assert "--generate-hashes" in script and "pyproject.toml" in script
    assert "docker/lock.sh" in DOCKERFILE.read_text()
    assert "docker/lock.sh" in (ROOT / "docs" / "docker-and-ci.md").read_text()
