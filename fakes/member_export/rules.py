"""Client rules of the member data export API: what a client must do, each citing LinkedIn's public
documentation (or this project's docs page where the rule is the fake's own).

Each rule is flagged where the fake sees it broken: the version header in :mod:`.routes`, paging
in :mod:`.snapshots` (stopping at ``total``: :mod:`.paging`), the changelog in :mod:`.model` (models
append ``(rule, detail)`` to the list their route hands them). Listed in
:attr:`MemberExportFake.client_rules`; see docs/verdicts.md.
"""

from __future__ import annotations

from fakes.kernel.verdicts import ClientRule

#: LinkedIn's public documentation of the two APIs the rules come from
SNAPSHOT_API = "https://learn.microsoft.com/en-us/linkedin/dma/member-data-portability/shared/member-snapshot-api"
CHANGELOG_API = "https://learn.microsoft.com/en-us/linkedin/dma/member-data-portability/shared/member-changelog-api"

NO_VERSION_HEADER = ClientRule(
    "member-export/no-version-header", "warning",
    "Every request must carry the version header (Service-Version: 202312); without it the API answers 426.",
    SNAPSHOT_API + " (the versioned API: every call carries the version header, LinkedIn-Version: 202312); "
    "docs/services/member-export.md#public-api (the fake's header is Service-Version unless version_header says "
    "otherwise, and a call without it is 426)")
PAGING_PAST_404 = ClientRule(
    "member-export/paging-past-404", "error",
    "Paging ends at the first 404 'No data found'; asking for a later start of the same domain walks past the "
    "end of the data.",
    SNAPSHOT_API + " (page on start from 0 until the 404 'No data found for this memberId'); "
    "docs/services/member-export.md#public-api")
RELYING_ON_TOTAL = ClientRule(
    "member-export/relying-on-total", "warning",
    "paging.total is unreliable: a page asked for after the domain's 404 that only the reported total "
    "promised means the client pages by total instead of stopping at the 404.",
    SNAPSHOT_API + " (total may not match the pages there are: keep paging until the 404); "
    "docs/services/member-export.md#client-rules")
STOPPED_AT_TOTAL = ClientRule(
    "member-export/stopped-at-total", "warning",
    "Paging ends at the 404, not at paging.total: the client stopped after the page total promised as the last "
    "while later pages still had data, so it silently lost rows (total is unreliable; fakes/member_export/paging.py "
    "says when it is judged).",
    SNAPSHOT_API + " (total may not match the pages there are: keep paging until the 404); "
    "docs/services/member-export.md#client-rules")
CHANGELOG_START_TOO_OLD = ClientRule(
    "member-export/changelog-start-too-old", "error",
    "startTime may look back at most 28 days; older events are gone, so a client asking for them has lost data "
    "(the answer is clamped to the last 28 days).",
    CHANGELOG_API + " (startTime reaches back 28 days at most; an older one returns the last 28 days, no error)")
POLLING_TOO_FAST = ClientRule(
    "member-export/polling-too-fast", "warning",
    "Poll the changelog at most once per poll_interval_s (an hour) per member, except to drain a full page.",
    CHANGELOG_API + " (the recommended polling cadence: once an hour per member)")
REPOLLING_IDENTICAL_WINDOW = ClientRule(
    "member-export/repolling-identical-window", "warning",
    "After a full page the next poll must move startTime to the latest processedAt; asking the same startTime "
    "and count again returns the identical page (a client stuck in a loop, e.g. count=1).",
    CHANGELOG_API + " (startTime is inclusive; the next poll starts at the latest processedAt of the previous answer)")

CALLED_AFTER_DAILY_LIMIT = ClientRule(
    "member-export/called-after-daily-limit", "error",
    "A daily limit answered 429; calling the same resource again before midnight UTC only gets 429 again "
    "(back off until the next UTC day).",
    "https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits (daily limits per "
    "application and per member, reset at midnight UTC; a throttled call answers 429)")

RULES = (NO_VERSION_HEADER, PAGING_PAST_404, RELYING_ON_TOTAL, STOPPED_AT_TOTAL, CHANGELOG_START_TOO_OLD,
         POLLING_TOO_FAST, REPOLLING_IDENTICAL_WINDOW, CALLED_AFTER_DAILY_LIMIT)
