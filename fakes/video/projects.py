"""Projects, their two API keys (sandbox and production) and the bearer tokens of /auth/api-key.

A fake plays one environment (setting ``environment``): the other environment's key of the same
project is refused with 401 exactly like an unknown key, as the real service does. Tokens live
``token_lifetime_s`` on the fake's clock; a refresh token is single-use and issues a new pair.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.errors import ServiceError
from fakes.kernel.statecheck import StateReader, refuse

from . import data
from .problems import problem

MISSING_HEADER = ("authentication-missing-authorization-header", 'The "Authorization" header is missing.')
INVALID_HEADER = ("authentication-invalid-authorization-header-value", 'The "Authorization" header value is invalid.')
INVALID_KEY = ("authentication-invalid-api-key", "The API key is invalid.")
INVALID_TOKEN = ("authentication-invalid-access-token", "The access token is invalid or expired.")
INVALID_CREDENTIALS = ("authentication-invalid-user-credentials", "The user credentials were incorrect.")
KEY_PATTERN = r"[0-9A-Za-z]{43}"
MAX_COUNT = 10**12
MAX_CUSTOM_DOMAINS = 10_000  # extra custom domains of one project


@dataclass
class Project:
    project_id: str
    number: int
    sandbox_key: str
    production_key: str
    created_ms: int
    #: False: no rate limit counts or refuses this project's requests (the benchmark's project,
    #: which reads one page thousands of times at one virtual instant); other projects keep theirs
    rate_limited: bool = True
    #: the reference's "Video Restore" feature: a deleted video is discarded (restorable) for the
    #: retention instead of deleted at once
    keeps_discarded: bool = False
    #: extra custom domains (60 euros a month each: https://api.video/pricing), billed from ``domains_since_ms`` on
    #: (the time before that is in the project's usage)
    custom_domains: int = 0
    domains_since_ms: int = 0

    def key(self, environment: str) -> str:
        return self.sandbox_key if environment == "sandbox" else self.production_key

    def to_dict(self) -> dict[str, Any]:
        return {"project_id": self.project_id, "number": self.number, "sandbox_key": self.sandbox_key,
                "production_key": self.production_key, "created_ms": self.created_ms,
                **({} if self.rate_limited else {"rate_limited": False}),
                **({"keeps_discarded": True} if self.keeps_discarded else {}),
                **({"custom_domains": self.custom_domains, "domains_since_ms": self.domains_since_ms}
                   if self.custom_domains else {})}


@dataclass
class Token:
    access_token: str
    refresh_token: str
    project_id: str
    expires_ms: int
    refreshed: bool = False  # a refresh token works once

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def unauthorized(kind: tuple[str, str], detail: str | None = None) -> ServiceError:
    return problem(401, kind[0], kind[1], detail=detail)


def invalid_credentials() -> ServiceError:
    """The reference's 400 for an unknown API key or refresh token (its ``name`` is empty)."""
    return problem(400, INVALID_CREDENTIALS[0], INVALID_CREDENTIALS[1], name="")


