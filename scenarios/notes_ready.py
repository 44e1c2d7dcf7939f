"""Notes (the template service, examples/notes/): a note is created, becomes ready, and is listed.

The scenario of the template, to copy with it: a scenario file per documented flow, importing the
runner relatively. It runs only where the notes service is registered (``discover()`` leaves out
scenarios of services the process does not know). The bearer token comes from ``--credentials
api_token=...``, or from the fake's control plane (``GET /_fake/notes/token``), as other services'
scenarios create their keys there.
"""

from __future__ import annotations

from .runner import Run, Scenario


def flow(run: Run) -> None:
    token = run.credential("api_token", create=lambda: run.control("GET", "/_fake/notes/token")["api_token"])
    headers = {"Authorization": f"Bearer {token}"} if token else {}

    with run.step("create a note"):
        created = run.request("POST", "/notes", headers=headers, json={"text": "buy milk", "tag": "scenario"})
        run.check(created.status_code == 201, "created: 201", created.text)
        note = created.json()
        run.check(note["status"] == "building", "a new note is building", note)

    with run.step("wait until it is ready"):
        run.wait_until(lambda: run.request("GET", f"/notes/{note['id']}", headers=headers).json()["status"] == "ready",
                       timeout_s=3600, poll_s=30, what="the note")

    with run.step("it is listed, oldest first"):
        listed = run.request("GET", "/notes", headers=headers, params={"limit": 100})
        run.check(listed.status_code == 200, "the list answers 200", listed.text)
        ids = [item["id"] for item in listed.json()["notes"]]
        run.check(note["id"] in ids, "the new note is listed", ids)


SCENARIO = Scenario(name="notes-ready", service="notes", summary="a note is created, becomes ready and is listed",
                    flow=flow)
