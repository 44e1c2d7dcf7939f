"""The catalogue's caches cost the garbage collector nothing (the cause of slow never-seen pages)."""

from __future__ import annotations

import gc

from fakes.filings.catalogue.companies import CompanyCore, company_core
from fakes.filings.catalogue.generator import Catalogue, Scale
from fakes.filings.catalogue.records import FilingRecord, generated_record


def test_cached_records_and_companies_are_untracked_by_the_collector() -> None:
    catalogue = Catalogue(11, Scale.parse("small"))  # its own caches, empty
    records = [generated_record(catalogue, index) for index in range(0, 2000, 7)]
    cores = [company_core(catalogue, company_id) for company_id in range(1, 60)]
    gc.collect()
    gc.collect()  # a tuple inside a tuple (ISINs) is untracked one pass before its holder
    assert catalogue.record_cache and catalogue.company_cache
    assert not gc.is_tracked(catalogue.record_cache), "a full collection would rescan every cached filing"
    assert not gc.is_tracked(catalogue.company_cache)
    # answered from the cache: equal values, the same class as a freshly generated one
    assert [generated_record(catalogue, index) for index in range(0, 2000, 7)] == records
    assert all(isinstance(record, FilingRecord) for record in records)
    assert [company_core(catalogue, company_id) for company_id in range(1, 60)] == cores
    assert all(isinstance(core, CompanyCore) for core in cores)


def test_the_record_cache_is_bounded() -> None:
    from fakes.filings.catalogue import records

    catalogue = Catalogue(12, Scale.parse("small"))
    limit = records.RECORD_CACHE_SIZE
    records.RECORD_CACHE_SIZE = 50
    try:
        for index in range(200):
            generated_record(catalogue, index)
        assert len(catalogue.record_cache) == 50
        assert 199 in catalogue.record_cache and 0 not in catalogue.record_cache  # oldest out first
    finally:
        records.RECORD_CACHE_SIZE = limit
