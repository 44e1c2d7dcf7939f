"""Posts, comments, reactions, messages and invitations, and their edits and deletions.

Shapes per LinkedIn's Member Changelog resource pages (learn.microsoft.com, LinkedIn DMA portability
"UGC Posts", "Social Actions", "Messages", "Invitations"): a post is ``ugcPosts`` CREATE / UPDATE /
DELETE, a comment ``socialActions/comments`` CREATE / PARTIAL_UPDATE / DELETE (its resourceId the
comment id), a reaction ``socialActions/likes`` CREATE / DELETE (its resourceId the object), a
message ``messages`` CREATE / UPDATE / DELETE, an invitation ``invitations`` ACTION
``verifyAndCreate`` and its withdrawal ACTION ``inviterClosingInvitation``. Snapshot rows use the
member's CSV export columns.
"""

from __future__ import annotations

from typing import Any

from fakes.kernel.errors import ServiceError

from .action_plan import REACTIONS, ActionContext, ActionPlan, Planners
from .changelog import message_activity
from .data import Person, format_datetime, format_invitation_time, mix, thread_id

MESSAGE_KINDS = ("message",)


def _stamp(ctx: ActionContext) -> dict[str, Any]:
    return {"actor": ctx.me.urn, "time": ctx.now_ms}


def _post_activity(ctx: ActionContext, urn: str, text: str, created_ms: int, version: int) -> dict[str, Any]:
    return {
        "author": ctx.me.urn, "lifecycleState": "PUBLISHED",
        "specificContent": {"com.linkedin.ugc.ShareContent": {
            "shareCommentary": {"text": text}, "shareMediaCategory": "NONE", "media": []}},
        "visibility": {"com.linkedin.ugc.MemberNetworkVisibility": "PUBLIC"},
        "created": {"actor": ctx.me.urn, "time": created_ms}, "lastModified": _stamp(ctx),
        "firstPublishedAt": created_ms, "versionTag": str(version), "ugcOrigin": "DESKTOP",
        "distribution": {"feedDistribution": "MAIN_FEED"}, "id": urn, "$URN": urn,
    }


def post(ctx: ActionContext) -> ActionPlan:
    text = ctx.text("text")
    urn = f"urn:li:ugcPost:7{ctx.number('item')[1:]}"
    row = {"Date": format_datetime(ctx.moment), "ShareLink": f"https://www.linkedin.com/feed/update/{urn}",
           "ShareCommentary": text, "SharedUrl": "", "MediaUrl": "", "Visibility": "PUBLIC"}
    return ActionPlan("ugcPosts", "CREATE", urn, f"/ugcPosts/{urn}", ctx.me.urn,
                      _post_activity(ctx, urn, text, ctx.now_ms, 1), ctx.delay_s, domain="MEMBER_SHARE_INFO",
                      row=row, item=urn, item_info={"kind": "post", "created_ms": ctx.now_ms, "version": 1})


def edit_post(ctx: ActionContext) -> ActionPlan:
    urn, info = ctx.item("post")
    text = ctx.text("text")
    version = int(info.get("version", 1)) + 1
    return ActionPlan("ugcPosts", "UPDATE", urn, f"/ugcPosts/{urn}", ctx.me.urn,
                      _post_activity(ctx, urn, text, int(info["created_ms"]), version), ctx.delay_s,
                      domain="MEMBER_SHARE_INFO", row={"ShareCommentary": text}, effect="update", item=urn,
                      item_info={"version": version})


def delete_post(ctx: ActionContext) -> ActionPlan:
    urn, _ = ctx.item("post")
    return ActionPlan("ugcPosts", "DELETE", urn, f"/ugcPosts/{urn}", ctx.me.urn, {}, ctx.delay_s,
                      domain="MEMBER_SHARE_INFO", effect="remove", item=urn)


def _default_post(ctx: ActionContext) -> str:
    return ctx.urn("post_urn", f"urn:li:activity:7{mix(ctx.member.seed, 'post', ctx.n) % 10**18:018d}")


