"""``python -m scenarios.bench`` (also the entry of the benchmark's own child processes)."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
