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
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import httpx


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


# -- mixed traffic (the benchmark's ``mixed`` part) ----------------------------------------------------
#: what a wrong key looks like: the end of each credential replaced (the scheme, a prefix, kept)
WRONG_KEY_TAIL = "bench0wrong0key0"
UNKNOWN_ID = "bench-unknown-0000"
#: what a parameter that takes a choice or a format is given instead (the bad parameter)
BAD_WORD = "bench0bad0value"
#: of every ten requests of a mix, about this many are client errors (bad key, unknown id, bad parameter)
MIX_ERRORS_PER_TEN = 3
CLIENT_ERRORS = tuple(range(400, 500))


class MixedFake(Protocol):
    """What :func:`probed_mix` uses of a fake."""

    def auth_headers(self) -> dict[str, str]: ...

    def client(self, **kwargs: Any) -> httpx.Client: ...

    def sample_request(self) -> tuple[str, str]: ...


def probed_mix(fake: MixedFake, operations: list[BenchOperation]) -> list[BenchOperation]:
    """:func:`mix_from_operations` of ``operations`` with the fake's credentials and sample request,
    each candidate sent once through ``fake.client()`` to know its status."""
    auth = fake.auth_headers()
    with fake.client() as client:

        def probe(op: BenchOperation) -> int:
            headers = {**auth, **op.headers} if op.auth else dict(op.headers)
            return client.request(op.method, op.path, headers=headers).status_code

        return mix_from_operations(operations, auth, fake.sample_request(), probe)


