"""What the routes, the control plane, the panels and the benchmark need of the fake, as protocols.

:class:`~fakes.member_export.MemberExportFake` composes these pieces and satisfies both protocols;
the pieces depend on them rather than on the class that imports them, so the package reads
bottom-up.
"""

from __future__ import annotations

from typing import Any, Protocol

from fakes.kernel.clock import Clock

from .model import MemberExportModel
from .page_cache import RenderedPages
from .settings import MemberExportSettings


class ServedMemberExport(Protocol):
    """What a request's handling reads: the model (replaced by reset and import, so read per
    request), the settings and the clock."""

    @property
    def model(self) -> MemberExportModel: ...

    @property
    def settings(self) -> MemberExportSettings: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def rendered_pages(self) -> RenderedPages: ...


class ControlledMemberExport(ServedMemberExport, Protocol):
    """The control plane as Python (what ``/_fake/`` calls, the dashboard and the benchmark use)."""

    def create_member(self, *, region: Any = None, name: Any = None, sizes: Any = None,
                      build_times: Any = None) -> dict[str, Any]: ...

    def member_info(self, member_id: str) -> dict[str, Any]: ...

    def consent(self, member_id: str, *, expires_in: Any = None) -> dict[str, Any]: ...

    def act(self, member_id: str, action: Any, /, **details: Any) -> dict[str, Any]: ...

    def issue_token(self, member_id: str, *, expires_in: Any = None, scope: Any = None,
                    client_id: Any = None) -> dict[str, Any]: ...

    def register_application(self, **fields: Any) -> dict[str, Any]: ...

    def application_info(self, client_id: str) -> dict[str, Any]: ...

    def sign_in(self, member_id: str | None) -> dict[str, Any]: ...

    def authorize(self, client_id: str, member_id: str, *, scope: Any = None, redirect_uri: Any = None,
                  state: Any = None) -> dict[str, Any]: ...

    def revoke(self, member_id: str, client_id: str | None = None) -> dict[str, Any]: ...
