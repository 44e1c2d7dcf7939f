"""The official `financial-reports-generated-client` (its current release) against the fake.

The client validates every response against its own pydantic models - required fields such as
``ingestion_mode`` included - so this is the strictest check of the shapes. It talks aiohttp to a
real socket, so the fake is served over HTTP for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from financial_reports_generated_client.client import FinancialReports
from financial_reports_generated_client.exceptions import ApiException

from fakes.filings import FilingsFake


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[FilingsFake, str]]:
    fake = FilingsFake(seed=0, scale="small")
    with fake.serve() as url:
        yield fake, url


def run(url: str, key: str, body: object) -> object:
    async def go() -> object:
        async with FinancialReports(api_key=key) as client:
            client.api_client.configuration.host = url
            return await body(client)  # type: ignore[operator]
    return asyncio.run(go())


def test_client_lists_companies_and_reads_one(served: tuple[FilingsFake, str]) -> None:
    fake, url = served

    async def body(client: FinancialReports) -> object:
        page = await client.companies.list(countries="DE,AT", sector="K", page_size=20)
        assert page.count >= 1 and page.results
        assert all(c.country_code in ("DE", "AT") for c in page.results)
        full = await client.companies.retrieve(page.results[0].id)
        assert full.sector is not None and full.sector.code == "K"
        assert full.sub_industry is not None and full.sub_industry.industry.industry_group.sector.code == "K"
        by_isin = await client.companies.list(isin=full.isins[0])
        assert [c.id for c in by_isin.results] == [full.id]
        return None

    run(url, fake.create_key("standard"), body)


def test_client_lists_filings_with_filters_and_follows_pages(served: tuple[FilingsFake, str]) -> None:
    fake, url = served

    async def body(client: FinancialReports) -> object:
        first = await client.filings.list(ordering="-release_datetime", page_size=10)
        assert first.count == 3000 and len(first.results) == 10 and first.next
        times = [f.release_datetime for f in first.results]
        assert times == sorted(times, reverse=True)
        assert all(f.ingestion_mode.value in ("REALTIME", "BACKFILLED") for f in first.results)
        second = await client.filings.list(ordering="-release_datetime", page_size=10, page=2)
        assert not {f.id for f in first.results} & {f.id for f in second.results}
        annual = await client.filings.list(type="10-K", languages="en,de", page_size=50)
        assert annual.results and all(f.filing_type.code == "10-K" for f in annual.results)
        company = first.results[0].company.id
        own = await client.filings.list(company=company, page_size=100)
        assert own.results and all(f.company.id == company for f in own.results)
        detail = await client.filings.retrieve(first.results[0].id)
        assert detail.id == first.results[0].id and detail.language.code
        types = await client.filing_types.list()
        assert types.count == 13
        return None

    run(url, fake.create_key("standard"), body)


def test_client_reads_markdown_with_level2_and_gets_403_below(served: tuple[FilingsFake, str]) -> None:
    fake, url = served

    async def read(client: FinancialReports) -> object:
        return await client.filings.markdown_retrieve(100)

    text = run(url, fake.create_key("level2"), read)
    assert isinstance(text, str) and text.startswith("# ")
    with pytest.raises(ApiException) as refused:
        run(url, fake.create_key("standard"), read)
    assert refused.value.status == 403
