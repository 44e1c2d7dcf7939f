"""Monitoring feeds: targets polled every ``frequency_days`` of virtual time, items, suspension.

Polls are computed lazily: whenever the owner's account is touched, every poll due since the
last one runs in time order (charging its pull costs at the poll's own instant). A poll the
balance cannot pay suspends the feed (``insufficient_credits``); a purchase resumes it, and
polls then continue from the purchase (the missed ones are skipped, as a suspended feed misses them).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

from .credits import DAY_MS
from .data import mix, normalize_website, pools, rng, short_id
from .generated import iso_ms
from .world import World

PULL_COSTS = {"monitor_blog": 10, "monitor_website": 10, "monitor_x": 20, "monitor_youtube": 10}  # tenths
SETTING_NAMES = ("monitor_blog", "monitor_x", "monitor_website", "monitor_youtube", "frequency_days")
DEFAULT_SETTINGS: dict[str, Any] = {"monitor_blog": True, "monitor_x": True, "monitor_website": True,
                                    "monitor_youtube": False, "frequency_days": 7}
KEPT_ITEMS = 500      # per feed; older items drop out (the RSS lists the newest 50)
RSS_ITEMS = 50
WEBSITE_EVENTS = ("website update", "website new page")
ITEM_CATEGORIES = ("blog", "x", "youtube", *WEBSITE_EVENTS, "website unreachable")
SUSPENSION_REASONS = ("insufficient_credits", "manual")
FEED_ID_PATTERN = r"feed_[A-Za-z0-9_-]{1,64}"
TARGET_ID_PATTERN = r"target_[A-Za-z0-9_-]{1,64}"
TOKEN_PATTERN = r"[A-Za-z0-9_-]{1,200}"
MAX_FEEDS = 100_000
MAX_TARGETS = 10_000
MAX_COUNT = 10**12


class FeedError(ValueError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Target:
    id: str
    domain: str
    website_url: str
    settings: dict[str, Any]
    created_ms: int
    next_poll_ms: int
    last_polled_ms: int | None = None
    polls: int = 0

    @classmethod
    def from_state(cls, read: StateReader) -> Target:
        read.only(("id", "domain", "website_url", "settings", "created_ms", "next_poll_ms", "last_polled_ms", "polls"))
        url = read.text("website_url", min_length=1, max_length=2048)
        domain = read.text("domain", max_length=2048)
        if domain != target_domain(url):
            refuse(read.where("domain"), f"must be {target_domain(url)!r}, the domain of its website_url")
        settings_read = read.object("settings").only(SETTING_NAMES)
        settings = {name: settings_read.boolean(name) for name in SETTING_NAMES[:4]}
        settings["frequency_days"] = settings_read.integer("frequency_days", minimum=1, maximum=30)
        created = read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS)
        return cls(read.text("id", pattern=TARGET_ID_PATTERN), domain, url, settings, created,
                   read.integer("next_poll_ms", minimum=created, maximum=MAX_EPOCH_MS + 30 * DAY_MS),
                   read.integer("last_polled_ms", minimum=0, maximum=MAX_EPOCH_MS, nullable=True),
                   read.integer("polls", minimum=0, maximum=MAX_COUNT))

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "website_url": self.website_url, "settings": dict(self.settings),
                "last_polled_at": iso_ms(self.last_polled_ms) if self.last_polled_ms is not None else None,
                "is_baseline_complete": True, "created_at": iso_ms(self.created_ms)}


@dataclass
class Feed:
    id: str
    owner: str
    name: str
    is_public: bool
    token: str
    created_ms: int
    targets: dict[str, Target] = field(default_factory=dict)
    is_suspended: bool = False
    suspension_reason: str | None = None
    email_notifications: str = "skip"
    items: list[dict[str, Any]] = field(default_factory=list)
    consumed: int = 0          # sequence number of the last consumed item
    sequence: int = 0          # sequence number of the last item

    @classmethod
    def from_state(cls, read: StateReader) -> Feed:
        read.only(("id", "owner", "name", "is_public", "token", "created_ms", "targets", "is_suspended",
                   "suspension_reason", "email_notifications", "items", "consumed", "sequence"))
        suspended = read.boolean("is_suspended")
        reason = read.choice("suspension_reason", SUSPENSION_REASONS if suspended else (None,))
        targets: dict[str, Target] = {}
        for target_read in read.objects("targets", max_items=MAX_TARGETS):
            target = Target.from_state(target_read)
            if target.id in targets or any(t.domain == target.domain for t in targets.values()):
                refuse(target_read.where("id"), "repeats a target (its id or website) of this feed")
            targets[target.id] = target
        sequence = read.integer("sequence", minimum=0, maximum=MAX_COUNT)
        items = []
        last = 0
        for item_read in read.objects("items", max_items=KEPT_ITEMS):
            item = _item(item_read)
            if not last < item["seq"] <= sequence:
                refuse(item_read.where("seq"), f"must grow from item to item, up to the feed's sequence {sequence}")
            last = item["seq"]
            items.append(item)
        return cls(read.text("id", pattern=FEED_ID_PATTERN), read.text("owner", max_length=64),
                   read.text("name", min_length=1, max_length=200), read.boolean("is_public"),
                   read.text("token", pattern=TOKEN_PATTERN),
                   read.integer("created_ms", minimum=0, maximum=MAX_EPOCH_MS),
                   targets, suspended, reason, read.choice("email_notifications", ("skip", "on_updates")), items,
                   read.integer("consumed", minimum=0, maximum=sequence), sequence)

    def rss_url(self, base: str) -> str:
        url = f"{base}/v1/monitor/feeds/{self.id}/rss.xml"
        return url if self.is_public else f"{url}?token={self.token}"

    def to_json(self, base: str, *, summary: bool = False) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "name": self.name, "is_public": self.is_public,
                                "is_suspended": self.is_suspended, "suspension_reason": self.suspension_reason,
                                "rss_url": self.rss_url(base), "email_notifications": self.email_notifications,
                                "created_at": iso_ms(self.created_ms)}
        if summary:
            body["target_count"] = len(self.targets)
        else:
            body["targets"] = [t.to_json() for t in self.targets.values()]
        return body


def target_domain(website_url: str) -> str:
    """What a target watches: the website's domain, or (no host name) the text itself, reported unreachable."""
    return normalize_website(website_url) or website_url.strip().lower()


