"""What a world costs, per registered service: ``python -m tests.worlds.measure [--worlds N]``.

The measurement is the benchmark's worlds part (``scenarios/bench/worlds.py``, where the columns
are explained); this prints it with the test suite's settings for each service.
"""

from __future__ import annotations

import argparse

from fakes import registry
from scenarios.bench.worlds import measure

from .conftest import settings_for


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--only", default="", help="comma-separated services (default: all registered)")
    args = parser.parse_args()
    services = [s for s in args.only.split(",") if s] or registry.service_names()
    print(f"{'service':<14} {'create':>8} {'1st ctl':>8} {'1st api':>8} {'later':>8} {'1st sock':>8} "
          f"{'KiB/empty':>9} {'KiB/busy':>9} {'KiB left':>8}")
    for service in services:
        row = measure(service, args.worlds, settings_for(service))
        print(f"{service:<14} {row['create_ms']:>6.2f}ms {row['first_control_ms']:>6.2f}ms "
              f"{row['first_api_ms']:>6.2f}ms {row['later_ms']:>6.2f}ms {row['socket_first_ms']:>6.2f}ms "
              f"{row['kib_per_empty_world']:>9.1f} {row['kib_per_busy_world']:>9.1f} "
              f"{row['kib_left_after_delete']:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
