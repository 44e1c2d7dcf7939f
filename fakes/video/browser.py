"""What the video API serves to web pages of other origins: api.video's browser uploader
(``@api.video/video-uploader``) posts a delegated upload from any site to ``/upload?token=...``
with ``AV-Origin-Client`` and ``Content-Range``, calls ``/videos/{id}/source`` and ``/auth/refresh``
with a key or an access token, and polls the HLS manifest with ``fetch`` until it is playable; a
player page loads the manifests, segments, MP4 and thumbnails. The API and the assets therefore
answer cross-origin requests (fakes/kernel/cors.py), for the origins of ``cors_origins``; the
control plane never does.
"""

from __future__ import annotations

from fakes.kernel.cors import CorsPolicy

from .settings import VideoSettings

#: what api.video's clients send from a browser, and what a player's range requests add
REQUEST_HEADERS = ("Authorization", "Content-Type", "Content-Range", "Accept", "Range", "AV-Origin-Client",
                   "AV-Origin-App", "AV-Origin-Sdk")
#: what a page may read of an answer besides the safelisted headers: its rate-limit window
EXPOSED_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Retry-After")


def cors_policy(settings: VideoSettings) -> CorsPolicy | None:
    """The cross-origin policy of these settings (None: ``cors_origins`` is empty)."""
    if not settings.cors_origins:
        return None
    return CorsPolicy(allow_headers=REQUEST_HEADERS, expose_headers=EXPOSED_HEADERS, origins=settings.cors_origins)
