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
        self.args = (message,)  # what Exception.__init__(message) sets, without its call
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}
        self.extra = extra

    def __repr__(self) -> str:
        return f"ServiceError({self.status}, {self.message!r}, code={self.code!r})"


class ControlError(ServiceError):
    """An error of the control plane (`/_fake/...`), always in the kernel's own shape. Its message
    and ``field`` are cut to :data:`MAX_MESSAGE` characters: what a client sent (a 10 MB value
    in a refused state) is never echoed back whole."""

    def __init__(self, status: int, message: str, *, code: str | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        if len(message) > MAX_MESSAGE:
            message = f"{message[:MAX_MESSAGE]}... (cut: {len(message)} characters)"
        field = extra.get("field")
        if isinstance(field, str) and len(field) > MAX_MESSAGE // 4:
            extra["field"] = f"{field[:MAX_MESSAGE // 4]}..."
        super().__init__(status, message, code=code, headers=headers, **extra)


#: the longest message (and a quarter of it: the longest field) of a control-plane refusal
MAX_MESSAGE = 1000


def control_error_body(err: ServiceError) -> dict[str, Any]:
    body: dict[str, Any] = {"error": err.code or "bad_request", "message": err.message}
    body.update(err.extra)
    return body
