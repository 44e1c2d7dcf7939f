"""Client rules of the notes API: what a careful client does, each with where it is documented.

Flagged from :mod:`.routes` with :func:`fakes.kernel.verdicts.flag`; listed in
:attr:`NotesFake.client_rules`, so ``fake.verdicts()`` and ``GET /_fake/verdicts`` report them.
"""

from __future__ import annotations

from fakes.kernel.verdicts import ClientRule

OLD_PARAMETER = ClientRule(
    "notes/old-parameter", "warning",
    "The 'old' query parameter of GET /notes is deprecated and ignored; clients should stop sending it.",
    "examples/notes/README.md, Public API")