class Projects:
    """Every project of the fake, its keys, and the tokens issued for them."""

    def __init__(self, seed: int, environment: str, token_lifetime_s: int) -> None:
        self.seed = seed
        self.environment = environment
        self.token_lifetime_ms = token_lifetime_s * 1000
        self.by_id: dict[str, Project] = {}
        self.by_key: dict[str, Project] = {}  # this environment's keys only
        self.tokens: dict[str, Token] = {}
        self.by_refresh: dict[str, Token] = {}
        self.token_count = 0
        self._basic: dict[str, str] = {}

    def create(self, now_ms: int, *, rate_limited: bool = True, keeps_discarded: bool = False) -> Project:
        number = len(self.by_id) + 1
        project = Project(data.project_id(self.seed, number), number, data.api_key(self.seed, "sandbox", number),
                          data.api_key(self.seed, "production", number), now_ms, rate_limited, keeps_discarded)
        self._add(project)
        return project

    def _add(self, project: Project) -> None:
        self.by_id[project.project_id] = project
        self.by_key[project.key(self.environment)] = project

    # -- authentication ------------------------------------------------------------------------
    def authenticate(self, header: str | None, now_ms: int) -> Project:
        """The project of an ``Authorization`` header: Basic with the key as user name, or Bearer."""
        if header is None:
            raise unauthorized(MISSING_HEADER)
        scheme, _, credentials = header.strip().partition(" ")
        credentials = credentials.strip()
        if scheme.lower() == "basic" and credentials:
            known = self._basic.get(credentials)
            if known is not None and known in self.by_key:
                return self.by_key[known]
            try:  # a header of other than ASCII bytes is no base64 either (ValueError), never a 500
                decoded = base64.b64decode(credentials, validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                raise unauthorized(INVALID_HEADER, "Basic credentials must be base64 of '<API key>:'") from None
            key, colon, _password = decoded.partition(":")
            if not colon:
                raise unauthorized(INVALID_HEADER, "Basic credentials must be '<API key>:' (keep the colon)")
            project = self.by_key.get(key)
            if project is None:
                raise unauthorized(INVALID_KEY)
            if len(self._basic) < 10_000:  # decoded once per distinct header (the hot path)
                self._basic[credentials] = key
            return project
        if scheme.lower() == "bearer" and credentials:
            token = self.tokens.get(credentials)
            if token is None or now_ms >= token.expires_ms:
                raise unauthorized(INVALID_TOKEN)
            return self.by_id[token.project_id]
        raise unauthorized(INVALID_HEADER)

    def identify(self, header: str | None, now_ms: int) -> Project | None:
        """The project a header names, or None (for rate-limit buckets of refused requests)."""
        try:
            return self.authenticate(header, now_ms)
        except ServiceError:
            return None

    def issue(self, api_key: Any, now_ms: int) -> dict[str, Any]:
        if not isinstance(api_key, str):
            raise problem(400, "invalid-attribute", "An attribute is invalid.", name="apiKey",
                          detail="apiKey (a string) is required")
        if api_key not in self.by_key:
            raise invalid_credentials()
        return self._new_token(self.by_key[api_key], now_ms)

    def refresh(self, refresh_token: Any, now_ms: int) -> dict[str, Any]:
        """A new pair for a refresh token, which works once; an unknown or spent one is the
        reference's 400 "The user credentials were incorrect." (as for an unknown API key)."""
        if not isinstance(refresh_token, str):
            raise problem(400, "invalid-attribute", "An attribute is invalid.", name="refreshToken",
                          detail="refreshToken (a string) is required")
        token = self.by_refresh.get(refresh_token)
        if token is None or token.refreshed:
            raise invalid_credentials()
        token.refreshed = True
        return self._new_token(self.by_id[token.project_id], now_ms)

    def _new_token(self, project: Project, now_ms: int) -> dict[str, Any]:
        self.token_count += 1
        while data.access_token(self.seed, self.token_count) in self.tokens or \
                data.refresh_token(self.seed, self.token_count) in self.by_refresh:
            self.token_count += 1  # an imported state may hold tokens of numbers ahead of its count
        token = Token(data.access_token(self.seed, self.token_count), data.refresh_token(self.seed, self.token_count),
                      project.project_id, now_ms + self.token_lifetime_ms)
        self.tokens[token.access_token] = token
        self.by_refresh[token.refresh_token] = token
        return {"token_type": "Bearer", "expires_in": self.token_lifetime_ms // 1000,
                "access_token": token.access_token, "refresh_token": token.refresh_token}

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"projects": [p.to_dict() for p in self.by_id.values()],
                "tokens": [t.to_dict() for t in self.tokens.values()], "token_count": self.token_count}

    def load_state(self, read: StateReader) -> None:
        """Projects and tokens of an imported state, each field checked; keys and tokens unique."""
        read.only(("projects", "tokens", "token_count"))
        self.token_count = read.integer("token_count", minimum=0, maximum=MAX_COUNT)
        for item in read.objects("projects", max_items=1_000_000):
            item.only(("project_id", "number", "sandbox_key", "production_key", "created_ms", "rate_limited",
                       "keeps_discarded", "custom_domains", "domains_since_ms"))
            project = Project(item.text("project_id", pattern=r"pr[0-9A-Za-z]{22}"),
                              item.integer("number", minimum=1, maximum=MAX_COUNT),
                              item.text("sandbox_key", pattern=KEY_PATTERN),
                              item.text("production_key", pattern=KEY_PATTERN),
                              item.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                              item.boolean("rate_limited") if item.has("rate_limited") else True,
                              item.boolean("keeps_discarded") if item.has("keeps_discarded") else False,
                              item.integer("custom_domains", minimum=0, maximum=MAX_CUSTOM_DOMAINS)
                              if item.has("custom_domains") else 0,
                              item.integer("domains_since_ms", minimum=0, maximum=MAX_EPOCH_MS)
                              if item.has("domains_since_ms") else 0)
            number = project.number
            if project.project_id != data.project_id(self.seed, number) or \
                    project.sandbox_key != data.api_key(self.seed, "sandbox", number) or \
                    project.production_key != data.api_key(self.seed, "production", number):
                refuse(item.where("project_id"), "and the keys must be those this seed gives project number "
                                                 f"{number}")
            if project.project_id in self.by_id:
                refuse(item.where("project_id"), "repeats a project of this state")
            self._add(project)
        if len(self.by_id) and max(p.number for p in self.by_id.values()) != len(self.by_id):
            refuse(read.where("projects"), "must be numbered 1 to their count (the next project takes the next)")
        for item in read.objects("tokens", max_items=10_000_000):
            item.only(("access_token", "refresh_token", "project_id", "expires_ms", "refreshed"))
            token = Token(item.text("access_token", max_length=64), item.text("refresh_token", max_length=80),
                          item.text("project_id", max_length=64),
                          item.integer("expires_ms", minimum=0, maximum=MAX_EPOCH_MS + self.token_lifetime_ms),
                          item.boolean("refreshed"))
            if token.project_id not in self.by_id:
                refuse(item.where("project_id"), "names no project of this state")
            if token.access_token in self.tokens or token.refresh_token in self.by_refresh:
                refuse(item.where("access_token"), "repeats a token of this state")
            self.tokens[token.access_token] = token
            self.by_refresh[token.refresh_token] = token
