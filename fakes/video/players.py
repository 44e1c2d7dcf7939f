"""Player themes: colours and switches of the embeddable player, a logo, attached by ``playerId``.

A theme's id is ``pl`` and 22 letters and digits (the reference's examples); videos and live
streams name one by ``playerId`` (an id of the same project; any other is a 400). Deleting a
theme detaches it from every video and live stream that used it (the model does that). Its logo
is a JPEG or PNG served by the fake at ``assets.logo``; ``assets.link`` is where the logo links to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

from . import data
from .images import Image, optional_image
from .problems import invalid_attribute, not_found

COLOURS = ("text", "link", "linkHover", "linkActive", "trackPlayed", "trackUnplayed", "trackBackground",
           "backgroundTop", "backgroundBottom", "backgroundText")
SWITCHES = {"enableApi": True, "enableControls": True, "forceAutoplay": False, "hideTitle": False, "forceLoop": False}
#: the colours a new theme starts with (the reference gives none; a plain light-on-dark player)
DEFAULT_COLOURS = {
    "text": "rgba(255, 255, 255, 1)", "link": "rgba(255, 255, 255, 1)", "linkHover": "rgba(255, 255, 255, 0.75)",
    "linkActive": "rgba(255, 255, 255, 0.5)", "trackPlayed": "rgba(255, 255, 255, 1)",
    "trackUnplayed": "rgba(255, 255, 255, 0.3)", "trackBackground": "rgba(0, 0, 0, 0)",
    "backgroundTop": "rgba(0, 0, 0, 0.7)", "backgroundBottom": "rgba(0, 0, 0, 0.7)",
    "backgroundText": "rgba(255, 255, 255, 1)",
}
# spaces written as " *": "\s" means more in a JSON schema than in Python, and the document has the pattern
COLOUR_PATTERN = r"^(#[0-9A-Fa-f]{3,8}|rgba?\( *[0-9]{1,3} *, *[0-9]{1,3} *, *[0-9]{1,3} *(, *(0|1|0?\.[0-9]+) *)?\))$"
_COLOUR = re.compile(COLOUR_PATTERN)
PLAYER_ID_PATTERN = r"pl[0-9A-Za-z]{22}"
FIELDS = frozenset({"name", *COLOURS, *SWITCHES})
MAX_COUNT = 10**12
MAX_LINK = 2048


@dataclass
class PlayerTheme:
    player_id: str
    project_id: str
    number: int
    created_ms: int
    updated_ms: int
    name: str = ""
    colours: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_COLOURS))
    switches: dict[str, bool] = field(default_factory=lambda: dict(SWITCHES))
    logo: Image | None = None
    logo_link: str | None = None

    def to_json(self, base: str, atom: Any) -> dict[str, Any]:
        assets: dict[str, str] = {}
        if self.logo is not None:
            assets["logo"] = f"{base}/assets/players/{self.player_id}/logo.{self.logo.extension}"
            if self.logo_link is not None:
                assets["link"] = self.logo_link
        return {"name": self.name, **self.colours, **self.switches, "playerId": self.player_id,
                "createdAt": atom(self.created_ms), "updatedAt": atom(self.updated_ms), "assets": assets}

    def to_state(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "project_id": self.project_id, "number": self.number,
                "created_ms": self.created_ms, "updated_ms": self.updated_ms, "name": self.name,
                "colours": dict(self.colours), "switches": dict(self.switches),
                "logo": self.logo.to_state() if self.logo else None, "logo_link": self.logo_link}


def theme_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The checked fields of a creation or update payload (unknown attributes and nulls refused)."""
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        raise invalid_attribute(unknown[0], f"unknown attribute; a player theme takes {', '.join(sorted(FIELDS))}")
    for name, value in body.items():
        if name == "name":
            if not isinstance(value, str) or len(value) > 100:
                raise invalid_attribute(name, "name must be a string of at most 100 characters")
        elif name in SWITCHES:
            if not isinstance(value, bool):
                raise invalid_attribute(name, f"{name} must be a boolean")
        elif not isinstance(value, str) or not _COLOUR.fullmatch(value):
            raise invalid_attribute(name, f"{name} must be a colour: rgba(r, g, b, a), rgb(r, g, b) or #hex")
    return dict(body)


@dataclass
class Players:
    seed: int
    by_id: dict[str, PlayerTheme] = field(default_factory=dict)
    count: int = 0

    def create(self, project_id: str, body: dict[str, Any], now_ms: int) -> PlayerTheme:
        fields = theme_fields(body)
        self.count += 1
        while data.player_id(self.seed, self.count) in self.by_id:
            self.count += 1
        theme = PlayerTheme(data.player_id(self.seed, self.count), project_id, self.count, now_ms, now_ms)
        self._apply(theme, fields)
        self.by_id[theme.player_id] = theme
        return theme

    def get(self, project_id: str, player_id: str) -> PlayerTheme:
        theme = self.by_id.get(player_id)
        if theme is None or theme.project_id != project_id:
            raise not_found("playerId")
        return theme

    def check_reference(self, project_id: str, player_id: str | None) -> None:
        """A ``playerId`` of a video or live stream must name a theme of the same project (404)."""
        if player_id is None:
            return
        theme = self.by_id.get(player_id)
        if theme is None or theme.project_id != project_id:
            raise not_found("playerId")

    def update(self, theme: PlayerTheme, body: dict[str, Any], now_ms: int) -> PlayerTheme:
        self._apply(theme, theme_fields(body))
        theme.updated_ms = now_ms
        return theme

    @staticmethod
    def _apply(theme: PlayerTheme, fields: dict[str, Any]) -> None:
        for name, value in fields.items():
            if name == "name":
                theme.name = value
            elif name in SWITCHES:
                theme.switches[name] = value
            else:
                theme.colours[name] = value

    def of_project(self, project_id: str) -> list[PlayerTheme]:
        return [t for t in self.by_id.values() if t.project_id == project_id]

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"themes": [t.to_state() for t in self.by_id.values()], "count": self.count}

    def load_state(self, read: StateReader, projects: dict[str, Any]) -> None:
        read.only(("themes", "count"))
        self.count = read.integer("count", minimum=0, maximum=MAX_COUNT)
        for item in read.objects("themes", max_items=1_000_000):
            item.only(("player_id", "project_id", "number", "created_ms", "updated_ms", "name", "colours",
                       "switches", "logo", "logo_link"))
            theme = PlayerTheme(item.text("player_id", pattern=PLAYER_ID_PATTERN),
                                item.text("project_id", max_length=64),
                                item.integer("number", minimum=1, maximum=MAX_COUNT),
                                item.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                                item.integer("updated_ms", minimum=0, maximum=MAX_EPOCH_MS),
                                item.text("name", max_length=100))
            colours = item.object("colours").only(COLOURS)
            switches = item.object("switches").only(SWITCHES)
            theme.colours = {name: colours.text(name, max_length=100, pattern=COLOUR_PATTERN[1:-1])
                             for name in COLOURS}
            theme.switches = {name: switches.boolean(name) for name in SWITCHES}
            theme.logo = optional_image(item, "logo")
            theme.logo_link = item.text("logo_link", max_length=MAX_LINK, nullable=True)
            if theme.project_id not in projects:
                refuse(item.where("project_id"), "names no project of this state")
            if theme.player_id in self.by_id:
                refuse(item.where("player_id"), "repeats a player theme of this state")
            self.by_id[theme.player_id] = theme
