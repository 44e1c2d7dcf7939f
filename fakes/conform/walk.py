"""A walk of an API document: one request per operation, sent to the real service and to the fake
side by side, with parameters each side fills from its own earlier answers.

Order: collections first (operations without path parameters), then what they list (an id from
the collection's answer fills ``{id}``), deepest last; writes (with ``--allow-writes`` only) after
the reads of their level and deletions at the very end. Ids differ between the two services, so
each side takes its own: ``/filings/{id}/`` is ``/filings/17/`` on one and ``/filings/3/`` on the
other. A value neither side found comes from the document (example, default, first enum value) and
is then the same on both; one side alone finding none leaves the operation ``not run``.

Writes touch only what the run itself created: a ``PATCH``, ``PUT``, ``DELETE`` or sub-resource
``POST`` takes its path ids from this run's own creations, never from a listed resource of the
account. Every string a write names (``title``, ``name``, ``description`` ...) carries the run's
tag, URLs point at ``example.invalid``, and each created resource is deleted afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .document import Document, Operation
from .observed import Observed
from .sides import FakeSide, RealSide, Side

#: string fields of a write's body that carry the run's tag
TAGGED_FIELDS = re.compile(r"^(title|name|description|label|display_?name|comment|note|text)$", re.I)
NEVER_DELIVERED = "https://example.invalid/contract-fakes-conform"
#: further listed items a status difference on one item is tried on before it is reported
CONFIRMATIONS = 2


@dataclass
class WalkStep:
    """One operation of the walk: both exchanges, or why it did not run."""

    operation: Operation
    real: Observed | None = None
    fake: Observed | None = None
    reason: str = ""


def normalized(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def listed_items(body: Any) -> list[dict[str, Any]]:
    """The objects an answer lists: a top-level list, or its first list of objects."""
    if isinstance(body, list):
        return [item for item in body if isinstance(item, dict)]
    if isinstance(body, dict):
        for value in body.values():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                return [item for item in value if isinstance(item, dict)]
    return []


class Pool:
    """What one side's answers taught the walk: values by key, answers by path, own creations."""

    def __init__(self) -> None:
        self.by_path: dict[str, Any] = {}
        self.by_name: dict[str, Any] = {}
        #: the collection path a resource was created in -> its id (the walk's own resources)
        self.created: dict[str, Any] = {}

    def learn(self, path: str, body: Any) -> None:
        self.by_path[path.rstrip("/")] = body
        self._collect(body, 0)

    def _collect(self, value: Any, depth: int) -> None:
        if depth > 4:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, str | int) and not isinstance(item, bool):
                    self.by_name.setdefault(normalized(key), item)
                else:
                    self._collect(item, depth + 1)
        elif isinstance(value, list):
            for item in value[:5]:
                self._collect(item, depth + 1)

    def from_collection(self, collection: str, name: str, choice: int = 0) -> Any:
        """The ``choice``-th listed item's value for path parameter ``name`` (None: none)."""
        items = listed_items(self.by_path.get(collection.rstrip("/")))
        wanted = normalized(name)
        # its own name, "<name>Id", else the item's id: /filings/{filing}/ is a listed filing's id
        for key in (wanted, wanted + "id", "id"):
            values = [value for item in items for field_name, value in item.items()
                      if normalized(field_name) == key and isinstance(value, str | int) and not isinstance(value, bool)]
            if values:
                return values[choice] if choice < len(values) else None
        return None


def example_of(spec: dict[str, Any], document: Document) -> Any:
    """A parameter's or schema's example, default or first enum value (None: it has none)."""
    if "example" in spec:
        return spec["example"]
    examples = spec.get("examples")
    if isinstance(examples, dict) and examples:
        first = document.resolve(next(iter(examples.values())))
        return first.get("value") if isinstance(first, dict) else first
    if isinstance(examples, list) and examples:
        return examples[0]
    schema = document.resolve(spec.get("schema", spec))
    if isinstance(schema, dict):
        for key in ("example", "default"):
            if key in schema:
                return schema[key]
        if schema.get("enum"):
            return schema["enum"][0]
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return schema["examples"][0]
    return None


def typed_value(schema: Any, document: Document) -> Any:
    schema = document.resolve(schema) if isinstance(schema, dict) else {}
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}.get(str(kind), "contract-fakes")


