"""Helpers that more than one test folder imports: the schemathesis harness and `fakes serve` as a
subprocess. Test-folder-local helpers stay in their folder."""
