"""``fakes serve --wiremock-mappings [SVC=]DIR`` (FAKES_WIREMOCK_MAPPINGS): WireMock mapping
folders loaded as stubs at start (:mod:`fakes.kernel.wiremock`).

Which service gets a folder's mappings: the one named (``filings=./wiremock``); with a bare
folder, the one service served, or, when several are served, each service its own sub-folder
(``./wiremock/filings/``, ``./wiremock/relay/`` ...). A folder that cannot be read is one line and
exit status 2; a mapping that cannot be translated is named with the reason, and the start goes on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from .stubs import StubSet
from .wiremock import MappingsFolderError, import_into, read_folder

_SERVICE = re.compile(r"[a-z][a-z0-9_-]{0,63}\Z")


class Stubbed(Protocol):
    @property
    def stubs(self) -> StubSet: ...


def mapping_folders(items: Sequence[str], served: Sequence[str], known: Sequence[str]) -> list[tuple[str, Path]]:
    """(service, folder) of each ``--wiremock-mappings`` item; :class:`MappingsFolderError` (one
    line) for a folder or service that cannot be used."""
    found: list[tuple[str, Path]] = []
    for item in items:
        name, sep, rest = item.partition("=")
        if sep and _SERVICE.match(name):
            if name not in known:
                raise MappingsFolderError(f"--wiremock-mappings {item}: unknown service {name!r}; "
                                          f"known: {', '.join(known)}")
            if name not in served:
                raise MappingsFolderError(f"--wiremock-mappings {item}: {name} is not served (--only)")
            folder = Path(rest)
            if not folder.is_dir():
                raise MappingsFolderError(f"--wiremock-mappings {item}: {rest} is not a folder")
            found.append((name, folder))
            continue
        folder = Path(item)
        if not folder.is_dir():
            raise MappingsFolderError(f"--wiremock-mappings {item}: not a folder (give DIR or SERVICE=DIR)")
        if len(served) == 1:
            found.append((served[0], folder))
            continue
        per_service = [(name, folder / name) for name in served if (folder / name).is_dir()]
        if not per_service:
            raise MappingsFolderError(f"--wiremock-mappings {item}: {len(served)} services are served; name one "
                                      f"(SERVICE={item}) or give the folder one sub-folder per service "
                                      f"({item}/{served[0]}/ ...)")
        found.extend(per_service)
    return found


def load_mappings(fakes: Mapping[str, Stubbed], folders: Sequence[tuple[str, Path]]) -> list[str]:
    """Load each folder's mappings into its service's stubs (before the model); the lines that
    say what was loaded and what was refused, and why."""
    lines: list[str] = []
    for service, folder in folders:
        found: list[tuple[str, Any]] = read_folder(folder)
        result = import_into(fakes[service].stubs, found)
        lines.append(f"wiremock mappings from {folder}: {len(result.added)} stubs for {service}"
                     + (f", {len(result.refused)} refused:" if result.refused else ""))
        lines += [f"  refused {refused.source}: {refused.reason}" for refused in result.refused]
    return lines
