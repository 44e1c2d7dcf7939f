"""The member's profile and the other resources LinkedIn's changelog pages list.

``people`` PARTIAL_UPDATE (a profile edit) and ``people/languages`` CREATE, ``endorsement`` CREATE,
``originalArticles`` ACTION ``createOrUpdateArticle`` / DELETE, ``events`` CREATE,
``organizations`` CREATE and ``organizationAcls`` UPDATE, ``recRequests`` BATCH_CREATE and ``recs``
PARTIAL_UPDATE, ``marketplacePlatformProviders`` CREATE then PARTIAL_UPDATE (learn.microsoft.com,
LinkedIn DMA portability changelog resource pages). Only the profile, languages and articles have a
snapshot domain the action changes; the others leave the snapshot as it is.
"""

from __future__ import annotations

import html
import re
from typing import Any

from .action_plan import ActionContext, ActionPlan, Planners

LOCALE = "en_US"
PROFILE_FIELDS = {"first_name": ("firstName", "First Name"), "last_name": ("lastName", "Last Name"),
                  "headline": ("headline", "Headline"), "summary": ("summary", "Summary")}
PROFICIENCIES = {"ELEMENTARY": "Elementary proficiency", "LIMITED_WORKING": "Limited working proficiency",
                 "PROFESSIONAL_WORKING": "Professional working proficiency",
                 "FULL_PROFESSIONAL": "Full professional proficiency",
                 "NATIVE_OR_BILINGUAL": "Native or bilingual proficiency"}
MAX_NAME = 200
WEEK_MS = 7 * 86_400_000


def _localized(value: str) -> dict[str, Any]:
    return {"localized": {LOCALE: value}}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80] or "untitled"


def _person_uri(ctx: ActionContext) -> str:
    return f"/people/id={ctx.me.urn_id}"


def edit_profile(ctx: ActionContext) -> ActionPlan:
    given = {name: ctx.text(name, limit=MAX_NAME if name != "summary" else 2_000)
             for name in PROFILE_FIELDS if name in ctx.details}
    if not given:  # nothing named: a new headline
        given = {"headline": ctx.default_text().rstrip(".")[:MAX_NAME]}
    activity = {PROFILE_FIELDS[name][0]: _localized(value) for name, value in given.items()}
    row = {PROFILE_FIELDS[name][1]: value for name, value in given.items()}
    return ActionPlan("people", "PARTIAL_UPDATE", ctx.me.urn_id, _person_uri(ctx), ctx.me.urn, activity,
                      ctx.delay_s, domain="PROFILE", row=row, effect="profile")


def add_language(ctx: ActionContext) -> ActionPlan:
    languages = ("English", "German", "French", "Spanish", "Italian", "Dutch", "Polish", "Swedish")
    language = ctx.text("language", languages[ctx.n % len(languages)], limit=MAX_NAME)
    proficiency = ctx.choice("proficiency", tuple(PROFICIENCIES), "PROFESSIONAL_WORKING")
    language_id = ctx.number("language", 10).lstrip("0") or "1"
    activity = {"created": ctx.now_ms, "name": _localized(language), "proficiency": proficiency}
    return ActionPlan("people/languages", "CREATE", language_id, f"{_person_uri(ctx)}/languages/{language_id}",
                      ctx.me.urn, activity, ctx.delay_s, domain="LANGUAGES",
                      row={"Name": language, "Proficiency": PROFICIENCIES[proficiency]}, item=f"language:{language_id}",
                      item_info={"kind": "language"})


def endorse(ctx: ActionContext) -> ActionPlan:
    contact = ctx.contact()
    skills = ("Python", "Project Management", "SQL", "Leadership", "Data Analysis", "Negotiation")
    skill = ctx.text("skill", skills[ctx.n % len(skills)], limit=MAX_NAME)
    urn = f"urn:li:endorsement:({contact.urn},{ctx.number('endorsement', 11).lstrip('0') or '1'})"
    activity = {"item": {"nonStandardEntity": {"entityType": "PROFILE_SKILL", "entityPhrase": skill}},
                "endorser": ctx.me.urn, "recipient": contact.urn, "location": "skills-section", "status": "ACCEPTED"}
    # ENDORSEMENTS holds the endorsements the member received: giving one changes no row
    return ActionPlan("endorsement", "CREATE", urn, f"/endorsement/{urn}", ctx.me.urn, activity, ctx.delay_s,
                      effect="none")


def publish_article(ctx: ActionContext) -> ActionPlan:
    title = ctx.text("title", ctx.default_text().rstrip("."), limit=500)
    text = ctx.text("text")
    article_id = f"7{ctx.number('article')[1:]}"
    body = f"<p>{html.escape(text)}</p>"
    activity = {"article": {"authors": [{"author": ctx.me.urn, "type": "PRIMARY_AUTHOR"}],
                            "content": {"com.linkedin.publishing.HtmlContent": {"htmlText": body}},
                            "created": ctx.now_ms, "id": int(article_id), "lastModified": ctx.now_ms,
                            "state": "PUBLISHED", "title": title, "version": 1},
                "submitter": ctx.me.urn}
    return ActionPlan("originalArticles", "ACTION", article_id, "/originalArticles", ctx.me.urn, activity,
                      ctx.delay_s, method_name="createOrUpdateArticle", domain="ARTICLES",
                      row={"Article": title, "Line": body}, item=article_id, item_info={"kind": "article"})


def delete_article(ctx: ActionContext) -> ActionPlan:
    article_id, _ = ctx.item("article")
    return ActionPlan("originalArticles", "DELETE", article_id, f"/originalArticles/{article_id}", ctx.me.urn, {},
                      ctx.delay_s, domain="ARTICLES", effect="remove", item=article_id)


