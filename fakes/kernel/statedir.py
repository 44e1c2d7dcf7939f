"""A state directory: the exported states of served fakes and their worlds, one JSON file each.

``fakes serve --state DIR`` loads one at start and ``--save-state DIR`` writes one on stop (the
same directory may be both: the fakes then carry their state across restarts). The layout::

    DIR/<service>.json                    the service's state, as GET /_fake/state exports it
    DIR/<service>/worlds/<world id>.json  a world's, as GET /_w/<world id>/_fake/state exports it

Every file is optional. Loading validates each as ``PUT /_fake/state`` does (same service, seed
and settings, every field of the model) and refuses the first bad one as a :class:`StateFileError`
naming the file and the field; nothing is served then. Saving writes each file to a temporary
name beside it and renames it into place (a reader never sees half a file; a crash leaves the
previous one), and removes the world files of worlds that are gone.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .errors import ServiceError
from .fake import Fake
from .http import dumps
from .worlds import InvalidWorldId, WorldCapReached, check_world_id

WORLDS_DIR = "worlds"
SUFFIX = ".json"


class StateFileError(Exception):
    """A state directory or file that cannot be loaded or written: one line naming it."""


def load_states(fakes: Mapping[str, Fake], directory: str | os.PathLike[str], known: list[str]) -> list[str]:
    """Import every state file of ``directory`` into ``fakes`` (service name -> fake); returns what
    was loaded (``filings``, ``filings/worlds/job-1``). ``known``: every registered service (a file
    of a service not being served is skipped; one of no service at all is refused)."""
    root = Path(directory)
    if not root.is_dir():
        raise StateFileError(f"--state {directory}: not a directory (one file per service: <service>.json, "
                             f"worlds in <service>/{WORLDS_DIR}/<id>.json)")
    loaded = []
    # each service's own file before the worlds' directories (sorted, "x" comes before "x.json")
    for path in sorted(root.iterdir(), key=lambda p: (p.is_dir(), p.name)):
        name = path.name
        if name.startswith("."):
            continue  # .saving files of an interrupted save, editors' files
        if path.is_file() and name.endswith(SUFFIX):
            service = name[:-len(SUFFIX)]
            _check_service(path, service, known)
            if service in fakes:
                fake = fakes[service]
                _import(path, fake.import_state, fake)
                loaded.append(service)
        elif path.is_dir():
            _check_service(path, name, known)
            if name in fakes:
                loaded += _load_worlds(fakes[name], path)
        else:
            raise StateFileError(f"{path}: not a state file (expected <service>.json or a <service>/ directory)")
    return loaded


def _check_service(path: Path, service: str, known: list[str]) -> None:
    if service not in known:
        raise StateFileError(f"{path}: {service!r} is not a service; known: {', '.join(known)}")


def _load_worlds(fake: Fake, directory: Path) -> list[str]:
    loaded = []
    for path in sorted(directory.iterdir()):
        if path.name.startswith("."):
            continue
        if path.name != WORLDS_DIR or not path.is_dir():
            raise StateFileError(f"{path}: unexpected; a service's directory holds {WORLDS_DIR}/<id>.json")
        for world_file in sorted(path.iterdir()):
            if world_file.name.startswith("."):
                continue
            world_id = world_file.name[:-len(SUFFIX)] if world_file.name.endswith(SUFFIX) else ""
            try:
                check_world_id(world_id)
            except InvalidWorldId:
                raise StateFileError(f"{world_file}: not a world's state file (<world id>.json, the id matching "
                                     "[A-Za-z0-9_-]{1,64})") from None
            try:
                _import(world_file, functools.partial(_load_world, fake, world_id), fake)
            except WorldCapReached as exc:
                raise StateFileError(f"{world_file}: {exc}") from None
            loaded.append(f"{fake.name}/{WORLDS_DIR}/{world_id}")
    return loaded


def _load_world(fake: Fake, world_id: str, state: dict[str, Any]) -> None:
    fake.world(world_id, state=state)


def _read(path: Path, fake: Fake) -> dict[str, Any]:
    """A state file's JSON, after the same size check as ``PUT /_fake/state``."""
    try:
        size = path.stat().st_size
        if size > fake.max_state_bytes:
            raise StateFileError(f"{path}: {size} bytes, more than --max-state-bytes {fake.max_state_bytes}")
        text = path.read_bytes()
    except OSError as exc:
        raise StateFileError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        state = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise StateFileError(f"{path}: not JSON: {exc}") from None
    if not isinstance(state, dict):
        raise StateFileError(f"{path}: must be a JSON object, as GET /_fake/state exports it")
    return state


def _import(path: Path, load: Callable[[dict[str, Any]], Any], fake: Fake) -> None:
    state = _read(path, fake)
    try:
        load(state)
    except ServiceError as err:  # what PUT /_fake/state would answer with a 400
        raise StateFileError(describe_refusal(path, err)) from None


def describe_refusal(path: Path, err: ServiceError) -> str:
    """``DIR/filings.json: field model.keys[0].tier: must be one of ...`` for a refused import."""
    field = err.extra.get("field")
    message = err.message.removeprefix("invalid state: ")
    if field and message.startswith(f"{field} "):
        message = message[len(field) + 1:]
    return f"{path}: " + (f"field {field}: {message}" if field else message)


def save_states(fakes: Mapping[str, Fake], directory: str | os.PathLike[str]) -> list[str]:
    """Write each fake's state and each of its worlds' to ``directory`` (created if missing);
    returns what was written. World files of worlds that no longer exist are removed."""
    root = Path(directory)
    written = []
    for name, fake in fakes.items():
        _write(root / f"{name}{SUFFIX}", fake.export_state())
        written.append(name)
        worlds_dir = root / name / WORLDS_DIR
        kept = set()
        worlds = fake.worlds
        for world_id in worlds.ids() if worlds is not None else []:
            assert worlds is not None
            try:
                world = worlds.get(world_id, create=False)
            except KeyError:  # deleted meanwhile
                continue
            _write(worlds_dir / f"{world_id}{SUFFIX}", world.export_state())
            kept.add(f"{world_id}{SUFFIX}")
            written.append(f"{name}/{WORLDS_DIR}/{world_id}")
        if worlds_dir.is_dir():
            for stale in worlds_dir.iterdir():
                if stale.name.endswith(SUFFIX) and stale.name not in kept:
                    stale.unlink()
    return written


def _write(path: Path, state: dict[str, Any]) -> None:
    """``path`` replaced at once by ``state`` (a temporary file beside it, flushed, renamed)."""
    write_bytes(path, dumps(state))


def write_bytes(path: Path, data: bytes) -> None:
    """``path`` replaced at once by ``data``: a reader never sees half a file, a crash leaves the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".saving-{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_writable(directory: str | os.PathLike[str]) -> None:
    """Refuse at start a ``--save-state`` directory that could not be written on stop."""
    root = Path(directory)
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(prefix=".saving-probe.", dir=root)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise StateFileError(f"--save-state {directory}: cannot write there: {exc.strerror or exc}") from None
