"""What a service offers the benchmark's ``operations`` part: one timed request per public operation.

``Fake.bench_operations()`` returns a :class:`BenchOperation` for each operation of the service's
public API (its OpenAPI document's paths, and the vendor operations it serves). The benchmark
(``python -m scenarios bench --parts operations``) times each one in process through
``fake.client()`` on the default settings; the contract tests check that every operation of the
service's OpenAPI document has one and that each answers its expected status.

An operation that consumes what it acts on (a DELETE, a single-use token) names a ``prepare``
callable: it runs before each timed request, untimed, and returns the values of the path's
``{placeholders}`` (and may set up state through the fake's Python control methods).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class BenchOperation:
    #: the vendor's operation id where it has one, else "METHOD /path"
    name: str
    method: str
    #: path and query below the fake's base URL; ``{name}`` placeholders are filled by ``prepare``
    path: str
    #: the path template of the service's OpenAPI document this request exercises (default: ``path``
    #: without its query): the contract test matches operations by it
    template: str | None = None
    json: Any = None
    content: bytes | None = None
    #: extra headers (besides the fake's ``auth_headers()``, which are sent unless ``auth`` is False)
    headers: Mapping[str, str] = field(default_factory=dict)
    #: multipart files as httpx takes them: {"file": ("clip.mp4", b"...", "video/mp4")}
    files: Mapping[str, Any] | None = None
    auth: bool = True
    #: untimed, before each timed request: returns the path's placeholder values
    prepare: Callable[[], Mapping[str, str]] | None = None
    #: statuses that count as the operation working
    expect: tuple[int, ...] = (200,)

    @property
    def path_template(self) -> str:
        return self.template or self.path.partition("?")[0]
