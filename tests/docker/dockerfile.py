"""A small, dependency-free Dockerfile reader: just enough of the format to check docker/Dockerfile.

It follows Docker's rules for what the image file uses: ``\\`` line continuations, comment lines
(also inside a continued instruction), global ``ARG`` before the first ``FROM``, stages with
``AS name``, ``ENV`` in ``key=value`` form (quotes, ``$VAR``/``${VAR}`` expansion), JSON (exec form)
``ENTRYPOINT``/``CMD``/``HEALTHCHECK CMD``, ``EXPOSE`` and ``COPY``. Anything it cannot read
raises :class:`DockerfileError` instead of being guessed.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

#: PATH of the official python images, which the image's ENV PATH extends
BASE_IMAGE_PATH = "/usr/local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


class DockerfileError(ValueError):
    pass


@dataclass
class Instruction:
    keyword: str  # upper case
    args: str  # the rest of the (joined) line
    line: int  # 1-based line where it starts

    def flags_and_rest(self) -> tuple[dict[str, str], str]:
        """``--from=builder --chmod=0755 a b`` -> ({"from": "builder", "chmod": "0755"}, "a b")."""
        flags: dict[str, str] = {}
        rest = self.args
        while rest.startswith("--"):
            word, _, rest = rest.partition(" ")
            name, _, value = word[2:].partition("=")
            flags[name] = value
            rest = rest.lstrip()
        return flags, rest


@dataclass
class Stage:
    base: str
    name: str | None
    index: int
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None

    def env(self, base_env: dict[str, str] | None = None) -> dict[str, str]:
        """The stage's environment after all its ENV instructions (on top of ``base_env``)."""
        env = dict(base_env or {"PATH": BASE_IMAGE_PATH})
        for instruction in self.all("ENV"):
            for key, value in parse_env_args(instruction.args):
                env[key] = expand(value, env)
        return env

    def args(self, global_args: dict[str, str], build_args: dict[str, str] | None = None) -> dict[str, str]:
        """The stage's ARG values: ``--build-arg`` values win, then the stage's default, then the
        global default (an ``ARG NAME`` without one re-declares the global ARG)."""
        values: dict[str, str] = {}
        for instruction in self.all("ARG"):
            name, sep, default = instruction.args.partition("=")
            name = name.strip()
            if build_args and name in build_args:
                values[name] = build_args[name]
            elif sep:
                values[name] = expand(default.strip().strip('"'), values)
            else:
                values[name] = global_args.get(name, "")
        return values

    def labels(self, global_args: dict[str, str], build_args: dict[str, str] | None = None) -> dict[str, str]:
        """The stage's LABELs (``key="value"`` pairs), its ARGs expanded."""
        args = self.args(global_args, build_args)
        return {key: expand(value, args) for instruction in self.all("LABEL")
                for key, value in parse_env_args(instruction.args)}

    def exec_form(self, keyword: str) -> list[str] | None:
        instruction = self.last(keyword)
        if instruction is None:
            return None
        return parse_exec_form(instruction.args, f"{keyword} (line {instruction.line})")

    def exposed_ports(self) -> list[int]:
        ports = []
        for instruction in self.all("EXPOSE"):
            for item in instruction.args.split():
                number, _, proto = item.partition("/")
                if proto not in ("", "tcp"):
                    raise DockerfileError(f"EXPOSE {item}: only TCP ports are expected")
                ports.append(int(number))
        return ports

    def healthcheck(self) -> tuple[dict[str, str], list[str]] | None:
        """(options, exec-form command) of the stage's HEALTHCHECK; None if there is none."""
        instruction = self.last("HEALTHCHECK")
        if instruction is None:
            return None
        options, rest = instruction.flags_and_rest()
        keyword, _, command = rest.partition(" ")
        if keyword.upper() == "NONE":
            return None
        if keyword.upper() != "CMD":
            raise DockerfileError(f"HEALTHCHECK (line {instruction.line}) has no CMD")
        return options, parse_exec_form(command.strip(), f"HEALTHCHECK CMD (line {instruction.line})")

    def copies(self) -> list[tuple[dict[str, str], list[str], str]]:
        """(flags, sources, destination) of each COPY/ADD."""
        found = []
        for instruction in self.instructions:
            if instruction.keyword not in ("COPY", "ADD"):
                continue
            flags, rest = instruction.flags_and_rest()
            words = parse_exec_form(rest, "COPY") if rest.startswith("[") else shlex.split(rest)
            if len(words) < 2:
                raise DockerfileError(f"COPY (line {instruction.line}) needs a source and a destination")
            found.append((flags, words[:-1], words[-1]))
        return found


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    @property
    def final(self) -> Stage:
        return self.stages[-1]

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Join continuation lines, drop comments and blank lines: [(first line number, text)]."""
    lines: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not pending):
            continue  # a comment line, also in the middle of a continued instruction
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        lines.append((start, " ".join(part for part in pending if part)))
        pending = []
    if pending:
        raise DockerfileError(f"line {start}: the file ends inside a continued instruction")
    return lines


def parse(text: str) -> Dockerfile:
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for number, line in logical_lines(text):
        keyword, _, args = line.partition(" ")
        instruction = Instruction(keyword.upper(), args.strip(), number)
        if instruction.keyword == "FROM":
            _, rest = instruction.flags_and_rest()  # e.g. --platform
            words = rest.split()
            if len(words) not in (1, 3) or (len(words) == 3 and words[1].upper() != "AS"):
                raise DockerfileError(f"line {number}: FROM image [AS name], got {rest!r}")
            stages.append(Stage(base=expand(words[0], global_args), name=words[2] if len(words) == 3 else None,
                                index=len(stages)))
        elif not stages:
            if instruction.keyword != "ARG":
                raise DockerfileError(f"line {number}: only ARG may come before the first FROM")
            name, _, default = instruction.args.partition("=")
            global_args[name.strip()] = default.strip()
        else:
            stages[-1].instructions.append(instruction)
    if not stages:
        raise DockerfileError("no FROM instruction")
    return Dockerfile(global_args, stages)


def read(path: Path) -> Dockerfile:
    return parse(path.read_text())


def parse_exec_form(args: str, what: str) -> list[str]:
    try:
        value = json.loads(args)
    except json.JSONDecodeError:
        raise DockerfileError(f"{what} is not in exec (JSON array) form: {args!r}") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DockerfileError(f"{what} must be a JSON array of strings: {args!r}")
    return value


def parse_env_args(args: str) -> list[tuple[str, str]]:
    """``ENV a=1 b="two words" c=`` -> [("a", "1"), ("b", "two words"), ("c", "")]."""
    words = shlex.split(args, posix=True)
    if words and "=" not in words[0]:  # the legacy form: ENV key value with spaces
        return [(words[0], " ".join(words[1:]))]
    pairs = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise DockerfileError(f"ENV {args!r}: {word!r} is not key=value")
        pairs.append((key, value))
    return pairs


def expand(value: str, env: dict[str, str]) -> str:
    """Docker's ``$VAR`` / ``${VAR}`` substitution (an unset variable becomes empty)."""
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), ""), value)
