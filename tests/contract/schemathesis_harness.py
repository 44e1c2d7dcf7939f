"""Moved to :mod:`tests.support.schemathesis_harness`; this alias keeps imports not yet updated working."""

from tests.support.schemathesis_harness import CaseTweak, load_schema, operation_labels, run_operation

__all__ = ["CaseTweak", "load_schema", "operation_labels", "run_operation"]