def mix_from_operations(operations: list[BenchOperation], auth: Mapping[str, str],
                        sample: tuple[str, str] | None = None,
                        probe: Callable[[BenchOperation], int] | None = None) -> list[BenchOperation]:
    """A realistic mix of a service's traffic from its :class:`BenchOperation` list: each read
    (a GET that needs no ``prepare`` and answers 200) once, the ``sample`` request (the service's
    heaviest common one) as often as a tenth of them, and client errors of each common kind - a
    wrong key (each credential's end replaced), an unknown id (a templated path's parameter
    replaced), a bad parameter (an integer query parameter given a word) - about three in ten.
    ``probe`` (the request's status) keeps only the reads that answer 2xx and the errors that
    answer 4xx (a public page takes a wrong key). Replayed in a loop by the benchmark's ``mixed``
    part; nothing in it changes the fake's state."""
    reads = [op for op in operations
             if op.method == "GET" and op.prepare is None and op.auth and 200 in op.expect and not op.json]
    if probe is not None:
        reads = [op for op in reads if probe(op) // 100 == 2]
    good = list(reads)
    if sample is not None:
        method, path = sample
        good += [BenchOperation("sample", method, path)] * max(1, len(reads) // 10)
    errors: list[BenchOperation] = []
    for op in reads:
        if any(_is_credential(name, value) for name, value in auth.items()):
            wrong = {name: _wrong(value) if _is_credential(name, value) else value for name, value in auth.items()}
            errors.append(BenchOperation(f"{op.name} (wrong key)", op.method, op.path, template=op.template,
                                         headers={**wrong, **op.headers}, auth=False, expect=CLIENT_ERRORS))
        unknown = _unknown_id(op)
        if unknown is not None:
            errors.append(BenchOperation(f"{op.name} (unknown id)", op.method, unknown, template=op.template,
                                         headers=op.headers, expect=CLIENT_ERRORS))
        bad = _bad_parameter(op.path)
        if bad is not None:
            errors.append(BenchOperation(f"{op.name} (bad parameter)", op.method, bad, template=op.template,
                                         headers=op.headers, expect=CLIENT_ERRORS))
    if probe is not None:
        errors = [op for op in errors if probe(op) // 100 == 4]
    errors += _query_kinds_missing(reads, errors, probe)
    if not good:
        return errors
    wanted = max(1, len(good) * MIX_ERRORS_PER_TEN // (10 - MIX_ERRORS_PER_TEN))
    if errors:
        # each kind in turn, each kind's requests spread over the operations they came from
        kinds: dict[str, list[BenchOperation]] = {}
        for op in errors:
            kinds.setdefault(op.name.rsplit("(", 1)[1], []).append(op)
        groups = list(kinds.values())
        per_kind = -(-wanted // len(groups))
        errors = [groups[index % len(groups)][(index // len(groups)) * len(groups[index % len(groups)]) // per_kind]
                  for index in range(wanted)]
    # interleaved, so that any stretch of the loop holds the whole mix in its proportions
    mixed: list[BenchOperation] = []
    for index, op in enumerate(good):
        mixed.append(op)
        for error in errors[index * len(errors) // len(good):(index + 1) * len(errors) // len(good)]:
            mixed.append(error)
    return mixed


def _is_credential(name: str, value: str) -> bool:
    lowered = name.lower()
    return lowered in ("authorization", "cookie") or any(word in lowered for word in ("key", "token", "secret"))


def _wrong(value: str) -> str:
    tail = WRONG_KEY_TAIL[:max(1, min(len(WRONG_KEY_TAIL), len(value) // 2))]
    return value[:len(value) - len(tail)] + tail


def _unknown_id(op: BenchOperation) -> str | None:
    """``op``'s path with the first segment its template names by a parameter made unknown."""
    path, _, query = op.path.partition("?")
    template = op.path_template.split("/")
    segments = path.split("/")
    if len(template) != len(segments):
        return None
    for index, (pattern, segment) in enumerate(zip(template, segments, strict=True)):
        if pattern.startswith("{") and pattern.endswith("}") and segment:
            segments[index] = UNKNOWN_ID
            return "/".join(segments) + (f"?{query}" if query else "")
    return None


def _query_kinds_missing(reads: list[BenchOperation], errors: list[BenchOperation],
                         probe: Callable[[BenchOperation], int] | None) -> list[BenchOperation]:
    """An unknown id or a bad parameter in the query, for a service that names its resources
    there (``?website=...``) or has no integer parameter: per kind the mix lacks, each read's
    parameters tried in turn, the first that answers 4xx kept (an unknown id: 404, not found)."""
    found: list[BenchOperation] = []
    for kind, variants, answers in (("unknown id", _unknown_in_query, (404,)),
                                    ("bad parameter", _word_in_query, CLIENT_ERRORS)):
        if any(op.name.endswith(f"({kind})") for op in errors):
            continue
        for op in reads:
            for path in variants(op.path):
                candidate = BenchOperation(f"{op.name} ({kind})", op.method, path, template=op.template,
                                           headers=op.headers, expect=CLIENT_ERRORS)
                if probe is None or probe(candidate) in answers:
                    found.append(candidate)
                    break
    return found


def _query_variants(path_and_query: str, value_of: Callable[[str], str | None]) -> list[str]:
    """The request once per query parameter that ``value_of`` gives another value."""
    path, _, query = path_and_query.partition("?")
    pairs = [pair.partition("=") for pair in query.split("&")] if query else []
    variants = []
    for index, (name, sep, value) in enumerate(pairs):
        other = value_of(value) if sep else None
        if other is not None:
            changed = [*pairs[:index], (name, sep, other), *pairs[index + 1:]]
            variants.append(path + "?" + "&".join(n + s + v for n, s, v in changed))
    return variants


def _unknown_in_query(path_and_query: str) -> list[str]:
    # the value's dotted ending kept: an unknown domain is still a domain
    return _query_variants(path_and_query, lambda value: UNKNOWN_ID + ("." + value.rsplit(".", 1)[1]
                                                                       if "." in value else ""))


def _word_in_query(path_and_query: str) -> list[str]:
    return _query_variants(path_and_query, lambda value: None if value.isdigit() else BAD_WORD)


def _bad_parameter(path_and_query: str) -> str | None:
    """The request with its first integer query parameter given a word instead."""
    path, _, query = path_and_query.partition("?")
    if not query:
        return None
    pairs = [pair.partition("=") for pair in query.split("&")]
    for index, (name, sep, value) in enumerate(pairs):
        if sep and value.isdigit():
            pairs[index] = (name, sep, "many")
            return path + "?" + "&".join(n + s + v for n, s, v in pairs)
    return None
