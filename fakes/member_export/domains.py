"""The snapshot domain catalogue: names, CSV-style columns, default sizes and build times.

Column names follow the member's own downloadable CSV export (the seed: one parser serves both).
Each column has a *kind*, the name of a value generator in :mod:`fakes.member_export.data`.
Build times are the seed's observed values where it gives them; the rest are grouped (own profile
sections like PROFILE, messaging like INBOX, activity like ALL_COMMENTS, everything else 2 hours).
"""

from __future__ import annotations

from dataclasses import dataclass

MINUTE = 60
HOUR = 3600

PROFILE_BUILD_S = 21 * MINUTE   # seed: profile and connections about 21 minutes
INBOX_BUILD_S = 1 * HOUR        # seed: inbox about 1 hour
ACTIVITY_BUILD_S = 25 * HOUR    # seed: comments, likes and posts more than a day
OTHER_BUILD_S = 2 * HOUR        # not in the seed: between inbox and activity

UNSUPPORTED_DOMAINS = frozenset({"EVENTS"})  # listed, but a request answers 400 "not supported"


@dataclass(frozen=True)
class DomainSpec:
    name: str
    columns: tuple[tuple[str, str], ...]  # (column name, value kind)
    size_range: tuple[int, int]           # default records per member, drawn from the seed
    build_s: int
    history_days: int = 3 * 365           # generated records spread over this many days
    records_per_group: int = 0           # > 0: records come in groups (message threads, article lines)


def _spec(name: str, columns: str, size_range: tuple[int, int], build_s: int = OTHER_BUILD_S,
          history_days: int = 3 * 365, records_per_group: int = 0) -> DomainSpec:
    """``columns`` is ``"Column:kind; Column:kind"`` to keep the catalogue readable."""
    pairs = tuple(
        (column.strip(), kind.strip())
        for column, _, kind in (item.rpartition(":") for item in columns.split(";") if item.strip())
    )
    return DomainSpec(name, pairs, size_range, build_s, history_days, records_per_group)


_MESSAGE = ("CONVERSATION ID:conversation_id; CONVERSATION TITLE:conversation_title; FROM:from_name; "
            "SENDER PROFILE URL:from_url; TO:to_name; RECIPIENT PROFILE URLS:to_url; DATE:datetime; "
            "SUBJECT:subject; CONTENT:message; FOLDER:folder; ATTACHMENTS:attachment; "
            "IS MESSAGE DRAFT:no; IS CONVERSATION DRAFT:no")
_COACH = "CONVERSATION ID:conversation_id; FROM:from_name; DATE:datetime; CONTENT:message"

