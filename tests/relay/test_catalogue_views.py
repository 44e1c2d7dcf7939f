"""The catalogue's reads are kept (they are a pure function of the catalogue) and worked out again
as soon as a provider or an entry is added: a cached answer never hides a change."""

from __future__ import annotations

from fakes.relay import RelayFake


def test_kept_reads_follow_every_change_of_the_catalogue() -> None:
    fake = RelayFake(seed=0)
    client = fake.client()
    before = client.get("/catalog/search?q=zebrafish").json()
    platforms = client.get("/catalog/platforms").json()["platforms"]
    assert before["count"] == 0 and "zoo" not in {row["slug"] for row in platforms}
    assert client.get("/catalog/platforms/zoo").status_code == 404
    assert client.get("/catalog/search?q=zebrafish").json() == before  # asked again: the same answer
    missing = client.get("/catalog/endpoints/zoo.animals.zebrafish")
    assert missing.status_code == 404

    fake.add_provider(provider="zoo")  # listed among the platforms once it has an entry
    assert "0 endpoints" in client.get("/tools/zoo").text  # the provider's page, kept until the next change
    assert ("text", "tools", "zoo", False) in fake.model._views
    fake.add_entry(id="zoo.animals.zebrafish", method="GET", path="/v1/zebrafish", summary="zebrafish facts",
                   params={"name": {"type": "string", "required": True}}, cost={"type": "per_call", "value": 10})
    found = client.get("/catalog/search?q=zebrafish").json()
    assert [row["id"] for row in found["results"]] == ["zoo.animals.zebrafish"]
    assert client.get("/catalog/endpoints/zoo.animals.zebrafish").json()["endpoint"]["id"] == "zoo.animals.zebrafish"
    platform = client.get("/catalog/platforms/zoo").json()
    assert [e["id"] for cap in platform["capabilities"] for e in cap["endpoints"]] == ["zoo.animals.zebrafish"]
    assert "zoo.animals.zebrafish" in client.get("/tools/zoo").text
    row = next(r for r in client.get("/catalog/platforms").json()["platforms"] if r["slug"] == "zoo")
    assert row["endpoints"] == 1 and row["priced"] == 1
    # a did-you-mean on an unknown id sees the new entry too
    wrong = client.get("/catalog/endpoints/zoo.animals.zebrafis")
    assert wrong.status_code == 404
