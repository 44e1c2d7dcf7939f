"""The documented client rules of the video service (see fakes.kernel.verdicts)."""

from __future__ import annotations

from fakes.kernel.verdicts import ClientRule

STATUS_TIGHT_POLLING = ClientRule(
    id="video/status-tight-polling",
    severity="warning",
    explanation="GET /videos/{videoId}/status polled again for the same video sooner than the fake's "
                "status_poll_interval_s (default 2 virtual seconds): encoding takes seconds to minutes; poll "
                "with a delay, or subscribe to video.encoding.quality.completed webhooks instead of a tight loop.",
    source="https://docs.api.video/reference/post-webhooks (webhooks push each encoded quality instead of "
           "polling); docs/services/video.md#rate-limits (reads: 100 a minute in the sandbox)",
)
SANDBOX_SOURCE_TOO_LONG = ClientRule(
    id="video/sandbox-source-over-30s",
    severity="error",
    explanation="A source longer than 30 seconds was uploaded to the sandbox: the sandbox limits videos to 30 "
                "seconds and refuses it; test with short clips or use the production environment.",
    source="https://docs.api.video/reference (Environments: the sandbox limits videos to 30 seconds)",
)

UPLOAD_PART_NAME = ClientRule(
    id="video/upload-part-name",
    severity="warning",
    explanation="A multipart upload sent its file in a part not named file (e.g. named after the file, as "
                "api.video's Node client does). The fake takes one file part under any name, as the real service "
                "does, but api.video's document names the part file; name it so.",
    source="https://github.com/apivideo/api.video-api-client-generator (api.video's OpenAPI document, "
           "oas_apivideo.yaml: every upload's multipart body names its file part file); docs/services/video.md#upload",
)

RULES = (STATUS_TIGHT_POLLING, SANDBOX_SOURCE_TOO_LONG, UPLOAD_PART_NAME)
