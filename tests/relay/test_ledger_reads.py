"""A page of a team's ledger and the rows of one call are read without making every row: the same
rows, in the same order, as reading the whole ledger and picking them, full ring or not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.relay import RelayFake
from fakes.relay.ledger import Ledger

CALL_IDS = st.sampled_from(["call_a", "call_b", "call_c", None])


@settings(max_examples=200, deadline=None)
@given(limit=st.integers(1, 7), rows=st.lists(CALL_IDS, max_size=30), offset=st.integers(0, 12),
       page=st.integers(1, 12), wanted=st.sampled_from(["call_a", "call_b", "call_z"]))
def test_a_page_and_a_calls_rows_are_the_whole_ledgers(limit: int, rows: list[str | None], offset: int, page: int,
                                                       wanted: str) -> None:
    ledger = Ledger(limit)
    for number, call_id in enumerate(rows):
        ledger.add(1_000 * number, "call" if call_id else "topup", call_id, "a.b" if call_id else None, -number,
                   10_000 - number)
    whole = ledger.dicts()
    assert ledger.newest(offset, page) == list(reversed(whole))[offset:offset + page]
    assert ledger.of_call(wanted) == [row for row in whole if row["call_id"] == wanted]


def test_the_balance_and_a_call_read_the_ledger_as_before() -> None:
    fake = RelayFake(seed=0)
    headers = fake.auth_headers()
    client = fake.client(headers=headers)
    for _ in range(4):
        client.get("/call/firmdata.companies.enrich", params={"domain": "northwind.com"})
    team = fake.model.team_for_token(headers[fake.model.h.token])
    items = client.get(f"/orgs/{team.number}/balance", params={"limit": 3, "offset": 1}).json()["entries"]["items"]
    newest = list(reversed(team.ledger_rows()))[1:4]
    assert [(i["kind"], i["amount_micro"], i["created_at"]) for i in items] == [
        (r["kind"], r["amount_micro"], r["at"]) for r in newest]
    call_id = next(r["call_id"] for r in reversed(team.ledger_rows()) if r["call_id"])
    ledger = client.get(f"/calls/{call_id}").json()["ledger"]
    assert ledger == [{"kind": "settle" if r["kind"] == "call" else r["kind"], "amount_micro": r["amount_micro"],
                       "endpoint_id": r["endpoint_id"], "created_at": r["at"]}
                      for r in team.ledger_rows() if r["call_id"] == call_id] != []
