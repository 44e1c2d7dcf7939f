"""The whole changelog: every member action the control plane offers produces the event LinkedIn's
changelog pages describe (resource name, method, methodName for ACTION, every documented field, an
empty activity for DELETE), and edits and deletions change the snapshot as of the moment asked."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes.member_export import MemberExportFake

from .helpers import CHANGELOG, SNAPSHOT

DOCUMENTED_FIELDS = {"id", "capturedAt", "processedAt", "configVersion", "resourceName", "resourceId",
                     "resourceUri", "method", "actor", "owner", "activity", "processedActivity",
                     "siblingActivities", "parentSiblingActivities", "activityId", "activityStatus"}

#: action -> (resourceName, method, methodName)
EXPECTED = {
    "post": ("ugcPosts", "CREATE", None),
    "edit_post": ("ugcPosts", "UPDATE", None),
    "delete_post": ("ugcPosts", "DELETE", None),
    "comment": ("socialActions/comments", "CREATE", None),
    "edit_comment": ("socialActions/comments", "PARTIAL_UPDATE", None),
    "delete_comment": ("socialActions/comments", "DELETE", None),
    "react": ("socialActions/likes", "CREATE", None),
    "unreact": ("socialActions/likes", "DELETE", None),
    "send_message": ("messages", "CREATE", None),
    "receive_message": ("messages", "CREATE", None),
    "edit_message": ("messages", "UPDATE", None),
    "delete_message": ("messages", "DELETE", None),
    "invite": ("invitations", "ACTION", "verifyAndCreate"),
    "withdraw_invite": ("invitations", "ACTION", "inviterClosingInvitation"),
    "edit_profile": ("people", "PARTIAL_UPDATE", None),
    "add_language": ("people/languages", "CREATE", None),
    "endorse": ("endorsement", "CREATE", None),
    "publish_article": ("originalArticles", "ACTION", "createOrUpdateArticle"),
    "delete_article": ("originalArticles", "DELETE", None),
    "create_event": ("events", "CREATE", None),
    "create_page": ("organizations", "CREATE", None),
    "add_page_admin": ("organizationAcls", "UPDATE", None),
    "request_recommendation": ("recRequests", "BATCH_CREATE", None),
    "show_recommendation": ("recs", "PARTIAL_UPDATE", None),
    "provide_service": ("marketplacePlatformProviders", "CREATE", None),
}


@pytest.fixture
def member(fake: MemberExportFake) -> dict[str, Any]:
    created = fake.create_member(build_times=dict.fromkeys(
        ("PROFILE", "INBOX", "MEMBER_SHARE_INFO", "ALL_COMMENTS", "ALL_LIKES", "INVITATIONS", "LANGUAGES",
         "ARTICLES"), 0), sizes={"MEMBER_SHARE_INFO": 0, "ALL_COMMENTS": 0, "ALL_LIKES": 0, "INVITATIONS": 0,
                                 "LANGUAGES": 0, "ARTICLES": 0, "INBOX": 0})
    fake.consent(created["id"])
    return created


def events(fake: MemberExportFake, client: httpx.Client, member: dict[str, Any]) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {member['access_token']}",
               fake.settings.version_header: fake.settings.accepted_version}
    answer = client.get(CHANGELOG, params={"q": "memberAndApplication", "count": 50, "startTime": 0},
                        headers=headers)
    return list(answer.json()["elements"])


def rows(fake: MemberExportFake, client: httpx.Client, member: dict[str, Any], domain: str) -> list[dict[str, str]]:
    headers = {"Authorization": f"Bearer {member['access_token']}",
               fake.settings.version_header: fake.settings.accepted_version}
    answer = client.get(SNAPSHOT, params={"q": "criteria", "domain": domain, "start": 0}, headers=headers)
    return [] if answer.status_code == 404 else list(answer.json()["elements"][0]["snapshotData"])


def test_every_action_produces_its_documented_event(fake: MemberExportFake, client: httpx.Client,
                                                     member: dict[str, Any]) -> None:
    for action in EXPECTED:  # in order: an edit or deletion finds what an earlier action made
        fake.act(member["id"], action, delay_s=0)
        fake.advance(1)
    seen = events(fake, client, member)
    assert len(seen) == len(EXPECTED)
    for event, (action, (resource, method, method_name)) in zip(seen, EXPECTED.items(), strict=True):
        assert (event["resourceName"], event["method"], event.get("methodName")) == (resource, method, method_name), (
            action)
        assert set(event) >= DOCUMENTED_FIELDS, action
        assert ("methodName" in event) == (method == "ACTION")
        assert event["owner"] == member["urn"] and event["activityStatus"] == "SUCCESS"
        assert isinstance(event["configVersion"], int) and event["configVersion"] >= 1
        if method == "DELETE":
            assert event["activity"] == {} and event["processedActivity"] == {}, action
        else:
            assert event["activity"], action
    by_action = dict(zip(EXPECTED, seen, strict=True))
    post = by_action["post"]
    assert post["resourceUri"] == f"/ugcPosts/{post['resourceId']}"
    assert by_action["edit_post"]["resourceId"] == by_action["delete_post"]["resourceId"] == post["resourceId"]
    comment = by_action["comment"]
    assert comment["resourceUri"] == (f"/socialActions/{comment['activity']['object']}/comments/"
                                      f"{comment['resourceId']}")
    assert by_action["edit_comment"]["activity"] == {"message": {"text": by_action["edit_comment"]["activity"][
        "message"]["text"]}}
    like = by_action["react"]
    assert like["resourceId"] == like["activity"]["object"]
    assert like["resourceUri"].endswith(f"/likes/{member['urn']}")
    invitation = by_action["invite"]["activity"]["invitationV2"]
    assert invitation["inviter"] == member["urn"] and invitation["invitee"].startswith("urn:li:person:")
    assert by_action["invite"]["resourceUri"] == "/invitations"
    withdrawn = by_action["withdraw_invite"]["activity"]["inviteActionData"][0]["invitationId"]
    assert withdrawn == f"urn:li:invitation:{by_action['invite']['resourceId']}"
    profile = by_action["edit_profile"]
    assert profile["resourceUri"] == f"/people/id={member['id']}" and "headline" in profile["activity"]
    assert by_action["receive_message"]["actor"] != member["urn"]  # inbound: another member acted
    assert by_action["edit_message"]["resourceId"] == by_action["send_message"]["resourceId"]


def test_edits_and_deletions_change_the_snapshot_as_of_now(fake: MemberExportFake, client: httpx.Client,
                                                           member: dict[str, Any]) -> None:
    first = fake.act(member["id"], "post", text="first draft")
    second = fake.act(member["id"], "post", text="second")
    assert [r["ShareCommentary"] for r in rows(fake, client, member, "MEMBER_SHARE_INFO")] == ["first draft",
                                                                                               "second"]
    edited = fake.act(member["id"], "edit_post", item=first["item"], text="first, edited")
    assert edited["record"]["ShareCommentary"] == "first, edited" and edited["item"] == first["item"]
    assert [r["ShareCommentary"] for r in rows(fake, client, member, "MEMBER_SHARE_INFO")] == ["first, edited",
                                                                                               "second"]
    fake.act(member["id"], "delete_post")  # no item: the latest post
    assert [r["ShareCommentary"] for r in rows(fake, client, member, "MEMBER_SHARE_INFO")] == ["first, edited"]
    assert second["item"] not in fake.model.members[member["id"]].items
    fake.act(member["id"], "send_message", text="hello", contact=0)
    fake.act(member["id"], "edit_message", text="hello, edited")
    assert [r["CONTENT"] for r in rows(fake, client, member, "INBOX")] == ["hello, edited"]
    fake.act(member["id"], "delete_message")
    assert rows(fake, client, member, "INBOX") == []
    fake.act(member["id"], "invite", message="let us connect")
    assert len(rows(fake, client, member, "INVITATIONS")) == 1
    fake.act(member["id"], "withdraw_invite")
    assert rows(fake, client, member, "INVITATIONS") == []


def test_a_profile_edit_shows_in_the_profile_row(fake: MemberExportFake, client: httpx.Client,
                                                 member: dict[str, Any]) -> None:
    before = rows(fake, client, member, "PROFILE")[0]
    done = fake.act(member["id"], "edit_profile", headline="Chief Archivist", first_name="Ada")
    assert done["record"] == {"Headline": "Chief Archivist", "First Name": "Ada"}
    after = rows(fake, client, member, "PROFILE")[0]
    assert after == {**before, "Headline": "Chief Archivist", "First Name": "Ada"}
    event = events(fake, client, member)
    assert event == [] or event[-1]["resourceName"] == "people"
    fake.advance(10)
    assert events(fake, client, member)[-1]["activity"] == {"headline": {"localized": {"en_US": "Chief Archivist"}},
                                                            "firstName": {"localized": {"en_US": "Ada"}}}


def test_languages_and_articles_add_rows_and_an_article_can_be_deleted(
        fake: MemberExportFake, client: httpx.Client, member: dict[str, Any]) -> None:
    fake.act(member["id"], "add_language", language="Basque", proficiency="LIMITED_WORKING")
    assert rows(fake, client, member, "LANGUAGES") == [{"Name": "Basque",
                                                        "Proficiency": "Limited working proficiency"}]
    article = fake.act(member["id"], "publish_article", title="On archives", text="Keep <everything>.")
    assert rows(fake, client, member, "ARTICLES") == [{"Article": "On archives",
                                                       "Line": "<p>Keep &lt;everything&gt;.</p>"}]
    fake.act(member["id"], "delete_article", item=article["item"])
    assert rows(fake, client, member, "ARTICLES") == []


def test_edits_need_something_of_the_right_kind(fake: MemberExportFake, client: httpx.Client,
                                                member: dict[str, Any]) -> None:
    url = f"/_fake/members/{member['id']}/actions"
    assert client.post(url, json={"action": "edit_post", "text": "x"}).json()["error"] == "unknown_item"
    post = client.post(url, json={"action": "post"}).json()
    comment_on_it = client.post(url, json={"action": "edit_comment", "item": post["item"], "text": "x"})
    assert comment_on_it.status_code == 404 and comment_on_it.json()["error"] == "unknown_item"
    assert client.post(url, json={"action": "delete_post", "item": "urn:li:ugcPost:1"}).status_code == 404
    assert client.post(url, json={"action": "delete_post", "item": 5}).status_code == 400
    received = client.post(url, json={"action": "receive_message"}).json()
    assert client.post(url, json={"action": "edit_message", "item": received["item"]}).status_code == 404
    liked = client.post(url, json={"action": "react", "post_urn": "urn:li:activity:1"})
    assert liked.status_code == 201
    assert client.post(url, json={"action": "react", "post_urn": "urn:li:activity:1"}).status_code == 409
    assert client.post(url, json={"action": "unreact"}).status_code == 201
    assert client.post(url, json={"action": "react", "post_urn": "urn:li:activity:1"}).status_code == 201
    assert client.post(url, json={"action": "edit_profile", "headline": 7}).status_code == 400
    assert client.post(url, json={"action": "add_language", "proficiency": "FLUENT"}).status_code == 400


def test_items_survive_export_and_import(fake: MemberExportFake, member: dict[str, Any]) -> None:
    made = fake.act(member["id"], "comment", text="before export")
    fake.act(member["id"], "edit_profile", summary="Archivist")
    twin = MemberExportFake(seed=7)
    twin.import_state(fake.export_state())
    assert twin.act(member["id"], "edit_comment", text="after import") == fake.act(
        member["id"], "edit_comment", text="after import")
    assert twin.model.members[member["id"]].profile_edits == {"Summary": "Archivist"}
    assert made["item"] in twin.model.members[member["id"]].items


def test_actions_before_consent_change_the_snapshot_but_make_no_event(fake: MemberExportFake,
                                                                      client: httpx.Client) -> None:
    created = fake.create_member(build_times={"MEMBER_SHARE_INFO": 0}, sizes={"MEMBER_SHARE_INFO": 0})
    done = fake.act(created["id"], "post", text="early")
    assert done["event"] is None and done["visible_at"] is None
    fake.act(created["id"], "delete_post")
    fake.consent(created["id"])
    assert rows(fake, client, created, "MEMBER_SHARE_INFO") == []
    assert events(fake, client, created) == []
