"""Typed settings: one dataclass per service, filled from kwargs, ``--set`` and environment.

Resolution order (later wins): field default < ``FAKES_<SERVICE>_<KEY>`` environment variable <
``--set service.key=value`` on the CLI < keyword arguments of the fake in Python.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from .http import ascii_int

S = TypeVar("S", bound="FakeSettings")


def is_header_name(name: object) -> bool:
    """Whether a setting names an HTTP header: a token of 1 to 100 ASCII characters (RFC 9110),
    which every server and client can send and the scope holds as latin-1 bytes. A setting that
    names a header is checked with it when the fake is made, not at its first request."""
    return isinstance(name, str) and _HEADER_NAME.fullmatch(name) is not None


_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}")


class SettingsError(ValueError):
    """An unknown setting or a value of the wrong type."""


@dataclasses.dataclass
class FakeSettings:
    """Base class of every service's settings (it declares no fields itself)."""

    @classmethod
    def fields(cls) -> list[dataclasses.Field[Any]]:
        return list(dataclasses.fields(cls))

    @classmethod
    def describe(cls) -> list[dict[str, Any]]:
        """Name, type, default and help of each setting (for `fakes list --settings`)."""
        rows = []
        hints = typing.get_type_hints(cls)
        for f in cls.fields():
            default = f.default if f.default is not dataclasses.MISSING else (
                f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
            rows.append({"name": f.name, "type": _type_name(hints[f.name]), "default": default,
                         "help": f.metadata.get("help", "")})
        return rows

    @classmethod
    def resolve(
        cls: type[S],
        service: str,
        *,
        kwargs: Mapping[str, Any] | None = None,
        cli: Mapping[str, str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> S:
        environ = os.environ if environ is None else environ
        hints = typing.get_type_hints(cls)
        names = {f.name for f in cls.fields()}
        values: dict[str, Any] = {}
        prefix = env_prefix(service)
        for name in names:
            env_value = environ.get(prefix + name.upper())
            if env_value is not None:
                values[name] = coerce(hints[name], env_value, name)
        for name, raw in (cli or {}).items():
            if name not in names:
                raise SettingsError(f"{service} has no setting {name!r}; known: {', '.join(sorted(names))}")
            values[name] = coerce(hints[name], raw, name)
        for name, value in (kwargs or {}).items():
            if name not in names:
                raise SettingsError(f"{service} has no setting {name!r}; known: {', '.join(sorted(names))}")
            values[name] = coerce(hints[name], value, name) if isinstance(value, str) else value
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def env_prefix(service: str) -> str:
    """``FAKES_<SERVICE>_``: the prefix of a service's setting variables."""
    return "FAKES_" + service.upper().replace("-", "_") + "_"


def unknown_variables(environ: Mapping[str, str], services: Mapping[str, type[FakeSettings]],
                      ignore: frozenset[str] = frozenset()) -> list[str]:
    """``FAKES_<SERVICE>_<KEY>`` variables that name no setting of that service (a typo would
    otherwise be ignored without a word, where ``--set`` refuses it). A variable that also starts
    with a longer registered service's prefix belongs to that one; ``ignore`` names variables
    that are not settings (the kernel's own)."""
    prefixes = sorted(((env_prefix(name), cls) for name, cls in services.items()), key=lambda p: -len(p[0]))
    unknown = []
    for variable in sorted(environ):
        if variable in ignore:
            continue
        for prefix, cls in prefixes:
            if variable.startswith(prefix):
                if variable[len(prefix):].lower() not in {f.name for f in cls.fields()}:
                    unknown.append(variable)
                break
    return unknown


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _matches(value: Any, hint: Any) -> bool:
    """Whether a JSON value fits a declared type, items included (``dict[str, int]``, ...)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is list or hint is list:
        return isinstance(value, list) and (not args or all(_matches(item, args[0]) for item in value))
    if origin is dict or hint is dict:
        return isinstance(value, dict) and (not args or all(
            _matches(key, args[0]) and _matches(item, args[1]) for key, item in value.items()))
    return True  # a type this check does not know: the service's own __post_init__ judges it


def coerce(hint: Any, raw: str, name: str) -> Any:
    """Turn a text value (CLI or environment) into the field's declared type."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if raw.lower() in ("", "none", "null") and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return coerce(arg, raw, name)
            except SettingsError:
                continue
        raise SettingsError(f"setting {name!r}: cannot read {raw!r} as {_type_name(hint)}")
    try:
        if hint is bool:
            lowered = raw.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if hint is int:
            return ascii_int(raw.strip())  # not int(): it takes '1_000' and '٣'
        if hint is float:
            number = float(raw)
            if not math.isfinite(number):  # nan or inf would only fail later, at some request
                raise ValueError(raw)
            return number
        if hint is str:
            return raw
        if origin in (dict, list) or hint in (dict, list):
            value = json.loads(raw)
            if not _matches(value, hint):  # the items too: a list[str] of numbers fails later otherwise
                raise ValueError(raw)
            return value
    except ValueError:
        raise SettingsError(f"setting {name!r}: cannot read {raw!r} as {_type_name(hint)}") from None
    raise SettingsError(f"setting {name!r}: unsupported type {_type_name(hint)}")
