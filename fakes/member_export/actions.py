"""What a member does on the network (control plane only): a snapshot row plus a changelog activity.

The public API never writes; these actions stand for the member using the network's own apps,
so a test can make things happen at a chosen virtual time and then watch the export see them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fakes.kernel.clock import utc_datetime
from fakes.kernel.errors import ServiceError

from .changelog import message_activity
from .data import DataGenerator, MemberSeed, Person, Row, format_datetime, format_invitation_time, mix, thread_id

ACTIONS = ("send_message", "receive_message", "comment", "react", "post", "invite")
#: The details each action accepts (besides "action"); anything else is refused as a likely typo.
DETAILS: dict[str, frozenset[str]] = {
    "send_message": frozenset({"contact", "text", "delay_s"}),
    "receive_message": frozenset({"contact", "text", "delay_s"}),
    "comment": frozenset({"post_urn", "text", "delay_s"}),
    "react": frozenset({"post_urn", "reaction", "delay_s"}),
    "post": frozenset({"text", "delay_s"}),
    "invite": frozenset({"contact", "message", "delay_s"}),
}
REACTIONS = ("LIKE", "PRAISE", "EMPATHY", "INTEREST", "APPRECIATION", "ENTERTAINMENT")
MAX_TEXT = 8_000
MAX_DELAY_S = 366 * 86_400
MAX_CONTACT = 10_000_000
MAX_URN = 200


@dataclass
class ActionPlan:
    """Everything one action changes; the model applies it (row now, event when archived)."""

    domain: str
    row: Row
    resource_name: str
    resource_id: str
    actor: str
    activity: dict[str, Any]
    processed_activity: dict[str, Any]
    delay_s: int


def invalid(message: str) -> ServiceError:
    return ServiceError(400, message, code="invalid_action")


def _text(details: Mapping[str, Any], name: str, default: str) -> str:
    value = details.get(name, default)
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise invalid(f"'{name}' must be a string of at most {MAX_TEXT} characters")
    return value


def _whole(details: Mapping[str, Any], name: str, default: int, *, upper: int) -> int:
    value = details.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < upper:
        raise invalid(f"'{name}' must be an integer from 0 to {upper - 1}")
    return value


def _contact(details: Mapping[str, Any], count: int) -> int:
    index = _whole(details, "contact", 0, upper=MAX_CONTACT + 1)
    if index >= count:  # a well-formed index this member lacks: a missing resource, not bad input
        raise ServiceError(404, f"the member has {count} contacts (0 to {count - 1}), not {index}",
                           code="unknown_contact")
    return index


def _post_urn(details: Mapping[str, Any], n: int, seed: int) -> str:
    value = details.get("post_urn")
    if value is None:
        return f"urn:li:activity:7{mix(seed, 'post', n) % 10**18:018d}"
    if not isinstance(value, str) or not value.startswith("urn:li:") or len(value) > MAX_URN:
        raise invalid("'post_urn' must be a URN such as urn:li:activity:7123456789012345678")
    return value


def plan_action(
    action: Any, details: Mapping[str, Any], *, member: MemberSeed, gen: DataGenerator, n: int, now_ms: int,
    own_delay_s: int, reply_delay_s: int,
) -> ActionPlan:
    """Validate ``details`` and describe the action; ``n`` numbers actions for stable ids."""
    if not isinstance(action, str) or action not in ACTIONS:
        raise invalid(f"'action' must be one of {', '.join(ACTIONS)}")
    unknown = sorted(set(details) - DETAILS[action])
    if unknown:
        raise invalid(f"{action} does not take {', '.join(unknown)}; it takes {', '.join(sorted(DETAILS[action]))}")
    me = member.me
    default_text = gen.pools.sentence[mix(member.seed, "text", n) % len(gen.pools.sentence)]
    text = _text(details, "text" if action != "invite" else "message", default_text if action != "invite" else "")
    default_delay = reply_delay_s if action == "receive_message" else own_delay_s
    delay_s = _whole(details, "delay_s", default_delay, upper=MAX_DELAY_S + 1)
    moment = utc_datetime(now_ms)
    item_id = f"{mix(member.seed, member.member_id, 'item', n) % 10**18:018d}"

    if action in ("send_message", "receive_message", "invite"):
        contact = gen.contact(member, _contact(details, member.contact_count))
        if action == "invite":
            return _invite(me, contact, text, moment, item_id, delay_s)
        return _message(member, me, contact, action == "send_message", text, now_ms, moment, item_id, delay_s)

    post_urn = _post_urn(details, n, member.seed)
    post_url = f"https://www.linkedin.com/feed/update/{post_urn}"
    created = {"actor": me.urn, "time": now_ms}
    if action == "comment":
        urn = f"urn:li:comment:({post_urn},{item_id})"
        activity = {"actor": me.urn, "object": post_urn, "message": {"text": text}, "created": created, "$URN": urn}
        row = {"Date": format_datetime(moment), "Link": post_url, "Message": text}
        return ActionPlan("ALL_COMMENTS", row, "socialActions/comments", urn, me.urn, activity, activity, delay_s)
    if action == "react":
        reaction = details.get("reaction", "LIKE")
        if reaction not in REACTIONS:
            raise invalid(f"'reaction' must be one of {', '.join(REACTIONS)}")
        urn = f"urn:li:like:({me.urn},{post_urn})"
        activity = {"actor": me.urn, "object": post_urn, "reactionType": reaction, "created": created, "$URN": urn}
        row = {"Date": format_datetime(moment), "Type": reaction, "Link": post_url}
        return ActionPlan("ALL_LIKES", row, "socialActions/likes", urn, me.urn, activity, activity, delay_s)
    # post
    urn = f"urn:li:ugcPost:7{item_id[1:]}"
    activity = {
        "author": me.urn, "lifecycleState": "PUBLISHED",
        "specificContent": {"com.linkedin.ugc.ShareContent": {
            "shareCommentary": {"text": text}, "shareMediaCategory": "NONE"}},
        "visibility": {"com.linkedin.ugc.MemberNetworkVisibility": "PUBLIC"},
        "created": created, "$URN": urn,
    }
    row = {"Date": format_datetime(moment), "ShareLink": f"https://www.linkedin.com/feed/update/{urn}",
           "ShareCommentary": text, "SharedUrl": "", "MediaUrl": "", "Visibility": "PUBLIC"}
    return ActionPlan("MEMBER_SHARE_INFO", row, "ugcPosts", urn, me.urn, activity, activity, delay_s)


def _message(
    member: MemberSeed, me: Person, contact: Person, outbound: bool, text: str, now_ms: int, moment: datetime,
    item_id: str, delay_s: int,
) -> ActionPlan:
    sender, recipient = (me, contact) if outbound else (contact, me)
    thread = thread_id(member, contact)
    message_id = f"2-{item_id}"
    activity, processed = message_activity(
        owner=me.urn, author=sender.urn, thread_urn=f"urn:li:messagingThread:{thread}",
        message_urn=f"urn:li:messagingMessage:{message_id}", text=text, at_ms=now_ms,
        members=[me.urn, contact.urn])
    row = {
        "CONVERSATION ID": thread, "CONVERSATION TITLE": "", "FROM": sender.name, "SENDER PROFILE URL": sender.url,
        "TO": recipient.name, "RECIPIENT PROFILE URLS": recipient.url, "DATE": format_datetime(moment),
        "SUBJECT": "", "CONTENT": text, "FOLDER": "INBOX", "ATTACHMENTS": "", "IS MESSAGE DRAFT": "No",
        "IS CONVERSATION DRAFT": "No",
    }
    return ActionPlan("INBOX", row, "messages", message_id, sender.urn, activity, processed, delay_s)


def _invite(me: Person, contact: Person, note: str, moment: datetime, item_id: str, delay_s: int) -> ActionPlan:
    urn = f"urn:li:invitation:{item_id}"
    at_ms = int(moment.timestamp() * 1000)
    activity = {"inviter": me.urn, "invitee": contact.urn, "message": note, "sentTime": at_ms, "$URN": urn}
    row = {"From": me.name, "To": contact.name, "Sent At": format_invitation_time(moment), "Message": note,
           "Direction": "OUTGOING", "inviterProfileUrl": me.url, "inviteeProfileUrl": contact.url}
    return ActionPlan("INVITATIONS", row, "invitations", item_id, me.urn, activity, activity, delay_s)