def comment(ctx: ActionContext) -> ActionPlan:
    post_urn, text = _default_post(ctx), ctx.text("text")
    comment_id = ctx.number("item")
    activity = {"actor": ctx.me.urn, "created": _stamp(ctx), "lastModified": _stamp(ctx), "id": comment_id,
                "message": {"attributes": [], "text": text}, "object": post_urn,
                "$URN": f"urn:li:comment:({post_urn},{comment_id})"}
    row = {"Date": format_datetime(ctx.moment), "Link": f"https://www.linkedin.com/feed/update/{post_urn}",
           "Message": text}
    return ActionPlan("socialActions/comments", "CREATE", comment_id,
                      f"/socialActions/{post_urn}/comments/{comment_id}", ctx.me.urn, activity, ctx.delay_s,
                      domain="ALL_COMMENTS", row=row, item=comment_id,
                      item_info={"kind": "comment", "object": post_urn})


def edit_comment(ctx: ActionContext) -> ActionPlan:
    comment_id, info = ctx.item("comment")
    text = ctx.text("text")
    return ActionPlan("socialActions/comments", "PARTIAL_UPDATE", comment_id,
                      f"/socialActions/{info['object']}/comments/{comment_id}", ctx.me.urn,
                      {"message": {"text": text}}, ctx.delay_s, domain="ALL_COMMENTS", row={"Message": text},
                      effect="update", item=comment_id)


def delete_comment(ctx: ActionContext) -> ActionPlan:
    comment_id, info = ctx.item("comment")
    return ActionPlan("socialActions/comments", "DELETE", comment_id,
                      f"/socialActions/{info['object']}/comments/{comment_id}", ctx.me.urn, {}, ctx.delay_s,
                      domain="ALL_COMMENTS", effect="remove", item=comment_id)


def react(ctx: ActionContext) -> ActionPlan:
    post_urn = _default_post(ctx)
    reaction = ctx.choice("reaction", REACTIONS, "LIKE")
    key = f"urn:li:like:({ctx.me.urn},{post_urn})"
    if key in ctx.items:
        raise ServiceError(409, f"the member already reacted to {post_urn}; unreact first", code="already_reacted")
    activity = {"actor": ctx.me.urn, "created": _stamp(ctx), "lastModified": _stamp(ctx), "object": post_urn,
                "reactionType": reaction, "$URN": key}
    row = {"Date": format_datetime(ctx.moment), "Type": reaction,
           "Link": f"https://www.linkedin.com/feed/update/{post_urn}"}
    return ActionPlan("socialActions/likes", "CREATE", post_urn, f"/socialActions/{post_urn}/likes/{ctx.me.urn}",
                      ctx.me.urn, activity, ctx.delay_s, domain="ALL_LIKES", row=row, item=key,
                      item_info={"kind": "reaction", "object": post_urn})


def unreact(ctx: ActionContext) -> ActionPlan:
    key, info = ctx.item("reaction")
    post_urn = str(info["object"])
    return ActionPlan("socialActions/likes", "DELETE", post_urn, f"/socialActions/{post_urn}/likes/{ctx.me.urn}",
                      ctx.me.urn, {}, ctx.delay_s, domain="ALL_LIKES", effect="remove", item=key)


def _message(ctx: ActionContext, outbound: bool) -> ActionPlan:
    contact = ctx.contact()
    text = ctx.text("text")
    me = ctx.me
    sender, recipient = (me, contact) if outbound else (contact, me)
    thread = thread_id(ctx.member, contact)
    thread_urn = f"urn:li:messagingThread:{thread}"
    message_id = f"2-{ctx.number('item')}"
    activity, processed = message_activity(
        owner=me.urn, author=sender.urn, thread_urn=thread_urn, message_urn=f"urn:li:messagingMessage:{message_id}",
        text=text, at_ms=ctx.now_ms, members=[me.urn, contact.urn])
    row = {
        "CONVERSATION ID": thread, "CONVERSATION TITLE": "", "FROM": sender.name, "SENDER PROFILE URL": sender.url,
        "TO": recipient.name, "RECIPIENT PROFILE URLS": recipient.url, "DATE": format_datetime(ctx.moment),
        "SUBJECT": "", "CONTENT": text, "FOLDER": "INBOX", "ATTACHMENTS": "", "IS MESSAGE DRAFT": "No",
        "IS CONVERSATION DRAFT": "No",
    }
    kind = "message" if outbound else "received_message"  # only a sent message can be edited or deleted
    return ActionPlan("messages", "CREATE", message_id, f"/messages/{message_id}", sender.urn, activity,
                      ctx.delay_s, processed_activity=processed, domain="INBOX", row=row, item=message_id,
                      item_info={"kind": kind, "thread": thread_urn, "created_ms": ctx.now_ms})