class Walk:
    """Plans and sends the walk over ``operations`` of ``document`` on both sides."""

    def __init__(self, document: Document, real: RealSide, fake: FakeSide, *, run_tag: str,
                 user_params: dict[str, str] | None = None) -> None:
        self.document = document
        self.real, self.fake = real, fake
        self.pools = {"real": Pool(), "fake": Pool()}
        self.tag = run_tag
        self.user_params = user_params or {}

    # -- order -----------------------------------------------------------------------------------
    @staticmethod
    def order(operations: list[Operation]) -> list[Operation]:
        def rank(op: Operation) -> tuple[int, int, int, str]:
            writes = 0 if op.is_read else 2 if op.method == "DELETE" else 1
            return (writes == 2, len(op.path_params), writes, op.template)
        return sorted(operations, key=rank)

    def run(self, operations: list[Operation], progress: Callable[[WalkStep], None] | None = None) -> list[WalkStep]:
        steps = []
        for operation in self.order(operations):
            step = self.step(operation)
            steps.append(step)
            if progress is not None:
                progress(step)
        return steps

    # -- one operation ---------------------------------------------------------------------------
    def step(self, operation: Operation) -> WalkStep:
        step = WalkStep(operation)
        if not operation.is_read and not self.real.allow_writes:
            step.reason = "a write: runs only with --allow-writes"
            return step
        if operation.request_body is not None and not operation.is_read and self._body_media(operation) is None:
            step.reason = "its body is not JSON (a file upload): not sent by the walk"
            return step
        paths = self._paths(operation)
        if isinstance(paths, str):
            step.reason = paths
            return step
        self._send(step, paths)
        # Listed items differ between the two services (one's newest filing is still being
        # processed, the other's is not): a status that differs on one item is confirmed on the
        # next listed items before it is reported as the fake's.
        for choice in range(1, CONFIRMATIONS + 1):
            if step.real is None or step.fake is None or step.real.status == step.fake.status \
                    or not operation.is_read or not operation.path_params:
                break
            other = self._paths(operation, choice)
            if isinstance(other, str) or other == paths:
                break
            tried = WalkStep(operation)
            self._send(tried, other)
            if tried.real is not None and tried.fake is not None and tried.real.status == tried.fake.status:
                step.real, step.fake = tried.real, tried.fake
        return step

    def _send(self, step: WalkStep, paths: dict[str, str]) -> None:
        operation = step.operation
        for side, path in ((self.real, paths["real"]), (self.fake, paths["fake"])):
            request = self._request(operation, side, path)
            if isinstance(request, str):
                step.reason = request
                return
            method, params, headers, body = request
            sent = side.send(method, path, params=params, headers=headers, json=body)
            if isinstance(sent, str):
                step.reason = f"{side.name} side: {sent}"
                return
            setattr(step, side.name, sent)
            self._learn(operation, side, path, sent)

    def _paths(self, operation: Operation, choice: int = 0) -> dict[str, str] | str:
        """Each side's concrete path (the last parameter from the ``choice``-th listed item), or why
        there is none."""
        values: dict[str, dict[str, Any]] = {"real": {}, "fake": {}}
        for name in operation.path_params:
            prefix = operation.template.split("{" + name + "}")[0]
            pick = choice if name == operation.path_params[-1] else 0
            found = {side: self._path_value(operation, side, self._fill(prefix, values[side]), name, pick)
                     for side in ("real", "fake")}
            if found["real"] is None and found["fake"] is None:
                if not operation.is_read:
                    return f"writes only touch what this run created: none for {{{name}}}"
                spec = next((p for p in operation.params_in("path") if p.get("name") == name), {})
                example = example_of(spec, self.document)
                if example is None:
                    return f"no value for {{{name}}}: no earlier answer had one and the document gives none"
                found = {"real": example, "fake": example}
            for side in ("real", "fake"):
                if found[side] is None:
                    return f"no value for {{{name}}} on the {side} side (no earlier answer had one)"
                values[side][name] = found[side]
        return {side: self._fill(operation.template, values[side]) for side in ("real", "fake")}

    @staticmethod
    def _fill(template: str, values: dict[str, Any]) -> str:
        return re.sub(r"{([^}/]+)}", lambda m: str(values.get(m.group(1), m.group(0))), template)

    def _path_value(self, operation: Operation, side: str, prefix: str, name: str, choice: int = 0) -> Any:
        pool = self.pools[side]
        if not operation.is_read:
            return pool.created.get(prefix.rstrip("/"))
        found = pool.created.get(prefix.rstrip("/")) if not choice else None
        if found is None:
            found = pool.from_collection(prefix, name, choice)
        if choice:
            return found
        if found is None:
            found = pool.by_name.get(normalized(name))
        if found is None and side == "real":
            found = self.user_params.get(name)
        return found

    def _request(self, operation: Operation, side: Side, path: str) -> (
            tuple[str, dict[str, Any], dict[str, str], Any] | str):
        pool = self.pools[side.name]
        params: dict[str, Any] = {}
        headers: dict[str, str] = {}
        for spec in operation.parameters:
            if not spec.get("required") or spec.get("in") not in ("query", "header"):
                continue
            name = str(spec.get("name"))
            value = pool.by_name.get(normalized(name))
            if value is None and side.name == "real":
                value = self.user_params.get(name)
            if value is None:
                value = example_of(spec, self.document)
            if value is None:
                value = typed_value(spec.get("schema"), self.document)
            if spec["in"] == "query":
                params[name] = value
            elif name.lower() not in ("authorization",):
                headers[name] = str(value)
        headers.update(side.auth_headers(self.document, operation))
        body = self._body(operation, pool) if operation.request_body is not None and not operation.is_read else None
        return operation.method, params, headers, body

    # -- bodies of writes ------------------------------------------------------------------------
    def _body_media(self, operation: Operation) -> dict[str, Any] | None:
        content = (operation.request_body or {}).get("content") or {}
        for media, spec in content.items():
            if "json" in media and isinstance(spec, dict):
                return spec
        return None

    def _body(self, operation: Operation, pool: Pool) -> Any:
        media = self._body_media(operation) or {}
        example = media.get("example")
        if example is None:
            examples = media.get("examples")
            if isinstance(examples, dict) and examples:
                first = self.document.resolve(next(iter(examples.values())))
                example = first.get("value") if isinstance(first, dict) else None
        built = example if isinstance(example, dict) else self._from_schema(media.get("schema"), pool, 0)
        return self._tagged(built, pool)

    def _from_schema(self, schema: Any, pool: Pool, depth: int) -> Any:
        schema = self.document.resolve(schema)
        if not isinstance(schema, dict) or depth > 4:
            return None
        for combinator in ("allOf", "oneOf", "anyOf"):
            if schema.get(combinator):
                merged: dict[str, Any] = {}
                parts = schema[combinator] if combinator == "allOf" else schema[combinator][:1]
                for part in parts:
                    value = self._from_schema(part, pool, depth + 1)
                    if isinstance(value, dict):
                        merged.update(value)
                return merged
        if schema.get("type") == "object" or "properties" in schema:
            built = {}
            for name in schema.get("required") or []:
                spec = self.document.resolve((schema.get("properties") or {}).get(name, {}))
                value = pool.by_name.get(normalized(name))
                if value is None:
                    value = example_of({"schema": spec}, self.document)
                if value is None:
                    value = self._from_schema(spec, pool, depth + 1)
                built[name] = value
            return built
        example = example_of({"schema": schema}, self.document)
        return example if example is not None else typed_value(schema, self.document)

    def _tagged(self, body: Any, pool: Pool) -> Any:
        if isinstance(body, dict):
            tagged: dict[str, Any] = {}
            for key, value in body.items():
                if isinstance(value, str) and TAGGED_FIELDS.match(key):
                    value = f"{self.tag} {value}" if value and value != "contract-fakes" else self.tag
                elif isinstance(value, str) and (re.match(r"https?://", value) or "url" in key.lower()):
                    value = NEVER_DELIVERED
                else:
                    value = self._tagged(value, pool)
                tagged[key] = value
            return tagged
        if isinstance(body, list):
            return [self._tagged(item, pool) for item in body]
        return body

    # -- what an answer teaches ------------------------------------------------------------------
    def _learn(self, operation: Operation, side: Side, path: str, sent: Observed) -> None:
        pool = self.pools[side.name]
        body = sent.json() if sent.is_json else None
        if operation.is_read:
            if sent.status < 300 and body is not None:
                pool.learn(path, body)
            return
        if operation.method == "DELETE":
            side.note_deleted(path)
            return
        if operation.method == "POST" and sent.status < 300 and isinstance(body, dict):
            self.note_created(side, path, body)

    def note_created(self, side: Side, collection: str, body: dict[str, Any]) -> None:
        """A POST to ``collection`` created a resource: remember its id and how to delete it."""
        collection = collection.rstrip("/")
        for operation in self.document.operations:
            if operation.method != "DELETE" or len(operation.path_params) < 1:
                continue
            last = operation.path_params[-1]
            parent = operation.template.rsplit("{" + last + "}", 1)[0].rstrip("/")
            if not re.fullmatch(Walk._generic(parent), collection):
                continue
            value = next((v for k, v in body.items() if normalized(k) == normalized(last)), None)
            if value is None:
                value = body.get("id")
            if value is None or isinstance(value, bool | dict | list):
                continue
            self.pools[side.name].created[collection] = value
            resource = f"{collection}/{value}" + ("/" if operation.template.endswith("/") else "")
            side.created.append((operation, resource))
            if isinstance(side, RealSide):
                side.budget.reserved += 1
            return

    @staticmethod
    def _generic(template: str) -> str:
        parts = re.split(r"({[^}/]+})", template)
        return "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)
