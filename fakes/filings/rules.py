"""Client rules of the filings API: what a client must do, each citing FinancialReports' public
documentation (or the frameworks it runs on, or this project's docs page).

Flagged by the routes (:mod:`.routes`; the quota rule comes from the key's model, which appends
``(rule, detail)`` to the list the route hands it). Listed in :attr:`FilingsFake.client_rules`;
see docs/verdicts.md.
"""

from __future__ import annotations

from collections.abc import Mapping

from fakes.kernel.verdicts import Broken, ClientRule

WALKING_EVERY_PAGE = ClientRule(
    "filings/walking-every-page", "warning",
    "Filter (company, type, date, country, industry, identifiers) instead of walking an unfiltered list page by "
    "page: past walk_page_limit pages every call spends the yearly allowance on data the client could select.",
    "https://financialreports.eu/developers/reference/ (GET /filings/ and /companies/ take filters: company, "
    "type, dates, countries, industry, identifiers); docs/services/filings.md#paging-errors-tiers-and-quotas (a "
    "key's calls are a yearly quota: a free key's 100)")
CALLS_AFTER_QUOTA_REFUSAL = ClientRule(
    "filings/calls-after-quota-refusal", "error",
    "Once a key's allowance is used up (429 with Retry-After), calls before the reset are refused again: back "
    "off until Retry-After or upgrade the plan (exceeding the free tier).",
    "https://docs.financialreports.eu/ (Rate Limiting & Quotas: a plan's quota, and a 429 naming the limit "
    "that was hit); docs/services/filings.md#paging-errors-tiers-and-quotas (429 quota_limit_exceeded with "
    "Retry-After in seconds)")
UNSUPPORTED_FILTER = ClientRule(
    "filings/unsupported-filter", "warning",
    "The request uses a real filter this fake does not model (e.g. min_confidence, cursor); it was ignored, so "
    "the answer is not narrowed the way the real service would narrow it.",
    "https://financialreports.eu/developers/reference/ (List Filings: the real parameters); "
    "docs/services/filings.md#filters-of-filings (the ones the fake does not model are accepted and ignored)")

LENIENT_INPUT = ClientRule(
    "filings/lenient-input", "warning",
    "The request carried a value the real service's Django REST framework and django-filter tolerate rather "
    "than refuse: an empty filter value (ignored), an ordering term that names no orderable field (dropped; none "
    "left: the default order), a page_size above the maximum (cut to it). The fake answered as the service does; "
    "the client probably did not mean it.",
    "https://www.django-rest-framework.org/api-guide/pagination/#pagenumberpagination (page_size is cut to "
    "max_page_size); https://www.django-rest-framework.org/api-guide/filtering/#orderingfilter (an ordering "
    "term naming no orderable field is dropped); https://django-filter.readthedocs.io/ (an empty value leaves "
    "the filter out); docs/services/filings.md#paging-errors-tiers-and-quotas")

RULES = (WALKING_EVERY_PAGE, CALLS_AFTER_QUOTA_REFUSAL, UNSUPPORTED_FILTER, LENIENT_INPUT)

#: parameters that select a page or shape it; any other parameter counts as a filter
NOT_FILTERS = frozenset({"page", "page_size", "ordering", "view"})


def listing_rules_broken(params: Mapping[str, str], unmodelled: frozenset[str], walk_page_limit: int) -> Broken:
    """The rules a list request's URL breaks (checked once per URL: the answer is cached with them)."""
    broken: Broken = [(UNSUPPORTED_FILTER, f"query parameter {name!r} is a real filter this fake does not model; "
                                           "it was ignored")
                      for name in sorted(unmodelled.intersection(params))]
    page = params.get("page", "1")
    if page.isdigit() and len(page) <= 18 and int(page) > walk_page_limit and NOT_FILTERS.issuperset(params):
        broken.append((WALKING_EVERY_PAGE, f"unfiltered page {int(page)} (walk_page_limit {walk_page_limit}): "
                                           "filter by company, type, date or country instead"))
    return broken
