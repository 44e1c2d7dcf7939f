"""The route table: every operation once, with its paths, parameters, billing and MCP tool.

Routes, the OpenAPI document, ``/llms.txt`` and ``/llms-full.txt`` are all generated from this
table, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

USE_CACHE = ("if-recent", "if-present", "if-present-only", "never")
ALPHA2 = "[A-Za-z]{2}"
EMAIL = "[A-Za-z0-9._%+'-]{1,64}@[A-Za-z0-9-]{1,63}(\\.[A-Za-z0-9-]{1,63})+"


@dataclass(frozen=True)
class Param:
    name: str
    description: str
    required: bool = False
    kind: str = "string"          # string | boolean | integer
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    max_length: int = 2048
    pattern: str | None = None      # the value must match it in full (also declared in the OpenAPI document)
    deprecated: str = ""            # if set, what to use instead: the parameter is refused with a 400 saying so


@dataclass(frozen=True)
class Operation:
    name: str
    summary: str
    seed_path: str
    real_paths: tuple[str, ...]
    method: str = "GET"
    bucket: str = "paid"            # paid | free (rate-limit bucket)
    billed: bool = True             # data operations billed per the credit table
    cost: str = ""                  # the credit rule, as documented
    params: tuple[Param, ...] = ()
    timeout_s: int = 100
    tool: str | None = None         # the MCP tool of this operation
    body: str | None = None         # name of the JSON request body schema
    media_type: str = "application/json"
    tag: str = "data"
    path_params: tuple[str, ...] = field(default=())
    #: answered as a stream (chunked, no Content-Length), as the real service answers it
    streamed: bool = False

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.seed_path, *self.real_paths)


WEBSITE = Param("website", "The company's website (URL or bare domain: https://www.x.com, x.com and "
                           "http://x.com/ are the same company)", required=True)
CACHE = Param("use_cache", "if-recent (default: cached answers inside the freshness window cost 0), "
                           "if-present (any cached answer), if-present-only (404 when nothing is cached), "
                           "never (always fresh, always charged)", enum=USE_CACHE)
PERSON_INPUTS = (
    Param("work_email", "The person's work email", max_length=320, pattern=EMAIL),
    Param("first_name", "First name (with employer_website)", max_length=200),
    Param("middle_name", "Middle name", max_length=200),
    Param("last_name", "Last name", max_length=200),
    Param("employer_website", "Website of the person's employer (with first_name or role)"),
    Param("role", "Role at the employer (with employer_website)", max_length=200),
    Param("slug", "The person's slug", max_length=400),
    Param("id", "The person's id", max_length=400),
)

OPERATIONS: tuple[Operation, ...] = (
    Operation("company_details", "Company details: metadata, leadership, financials", "/v1/company/details",
              ("/api/v1/company/details",), cost="3 credits; +2 include_employee_count=true, +1 "
              "follower_count=include, +2 addresses=best-effort-exhaustive; at most 6 (setting details_max_cost)",
              params=(WEBSITE, Param("include_employee_count", "Add employee_count_range_min/max (+2 credits)",
                                     kind="boolean"),
                      Param("follower_count", "include: add follower_count/following_count (+1 credit)",
                            enum=("include", "exclude")),
                      Param("addresses", "best-effort-exhaustive: every known address (+2 credits)",
                            enum=("best-effort", "best-effort-exhaustive")), CACHE),
              tool="get_company_details"),
    Operation("employee_count", "Estimated headcount", "/v1/company/employee-count",
              ("/api/v1/company/employee-count",), cost="2 credits", params=(WEBSITE, CACHE),
              tool="get_employee_count"),
    Operation("company_funding", "Funding rounds and investors", "/v1/company/funding", ("/api/v1/company/funding",),
              cost="2 credits + 1 per unique investor in the answer", params=(WEBSITE, CACHE), timeout_s=300,
              streamed=True),
    Operation("company_updates", "Recent blog posts, short posts and video uploads", "/v1/company/updates",
              ("/api/v1/company/updates",), cost="2 credits", params=(WEBSITE, CACHE)),
    Operation("company_website", "Canonical website from a company name", "/v1/company/website",
              ("/api/v1/company/website",), cost="1 credit",
              params=(Param("company_name", "The company's name", required=True, max_length=300),
                      Param("country_code", "ISO 3166-1 alpha-2 country (default us)", max_length=2,
                            pattern=ALPHA2),
                      Param("hint", "Any disambiguating text", max_length=300))),
    Operation("company_logo", "The company's 128x128 PNG logo", "/v1/company/logo", ("/api/v1/company/logo",),
              bucket="free", billed=False, cost="free", params=(WEBSITE,), tool="get_company_logo_url",
              media_type="image/png"),
    Operation("customer_listing", "Customers, investors and partners", "/v1/customer/listing",
              ("/api/v1/customer/listing",), cost="1 credit + 2 per company in the page (customers, investors "
              "and partners)",
              params=(WEBSITE, Param("cursor", "Opaque cursor of next_page", max_length=200),
                      Param("page_size", "Companies per page, 1-200 (default 200)", kind="integer", minimum=1,
                            maximum=200),
                      Param("quality_filter", "Leave out low-confidence matches (default true)", kind="boolean"),
                      CACHE), tool="get_customer_listing"),
    Operation("competitor_listing", "Competitors, each with a competition_reason", "/v1/competitor/listing",
              ("/api/v1/competitor/listing",), cost="2 credits per competitor, at least 5", params=(WEBSITE, CACHE)),
    Operation("product_listing", "Products, pricing and integrations", "/v1/product/listing",
              ("/api/v1/product/listing",), cost="3 credits", params=(WEBSITE, CACHE)),
    Operation("person_profile", "Person profile: job history, education, socials", "/v2/employee/profile",
              ("/api/v2/employee/profile", "/api/v1/employee/profile"), cost="3 credits",
              params=(*PERSON_INPUTS, Param("enrichment", "detailed (default: the whole profile) or fast (a shorter "
                                                          "profile now, the detailed one on a free repeat once "
                                                          "its enrichment completes)", enum=("detailed", "fast")),
                      Param("speed", "No longer accepted: use enrichment",
                            deprecated="use enrichment=fast or enrichment=detailed"), CACHE)),
    Operation("work_email", "Work email from a name and a domain", "/v1/employee/work-email",
              ("/api/v1/employee/work-email",), cost="2 credits on a hit, 0.5 on a miss",
              params=(Param("first_name", "First name", required=True, max_length=200),
                      Param("domain", "The employer's domain", required=True),
                      Param("last_name", "Last name", max_length=200),
                      Param("force_refresh", "Skip the cache (always charged)", kind="boolean"),
                      Param("_force_refresh", "Same as force_refresh (the official client's name)", kind="boolean"))),
    Operation("similar_people", "Peers of a person at competitor firms", "/v1/employee/similar",
              ("/api/v1/employee/similar",), cost="10 credits + 5 per attempted (company, role) search",
              params=(*PERSON_INPUTS, CACHE), timeout_s=300, streamed=True),
    Operation("employee_search", "People of a company in a role", "/v1/employee/search", ("/api/v1/employee/search",),
              cost="2 credits + 1 per employee",
              params=(Param("company_website", "The company's website", required=True),
                      Param("role", "Role to search for", required=True, max_length=200),
                      Param("country", "ISO 3166-1 alpha-2 filter", max_length=2, pattern=ALPHA2),
                      Param("state", "State filter", max_length=100), Param("city", "City filter", max_length=100),
                      CACHE)),
    Operation("disposable_email", "Whether an address is disposable or a free provider's",
              "/v1/employee/disposable-email-checker", ("/api/v1/contact/disposable-email",), bucket="free",
              billed=False, cost="free", params=(Param("email", "The email address to check", required=True,
                                                       max_length=320, pattern=EMAIL),), tool="check_disposable_email"),
    Operation("credit_balance", "Remaining credits", "/v1/credits", ("/api/v1/meta/credit-balance",), bucket="free",
              billed=False, cost="free", tool="get_credit_balance"),
    # -- the monitor API: management counts as paid traffic for the rate limits ---------------
    Operation("list_feeds", "Your monitoring feeds", "/v1/monitor/feeds", ("/api/v1/monitor/feeds", "/api/v1/feeds"),
              billed=False, cost="free", tool="list_feeds", tag="monitor"),
    Operation("create_feed", "Create a feed with its first targets", "/v1/monitor/feeds",
              ("/api/v1/monitor/feeds", "/api/v1/feeds"), method="POST", billed=False, cost="3 credits",
              tool="create_feed", body="CreateFeed", tag="monitor"),
    Operation("get_feed", "One feed with its targets", "/v1/monitor/feeds/{feed_id}",
              ("/api/v1/monitor/feeds/{feed_id}", "/api/v1/feeds/{feed_id}"), billed=False, cost="free",
              tool="describe_feed", tag="monitor", path_params=("feed_id",)),
    Operation("update_feed", "Rename, publish, suspend or resume a feed", "/v1/monitor/feeds/{feed_id}",
              ("/api/v1/monitor/feeds/{feed_id}", "/api/v1/feeds/{feed_id}"), method="PATCH", billed=False,
              cost="free", tool="update_feed", body="UpdateFeed", tag="monitor", path_params=("feed_id",)),
    Operation("delete_feed", "Delete a feed", "/v1/monitor/feeds/{feed_id}",
              ("/api/v1/monitor/feeds/{feed_id}", "/api/v1/feeds/{feed_id}"), method="DELETE", billed=False,
              cost="free", tool="delete_feed", tag="monitor", path_params=("feed_id",)),
    Operation("add_target", "Add a company to a feed", "/v1/monitor/feeds/{feed_id}/targets",
              ("/api/v1/monitor/feeds/{feed_id}/targets", "/api/v1/feeds/{feed_id}/targets"), method="POST",
              billed=False, cost="free (each poll costs: blog 1, website 1, X 2, video 1 per target)",
              tool="add_target", body="AddTarget", tag="monitor", path_params=("feed_id",)),
    Operation("update_target", "Change a target's settings", "/v1/monitor/feeds/{feed_id}/targets/{target_id}",
              ("/api/v1/monitor/feeds/{feed_id}/targets/{target_id}", "/api/v1/feeds/{feed_id}/targets/{target_id}"),
              method="PATCH", billed=False, cost="free", tool="update_target", body="UpdateTarget", tag="monitor",
              path_params=("feed_id", "target_id")),
    Operation("remove_target", "Remove a target", "/v1/monitor/feeds/{feed_id}/targets/{target_id}",
              ("/api/v1/monitor/feeds/{feed_id}/targets/{target_id}", "/api/v1/feeds/{feed_id}/targets/{target_id}"),
              method="DELETE", billed=False, cost="free", tool="remove_target", tag="monitor",
              path_params=("feed_id", "target_id")),
    Operation("feed_rss", "The feed as RSS 2.0 (token instead of the bearer key)",
              "/v1/monitor/feeds/{feed_id}/rss.xml",
              ("/api/v1/monitor/feeds/{feed_id}/rss.xml", "/api/v1/feeds/{feed_id}/rss.xml"), bucket="free",
              billed=False, cost="free", params=(Param("token", "The feed's RSS token (not needed for public feeds)",
                                                       max_length=200),),
              media_type="text/xml", tag="monitor", path_params=("feed_id",)),
)
BY_NAME = {op.name: op for op in OPERATIONS}
#: MCP-only tool (no REST operation of its own): returns the items new since the last consumption
CONSUME_TOOL = "consume_feed"
