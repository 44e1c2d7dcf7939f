"""Video, the sandbox's rules (seed: videos limited to 30 seconds, watermarked, deleted after 24 hours).

A 31-second source is refused with a 400 naming the 30-second limit; a sandbox video says it is
watermarked and announces its deletion 24 hours after creation, and from that instant it answers
404 and is no longer listed. Against the real sandbox (credential ``api_key``) the 24-hour wait is
skipped; the refusal and the announced deletion are checked.
"""

from __future__ import annotations

import base64
from datetime import datetime

from fakes.video.media import LONG_MP4

from .runner import Run, Scenario

DAY_S = 86_400


def flow(run: Run) -> None:
    key = run.credential("api_key", create=lambda: str(run.control("POST", "/_fake/projects", json={})[
        "sandbox_key"]))
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}

    with run.step("a sandbox video is watermarked and deleted 24 hours after its creation"):
        created = run.request("POST", "/videos", json={"title": "sandbox limits"}, headers=auth)
        run.check(created.status_code == 201, "201", created.text)
        video = created.json()
        run.check(video.get("deletesAt") is not None, "deletesAt is set at creation", video)
        lifetime = (datetime.fromisoformat(video["deletesAt"]) - datetime.fromisoformat(video["createdAt"]))
        run.check(lifetime.total_seconds() == DAY_S, "deletesAt = createdAt + 24 h", lifetime)
        if run.is_fake:
            run.check(video.get("watermarked") is True, "the fake says the video is watermarked", video)

    with run.step("a 31-second source is refused", expect_verdicts=["video/sandbox-source-over-30s"]):
        refused = run.request("POST", f"/videos/{video['videoId']}/source", headers=auth,
                              files={"file": ("long.mp4", LONG_MP4, "video/mp4")})
        run.check(refused.status_code == 400, "400", refused.text)
        problem = refused.json()
        run.check(str(problem.get("type", "")).startswith("https://docs.api.video/reference/"),
                  "the problem shape", problem)
        run.check("30" in f"{problem.get('title', '')} {problem.get('detail', '')}", "it names the 30-second limit",
                  problem)

    if not run.is_fake:
        return  # the rest needs 24 hours

    with run.step("one second before 24 hours the video is still there"):
        run.wait(DAY_S - 1)
        run.check(run.request("GET", f"/videos/{video['videoId']}", headers=auth).status_code == 200, "200")

    with run.step("at 24 hours it is gone: 404 and no longer listed"):
        run.wait(1)
        gone = run.request("GET", f"/videos/{video['videoId']}", headers=auth)
        run.check(gone.status_code == 404, "404", gone.text)
        listed = run.request("GET", "/videos", headers=auth).json()["data"]
        run.check(video["videoId"] not in [v["videoId"] for v in listed], "not listed", listed)


SCENARIO = Scenario(name="video-sandbox-limits", service="video",
                    summary="31 s refused in the sandbox, watermark flag, deletion at exactly 24 h", flow=flow)
