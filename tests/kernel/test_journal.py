"""The journal's compact ring (fakes/kernel/journal.py): the same entries as a list of dicts would
keep, with no object kept per request for a repeated request."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.kernel.journal import MAX_SHARED_REQUESTS, MAX_SHARED_TEXT, Journal

REQUEST = st.tuples(st.sampled_from(["GET", "POST", "HEAD"]), st.sampled_from(["/a", "/b/1", "/c"]),
                    st.sampled_from(["", "x=1", "x=2&y"]), st.sampled_from([200, 404, 0]),
                    st.integers(0, 253_402_300_799_999), st.sampled_from([(), ("r1",), ("r1: d", "r2")]))


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(size=st.integers(1, 7), steps=st.lists(st.one_of(REQUEST, st.just("clear")), max_size=40))
def test_the_ring_keeps_what_a_list_would(size: int, steps: list[object]) -> None:
    journal = Journal(size)
    model: list[dict[str, object]] = []
    for step in steps:
        if step == "clear":
            journal.clear()
            model.clear()
            continue
        assert isinstance(step, tuple)
        method, path, query, status, at, warnings = step
        seq = journal.add(method, path, query, status, at, warnings)
        model.append({"method": method, "path": path, "query": query, "status": status, "epoch_ms": at,
                      "warnings": list(warnings), "seq": seq})
        del model[:-size]
    kept = journal.entries()
    assert [{k: v for k, v in e.items() if k != "time"} for e in kept] == model
    assert len(journal) == len(model) and journal.total == sum(1 for s in steps if s != "clear")
    assert journal.warnings() == [w for e in model for w in e["warnings"]]  # type: ignore[attr-defined]
    assert journal.entries(method="get") == [e for e in kept if e["method"] == "GET"]
    assert journal.entries(path="/c", warnings_only=True) == [e for e in kept if e["path"] == "/c" and e["warnings"]]
    assert journal.entries(limit=2) == kept[-2:]


def test_a_repeated_request_shares_its_texts_and_the_table_is_bounded() -> None:
    journal = Journal(10)
    for _ in range(3):
        journal.add("GET", "/a", "x=1", 200, 5)
    assert journal._request[0] is journal._request[1] is journal._request[2]
    for n in range(MAX_SHARED_REQUESTS + 5):
        journal.add("GET", f"/p{n}", "", 200, 5)
    assert journal._shared is not None and len(journal._shared) <= MAX_SHARED_REQUESTS
    assert journal.entries()[-1]["path"] == f"/p{MAX_SHARED_REQUESTS + 4}"
    journal.add("GET", "/long", "q=" + "x" * MAX_SHARED_TEXT, 200, 5)  # long texts: kept by the entry only
    assert ("GET", "/long", "q=" + "x" * MAX_SHARED_TEXT) not in journal._shared
    assert journal.entries()[-1]["query"] == "q=" + "x" * MAX_SHARED_TEXT


def test_an_unused_journal_holds_no_slots_and_grows_to_its_size() -> None:
    journal = Journal(1000)
    assert len(journal._seq) == 0 and journal._request == [] and journal._shared is None
    for n in range(3):
        journal.add("GET", f"/{n}", "", 200, n)
    assert len(journal._seq) == 3
    for n in range(3, 2500):
        journal.add("GET", f"/{n}", "", 200, n)
    assert len(journal._seq) == 1000 and len(journal) == 1000
    assert [e["path"] for e in journal.entries()][:2] == ["/1500", "/1501"]
    assert journal.entries()[-1]["seq"] == 2500


def test_a_dict_entry_gets_its_seq_and_time() -> None:
    journal = Journal()
    entry = {"method": "MCP", "path": "/mcp/tools/x", "query": "{}", "status": 200, "epoch_ms": 0, "warnings": []}
    journal.record(entry)
    assert entry["seq"] == 1
    assert journal.entries() == [{**entry, "time": "1970-01-01T00:00:00Z"}]