def _item(read: StateReader) -> dict[str, Any]:
    read.only(("category", "title", "link", "description", "_ms", "seq", "target_id", "website_url", "guid",
               "published_at"))
    return {"category": read.choice("category", ITEM_CATEGORIES), "title": read.text("title", max_length=5000),
            "link": read.text("link", max_length=5000), "description": read.text("description", max_length=10_000),
            "_ms": read.integer("_ms", minimum=0, maximum=MAX_EPOCH_MS),
            "seq": read.integer("seq", minimum=1, maximum=MAX_COUNT),
            "target_id": read.text("target_id", pattern=TARGET_ID_PATTERN),
            "website_url": read.text("website_url", max_length=2048), "guid": read.text("guid", max_length=200),
            "published_at": read.text("published_at", max_length=40)}


def check_settings(raw: Any, base: dict[str, Any]) -> dict[str, Any]:
    if raw is None:
        return dict(base)
    if not isinstance(raw, dict):
        raise FeedError(400, "settings must be an object")
    unknown = sorted(set(raw) - set(SETTING_NAMES))
    if unknown:
        raise FeedError(400, f"unknown setting(s) {', '.join(unknown)}")
    settings = dict(base)
    for name, value in raw.items():
        if name == "frequency_days":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 30:
                raise FeedError(400, "frequency_days must be an integer from 1 to 30")
        elif not isinstance(value, bool):
            raise FeedError(400, f"{name} must be true or false")
        settings[name] = value
    return settings


