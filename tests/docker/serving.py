"""Moved to :mod:`tests.support.serving`; this alias keeps imports not yet updated working."""

from tests.support.serving import *  # noqa: F403
