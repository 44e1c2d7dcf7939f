"""The monitor operations: feeds and their targets (JSON bodies), the RSS document, consumption."""

from __future__ import annotations

from typing import Any

from .calls import Answer, Call
from .feeds import DEFAULT_SETTINGS, Feed, FeedError, check_settings, target_domain
from .lookup_base import LookupBase

FEED_CREATE_COST = 30  # tenths
CREATE_FEED_FIELDS = frozenset({"name", "targets", "is_public", "email_notifications"})
UPDATE_FEED_FIELDS = frozenset({"name", "is_public", "is_suspended", "suspension_reason", "email_notifications"})
TARGET_FIELDS = frozenset({"website_url", "settings"})


class MonitorLookups(LookupBase):
    # -- monitor -------------------------------------------------------------------------------
    def _feed(self, call: Call, path_params: dict[str, str]) -> Feed:
        assert call.account is not None
        try:
            return self.feeds.get(call.account.api_key, path_params.get("feed_id", ""))
        except FeedError as err:
            raise self.billing.error(call, err.status, str(err)) from None

    def _object(self, call: Call, body: Any, allowed: frozenset[str]) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise self.billing.error(call, 400, "The request body must be a JSON object.")
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise self.billing.error(call, 400, f"Unknown field(s): {', '.join(unknown)}.")
        nulls = sorted(name for name, value in body.items() if value is None)
        if nulls:
            raise self.billing.error(call, 400, f"Field(s) {', '.join(nulls)} must not be null; leave them out.")
        return body

    def _target_spec(self, call: Call, raw: Any) -> tuple[str, str, dict[str, Any]]:
        spec = self._object(call, raw, TARGET_FIELDS)
        url = spec.get("website_url")
        if not isinstance(url, str) or not url or len(url) > 2048:
            raise self.billing.error(call, 400, "website_url is required: a string of 1 to 2048 characters.")
        # a website that is no host name is still watched: its polls report it unreachable
        domain = target_domain(url)
        try:
            settings = check_settings(spec.get("settings"), DEFAULT_SETTINGS)
        except FeedError as err:
            raise self.billing.error(call, err.status, str(err)) from None
        return domain, url, settings

    def _flag(self, call: Call, body: dict[str, Any], name: str) -> bool | None:
        value = body.get(name)
        if value is not None and not isinstance(value, bool):
            raise self.billing.error(call, 400, f"{name} must be true or false.")
        return value

    def _text(self, call: Call, body: dict[str, Any], name: str, limit: int = 200) -> str | None:
        value = body.get(name)
        if value is not None and (not isinstance(value, str) or not value or len(value) > limit):
            raise self.billing.error(call, 400, f"{name} must be a non-empty string of at most {limit} characters.")
        return value

    def _notifications(self, call: Call, body: dict[str, Any]) -> str | None:
        value = body.get("email_notifications")
        if value is not None and value not in ("skip", "on_updates"):
            raise self.billing.error(call, 400, "email_notifications must be skip or on_updates.")
        return value

    def op_list_feeds(self, call: Call, p: dict[str, Any], base: str, *_: Any) -> Answer:
        assert call.account is not None
        self.billing.settle(call, 0)
        return self._answer({"feeds": [f.to_json(base, summary=True)
                                       for f in self.feeds.owned(call.account.api_key)]})

    def op_create_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any, *_: Any) -> Answer:
        assert call.account is not None
        spec = self._object(call, body, CREATE_FEED_FIELDS)
        name = self._text(call, spec, "name")
        is_public = self._flag(call, spec, "is_public")
        notifications = self._notifications(call, spec)
        targets = spec.get("targets")
        if not isinstance(targets, list) or not targets:
            raise self.billing.error(call, 400, "targets must be a non-empty list.")
        limit = self.settings.max_targets_per_feed
        if len(targets) > limit:
            raise self.billing.error(call, 409, f"a feed holds at most {limit} targets")
        checked = [self._target_spec(call, t) for t in targets]
        if len({domain for domain, _, _ in checked}) != len(checked):
            raise self.billing.error(call, 409, "targets name the same website twice.")
        self.billing.settle(call, FEED_CREATE_COST)
        feed = self.feeds.create(call.account.api_key, name, bool(is_public), call.now_ms)
        if notifications:
            feed.email_notifications = notifications
        for domain, url, settings in checked:
            self.feeds.add_target(feed, domain, url, settings, call.now_ms, limit)
        return self._answer(feed.to_json(base), 201)

    def op_get_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                    path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        self.billing.settle(call, 0)
        return self._answer(feed.to_json(base))

    def op_update_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                       path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        spec = self._object(call, body, UPDATE_FEED_FIELDS)
        name = self._text(call, spec, "name")
        is_public = self._flag(call, spec, "is_public")
        suspended = self._flag(call, spec, "is_suspended")
        notifications = self._notifications(call, spec)
        reason = spec.get("suspension_reason")
        if reason is not None and reason != "manual":
            raise self.billing.error(call, 400, "suspension_reason can only be set to manual.")
        self.billing.settle(call, 0)
        if name is not None:
            feed.name = name
        if is_public is not None:
            feed.is_public = is_public
        if notifications is not None:
            feed.email_notifications = notifications
        if suspended is True:
            feed.is_suspended, feed.suspension_reason = True, "manual"
        elif suspended is False and feed.is_suspended:
            feed.is_suspended, feed.suspension_reason = False, None
            for target in feed.targets.values():
                target.next_poll_ms = max(target.next_poll_ms, call.now_ms)
        return self._answer(feed.to_json(base))

    def op_delete_feed(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                       path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        self.billing.settle(call, 0)
        self.feeds.delete(feed)
        return self._answer({"message": "Feed deleted."})

    def op_add_target(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                      path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        domain, url, settings = self._target_spec(call, body)
        try:
            self.feeds.add_target(feed, domain, url, settings, call.now_ms,
                                        self.settings.max_targets_per_feed)
        except FeedError as err:
            raise self.billing.error(call, 409 if err.status == 400 else err.status, str(err)) from None
        self.billing.settle(call, 0)
        target = next(t for t in feed.targets.values() if t.domain == domain)
        return self._answer(target.to_json(), 201)

    def _target(self, call: Call, feed: Feed, path: dict[str, str]) -> Any:
        target = feed.targets.get(path.get("target_id", ""))
        if target is None:
            raise self.billing.error(call, 404, "Target not found.")
        return target

    def op_update_target(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                         path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        target = self._target(call, feed, path)
        spec = self._object(call, body, frozenset({"settings"}))
        if "settings" not in spec:
            raise self.billing.error(call, 400, "settings is required.")
        try:
            settings = check_settings(spec["settings"], target.settings)
        except FeedError as err:
            raise self.billing.error(call, err.status, str(err)) from None
        self.billing.settle(call, 0)
        target.settings = settings
        return self._answer(target.to_json())

    def op_remove_target(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                         path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        target = self._target(call, feed, path)
        self.billing.settle(call, 0)
        del feed.targets[target.id]
        return self._answer({"message": "Target deleted."})

    def op_feed_rss(self, call: Call, p: dict[str, Any], base: str, real: bool, body: Any,
                    path: dict[str, str]) -> Answer:
        feed = self._feed(call, path)
        self.billing.settle(call, 0)
        return self._answer(self.feeds.rss(feed, base), media_type="text/xml")

    def consume(self, call: Call, feed_id: str) -> dict[str, Any]:
        feed = self._feed(call, {"feed_id": feed_id})
        self.billing.settle(call, 0)
        return {"feed_id": feed.id, "is_suspended": feed.is_suspended, "suspension_reason": feed.suspension_reason,
                "items": self.feeds.consume(feed)}


