"""The one matcher of the kernel (fakes/kernel/criteria.py) on a request that is not in a journal:
what a stub matching live requests uses. A compiled pattern, one request as the criteria read it."""

from __future__ import annotations

from fakes.kernel.budget import Budget
from fakes.kernel.criteria import RequestPattern, Sent
from fakes.kernel.redaction import redactor


def live(body: bytes = b'{"order": {"id": 7, "lines": [{"sku": "a", "qty": 2}]}, "password": "pw-1"}') -> Sent:
    headers = [(b"content-type", b"application/json"), (b"authorization", b"Bearer tok-123"), (b"x-trace", b"1"),
               (b"x-trace", b"2")]
    return Sent("POST", "/orders/7", "dry_run=1&api_key=k-9", headers=headers, body=body)


def test_a_live_request_is_matched_without_a_journal() -> None:
    pattern = RequestPattern.build("post", "/orders/*", headers={"Content-Type": {"contains": "json"}},
                                   query={"dry_run": "1"}, json={"order": {"lines": [{"sku": "a"}]}})
    assert pattern.matches(live())
    assert not pattern.matches(live(b'{"order": {"lines": [{"sku": "b"}]}}'))
    assert RequestPattern.build(headers={"x-trace": "1, 2"}).matches(live())  # repeated: joined by ", "
    failed = RequestPattern.build("GET", json={"order": {"id": 8}}).failures(live(), None, Budget())
    assert [f.criterion for f in failed] == ["method", "json"]


def test_credentials_match_whole_with_the_services_redactor() -> None:
    shown = redactor()
    assert RequestPattern.build(headers={"authorization": "Bearer tok-123"}).matches(live(), shown)
    assert not RequestPattern.build(headers={"authorization": {"contains": "tok"}}).matches(live(), shown)
    assert RequestPattern.build(headers={"authorization": {"contains": "tok"}}).matches(live())  # none: as sent
    assert not RequestPattern.build(query={"api_key": {"matches": "k-.*"}}).matches(live(), shown)
    assert not RequestPattern.build(body_contains="pw-1").matches(live(), shown)

