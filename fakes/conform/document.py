"""An OpenAPI document read for conformance: its operations, which one a request belongs to, and
what it declares of an answer (headers, enums) and of authentication.

The document is the vendor's own, read from where the vendor publishes it (a path or a URL the
user names; the project ships no copy), or a fake's own (``fakes openapi NAME``). JSON or YAML
(YAML needs PyYAML). Only local references (``#/components/...``) are followed.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

METHODS = ("get", "head", "options", "post", "put", "patch", "delete")
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class DocumentError(Exception):
    """The document cannot be read or is not an OpenAPI document (one line for the user)."""


@dataclass
class Operation:
    method: str  # upper case
    template: str  # "/videos/{videoId}"
    parameters: list[dict[str, Any]] = field(default_factory=list)  # path-level and own, resolved
    request_body: dict[str, Any] | None = None
    security: list[dict[str, Any]] | None = None  # None: the document's default
    responses: dict[str, Any] = field(default_factory=dict)
    pattern: re.Pattern[str] = field(default=re.compile(""), repr=False)

    @property
    def key(self) -> str:
        return f"{self.method} {self.template}"

    @property
    def is_read(self) -> bool:
        return self.method in READ_METHODS

    @property
    def path_params(self) -> list[str]:
        return re.findall(r"{([^}/]+)}", self.template)

    def params_in(self, where: str) -> list[dict[str, Any]]:
        return [p for p in self.parameters if p.get("in") == where]


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"({[^}/]+})", template.rstrip("/") or "/")
    body = "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)
    return re.compile(body + "/?")


def _specificity(operation: Operation) -> tuple[int, int]:
    """Literal segments first: ``/videos/upload`` is tried before ``/videos/{videoId}``."""
    segments = operation.template.strip("/").split("/")
    return (-sum(not s.startswith("{") for s in segments), -len(operation.template))


class Document:
    """An OpenAPI 3 document's operations and declarations (implements :class:`.compare.Hints`)."""

    def __init__(self, raw: dict[str, Any], source: str = "") -> None:
        if not isinstance(raw, dict) or not isinstance(raw.get("paths"), dict):
            raise DocumentError(f"{source or 'the document'} is not an OpenAPI document (no paths)")
        self.raw = raw
        self.source = source
        self.operations: list[Operation] = []
        for template, item in raw["paths"].items():
            item = self.resolve(item)
            if not isinstance(item, dict):
                continue
            shared = [self.resolve(p) for p in item.get("parameters", [])]
            for method in METHODS:
                spec = item.get(method)
                if not isinstance(spec, dict):
                    continue
                own = [self.resolve(p) for p in spec.get("parameters", [])]
                names = {(p.get("name"), p.get("in")) for p in own}
                params = [p for p in shared if (p.get("name"), p.get("in")) not in names] + own
                body = self.resolve(spec["requestBody"]) if "requestBody" in spec else None
                self.operations.append(Operation(
                    method.upper(), template, params, body, spec.get("security"), spec.get("responses") or {},
                    _template_pattern(template)))
        self._by_key = {op.key: op for op in self.operations}
        self._matching = sorted(self.operations, key=_specificity)

    # -- reading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, where: str, *, timeout: float = 30.0) -> Document:
        """From a file path or an http(s) URL (fetched once, only because the user named it)."""
        if re.match(r"https?://", where):
            try:
                answer = httpx.get(where, timeout=timeout, follow_redirects=True)
            except httpx.HTTPError as exc:
                raise DocumentError(f"cannot fetch the document {where}: {exc}") from None
            if answer.status_code != 200:
                raise DocumentError(f"cannot fetch the document {where}: HTTP {answer.status_code}")
            text = answer.text
        else:
            try:
                text = Path(where).read_text(encoding="utf-8")
            except OSError as exc:
                raise DocumentError(f"cannot read the document {where}: {exc.strerror}") from None
        return cls(parse_document(text, where), where)

    def resolve(self, node: Any, depth: int = 0) -> Any:
        """``node`` with its (local) ``$ref`` followed."""
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 32:
            ref = node["$ref"]
            if not ref.startswith("#/"):
                return {}
            target: Any = self.raw
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            node, depth = target if target is not None else {}, depth + 1
        return node

    # -- finding operations ----------------------------------------------------------------------
    def operation(self, key: str) -> Operation | None:
        return self._by_key.get(key)

    def match(self, method: str, path: str) -> Operation | None:
        """The operation a request belongs to (``GET /videos/vi1`` -> ``GET /videos/{videoId}``)."""
        method = method.upper()
        for operation in self._matching:
            if operation.method == method and operation.pattern.fullmatch(path):
                return operation
        return None

    def operation_key(self, method: str, path: str) -> str:
        """The matching operation's key, or the path with its id-like segments generalised."""
        found = self.match(method, path)
        return found.key if found is not None else f"{method.upper()} {generic_path(path)}"

    def select(self, include: list[str], exclude: list[str]) -> list[Operation]:
        """The operations whose key matches a glob of ``include`` (all when empty) and none of ``exclude``."""
        return [op for op in self.operations
                if (not include or any(fnmatch.fnmatchcase(op.key, glob) for glob in include))
                and not any(fnmatch.fnmatchcase(op.key, glob) for glob in exclude)]

    # -- declarations (compare.Hints) ------------------------------------------------------------
    def _response(self, operation: str, status: int) -> dict[str, Any]:
        op = self._by_key.get(operation)
        if op is None:
            return {}
        responses = op.responses
        found = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default") or {}
        resolved = self.resolve(found)
        return resolved if isinstance(resolved, dict) else {}

    def declared_headers(self, operation: str, status: int) -> set[str]:
        return {name.lower() for name in (self._response(operation, status).get("headers") or {})}

    def response_schema(self, operation: str, status: int) -> Any:
        content = self._response(operation, status).get("content") or {}
        for media, spec in content.items():
            if "json" in media and isinstance(spec, dict):
                return self.resolve(spec.get("schema"))
        return None

    def enum_at(self, operation: str, status: int, where: list[str]) -> list[Any] | None:
        """The enum the answer's schema declares at ``where`` (keys, ``[]`` for array items)."""
        schema = self.response_schema(operation, status)
        for part in where:
            schema = self._descend(schema, part)
            if schema is None:
                return None
        return self._enum(schema)

    def _alternatives(self, schema: Any) -> list[Any]:
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return []
        found = [schema]
        for combinator in ("allOf", "anyOf", "oneOf"):
            for part in schema.get(combinator) or []:
                found += self._alternatives(part)
        return found

    def _descend(self, schema: Any, part: str) -> Any:
        for alternative in self._alternatives(schema):
            if part == "[]" and "items" in alternative:
                return self.resolve(alternative["items"])
            properties = alternative.get("properties") or {}
            if part in properties:
                return self.resolve(properties[part])
        return None

    def _enum(self, schema: Any) -> list[Any] | None:
        values: list[Any] = []
        for alternative in self._alternatives(schema):
            values += [v for v in alternative.get("enum") or [] if v is not None]
            if alternative.get("type") == "array" and "items" in alternative:
                values += self._enum(alternative["items"]) or []
        return values or None

    # -- authentication --------------------------------------------------------------------------
    def security_schemes(self) -> dict[str, dict[str, Any]]:
        schemes = (self.raw.get("components") or {}).get("securitySchemes") or {}
        return {name: self.resolve(spec) for name, spec in schemes.items() if isinstance(spec, dict)}

    def security_of(self, operation: Operation) -> list[str]:
        """The scheme names that may authenticate ``operation``, in the document's order; an
        operation that says nothing (nor does the document) gets what most operations ask for."""
        requirements = operation.security if operation.security is not None else self.raw.get("security")
        if requirements is None:
            counted = Counter(json.dumps(op.security) for op in self.operations if op.security)
            requirements = json.loads(counted.most_common(1)[0][0]) if counted else [
                {name: []} for name in self.security_schemes()]
        return [name for requirement in requirements if isinstance(requirement, dict) for name in requirement]


def parse_document(text: str, where: str = "") -> dict[str, Any]:
    """JSON, or YAML when PyYAML is installed."""
    try:
        parsed = json.loads(text)
    except ValueError:
        try:  # only for a YAML document; PyYAML is not a dependency of the fakes
            yaml: Any = importlib.import_module("yaml")
        except ImportError:
            raise DocumentError(f"{where} is YAML (or not JSON); reading YAML needs PyYAML: "
                                "pip install pyyaml") from None
        try:
            parsed = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise DocumentError(f"{where} is neither JSON nor YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(parsed, dict):
        raise DocumentError(f"{where} is not an OpenAPI document")
    return parsed


_ID_SEGMENT = re.compile(r"(\d+|[0-9a-f-]{16,}|[A-Za-z]{1,4}[0-9A-Za-z]{12,})")


def generic_path(path: str) -> str:
    """``/videos/vi4blUQJFrYWbaG44NChkH27/source`` -> ``/videos/{id}/source`` (ids by their look)."""
    return "/".join("{id}" if _ID_SEGMENT.fullmatch(segment) and any(c.isdigit() for c in segment) else segment
                    for segment in path.split("/"))
