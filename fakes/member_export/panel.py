"""The member export fake's dashboard panels: its members, and their domains' builds on a timeline.

Read through the model's public reads (``members``, ``member_info``) only; see
docs/dashboard.md for the shapes.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any

from fakes.kernel.dashboard.panels import MAX_ROWS, Panel, collect, lane, progress, span, table, timeline, when

if TYPE_CHECKING:
    from .served import ControlledMemberExport

#: members drawn on the build timeline (the newest ones)
TIMELINE_MEMBERS = 8
#: domain names listed in a timeline lane's label before "+N more"
NAMED_DOMAINS = 3


def panels(fake: ControlledMemberExport) -> list[Panel]:
    return collect(fake, members, builds)


def _newest(fake: ControlledMemberExport, count: int) -> list[dict[str, Any]]:
    ids = list(reversed(list(fake.model.members)))
    return [fake.member_info(member_id) for member_id in islice(ids, count)]


def members(fake: ControlledMemberExport) -> Panel:
    now = fake.clock.now_ms()
    rows = []
    for info in _newest(fake, MAX_ROWS):
        ready = info["ready_at"] or {}
        built = sum(1 for instant in ready.values() if instant is not None and instant <= now)
        domains = len(info["records"])
        rows.append([info["id"], info["name"], info["region"], info["eligible"], when(info["regulatedAt"]),
                     progress(built / domains if domains and ready else 0, f"{built if ready else 0} of {domains}"),
                     sum(info["records"].values()), info["events"]])
    total = len(fake.model.members)
    note = f"{total} member{'' if total == 1 else 's'}, newest first" if total > MAX_ROWS else "newest first"
    return table("Members", ["member", "name", "region", "eligible", "consented", "domains built",
                             "records now", "changelog events"], rows, note=note)


def builds(fake: ControlledMemberExport) -> Panel:
    """Each consented member's domains, grouped by build time: from consent until available."""
    lanes = []
    waiting = 0
    for info in _newest(fake, TIMELINE_MEMBERS):
        if info["regulatedAt"] is None:
            waiting += 1
            continue
        by_instant: dict[int, list[str]] = {}
        for domain, instant in info["ready_at"].items():
            by_instant.setdefault(instant, []).append(domain)
        group = f"{info['name']} ({info['id']})"
        for instant in sorted(by_instant):
            names = by_instant[instant]
            shown = ", ".join(names[:NAMED_DOMAINS]) + (f" +{len(names) - NAMED_DOMAINS} more" if
                                                         len(names) > NAMED_DOMAINS else "")
            label = f"{len(names)} domain{'' if len(names) == 1 else 's'}: {shown}"
            lanes.append(lane(label, [span(info["regulatedAt"], instant, label)], group=group))
    note = "from consent until each domain's snapshot is available"
    if waiting:
        note += f"; {waiting} of the newest members not consented yet"
    return timeline("Domain builds", lanes, now_ms=fake.clock.now_ms(), note=note)