def create_event(ctx: ActionContext) -> ActionPlan:
    name = ctx.text("name", limit=255)
    event_id = f"7{ctx.number('event')[1:]}"
    starts = ctx.whole("starts_at", ctx.now_ms + WEEK_MS, upper=2**53)
    activity = {"timeRangeV2": {"startsAt": starts}, "vanityName": _slug(name),
                "settings": {"entryCriteria": "PUBLIC", "attendanceMode": "VIRTUAL", "discoveryMode": "LISTED"},
                "organizer": ctx.me.urn, "name": {**_localized(name), "preferredLocale": {"country": "US",
                                                                                        "language": "en"}},
                "id": event_id, "eventTimezone": "Europe/Berlin"}
    # EVENTS is a snapshot domain the API does not support: no row
    return ActionPlan("events", "CREATE", event_id, f"/events/{event_id}", ctx.me.urn, activity, ctx.delay_s,
                      effect="none", item=event_id, item_info={"kind": "event"})


def create_page(ctx: ActionContext) -> ActionPlan:
    name = ctx.text("name", limit=MAX_NAME)
    organization_id = int(ctx.number("organization", 8).lstrip("0") or "1")
    activity = {"vanityName": _slug(name), "name": _localized(name), "organizationType": "PRIVATELY_HELD",
                "entityStatus": "ACTIVE", "created": {"actor": ctx.me.urn, "time": ctx.now_ms},
                "lastModified": {"actor": ctx.me.urn, "time": ctx.now_ms}, "id": organization_id}
    urn = f"urn:li:organization:{organization_id}"
    return ActionPlan("organizations", "CREATE", str(organization_id), f"/organizations/{organization_id}",
                      ctx.me.urn, activity, ctx.delay_s, effect="none", item=urn, item_info={"kind": "page"})


def add_page_admin(ctx: ActionContext) -> ActionPlan:
    organization, _ = ctx.item("page")
    contact = ctx.contact()
    role = "ADMINISTRATOR"
    activity = {"roleAssignee": contact.urn, "role": role, "state": "APPROVED", "organization": organization}
    resource_id = f"organization={organization.replace(':', '%3A')}&role={role}&roleAssignee={contact.urn}"
    return ActionPlan("organizationAcls", "UPDATE", resource_id,
                      f"/organizationAcls/(organization:{organization},role:{role},roleAssignee:{contact.urn})",
                      ctx.me.urn, activity, ctx.delay_s, effect="none")


def request_recommendation(ctx: ActionContext) -> ActionPlan:
    contact = ctx.contact()
    message = ctx.text("message")
    urn = f"urn:li:recommendationRequest:({ctx.me.urn},{ctx.number('rec-request', 6).lstrip('0') or '1'})"
    activity = {"requester": ctx.me.urn, "requestee": contact.urn,
                "notification": {"subject": f"{ctx.me.first}, asking for a recommendation", "message": message},
                "relationship": "RECOMMENDER_WORKED_WITH_RECOMMENDEE"}
    return ActionPlan("recRequests", "BATCH_CREATE", urn, f"/recRequests/{urn}", ctx.me.urn, activity,
                      ctx.delay_s, effect="none")


def show_recommendation(ctx: ActionContext) -> ActionPlan:
    contact = ctx.contact()
    urn = f"urn:li:recommendation:({contact.urn},{ctx.number('recommendation', 6).lstrip('0') or '1'})"
    return ActionPlan("recs", "PARTIAL_UPDATE", urn, f"/recs/{urn}", ctx.me.urn, {"status": "VISIBLE"},
                      ctx.delay_s, effect="none")


def provide_service(ctx: ActionContext) -> ActionPlan:
    description = ctx.text("description")
    key = f"service:{ctx.me.urn}"
    preferences = "com.linkedin.marketplaceplatform.servicemarketplace.ServiceProviderPreferences"
    resource = f"marketplaceType:SERVICE_MARKETPLACE,provider:{ctx.me.urn}"
    uri = f"/marketplacePlatformProviders/($params:(),{resource})"
    described = {"servicesDescription": {**_localized(description),
                                         "preferredLocale": {"country": "US", "language": "en"}}}
    if key in ctx.items:  # the first publication is a CREATE, every later edit a PARTIAL_UPDATE
        return ActionPlan("marketplacePlatformProviders", "PARTIAL_UPDATE",
                          f"marketplaceType=SERVICE_MARKETPLACE&provider={ctx.me.urn}", uri, ctx.me.urn,
                          {"preferences": {preferences: described}}, ctx.delay_s, effect="none")
    activity = {"preferences": {preferences: {"servicesPageStatus": "ACTIVE", **described}},
                "provider": ctx.me.urn, "marketplaceType": "SERVICE_MARKETPLACE", "status": "ACTIVE"}
    return ActionPlan("marketplacePlatformProviders", "CREATE", f"({resource})", uri, ctx.me.urn, activity,
                      ctx.delay_s, effect="none", item=key, item_info={"kind": "service"})


PROFILE_ACTIONS: Planners = {
    "edit_profile": (frozenset(PROFILE_FIELDS), edit_profile),
    "add_language": (frozenset({"language", "proficiency"}), add_language),
    "endorse": (frozenset({"contact", "skill"}), endorse),
    "publish_article": (frozenset({"title", "text"}), publish_article),
    "delete_article": (frozenset({"item"}), delete_article),
    "create_event": (frozenset({"name", "starts_at"}), create_event),
    "create_page": (frozenset({"name"}), create_page),
    "add_page_admin": (frozenset({"item", "contact"}), add_page_admin),
    "request_recommendation": (frozenset({"contact", "message"}), request_recommendation),
    "show_recommendation": (frozenset({"contact"}), show_recommendation),
    "provide_service": (frozenset({"description"}), provide_service),
}
