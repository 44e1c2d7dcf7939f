"""Is the fake still right? Conformance runs against the real service, drift reports, and real
sessions recorded and replayed against a fresh fake (docs/conformance.md).

Not a service: it uses the kernel and the registry, and the kernel knows nothing of it.

>>> from fakes.conform import ConformOptions, conform
>>> report = conform(ConformOptions("filings", "https://api.example", credentials={"api_key": "..."}))
"""

from __future__ import annotations

from .compare import Difference, compare
from .observed import Observed
from .runner import ConformOptions, conform

__all__ = ["ConformOptions", "Difference", "Observed", "compare", "conform"]