CATALOGUE: tuple[DomainSpec, ...] = (
    # -- own profile and its sections (21 minutes, like PROFILE) --------------------------------
    _spec("PROFILE", "First Name:self_first; Last Name:self_last; Maiden Name:empty; Address:address; "
          "Birth Date:birth_date; Headline:job_line; Summary:paragraph; Industry:industry; "
          "Zip Code:postcode; Geo Location:location; Twitter Handles:empty; Websites:website; "
          "Instant Messengers:empty", (1, 1), PROFILE_BUILD_S),
    _spec("PROFILE_SUMMARY", "Summary:paragraph; Updated On:date", (1, 1), PROFILE_BUILD_S),
    _spec("POSITIONS", "Company Name:company; Title:job; Description:sentence; Location:location; "
          "Started On:month; Finished On:end_month", (2, 8), PROFILE_BUILD_S, 15 * 365),
    _spec("SKILLS", "Name:skill", (5, 40), PROFILE_BUILD_S),
    _spec("EDUCATION", "School Name:school; Start Date:year; End Date:year; Notes:empty; Degree Name:degree; "
          "Activities:sentence", (1, 3), PROFILE_BUILD_S, 20 * 365),
    _spec("LANGUAGES", "Name:language; Proficiency:proficiency", (1, 4), PROFILE_BUILD_S),
    _spec("CERTIFICATIONS", "Name:title; Url:url; Authority:company; Started On:month; Finished On:end_month; "
          "License Number:license", (0, 6), PROFILE_BUILD_S),
    _spec("HONORS", "Title:title; Description:sentence; Issued On:month", (0, 4), PROFILE_BUILD_S),
    _spec("COURSES", "Name:title; Number:course_number", (0, 6), PROFILE_BUILD_S),
    _spec("PROJECTS", "Title:title; Description:sentence; Url:url; Started On:month; Finished On:end_month",
          (0, 5), PROFILE_BUILD_S),
    _spec("PUBLICATIONS", "Name:title; Published On:date; Description:sentence; Publisher:company; Url:url",
          (0, 4), PROFILE_BUILD_S),
    _spec("PATENTS", "Title:title; Description:sentence; Url:url; Issued On:date; Patent Number:license",
          (0, 2), PROFILE_BUILD_S),
    _spec("ORGANIZATIONS", "Name:company; Description:sentence; Position:job; Started On:month; "
          "Finished On:end_month", (0, 3), PROFILE_BUILD_S),
    _spec("TEST_SCORES", "Name:title; Score:score; Date:date", (0, 2), PROFILE_BUILD_S),
    _spec("VOLUNTEERING_EXPERIENCES", "Company Name:company; Role:job; Cause:cause; Started On:month; "
          "Finished On:end_month; Description:sentence", (0, 3), PROFILE_BUILD_S),
    _spec("CAUSES_YOU_CARE_ABOUT", "Supported Cause:cause", (0, 5), PROFILE_BUILD_S),
    _spec("EMAIL_ADDRESSES", "Email Address:email; Confirmed:yes; Primary:yes_no; Updated On:date",
          (1, 3), PROFILE_BUILD_S),
    _spec("PHONE_NUMBERS", "Extension:empty; Number:phone; Type:phone_type", (0, 2), PROFILE_BUILD_S),
    _spec("REGISTRATION", "Registered At:datetime; Registration Ip:ip; Subscription Types:subscription",
          (1, 1), PROFILE_BUILD_S, 12 * 365),
    # -- network ------------------------------------------------------------------------------
    # The seed: connections give only name, position, company and connection date (no e-mail,
    # although the CSV export has an often-empty Email Address column).
    _spec("CONNECTIONS", "First Name:contact_first; Last Name:contact_last; URL:contact_url; "
          "Company:company; Position:job; Connected On:date",
          (30, 400), PROFILE_BUILD_S, 12 * 365),
    _spec("INVITATIONS", "From:from_name; To:to_name; Sent At:invitation_time; Message:invitation_note; "
          "Direction:direction; inviterProfileUrl:from_url; inviteeProfileUrl:to_url", (2, 40), INBOX_BUILD_S,
          history_days=180),
    _spec("CONTACTS", "Source:contact_source; First Name:contact_first; Last Name:contact_last; "
          "Companies:company; Title:job; Emails:contact_email; PhoneNumbers:phone; CreatedAt:datetime",
          (0, 60), INBOX_BUILD_S),
    _spec("ENDORSEMENTS", "Endorsement Date:datetime; Skill Name:skill; Endorser First Name:contact_first; "
          "Endorser Last Name:contact_last; Endorser Public Url:contact_url; Endorsement Status:accepted",
          (0, 50), INBOX_BUILD_S),
    _spec("RECOMMENDATIONS", "First Name:contact_first; Last Name:contact_last; Company:company; "
          "Job Title:job; Text:paragraph; Creation Date:datetime; Status:visibility_status", (0, 5),
          INBOX_BUILD_S),
    _spec("MEMBER_FOLLOWING", "Date:date; FollowedMember:contact_url; Status:active", (0, 40), INBOX_BUILD_S),
    _spec("COMPANY_FOLLOWS", "Organization:company; Followed On:datetime", (0, 60), INBOX_BUILD_S),
    _spec("GROUPS", "Title:title; Description:sentence; Website:url", (0, 10), INBOX_BUILD_S),
    _spec("PREMIUM_NOTES", "Name:contact_name; Profile Url:contact_url; Note:sentence; Created At:datetime",
          (0, 10), INBOX_BUILD_S),
    _spec("TRUSTED_GRAPH", "Member Url:contact_url; Trusted At:datetime", (0, 10), INBOX_BUILD_S),
    # -- messaging (1 hour, like INBOX) ---------------------------------------------------------
    _spec("INBOX", _MESSAGE, (20, 300), INBOX_BUILD_S, 5 * 365, records_per_group=4),
    _spec("LEARNING_COACH_INBOX", _COACH, (0, 20), INBOX_BUILD_S, 365, records_per_group=2),
    _spec("LEARNING_ROLEPLAY_INBOX", _COACH, (0, 10), INBOX_BUILD_S, 365, records_per_group=2),
    # -- activity (25 hours, like ALL_COMMENTS) -------------------------------------------------
    _spec("ALL_COMMENTS", "Date:datetime; Link:post_url; Message:sentence", (0, 120), ACTIVITY_BUILD_S),
    _spec("ALL_LIKES", "Date:datetime; Type:reaction; Link:post_url", (0, 300), ACTIVITY_BUILD_S),
    _spec("ALL_VOTES", "Date:datetime; Link:post_url; OptionText:words", (0, 10), ACTIVITY_BUILD_S),
    _spec("MEMBER_SHARE_INFO", "Date:datetime; ShareLink:post_url; ShareCommentary:paragraph; SharedUrl:url; "
          "MediaUrl:empty; Visibility:visibility", (0, 60), ACTIVITY_BUILD_S),
    _spec("INSTANT_REPOSTS", "Date:datetime; Link:post_url", (0, 20), ACTIVITY_BUILD_S),
    _spec("ARTICLES", "Article:article_title; Line:html_line", (0, 40), ACTIVITY_BUILD_S, records_per_group=8),
    _spec("RICH_MEDIA", "Date/Time:datetime; Media Description:sentence; Media Link:media_url", (0, 20),
          ACTIVITY_BUILD_S),
    _spec("REVIEWS", "Date:datetime; Review:sentence; Rating:rating", (0, 5), ACTIVITY_BUILD_S),
    _spec("EVENTS", "Event Name:title; Event Time:datetime; Status:active", (0, 0), ACTIVITY_BUILD_S),
    # -- everything else (2 hours) --------------------------------------------------------------
    _spec("SEARCHES", "Time:datetime; Search Query:query", (0, 80), history_days=180, build_s=OTHER_BUILD_S),
    _spec("LOGIN", "Login Date:datetime; IP Address:ip; User Agent:user_agent; Login Type:login_type",
          (5, 60), history_days=365),
    _spec("SECURITY_CHALLENGE_PIPE", "Challenge Date:datetime; IP Address:ip; User Agent:user_agent; "
          "Country:country_code; Challenge Type:challenge", (0, 5)),
    _spec("ACCOUNT_HISTORY", "Date:datetime; Event:account_event; Detail:sentence", (1, 10)),
    _spec("ADS_CLICKED", "Ad clicked Date:date; Ad Title/Id:ad_id", (0, 40)),
    _spec("AD_TARGETING", "Member Age:age_range; Company Names:company; Degrees:degree; Job Functions:job; "
          "Interests:industry; Locations:location; Member Gender:empty", (1, 1)),
    _spec("INFERENCE_TAKEOUT", "Type of inference:inference_type; Description:sentence; Inference:words",
          (0, 10)),
    _spec("RECEIPTS", "Transaction Made At:datetime; Description:product; Sub Total:amount; Tax Amount:tax; "
          "Total Amount:amount; Currency Code:currency; Payment Method:card; Invoice Number:invoice",
          (0, 12)),
    _spec("RECEIPTS_LBP", "Transaction Made At:datetime; Description:product; Total Amount:amount; "
          "Currency Code:currency; Invoice Number:invoice", (0, 4)),
    _spec("JOB_POSTINGS", "Job Title:job; Company Name:company; Posted On:date; Location:location; "
          "Job Url:job_url", (0, 3)),
    _spec("JOB_APPLICATIONS", "Application Date:datetime; Contact Email:email; Contact Phone Number:phone; "
          "Company Name:company; Job Title:job; Job Url:job_url; Resume Name:resume", (0, 25)),
    _spec("JOB_SEEKER_PREFERENCES", "Locations:location; Industries:industry; Job Titles:job; "
          "Open To Recruiters:yes_no; Preferred Start Time:start_time", (1, 1)),
    _spec("SAVED_JOBS", "Saved Date:datetime; Job Url:job_url; Job Title:job; Company Name:company", (0, 30)),
    _spec("SAVED_JOB_ALERTS", "Alert Date:datetime; Search Query:query; Alert Frequency:frequency", (0, 5)),
    _spec("JOB_APPLICANT_SAVED_ANSWERS", "Question:question; Answer:words", (0, 10)),
    _spec("TALENT_QUESTION_SAVED_RESPONSE", "Question:question; Response:sentence", (0, 5)),
    _spec("EASYAPPLY_BLOCKING", "Company Name:company; Blocked On:date", (0, 3)),
    _spec("LEARNING", "Content Title:title; Content Description:sentence; Content Type:learning_type; "
          "Content Last Watched Date (if viewed):datetime; Content Completed At (if completed):datetime; "
          "Content Saved:yes_no; Notes taken on videos (if taken):empty", (0, 30)),
    _spec("LEARNING_COACH_AI_TAKEOUT", "Date:datetime; Prompt:question; Response:paragraph", (0, 10)),
    _spec("MARKETPLACE_ENGAGEMENTS", "Date:datetime; Service:industry; Provider:contact_name; "
          "Status:engagement_status", (0, 5)),
    _spec("MARKETPLACE_PROVIDERS", "Service Categories:industry; Location:location; Description:sentence; "
          "Created At:datetime", (0, 1)),
    _spec("MARKETPLACE_OPPORTUNITIES", "Date:datetime; Service:industry; Status:engagement_status; "
          "Message:sentence", (0, 5)),
    _spec("ACTOR_SAVE_ITEM", "Saved At:datetime; Saved Item:post_url", (0, 20)),
    _spec("CALENDAR", "Date:datetime; Event Title:title; Location:location", (0, 10)),
)

DOMAINS: dict[str, DomainSpec] = {spec.name: spec for spec in CATALOGUE}
DOMAIN_ORDER: dict[str, int] = {spec.name: index for index, spec in enumerate(CATALOGUE)}
#: Domains a snapshot request may name and that "all domains" pages through.
SERVED_DOMAINS: tuple[str, ...] = tuple(s.name for s in CATALOGUE if s.name not in UNSUPPORTED_DOMAINS)

#: Domains that member actions append records to (the rest only hold generated history).
ACTION_DOMAINS = ("INBOX", "ALL_COMMENTS", "ALL_LIKES", "MEMBER_SHARE_INFO", "INVITATIONS", "PROFILE", "LANGUAGES",
                  "ARTICLES")
