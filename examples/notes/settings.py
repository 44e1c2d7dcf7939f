"""Settings of the notes fake: every field is a keyword argument, ``--set notes.KEY=VALUE`` and
``FAKES_NOTES_KEY``; ``fakes list --settings`` prints the ``help`` texts."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakes.kernel.settings import FakeSettings, SettingsError


@dataclass
class NotesSettings(FakeSettings):
    build_seconds: int = field(default=60, metadata={"help": "how long a note takes to be 'ready'"})
    build_seconds_by_tag: dict[str, int] = field(default_factory=dict, metadata={
        "help": "build time per tag, over build_seconds (JSON: {\"draft\": 5})"})
    max_text: int = field(default=1000, metadata={"help": "longest accepted note text, in characters"})
    api_token: str = field(default="", metadata={
        "help": "bearer token every public call needs (empty: the API is open)"})

    def __post_init__(self) -> None:
        """Refuse values that would only fail at the first request (`fakes serve` prints one line)."""
        problems = []
        if self.build_seconds < 0 or any(not isinstance(v, int) or v < 0 for v in self.build_seconds_by_tag.values()):
            problems.append("build times must be whole seconds >= 0")
        if self.max_text < 1:
            problems.append("max_text must be >= 1")
        if problems:
            raise SettingsError("notes: " + "; ".join(problems))