def send_message(ctx: ActionContext) -> ActionPlan:
    return _message(ctx, True)


def receive_message(ctx: ActionContext) -> ActionPlan:
    return _message(ctx, False)


def edit_message(ctx: ActionContext) -> ActionPlan:
    message_id, info = ctx.item(*MESSAGE_KINDS)
    text = ctx.text("text")
    activity = {"createdAt": info["created_ms"], "attachments": [], "author": ctx.me.urn, "thread": info["thread"],
                "content": {"format": "TEXT", "fallback": text, "formatVersion": 1, "content": {"string": text}},
                "$URN": f"urn:li:messagingMessage:{message_id}"}
    return ActionPlan("messages", "UPDATE", message_id, f"/messages/{message_id}", ctx.me.urn, activity,
                      ctx.delay_s, domain="INBOX", row={"CONTENT": text}, effect="update", item=message_id)


def delete_message(ctx: ActionContext) -> ActionPlan:
    message_id, _ = ctx.item(*MESSAGE_KINDS)
    return ActionPlan("messages", "DELETE", message_id, f"/messages/{message_id}", ctx.me.urn, {}, ctx.delay_s,
                      domain="INBOX", effect="remove", item=message_id)


def invite(ctx: ActionContext) -> ActionPlan:
    contact: Person = ctx.contact()
    note = ctx.text("message", "")
    invitation_id = ctx.number("item")
    invitation: dict[str, Any] = {"inviter": ctx.me.urn, "invitee": contact.urn,
                                  "trackingId": f"{mix(ctx.member.seed, 'tracking', ctx.n):016x}"}
    if note:
        invitation["message"] = note
    row = {"From": ctx.me.name, "To": contact.name, "Sent At": format_invitation_time(ctx.moment), "Message": note,
           "Direction": "OUTGOING", "inviterProfileUrl": ctx.me.url, "inviteeProfileUrl": contact.url}
    return ActionPlan("invitations", "ACTION", invitation_id, "/invitations", ctx.me.urn,
                      {"invitationV2": invitation}, ctx.delay_s, method_name="verifyAndCreate",
                      domain="INVITATIONS", row=row, item=invitation_id,
                      item_info={"kind": "invitation", "invitee": contact.urn})


def withdraw_invite(ctx: ActionContext) -> ActionPlan:
    invitation_id, _ = ctx.item("invitation")
    activity = {"inviteActionData": [{"invitationId": f"urn:li:invitation:{invitation_id}"}], "inviter": ctx.me.urn,
                "inviterActionType": "WITHDRAW"}
    # LinkedIn's example of this event carries an empty resourceId: the invitation is in the activity
    return ActionPlan("invitations", "ACTION", "", "/invitations", ctx.me.urn, activity, ctx.delay_s,
                      method_name="inviterClosingInvitation", domain="INVITATIONS", effect="remove",
                      item=invitation_id)


CONTENT_ACTIONS: Planners = {
    "send_message": (frozenset({"contact", "text"}), send_message),
    "receive_message": (frozenset({"contact", "text"}), receive_message),
    "edit_message": (frozenset({"item", "text"}), edit_message),
    "delete_message": (frozenset({"item"}), delete_message),
    "post": (frozenset({"text"}), post),
    "edit_post": (frozenset({"item", "text"}), edit_post),
    "delete_post": (frozenset({"item"}), delete_post),
    "comment": (frozenset({"post_urn", "text"}), comment),
    "edit_comment": (frozenset({"item", "text"}), edit_comment),
    "delete_comment": (frozenset({"item"}), delete_comment),
    "react": (frozenset({"post_urn", "reaction"}), react),
    "unreact": (frozenset({"item"}), unreact),
    "invite": (frozenset({"contact", "message"}), invite),
    "withdraw_invite": (frozenset({"item"}), withdraw_invite),
}
