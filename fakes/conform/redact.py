"""Credentials out of everything conform, record and replay write: the kernel's one redaction rule
(:func:`fakes.kernel.redaction.redactor`, the journal's), with the service's own secret names."""

from __future__ import annotations

from .. import registry
from ..kernel.redaction import Redactor, redactor


def service_redactor(service: str) -> Redactor:
    """The journal's redactor of ``service``: the kernel's secret headers and fields plus the
    service's own (``secret_headers``, ``secret_fields``, ``secret_form_fields`` of its fake)."""
    cls = registry.fake_class(service)
    return redactor(tuple(cls.secret_headers), tuple(cls.secret_fields), tuple(cls.secret_form_fields))
