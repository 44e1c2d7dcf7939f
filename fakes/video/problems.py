"""The service's errors: RFC 7807-like problems with a ``type`` under docs.api.video/reference/.

``problem(...)`` builds a :class:`ServiceError` whose ``code`` is the reference's slug and whose
``message`` is its title; ``VideoFake.error_body`` renders ``{type, title, status, name?, detail?,
problems?}``. Kernel errors (unknown route, bad JSON, ...) are mapped onto the matching slugs.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.errors import ServiceError

DOCS = "https://docs.api.video/reference/"

#: kernel error codes -> (slug, title) of the reference
KERNEL_CODES = {
    "not_found": ("unrecognized-request-url", "Unrecognized request URL."),
    "method_not_allowed": ("method-not-allowed", "Method Not Allowed."),
    "invalid_json": ("invalid-payload", "The request payload is invalid."),
    "invalid_parameter": ("invalid-query-parameter", "A query parameter is invalid."),
    "internal": ("internal-server-error", "An internal error occurred."),
    "injected_fault": ("injected-fault", "A fault injected through the fake's control plane."),
}


def problem(status: int, slug: str, title: str, *, name: str | None = None, detail: str | None = None,
            problems: list[dict[str, Any]] | None = None, headers: dict[str, str] | None = None) -> ServiceError:
    extra: dict[str, Any] = {}
    if name is not None:
        extra["name"] = name
    if detail is not None:
        extra["detail"] = detail
    if problems is not None:
        extra["problems"] = problems
    return ServiceError(status, title, code=slug, headers=headers, **extra)


def render(err: ServiceError) -> dict[str, Any]:
    slug, title = err.code or "", err.message
    if slug in KERNEL_CODES:
        mapped_slug, mapped_title = KERNEL_CODES[slug]
        body: dict[str, Any] = {"type": DOCS + mapped_slug, "title": mapped_title, "status": err.status,
                                "detail": err.message}
        return body
    body = {"type": DOCS + (slug or "error"), "title": title, "status": err.status}
    for key in ("name", "detail", "problems"):
        if key in err.extra:
            body[key] = err.extra[key]
    return body


def not_found(name: str) -> ServiceError:
    return problem(404, "resource-not-found", "The requested resource was not found.", name=name)


def invalid_attribute(name: str, detail: str) -> ServiceError:
    return problem(400, "invalid-attribute", "An attribute is invalid.", name=name, detail=detail)


def attribute_required(name: str) -> ServiceError:
    first = {"type": DOCS + "attribute-required", "title": "This attribute is required.", "name": name}
    return problem(400, "attribute-required", "This attribute is required.", name=name, problems=[first])


def invalid_query(name: str, detail: str) -> ServiceError:
    return problem(400, "invalid-query-parameter", "A query parameter is invalid.", name=name, detail=detail)


def too_many_requests(headers: dict[str, str]) -> ServiceError:
    return problem(429, "too-many-requests", "Too many requests.", headers=headers)


def upload_error(slug: str, title: str, detail: str | None = None, name: str = "file") -> ServiceError:
    return problem(400, slug, title, name=name, detail=detail)
