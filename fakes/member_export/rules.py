"""Client rules of the member data export API: what a client must do, from the seed and reference.

Each rule is flagged where the fake sees it broken: the version header in :mod:`.routes`, paging
in :mod:`.snapshots` (stopping at ``total``: :mod:`.paging`), the changelog in :mod:`.model` (models
append ``(rule, detail)`` to the list their route hands them). Listed in
:attr:`MemberExportFake.client_rules`; see docs/verdicts.md.
"""

from __future__ import annotations

from fakes.kernel.verdicts import ClientRule

NO_VERSION_HEADER = ClientRule(
    "member-export/no-version-header", "warning",
    "Every request must carry the version header (Service-Version: 202312); without it the API answers 426.",
    "seed 000 A, Versioning: 'Every request carries the header Service-Version: 202312'")
PAGING_PAST_404 = ClientRule(
    "member-export/paging-past-404", "error",
    "Paging ends at the first 404 'No data found'; asking for a later start of the same domain walks past the "
    "end of the data.",
    "seed 000 A, Endpoints rule 1: 'Paging loops on start from 0 until the service answers 404 No data found'")
RELYING_ON_TOTAL = ClientRule(
    "member-export/relying-on-total", "warning",
    "paging.total is unreliable: a page asked for after the domain's 404 that only the reported total "
    "promised means the client pages by total instead of stopping at the 404.",
    "seed 000 A, Resources: 'a total field that is unreliable and must not be used to decide the end of paging'")
STOPPED_AT_TOTAL = ClientRule(
    "member-export/stopped-at-total", "warning",
    "Paging ends at the 404, not at paging.total: the client stopped after the page total promised as the last "
    "while later pages still had data, so it silently lost rows (total is unreliable; fakes/member_export/paging.py "
    "says when it is judged).",
    "seed 000 A, Resources: 'a total field that is unreliable and must not be used to decide the end of paging'")
CHANGELOG_START_TOO_OLD = ClientRule(
    "member-export/changelog-start-too-old", "error",
    "startTime may look back at most 28 days; older events are gone, so a client asking for them has lost data "
    "(the answer is clamped to the last 28 days).",
    "seed 000 A, Limits: 'look-back at most 28 days'; real-apis.md A.1 Changelog (line 69): older is clamped, not an "
    "error")
POLLING_TOO_FAST = ClientRule(
    "member-export/polling-too-fast", "warning",
    "Poll the changelog at most once per poll_interval_s (an hour) per member, except to drain a full page.",
    "real-apis.md A.1 Changelog (line 69): 'Recommended polling once an hour per member'")
REPOLLING_IDENTICAL_WINDOW = ClientRule(
    "member-export/repolling-identical-window", "warning",
    "After a full page the next poll must move startTime to the latest processedAt; asking the same startTime "
    "and count again returns the identical page (a client stuck in a loop, e.g. count=1).",
    "seed 000 A, Endpoints rule 2 (inclusive startTime); real-apis.md A.1 Changelog (line 69): the recommended "
    "cursor is the latest processedAt of the previous response")

CALLED_AFTER_DAILY_LIMIT = ClientRule(
    "member-export/called-after-daily-limit", "error",
    "A daily limit answered 429; calling the same resource again before midnight UTC only gets 429 again "
    "(back off until the next UTC day).",
    "learn.microsoft.com LinkedIn API guide, Rate Limiting: limits per application and member per day, reset at "
    "midnight UTC, a throttled call answers 429")

RULES = (NO_VERSION_HEADER, PAGING_PAST_404, RELYING_ON_TOTAL, STOPPED_AT_TOTAL, CHANGELOG_START_TOO_OLD,
         POLLING_TOO_FAST, REPOLLING_IDENTICAL_WINDOW, CALLED_AFTER_DAILY_LIMIT)
