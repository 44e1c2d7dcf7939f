"""The service's scenarios, run the same way on the real service and on the fake.

Both sides follow the scenario's *real-service* path (``run.is_fake`` is false on both, as
``fakes scenarios run --real`` runs it), so the two flows make the same requests in the same
order. The real side uses the user's credentials and waits in real time where the scenario
documents a wait (within ``--max-wait``); the fake side makes a credential of the same name
through its control plane (with the scenario's own recipe) and moves its virtual clock instead of
waiting. A scenario the real side cannot run (a credential the user did not give, a write without
``--allow-writes``, the call budget spent) stops there; what it reached is still compared.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..kernel.cli import scenarios_package
from .observed import RefusedCall
from .sides import FakeSide, RealSide


def load_runner() -> Any:
    """The scenario runner (``fakes.scenarios.runner`` installed, ``scenarios.runner`` in a checkout)."""
    return importlib.import_module(f"{scenarios_package()}.runner")


def service_scenarios(service: str, names: list[str] | None = None) -> dict[str, Any]:
    """The scenarios of ``service`` (all, or those named), by name; unknown names raise KeyError."""
    every = load_runner().discover()
    own = {name: scenario for name, scenario in every.items() if scenario.service == service}
    if names is None:
        return own
    missing = [name for name in names if name not in own]
    if missing:
        raise KeyError(f"{', '.join(missing)} (scenarios of {service}: {', '.join(own) or 'none'})")
    return {name: own[name] for name in names}


@dataclass
class FlowResult:
    name: str
    real: str  # passed | failed | skipped | stopped
    real_message: str
    fake: str
    fake_message: str

    def to_dict(self) -> dict[str, str]:
        return {"scenario": self.name, "real": self.real, "real_message": self.real_message,
                "fake": self.fake, "fake_message": self.fake_message}


def _mirror_run_class(runner: Any) -> Any:
    class MirrorRun(runner.Run):  # type: ignore[misc]
        """The real-service path of a flow, on a fake: credentials the user gave the real side are
        made on the fake with the scenario's own recipe; time is the fake's."""

        def __init__(self, client: Any, *, fake_side: FakeSide, given: set[str], **kwargs: Any) -> None:
            super().__init__(client, is_fake=False, sleep=fake_side.sleep, **kwargs)
            self._fake_side = fake_side
            self._given = given

        def credential(self, name: str, *, create: Callable[[], str] | None = None) -> str:
            if name in self.credentials:
                return str(self.credentials[name])
            if name not in self._given:
                raise runner.ScenarioSkipped(f"needs credential {name!r} (pass --credentials {name}=...)")
            if create is None:
                raise runner.ScenarioSkipped(f"the fake cannot make credential {name!r} (the scenario has no "
                                             "recipe for it)")
            self.is_fake = True  # the recipe runs the fake's control plane
            try:
                value = create()
            finally:
                self.is_fake = False
            self.credentials[name] = value
            return str(value)

        def now_ms(self) -> int:
            return int(self._fake_side.fake.clock.now_ms())

    return MirrorRun


def _run(runner: Any, scenario: Any, run: Any) -> tuple[str, str]:
    try:
        scenario.flow(run)
    except runner.ScenarioSkipped as exc:
        return "skipped", str(exc)
    except runner.ScenarioFailed as exc:
        cause = exc.__cause__
        if isinstance(cause, RefusedCall):
            return "stopped", str(cause)
        return "failed", str(exc)
    except RefusedCall as exc:
        return "stopped", str(exc)
    except Exception as exc:  # a scenario's own error on this side: reported, the run goes on
        return "failed", repr(exc)
    return "passed", ""


def run_both(scenario: Any, real: RealSide, fake: FakeSide, credentials: dict[str, str]) -> FlowResult:
    """Run ``scenario`` on the real side, then its mirror on the fake side."""
    runner = load_runner()
    real.source = fake.source = scenario.name
    real_report = runner.Report(scenario.name, real.base_url, "real")
    real_run = runner.Run(real.client, is_fake=False, credentials=dict(credentials), report=real_report,
                          sleep=real.sleep)
    real_status, real_message = _run(runner, scenario, real_run)
    fake_report = runner.Report(scenario.name, fake.base_url, "real")
    fake_run = _mirror_run_class(runner)(fake.client, fake_side=fake, given=set(credentials), report=fake_report)
    fake_status, fake_message = _run(runner, scenario, fake_run)
    return FlowResult(scenario.name, real_status, real_message, fake_status, fake_message)
