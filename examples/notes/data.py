"""Seeded generated data: a pure function of (seed, index), so equal seeds give equal notes.

Faker is seeded per call, never globally, and built once per process (building it is the slow
part; seeding it is cheap).
"""

from __future__ import annotations

import functools

from faker import Faker


@functools.cache
def _faker() -> Faker:
    return Faker("en_US")


def generated_text(seed: int, index: int) -> str:
    """The text of the ``index``-th generated note of a fake with ``seed``."""
    faker = _faker()
    faker.seed_instance(seed * 1_000_003 + index)
    return str(faker.sentence(nb_words=8))
