"""Filings free tier: the yearly allowance runs out, and a client must handle the quota error.

A free key may make 100 calls a year. Every answer reports what is left
(``X-RateLimit-Monthly-Remaining``); the call after the last one is a 429 with ``Retry-After``
and the quota fields, refused calls (the 429 itself, a 403 for a Standard-only resource) do not
count, and a client that backs off for ``Retry-After`` is served again. Against the real service
this spends a free key's whole allowance: pass ``free_api_key`` only for a key you can spare.
"""

from __future__ import annotations

from .runner import Run, Scenario

MAX_CALLS = 1_000  # a safety stop for allowances larger than the seed's 100


def _remaining(headers: object) -> int | None:
    value = getattr(headers, "get", lambda _name: None)("X-RateLimit-Monthly-Remaining")
    return int(value) if isinstance(value, str) and value.isdigit() else None


def flow(run: Run) -> None:
    key = run.credential("free_api_key", create=lambda: run.control(
        "POST", "/_fake/keys", json={"tier": "free"})["api_key"])
    headers = {"X-API-Key": key}

    with run.step("the allowance is reported on every answer"):
        first = run.request("GET", "/companies/", headers=headers, params={"page_size": 1})
        run.check(first.status_code == 200, "a free key lists companies", first.text)
        remaining = _remaining(first.headers)
        run.check(remaining is not None, "X-RateLimit-Monthly-Remaining is a number", dict(first.headers))
        assert remaining is not None
        if run.is_fake:
            run.check(first.headers.get("X-RateLimit-Monthly-Limit") == "100", "the free allowance is 100 calls",
                      first.headers.get("X-RateLimit-Monthly-Limit"))

    with run.step("a refused call does not count"):
        refused = run.request("GET", "/filing-types/", headers=headers)
        run.check(refused.status_code == 403, "filing types need Standard Access: 403", refused.text)
        again = run.request("GET", "/companies/", headers=headers, params={"page_size": 1})
        run.check(_remaining(again.headers) == remaining - 1, "only the successful call was counted",
                  (remaining, again.headers.get("X-RateLimit-Monthly-Remaining")))
        remaining -= 1

    with run.step("spend the allowance: each call counts once"):
        calls, anomaly = 0, ""
        while remaining > 0 and calls < MAX_CALLS and not anomaly:
            response = run.request("GET", "/filings/", headers=headers, params={"page_size": 1})
            reported = _remaining(response.headers)
            if response.status_code != 200 or reported != remaining - 1:
                anomaly = f"call {calls + 1}: status {response.status_code}, {reported} left, expected {remaining - 1}"
            remaining -= 1
            calls += 1
        run.check(not anomaly, f"each of {calls} calls was served and counted exactly once", anomaly)
        run.check(remaining == 0, "the allowance is used up")

    # retrying at once after the refusal breaks a client rule on purpose: the fake answers 429 again
    with run.step("the next call is the quota error", expect_verdicts=["filings/calls-after-quota-refusal"]):
        blocked = run.request("GET", "/filings/", headers=headers)
        run.check(blocked.status_code == 429, "429 once the allowance is spent", blocked.text)
        body = blocked.json()
        run.check(isinstance(body.get("detail"), str), "the body has a detail", body)
        retry_after = blocked.headers.get("Retry-After", "")
        run.check(retry_after.isdigit() and int(retry_after) > 0, "Retry-After says when to come back", retry_after)
        run.check(_remaining(blocked.headers) == 0, "the quota headers say 0 left",
                  blocked.headers.get("X-RateLimit-Monthly-Remaining"))
        repeat = run.request("GET", "/filings/", headers=headers)
        run.check(repeat.status_code == 429, "retrying at once is refused again (and not counted)", repeat.status_code)

    with run.step("back off for Retry-After, then the key works again"):
        if not run.is_fake:
            return  # a year of real time: the real run stops here
        run.wait(int(retry_after))
        served = run.request("GET", "/filings/", headers=headers, params={"page_size": 1})
        run.check(served.status_code == 200, "served again in the new period", served.text[:200])
        run.check(_remaining(served.headers) == 99, "with a fresh allowance", served.headers.get(
            "X-RateLimit-Monthly-Remaining"))


SCENARIO = Scenario(name="filings-free-quota", service="filings",
                    summary="a free key's 100 calls a year run out: 429, Retry-After, back-off", flow=flow)
