"""POST /_fake/reset keeps the verdicts (they judge the client, not the fake's world) unless its
body says {"verdicts": true}: "reset between jobs, then gate on errors" needs both in one call.
README says what reset does, and the control plane's OpenAPI document declares the body."""

from __future__ import annotations

import re
from pathlib import Path

from fakes.member_export import MemberExportFake

README = Path(__file__).resolve().parents[2] / "README.md"
BROKEN = ("/rest/memberChangeLogs", {"q": "memberAndApplication"})  # no version header: a verdict


def test_reset_keeps_verdicts_unless_asked() -> None:
    fake = MemberExportFake()
    fake.world("job-1")
    client = fake.client()
    for root in ("", "/_w/job-1"):  # the default world and a world alike
        client.get(root + BROKEN[0], params=BROKEN[1])
        assert client.get(root + "/_fake/verdicts").json()["verdicts"], root
        kept = client.post(root + "/_fake/reset")
        assert kept.status_code == 200 and kept.json()["verdicts_cleared"] is False
        assert client.get(root + "/_fake/verdicts").json()["verdicts"], "a plain reset forgets the verdicts"
        cleared = client.post(root + "/_fake/reset", json={"verdicts": True})
        assert cleared.status_code == 200 and cleared.json()["verdicts_cleared"] is True
        assert client.get(root + "/_fake/verdicts").json()["verdicts"] == [], root
        assert client.get(root + "/_fake/journal").json()["entries"] == [], "the reset itself happened"


def test_a_bad_reset_body_is_refused_and_resets_nothing() -> None:
    fake = MemberExportFake()
    client = fake.client()
    client.get(BROKEN[0], params=BROKEN[1])
    fake.advance(60)
    for body in ({"verdicts": "yes"}, {"verdict": True}, [True]):
        answer = client.post("/_fake/reset", json=body)
        assert answer.status_code == 400, (body, answer.text)
    assert fake.verdicts() and fake.journal.total == 1 and fake.clock.now_ms() > 1_767_603_600_000


def test_the_control_plane_document_declares_the_body() -> None:
    operation = MemberExportFake().client().get("/openapi.json").json()["paths"]["/_fake/reset"]["post"]
    body = operation["requestBody"]
    assert body["required"] is False
    schema = body["content"]["application/json"]["schema"]
    assert schema["properties"]["verdicts"]["type"] == "boolean" and schema["additionalProperties"] is False


def test_readme_says_what_reset_does() -> None:
    row = next(line for line in README.read_text().splitlines() if line.startswith("| `POST /_fake/reset`"))
    assert '{"verdicts": true}' in row, row
    assert not re.search(r"journal, verdicts, and", row), "README says a plain reset clears the verdicts"
