"""The kernel reads bottom-up: each piece types the fake it serves as a small protocol of what it
uses, defined with it (app.ServedFake, control.ControlledFake, worlds.WorldFake, ...), and
``Fake`` on top composes the pieces and satisfies every protocol.

mypy checks that where ``Fake`` hands itself to a piece (``FakeApp(self, ...)``, ``Worlds(self)``)
or the kernel hands fakes on (``GatewayApp``, ``serve_summary``). The pieces that find their fake
in the request's scope, and the table of rules that reads fake classes, are checked here: mypy
reads the lines under ``TYPE_CHECKING`` below.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.protocols import run_mypy

if TYPE_CHECKING:
    from fakes.kernel.control import ControlledFake
    from fakes.kernel.dashboard.routes import ShownFake
    from fakes.kernel.fake import Fake
    from fakes.kernel.stubcontrol import StubbedFake
    from fakes.kernel.verdicts import RuledFake

    _controlled: ControlledFake = Fake()
    _shown: ShownFake = Fake()
    _stubbed: StubbedFake = Fake()
    _ruled: type[RuledFake] = Fake


def test_the_fake_is_what_each_piece_reads_of_it() -> None:
    status, report = run_mypy(__file__)
    assert status == 0, report


def test_a_fake_missing_what_a_piece_reads_is_caught(tmp_path: Path) -> None:
    partial = tmp_path / "partial.py"
    partial.write_text("from fakes.kernel.control import ControlledFake\n"
                       "class Partial:\n"
                       "    name = 'partial'\n"
                       "_: ControlledFake = Partial()\n")
    status, report = run_mypy(str(partial))
    assert status == 1 and 'variable has type "ControlledFake"' in report, report
