"""The docker build context: the repository root filtered by /.dockerignore, as Docker filters it.

Docker's rules (moby/patternmatcher): patterns are cleaned paths relative to the context root,
``*`` and ``?`` do not cross ``/``, ``**`` crosses any number of directories, a pattern that
matches a directory matches everything below it, ``!`` re-includes, and the last matching pattern
wins (so an exception can re-include a file inside an excluded directory).
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
from pathlib import Path

Patterns = list[tuple[bool, re.Pattern[str], str]]  # (is_exception, compiled, cleaned text)


def read_patterns(path: Path) -> Patterns:
    """The patterns of a .dockerignore file, in order."""
    patterns: Patterns = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        if exception:
            line = line[1:].strip()
        line = posixpath.normpath(line).lstrip("/")
        patterns.append((exception, re.compile(_translate(line)), line))
    return patterns


def _translate(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.index("]", i)
            out.append("[" + pattern[i + 1:end].replace("!", "^", 1) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def is_excluded(relpath: str, patterns: Patterns) -> bool:
    parts = relpath.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]  # the path and its parents
    excluded = False
    for exception, pattern, _ in patterns:
        if any(pattern.fullmatch(candidate) for candidate in candidates):
            excluded = not exception
    return excluded


def _may_reinclude(directory: str, patterns: Patterns) -> bool:
    """Whether an exception pattern could match something below ``directory`` (else the walk
    skips it: .git, .venv, ...)."""
    for exception, _, text in patterns:
        literal = re.split(r"[*?\[\\]", text, maxsplit=1)[0]
        if exception and (not literal or literal.startswith(directory + "/") or directory.startswith(literal)):
            return True
    return False


def context_files(root: Path) -> list[str]:
    """Relative paths of the files `docker build -f docker/Dockerfile .` sends from ``root``."""
    ignore = root / ".dockerignore"
    patterns = read_patterns(ignore) if ignore.exists() else []
    found = []
    for directory, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        # skip excluded directories that no exception can reach into (.git, .venv, ...)
        dirnames[:] = [d for d in dirnames
                       if not is_excluded(rel_dir + d, patterns) or _may_reinclude(rel_dir + d, patterns)]
        for filename in filenames:
            rel = rel_dir + filename
            if not is_excluded(rel, patterns):
                found.append(rel)
    return sorted(found)


def copy_context(root: Path, target: Path) -> list[str]:
    files = context_files(root)
    for rel in files:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target / rel)
    return files
