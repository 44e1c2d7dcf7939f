"""Saving the state directory while serving (``fakes serve --save-state DIR --save-state-every S``).

``--save-state`` alone writes the states on a clean stop (SIGTERM, Ctrl-C); a process that is
killed (SIGKILL, the out-of-memory killer, a node lost) keeps nothing of what happened since it
started. With ``--save-state-every S`` the serving loop also saves every S seconds of wall time,
so that a replica restarted after a crash brings its worlds back as they were at most S seconds
before it died (docs/fleet.md).

A save writes only what changed since the previous one: each fake's default world when its
exported state differs from the one last written, each world that received a request since (the
registry counts them), and it removes the files of worlds deleted or expired since. The states
are exported and serialised on the event loop (a consistent snapshot between two requests) and
written on a worker thread (the disk's fsync never holds up a request), one save at a time. The
final save on stop (:func:`fakes.kernel.statedir.save_states`) still writes everything.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path

from .fake import Fake
from .http import dumps
from .statedir import SUFFIX, WORLDS_DIR, write_bytes

log = logging.getLogger("fakes")


class IncrementalSaver:
    """What a periodic save writes: the states that changed since the last one."""

    def __init__(self, fakes: Mapping[str, Fake], directory: str | Path) -> None:
        self.fakes = fakes
        self.root = Path(directory)
        self._written: dict[str, bytes] = {}  # default world's file -> the bytes last written
        self._requests: dict[tuple[str, str], int] = {}  # (service, world) -> its request count when saved

    def snapshot(self) -> tuple[dict[Path, bytes], list[Path]]:
        """On the event loop: the files to write (path -> bytes) and the world files to remove."""
        writes: dict[Path, bytes] = {}
        removals: list[Path] = []
        for name, fake in self.fakes.items():
            path = self.root / f"{name}{SUFFIX}"
            data = dumps(fake.export_state())
            if self._written.get(name) != data:
                writes[path] = data
                self._written[name] = data
            worlds = fake.worlds
            if worlds is None:
                continue
            present = set()
            for world in worlds.describe():  # confirmed worlds only; also expires idle ones
                world_id, requests = world["id"], world["requests"]
                present.add(world_id)
                if self._requests.get((name, world_id)) == requests:
                    continue
                try:
                    child = worlds.get(world_id, create=False)
                except KeyError:  # deleted meanwhile
                    continue
                writes[self.root / name / WORLDS_DIR / f"{world_id}{SUFFIX}"] = dumps(child.export_state())
                self._requests[(name, world_id)] = requests
            for key in [key for key in self._requests if key[0] == name and key[1] not in present]:
                del self._requests[key]
            worlds_dir = self.root / name / WORLDS_DIR
            if worlds_dir.is_dir():
                removals += [stale for stale in worlds_dir.iterdir()
                             if stale.name.endswith(SUFFIX) and stale.name[:-len(SUFFIX)] not in present]
        return writes, removals

    def forget(self) -> None:
        """After a failed write: the next save writes everything again."""
        self._written.clear()
        self._requests.clear()

    @staticmethod
    def write(writes: dict[Path, bytes], removals: list[Path]) -> None:
        """On a worker thread: each file replaced at once (never half a file), stale ones removed."""
        for path, data in writes.items():
            write_bytes(path, data)
        for stale in removals:
            stale.unlink(missing_ok=True)


async def save_periodically(fakes: Mapping[str, Fake], directory: str | Path, every_s: float,
                            stop: asyncio.Event) -> None:
    """Save what changed every ``every_s`` seconds until ``stop`` is set; returns once no write
    is in flight (the final full save must come after the last periodic one)."""
    saver = IncrementalSaver(fakes, directory)
    while True:
        try:
            await asyncio.wait_for(stop.wait(), every_s)
            return
        except TimeoutError:
            pass
        try:
            writes, removals = saver.snapshot()
            if writes or removals:
                await asyncio.to_thread(saver.write, writes, removals)
        except OSError as exc:  # a full or vanished disk: say so, keep serving, try again next time
            saver.forget()
            log.warning("cannot save the states to %s: %s (retrying in %g s)", directory, exc.strerror or exc,
                        every_s)

