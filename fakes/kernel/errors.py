"""One error type for every service; each service renders it in its own body shape."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refusal the fake answers on purpose (4xx, or a documented 5xx such as 503).

    Models and routes raise it; the kernel renders ``fake.error_body(err)`` with ``status`` and
    ``headers``. ``extra`` carries service-specific fields (e.g. ``balance_micro``).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}
        self.extra = extra

    def __repr__(self) -> str:
        return f"ServiceError({self.status}, {self.message!r}, code={self.code!r})"


class ControlError(ServiceError):
    """An error of the control plane (`/_fake/...`), always in the kernel's own shape."""


def control_error_body(err: ServiceError) -> dict[str, Any]:
    body: dict[str, Any] = {"error": err.code or "bad_request", "message": err.message}
    body.update(err.extra)
    return body
