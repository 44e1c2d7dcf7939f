"""The video fake's player pages (``/vod/{id}``, ``/live/{id}``) put the request's ``Host`` into their
HTML as the base of the poster and source URLs: a Host that is not a host name must never come out
as markup or script (issue 33, item 12). The base is Starlette's (the kernel's ``base_url``), which
takes no such Host: the server's own address stands in for it."""

from __future__ import annotations

import html

from fakes.video import VideoFake
from tests.video.helpers import CLIP_2S, client_for, create, upload

HOSTILE_HOST = 'x"><script>alert(1)</script><a b="'


def test_a_hostile_host_stays_text_in_both_player_pages() -> None:
    fake = VideoFake(seed=0)
    with client_for(fake) as client:
        video = create(client)
        assert upload(client, video["videoId"], CLIP_2S.read_bytes()).status_code == 201
        fake.advance(3600)  # encoded: its player page answers
        live = client.post("/live-streams", json={"name": "show"}).json()
        for path in (f"/vod/{video['videoId']}", f"/live/{live['liveStreamId']}"):
            page = client.get(path, headers={"Host": HOSTILE_HOST})
            assert page.status_code == 200, (path, page.text)
            assert "<script>" not in page.text and "<a b=" not in page.text, page.text
            assert "alert(1)" not in page.text or html.escape(HOSTILE_HOST, quote=True) in page.text
            assert 'src="http://testserver/' in page.text  # not a host name: not taken
            assert page.text.count("<video") == 1