class Feeds:
    """All feeds of the fake; ``charge(owner, tenths, at_ms) -> bool`` pays a poll."""

    def __init__(self, seed: int, locale: str, world: World, rate_per_week: float, epoch: int = 0) -> None:
        self.seed = seed
        self.epoch = epoch
        self.locale = locale
        self.world = world
        self.rate = rate_per_week
        self.feeds: dict[str, Feed] = {}
        #: owner -> its feeds by id: every call of an account catches its feeds up, so this is per owner
        self.by_owner: dict[str, dict[str, Feed]] = {}
        self.counter = 0

    def _new_id(self, kind: str) -> str:
        """A new feed or target id; one an imported state holds already is skipped."""
        while True:
            self.counter += 1
            identity = (self.seed, kind, self.counter) if self.epoch == 0 else \
                (self.seed, self.epoch, kind, self.counter)
            new_id = f"{kind}_{short_id(*identity, size=6)}"
            if new_id not in self.feeds and not any(new_id in feed.targets for feed in self.feeds.values()):
                return new_id

    def owned(self, owner: str) -> list[Feed]:
        return list(self.by_owner.get(owner, {}).values())

    def delete(self, feed: Feed) -> None:
        del self.feeds[feed.id]
        owned = self.by_owner[feed.owner]
        del owned[feed.id]
        if not owned:
            del self.by_owner[feed.owner]

    def get(self, owner: str, feed_id: str) -> Feed:
        feed = self.feeds.get(feed_id)
        if feed is None or feed.owner != owner:
            raise FeedError(404, "Feed not found.")
        return feed

    def create(self, owner: str, name: str | None, is_public: bool, now_ms: int) -> Feed:
        feed_id = self._new_id("feed")
        feed = Feed(feed_id, owner, name or f"Feed {len(self.owned(owner)) + 1}", is_public,
                    short_id(self.seed, "token", feed_id, size=12), now_ms)
        self.feeds[feed_id] = feed
        self.by_owner.setdefault(owner, {})[feed_id] = feed
        return feed

    def add_target(self, feed: Feed, domain: str, website_url: str, settings: dict[str, Any], now_ms: int,
                   limit: int) -> Target:
        if len(feed.targets) >= limit:
            raise FeedError(400, f"a feed holds at most {limit} targets")
        if any(t.domain == domain for t in feed.targets.values()):
            raise FeedError(400, f"{domain} is already a target of this feed")
        target = Target(self._new_id("target"), domain, website_url, settings, now_ms,
                        now_ms + settings["frequency_days"] * DAY_MS, last_polled_ms=now_ms)  # the baseline poll
        feed.targets[target.id] = target
        return target

    # -- polling -------------------------------------------------------------------------------
    def catch_up(self, owner: str, now_ms: int, charge: Callable[[int, int], bool]) -> None:
        """Run every poll of ``owner``'s feeds due by ``now_ms``, oldest first."""
        feeds = [f for f in self.owned(owner) if not f.is_suspended and f.targets]
        while feeds:
            due = [(t.next_poll_ms, f.id, t.id) for f in feeds for t in f.targets.values() if t.next_poll_ms <= now_ms]
            if not due:
                return
            at, feed_id, target_id = min(due)
            feed = self.feeds[feed_id]
            target = feed.targets[target_id]
            cost = sum(PULL_COSTS[name] for name in PULL_COSTS if target.settings.get(name))
            if not charge(cost, at):
                feed.is_suspended, feed.suspension_reason = True, "insufficient_credits"
                feeds = [f for f in feeds if f.id != feed_id]
                continue
            self._poll(feed, target, at)
            target.next_poll_ms = at + target.settings["frequency_days"] * DAY_MS

    def _poll(self, feed: Feed, target: Target, at: int) -> None:
        since = target.last_polled_ms if target.last_polled_ms is not None else target.created_ms
        found: list[dict[str, Any]] = []
        wanted = {"blog": target.settings["monitor_blog"], "x": target.settings["monitor_x"],
                  "youtube": target.settings["monitor_youtube"]}
        record = self.world.company(target.domain) if normalize_website(target.domain) else None
        if record is not None:
            for item in reversed(self.world.updates(target.domain, at, since_ms=since, limit=200,
                                                    rate_per_week=self.rate)):
                if wanted.get(item["source"]):
                    found.append({"category": item["source"], "title": item["title"], "link": item["url"],
                                  "description": item["description"], "_ms": item["_ms"]})
            if target.settings["monitor_website"]:  # a change of the website, seen by this poll
                r = rng(self.seed, "website-event", target.domain, target.polls)
                category = WEBSITE_EVENTS[r.randrange(2)]
                page = r.choice(pools(self.locale).word)
                found.append({"category": category, "title": f"{record['name']}: {category} ({page})",
                              "link": f"https://www.{target.domain}/{page}", "description":
                              f"The page /{page} {'changed' if category == 'website update' else 'appeared'}.",
                              "_ms": at})
        elif target.settings["monitor_website"]:
            found.append({"category": "website unreachable", "title": f"{target.domain} is unreachable",
                          "link": target.website_url, "description": "The website did not answer.", "_ms": at})
        for item in found:
            feed.sequence += 1
            feed.items.append({**item, "seq": feed.sequence, "target_id": target.id, "website_url": target.website_url,
                               "guid": f"{feed.id}-{feed.sequence}-{mix(self.seed, feed.id, feed.sequence) % 10**6}",
                               "published_at": iso_ms(item["_ms"])})
        del feed.items[:-KEPT_ITEMS]
        target.last_polled_ms = at
        target.polls += 1

    def resume(self, owner: str, now_ms: int) -> None:
        """After a purchase: suspended-for-credits feeds run again, polling on from now."""
        for feed in self.owned(owner):
            if feed.is_suspended and feed.suspension_reason == "insufficient_credits":
                feed.is_suspended, feed.suspension_reason = False, None
                for target in feed.targets.values():
                    target.next_poll_ms = max(target.next_poll_ms,
                                              now_ms + target.settings["frequency_days"] * DAY_MS)
                    target.last_polled_ms = max(target.last_polled_ms or now_ms, now_ms)

    @staticmethod
    def public_item(item: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in item.items() if not k.startswith("_")}

    def consume(self, feed: Feed) -> list[dict[str, Any]]:
        new = [self.public_item(i) for i in feed.items if i["seq"] > feed.consumed]
        feed.consumed = feed.sequence
        return new

    def rss(self, feed: Feed, base: str) -> str:
        items = "".join(
            f"<item><title>{escape(i['title'])}</title><link>{escape(i['link'])}</link>"
            f"<description>{escape(i['description'])}</description><category>{escape(i['category'])}</category>"
            f"<guid isPermaLink=\"false\">{escape(i['guid'])}</guid><pubDate>{_rfc822(i['_ms'])}</pubDate></item>"
            for i in reversed(feed.items[-RSS_ITEMS:]))
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
                f"<title>{escape(feed.name)}</title><link>{escape(feed.rss_url(base))}</link>"
                f"<description>Monitoring feed {feed.id}: {len(feed.targets)} target(s)</description>"
                f"{items}</channel></rss>\n")

    # -- state ---------------------------------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"counter": self.counter, "feeds": [
            {**{k: v for k, v in vars(f).items() if k != "targets"},
             "targets": [vars(t).copy() for t in f.targets.values()]} for f in self.feeds.values()]}

    def load_state(self, read: StateReader, owners: Collection[str]) -> None:
        """The feeds of an exported state; each belongs to one of ``owners`` (the state's accounts)."""
        read.only(("counter", "feeds"))
        feeds: dict[str, Feed] = {}
        target_ids: set[str] = set()
        for feed_read in read.objects("feeds", max_items=MAX_FEEDS):
            feed = Feed.from_state(feed_read)
            if feed.id in feeds:
                refuse(feed_read.where("id"), f"repeats the feed id {feed.id}")
            if feed.owner not in owners:
                refuse(feed_read.where("owner"), "is not the key of an account of this state")
            repeated = target_ids & set(feed.targets)
            if repeated:
                refuse(feed_read.where("targets"), f"repeats the target id {sorted(repeated)[0]}")
            target_ids |= set(feed.targets)
            feeds[feed.id] = feed
        self.feeds = feeds
        self.by_owner = {}
        for feed in feeds.values():
            self.by_owner.setdefault(feed.owner, {})[feed.id] = feed
        self.counter = read.integer("counter", minimum=0, maximum=MAX_COUNT)


def _rfc822(epoch_ms: int) -> str:
    from email.utils import formatdate

    return formatdate(epoch_ms / 1000, usegmt=True)
