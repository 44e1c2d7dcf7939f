"""One invariant test per registered service (see tests/hardening/harness.py): after any drawn
sequence of control-plane calls, valid and invalid, every public operation answers without a 5xx
and an export imported into a fresh fake answers identically. Deeper runs:
FAKES_HYPOTHESIS_EXPLORE=1 (new cases, 200 each) or FAKES_INVARIANT_EXAMPLES=N."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes import registry

from .harness import EXPLORE, INVARIANT_EXAMPLES, PHASES, check_invariant


@pytest.mark.parametrize("service", registry.service_names())
def test_no_control_call_sequence_breaks_the_fake(service: str) -> None:
    @settings(max_examples=INVARIANT_EXAMPLES, deadline=None, database=None, derandomize=not EXPLORE,
              suppress_health_check=list(HealthCheck), phases=PHASES)
    @given(data=st.data())
    def run(data: Any) -> None:
        check_invariant(service, data)

    run()
