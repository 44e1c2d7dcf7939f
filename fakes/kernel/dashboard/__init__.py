"""The dashboard every fake serves at ``/_fake/ui`` (and each world at ``/_w/<id>/_fake/ui``).

Plain HTML, CSS and a little JavaScript, served by the fake itself from this package's data:
no build step, nothing fetched from elsewhere. The page reads the control plane's own JSON
(clock, journal, verdicts, faults, worlds) and ``/_fake/ui/panels``, the service's panels from
:meth:`~fakes.kernel.fake.Fake.dashboard_panels` in the shapes of :mod:`.panels`. See
docs/dashboard.md.
"""

from __future__ import annotations

from .auth import dashboard_allows
from .openapi import dashboard_paths
from .routes import DASHBOARD_ROUTES, GATEWAY_ROOT, describe_panels, gateway_index

__all__ = ["DASHBOARD_ROUTES", "GATEWAY_ROOT", "dashboard_allows", "dashboard_paths", "describe_panels",
           "gateway_index"]
