"""Paying (treg ``src/treg/api.py`` 6047-6226 and ``application/billing.py``; referrals 6163-6199 and
``referrals.py``), with the payment provider simulated: no card, no network.

- ``POST /billing/topup`` starts a hosted checkout for whole dollars (``topup_min_usd``, default
  $10, to $2,000) and answers its ``url``; the balance moves only when the checkout is paid: on its
  page (``GET|POST /checkout/{id}``), through the control plane, or by itself ``checkout_s``
  seconds (60) of the fake's clock later, as the payer finishing it would. Paying saves the card.
  Bonus credit per treg's tiers ($50: 5%, $100: 10%, $200: 15%);
- auto top-up (``POST /billing/autotopup``): needs ``consent: true`` to switch on; without a card
  the answer carries a card-capture ``setup_url``. Once armed, a charge that leaves the balance
  under the threshold (default $5) adds the amount (default $20), at most the monthly cap
  (default $100) a calendar month and at most 5 times an hour;
- referrals: a person's code (``/referrals/code``), the teams created with it (the ``<relay>_ref``
  cookie) and their rewards: the new team gets $5 at its first top-up of $10 or more, the referrer's
  first team $5 seven days later (at most 20).
Deviation: ``/billing/portal`` before the first payment is 409 (treg: 422).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakes.kernel.errors import ServiceError

from .. import data
from ..ledger import MAX_AMOUNT
from ..teams import Membership, Team
from .formats import iso, month_start, usd
from .identity import require_admin_of
from .ladder import refresh_ladder
from .orgdata import CreditBlock, Referral
from .pending import Checkout
from .people import User

if TYPE_CHECKING:
    from .identity import Accounts

MICRO = 1_000_000
TOPUP_MAX_USD = 2_000
PRESETS = [10, 50, 100, 200]
BONUS_TIERS = {10: 0, 50: 5, 100: 10, 200: 15}
AUTO_THRESHOLD_USD, AUTO_AMOUNT_USD, AUTO_CAP_USD, AUTO_PER_HOUR = 5, 20, 100, 5
REFERRAL_MICRO, REFERRAL_MIN_TOPUP, REFERRAL_HOLD_MS, REFERRAL_CAP = 5 * MICRO, 10 * MICRO, 7 * 86_400_000, 20


def bonus_for(amount_micro: int) -> tuple[int, int]:
    percent = 0
    for floor in sorted(BONUS_TIERS):
        if amount_micro // MICRO >= floor:
            percent = BONUS_TIERS[floor]
    return amount_micro * percent // 100, percent


def prefs(team: Team) -> dict[str, int]:
    bill = team.org.billing
    return {"threshold_micro": bill.threshold_micro or AUTO_THRESHOLD_USD * MICRO,
            "amount_micro": bill.amount_micro or AUTO_AMOUNT_USD * MICRO,
            "monthly_cap_micro": bill.monthly_cap_micro or AUTO_CAP_USD * MICRO}


def month_auto(acc: Accounts, team: Team) -> int:
    since = month_start(acc.now())
    return sum(b.amount_micro for b in team.org.blocks if b.auto and b.created_ms >= since)


def state(acc: Accounts, team: Team) -> dict[str, Any]:
    bill = team.org.billing
    found = prefs(team)
    spent = month_auto(acc, team)
    last = bill.last_topup_usd
    default = next((p for p in PRESETS if p > last), 50) if last else 10
    return {"org_id": team.number, "configured": True, "balance_micro": team.balance_micro,
            "balance_usd": usd(team.balance_micro), "customer": bill.customer, "card_on_file": bill.card_on_file,
            "portal": bill.customer,
            "topup": {"min_usd": acc.model.settings.topup_min_usd, "max_usd": TOPUP_MAX_USD,
                      "default_usd": min(default, 50), "presets": PRESETS, "bonus_tiers": BONUS_TIERS},
            "autotopup": {"enabled": bill.autotopup_enabled, "consented_at": iso(bill.consented_ms),
                          **found, "threshold_usd": usd(found["threshold_micro"]),
                          "amount_usd": usd(found["amount_micro"]), "monthly_cap_usd": usd(found["monthly_cap_micro"]),
                          "month_spend_micro": spent, "month_spend_usd": usd(spent),
                          "disabled_reason": bill.disabled_reason, "failures": bill.failures,
                          "last_attempt_at": iso(bill.last_attempt_ms), "recovery_payment_intent": None,
                          "cooldown_s": 3600, "per_hour": AUTO_PER_HOUR, "wait_s": 0, "max_attempts": 3},
            "referral_offer": None}


def get(acc: Accounts, member: Membership) -> dict[str, Any]:
    require_admin_of(member, member.team.number)
    settle_due(acc, member.team)
    return state(acc, member.team)


def _checkout(acc: Accounts, member: Membership, kind: str, amount_micro: int, base: str) -> Checkout:
    number = acc.next("checkout")
    session = Checkout(f"cs_{data.token_text(acc.model.seed, 'checkout', number)}", member.team.team_id, kind,
                       amount_micro, acc.now(), member.email)
    acc.checkouts[session.session_id] = session
    session.extra["url"] = f"{base}/checkout/{session.session_id}"
    return session


def topup(acc: Accounts, member: Membership, amount_usd: float | None, base: str) -> dict[str, Any]:
    require_admin_of(member, member.team.number)
    amount = amount_usd if amount_usd is not None else 10
    session = _checkout(acc, member, "topup", round(amount * MICRO), base)
    session.bonus_micro = bonus_for(session.amount_micro)[0]
    return {"url": session.extra["url"], "session_id": session.session_id, "amount_micro": session.amount_micro,
            "amount_usd": amount}


def autotopup(acc: Accounts, member: Membership, body: dict[str, Any], base: str) -> dict[str, Any]:
    require_admin_of(member, member.team.number)
    bill = member.team.org.billing
    if body["enabled"] and not body.get("consent") and bill.consented_ms is None:
        raise ServiceError(403, "enabling auto top-up requires consent: true (you are authorizing charges to a saved "
                                "card without being present)", code="consent_required")
    for name, field in (("threshold_usd", "threshold_micro"), ("amount_usd", "amount_micro"),
                        ("monthly_cap_usd", "monthly_cap_micro")):
        if body.get(name) is not None:
            setattr(bill, field, round(body[name] * MICRO))
    if body["enabled"] and body.get("consent"):
        bill.consented_ms = acc.now()
    bill.autotopup_enabled = body["enabled"]
    if body["enabled"]:
        bill.disabled_reason, bill.failures = None, 0
    refresh_ladder(acc.model, member.team)  # an armed team's charges are checked after each call
    answer = state(acc, member.team)
    if body["enabled"] and not bill.card_on_file:
        answer["setup_url"] = _checkout(acc, member, "setup", 0, base).extra["url"]
    return answer


def pay(acc: Accounts, session_id: str) -> dict[str, Any]:
    """A checkout completed by its payer: a top-up credits the balance (and its bonus); either
    kind saves the card. Paying twice changes nothing."""
    session = acc.checkouts.get(session_id)
    if session is None:
        raise ServiceError(404, f"no checkout {session_id!r}", code="not_found")
    team = acc.model.teams.get(session.team_id)
    if session.status != "open" or team is None:
        return {"session_id": session_id, "status": session.status}
    session.status = "paid"
    bill = team.org.billing
    bill.customer = bill.card_on_file = True
    if session.kind == "topup":
        credit(acc, team, session.amount_micro, "topup", session_id)
        if session.bonus_micro:
            credit(acc, team, session.bonus_micro, "bonus", session_id)
        bill.last_topup_usd = session.amount_micro // MICRO
        _qualify_referral(acc, team, session.amount_micro)
    return {"session_id": session_id, "status": "paid", "kind": session.kind, "amount_micro": session.amount_micro,
            "balance_micro": team.balance_micro}


def cancel(acc: Accounts, session_id: str) -> dict[str, Any]:
    session = acc.checkouts.get(session_id)
    if session is None:
        raise ServiceError(404, f"no checkout {session_id!r}", code="not_found")
    if session.status == "open":
        session.status = "cancelled"
    return {"session_id": session_id, "status": session.status}


def credit(acc: Accounts, team: Team, amount: int, kind: str, session_id: str = "", auto: bool = False) -> None:
    amount = min(amount, MAX_AMOUNT - 1 - team.balance_micro)  # a balance never passes the ledger's bound
    if amount <= 0:
        return
    team.topup(amount, acc.now())
    team.org.blocks.append(CreditBlock(acc.next("block"), kind, amount, acc.now(), session_id, auto))


def settle_due(acc: Accounts, team: Team) -> None:
    """Checkouts the payer finished by now (``checkout_s`` after they were opened)."""
    if not acc.checkouts:
        return
    due = acc.now() - acc.model.settings.checkout_s * 1000
    for session in list(acc.checkouts.values()):
        if session.team_id == team.team_id and session.status == "open" and session.created_ms <= due:
            pay(acc, session.session_id)


def after_charge(acc: Accounts, team: Team) -> None:
    """An armed auto top-up refills a balance that dropped under its threshold."""
    bill = team.org.billing
    if not bill.autotopup_enabled or not bill.card_on_file:
        return
    found = prefs(team)
    now = acc.now()
    recent = [b for b in team.org.blocks if b.auto and b.created_ms > now - 3600_000]
    if team.balance_micro >= found["threshold_micro"] or len(recent) >= AUTO_PER_HOUR:
        return
    if month_auto(acc, team) + found["amount_micro"] > found["monthly_cap_micro"]:
        bill.disabled_reason = "monthly_cap"
        return
    bill.last_attempt_ms = now
    credit(acc, team, found["amount_micro"], "topup", f"auto_{acc.next('auto-topup')}", auto=True)


def history(acc: Accounts, member: Membership, limit: int) -> dict[str, Any]:
    require_admin_of(member, member.team.number)
    settle_due(acc, member.team)
    paid = [b for b in reversed(member.team.org.blocks) if b.kind == "topup"][:max(1, min(limit, 100))]
    return {"items": [{"id": b.block_id, "payment_intent": f"pi_{b.session_id}", "amount_micro": b.amount_micro,
                       "amount_usd": usd(b.amount_micro), "created_at": iso(b.created_ms), "auto": b.auto,
                       "invoice_number": f"INV-{b.block_id:06d}", "invoice_pdf": "", "hosted_invoice_url": "",
                       "receipt_url": ""} for b in paid], "stripe_ok": True}


def portal(acc: Accounts, member: Membership, base: str) -> dict[str, Any]:
    require_admin_of(member, member.team.number)
    if not member.team.org.billing.customer:
        raise ServiceError(409, "no billing account yet — it is created by the team's first payment",
                           code="no_customer")
    return {"url": f"{base}/checkout/portal/{member.team.org.slug}"}


def blocks_view(team: Team) -> list[dict[str, Any]]:
    """The credit blocks with what is left of each: spending takes promotional credit first, then
    what was bought, oldest first (treg burns bonus and promo blocks before purchased ones)."""
    spent = sum(b.amount_micro for b in team.org.blocks) - team.balance_micro
    order = sorted(team.org.blocks, key=lambda b: (b.kind == "topup", b.created_ms, b.block_id))
    left = {}
    for block in order:
        take = min(max(spent, 0), block.amount_micro)
        left[block.block_id] = block.amount_micro - take
        spent -= take
    return [{"id": b.block_id, "kind": b.kind, "amount_micro": b.amount_micro, "remaining_micro": left[b.block_id],
             "remaining_usd": usd(left[b.block_id]), "currency": "usd", "expires_at": None,
             "created_at": iso(b.created_ms)} for b in team.org.blocks]


# -- referrals ----------------------------------------------------------------------------------------------
def ensure_code(acc: Accounts, user: User) -> str:
    if user.referral_code is None:
        user.referral_code = data.token_text(acc.model.seed, "referral", user.user_id)[:10]
    return user.referral_code


def code_view(acc: Accounts, user: User, base: str) -> dict[str, Any]:
    code = ensure_code(acc, user)
    return {"code": code, "link": f"{base}/?ref={code}"}


def redeem_referral(acc: Accounts, user: User, team: Team, code: str | None) -> None:
    """A team created with someone's referral code is theirs to be rewarded for (not one's own)."""
    if not code:
        return
    referrer = next((u for u in acc.users.values() if u.referral_code == code), None)
    if referrer is None or referrer is user or team.org.demo:
        return
    team.org.referral = Referral(referrer.user_id, "signed_up", acc.now())


def _qualify_referral(acc: Accounts, team: Team, amount: int) -> None:
    found = team.org.referral
    if found is None or found.status != "signed_up" or amount < REFERRAL_MIN_TOPUP:
        return
    found.status, found.qualified_ms = "qualified", acc.now()
    credit(acc, team, REFERRAL_MICRO, "referral")


def _credit_team(acc: Accounts, user: User) -> Team | None:
    owned = [m.team for m in acc.memberships_of(user) if m.role == "owner" and not m.team.org.demo]
    return min(owned, key=lambda t: t.number) if owned else None


def summary(acc: Accounts, user: User, base: str) -> dict[str, Any]:
    """The person's link, the teams it brought and their rewards (paying out what is due)."""
    code = ensure_code(acc, user)
    target = _credit_team(acc, user)
    rows = []
    paid = 0
    for team in sorted(acc.model.teams.values(), key=lambda t: t.number):
        found = team.org.referral
        if found is None or found.referrer_id != user.user_id:
            continue
        if (found.status == "qualified" and found.qualified_ms is not None and target is not None
                and found.qualified_ms + REFERRAL_HOLD_MS <= acc.now() and paid < REFERRAL_CAP):
            found.status, found.paid_ms = "paid", acc.now()
            credit(acc, target, REFERRAL_MICRO, "referral")
        paid += found.status == "paid"
        owner = next((m.email for m in team.org.members.values() if m.role == "owner"), "")
        rows.append({"email": owner, "status": found.status, "reason": None, "signed_up_at": iso(found.created_ms),
                     "topped_up_at": iso(found.qualified_ms), "paid_at": iso(found.paid_ms),
                     "pays_at": iso(found.qualified_ms + REFERRAL_HOLD_MS) if found.qualified_ms else None,
                     "reward_micro": REFERRAL_MICRO if found.status == "paid" else 0})
    return {"code": code, "link": f"{base}/?ref={code}",
            "credit_org": {"org_id": target.number, "name": target.name} if target else None,
            "eligible": target is not None,
            "terms": {"referrer_micro": REFERRAL_MICRO, "referred_micro": REFERRAL_MICRO,
                      "min_topup_micro": REFERRAL_MIN_TOPUP, "hold_days": 7},
            "cap": {"paid": paid, "limit": REFERRAL_CAP},
            "totals": {"signed_up": len(rows), "qualified": sum(r["status"] == "qualified" for r in rows),
                       "paid": paid, "earned_micro": paid * REFERRAL_MICRO},
            "referrals": rows}
