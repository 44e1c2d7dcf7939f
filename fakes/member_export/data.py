"""Seeded snapshot records: a record is a pure function of (seed, member, domain, index).

Nothing is materialised per member: page N of an inbox of 100,000 messages costs ten records.
Faker is slow per call (a name costs ~100 us, a company ~300 us) and slower to construct, so it
only fills word pools once per process and locale; a record then draws from those pools with a
stream of floats derived from a hash of its identity (about 30 us for a 13-column message).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from fakes.kernel.clock import utc_datetime

from .domains import DOMAINS, DomainSpec

DAY_MS = 86_400_000
Row = dict[str, str]


def mix(*parts: object) -> int:
    """A stable 64-bit hash of ``parts`` (Python's ``hash`` is salted per process)."""
    text = "|".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(value: int) -> int:
    """A fast 64-bit mixer: derives sub-keys from a key with a few multiplications."""
    value = (value + GOLDEN) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


class HashStream:
    """Uniform floats from a 64-bit key; seeding ``random.Random`` costs more than a record."""

    __slots__ = ("_state",)

    def __init__(self, key: int) -> None:
        self._state = key

    def random(self) -> float:
        self._state = (self._state + GOLDEN) & MASK64
        return (splitmix64(self._state) >> 11) * (1.0 / (1 << 53))


def _digest(*parts: object, size: int = 16) -> bytes:
    return hashlib.blake2b("|".join(str(p) for p in parts).encode(), digest_size=size).digest()


def person_urn_id(*parts: object) -> str:
    """Ten URL-safe characters, the shape of ids such as ``2qXA98-mVk``."""
    return base64.urlsafe_b64encode(_digest(*parts, size=8)).decode()[:10]


def _ascii_slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "".join(ch if ch.isalnum() else "-" for ch in plain).strip("-") or "member"


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    urn_id: str
    slug: str

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}" if self.last else self.first  # a one-word name has no trailing space

    @property
    def urn(self) -> str:
        return f"urn:li:person:{self.urn_id}"

    @property
    def url(self) -> str:
        return f"https://www.linkedin.com/in/{self.slug}"


#: The counterpart of the learning-coach inboxes: not a member, so no profile URL.
COACH = Person("LinkedIn", "Learning Coach", "", "")
COACH_DOMAINS = frozenset({"LEARNING_COACH_INBOX", "LEARNING_ROLEPLAY_INBOX"})


@dataclass(frozen=True)
class MemberSeed:
    """What a member's generated records depend on, fixed when the member is created."""

    seed: int
    member_id: str
    me: Person
    anchor_ms: int                # generated history ends here (the member's creation instant)
    sizes: Mapping[str, int]      # generated records per domain
    contact_count: int            # contacts 0..n-1 are the member's connections

    @functools.cached_property
    def key(self) -> int:
        return mix(self.seed, self.member_id)


#: One hash per domain name, so a record's key is arithmetic on precomputed numbers.
DOMAIN_KEYS: dict[str, int] = {name: mix("domain", name) for name in DOMAINS}


def record_key(member: MemberSeed, domain: str, index: int) -> int:
    return splitmix64(member.key ^ DOMAIN_KEYS[domain] ^ ((index * GOLDEN) & MASK64))


def group_key(member: MemberSeed, domain: str, group: int) -> int:
    return splitmix64(member.key ^ DOMAIN_KEYS[domain] ^ (((group + 1) * 0xD6E8FEB86659FD93) & MASK64) ^ 1)


# -- word pools ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pools:
    first: tuple[str, ...]
    last: tuple[str, ...]
    company: tuple[str, ...]
    job: tuple[str, ...]
    sentence: tuple[str, ...]
    paragraph: tuple[str, ...]
    city: tuple[str, ...]
    country: tuple[str, ...]
    title: tuple[str, ...]
    word: tuple[str, ...]
    ip: tuple[str, ...]
    user_agent: tuple[str, ...]
    url: tuple[str, ...]
    street: tuple[str, ...]
    postcode: tuple[str, ...]
    phone: tuple[str, ...]


@functools.lru_cache(maxsize=4)
def pools(locale: str) -> Pools:
    """Faker output sampled once; its own fixed seed keeps pools identical across processes."""
    from faker import Faker  # imported here: constructing Faker costs ~0.3 s

    faker = Faker(locale)
    faker.seed_instance(20231201)

    def sample(make: Callable[[], str], count: int) -> tuple[str, ...]:
        return tuple(dict.fromkeys(make() for _ in range(count)))  # unique, order kept

    return Pools(
        first=sample(faker.first_name, 300), last=sample(faker.last_name, 300),
        company=sample(faker.company, 150), job=sample(faker.job, 200),
        sentence=sample(faker.sentence, 400), paragraph=sample(lambda: faker.paragraph(3), 120),
        city=sample(faker.city, 150), country=sample(faker.country, 120),
        title=sample(lambda: faker.catch_phrase(), 200), word=sample(faker.word, 500),
        ip=sample(faker.ipv4_public, 150), user_agent=sample(faker.user_agent, 60),
        url=sample(faker.url, 60), street=sample(faker.street_address, 80),
        postcode=sample(faker.postcode, 80), phone=sample(faker.phone_number, 80),
    )


# -- one record ------------------------------------------------------------------------------
class RecordContext:
    """Everything the column generators of one record share, computed on first use."""

    __slots__ = ("_contact", "_moment", "_outbound", "_time_ms", "gen", "index", "member", "rng", "spec")

    def __init__(self, gen: DataGenerator, member: MemberSeed, spec: DomainSpec, index: int) -> None:
        self.gen = gen
        self.member = member
        self.spec = spec
        self.index = index
        self.rng = HashStream(record_key(member, spec.name, index))
        self._time_ms: int | None = None
        self._moment: datetime | None = None
        self._contact: Person | None = None
        self._outbound: bool | None = None

    @property
    def pools(self) -> Pools:
        return self.gen.pools

    @property
    def time_ms(self) -> int:
        if self._time_ms is None:
            self._time_ms = record_time_ms(self.member, self.spec.name, self.index)
        return self._time_ms

    @property
    def moment(self) -> datetime:
        if self._moment is None:
            self._moment = utc_datetime(self.time_ms)
        return self._moment

    @property
    def group(self) -> int:
        size = self.spec.records_per_group
        return self.index // size if size else self.index

    @property
    def contact(self) -> Person:
        """The other person of this record; a thread's records share one."""
        if self._contact is None:
            if self.spec.name in COACH_DOMAINS:
                self._contact = COACH
            elif self.spec.name == "CONNECTIONS":  # each connection exactly once, contact i at row i
                self._contact = self.gen.contact(self.member, self.index)
            else:
                pick = group_key(self.member, self.spec.name, self.group)
                self._contact = self.gen.contact(self.member, pick % self.member.contact_count)
        return self._contact

    @property
    def outbound(self) -> bool:
        """Whether the member sent this message or invitation (else received it)."""
        if self._outbound is None:
            self._outbound = self.rng.random() < 0.5
        return self._outbound

    @property
    def sender(self) -> Person:
        return self.member.me if self.outbound else self.contact

    @property
    def recipient(self) -> Person:
        return self.contact if self.outbound else self.member.me

    def pick(self, values: tuple[str, ...]) -> str:
        return values[int(self.rng.random() * len(values))]


def record_time_ms(member: MemberSeed, domain: str, index: int) -> int:
    """Generated records are newest first, spread over the domain's history before the anchor.

    Strictly decreasing in ``index``, so "records newer than X" is always a prefix.
    """
    spec = DOMAINS[domain]
    count = max(member.sizes.get(domain, 0), 1)
    fraction = (splitmix64(record_key(member, domain, index) ^ 0x74696D65) >> 11) / float(1 << 53)
    return member.anchor_ms - 60_000 - int((index + fraction) * spec.history_days * DAY_MS / count)


def thread_id(member: MemberSeed, contact: Person) -> str:
    """A 1:1 thread per contact, shaped like the real ``2-...==`` conversation ids."""
    return _thread_id(member.seed, member.member_id, contact.urn_id or contact.name)


@functools.lru_cache(maxsize=65_536)
def _thread_id(seed: int, member_id: str, other: str) -> str:
    return "2-" + base64.urlsafe_b64encode(_digest(seed, member_id, "thread", other)).decode()


def format_date(moment: datetime) -> str:
    return moment.strftime("%d %b %Y")       # "14 May 2026", as in the CSV export


def format_datetime(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def format_invitation_time(moment: datetime) -> str:
    hour = moment.hour % 12 or 12
    return f"{moment.month}/{moment.day}/{moment.strftime('%y')}, {hour}:{moment:%M} {moment:%p}"


# Columns whose values are a plain choice from a fixed list.
CHOICES: dict[str, tuple[str, ...]] = {
    "accepted": ("ACCEPTED",),
    "account_event": ("Password changed", "Email added", "Primary email changed", "Two-step verification on"),
    "active": ("Active",),
    "age_range": ("18 to 24", "25 to 34", "35 to 54", "55+"),
    "card": ("Visa", "Mastercard", "American Express", "PayPal"),
    "cause": ("Education", "Environment", "Health", "Human Rights", "Science and Technology",
              "Arts and Culture", "Economic Empowerment", "Animal Welfare"),
    "challenge": ("EMAIL_PIN", "CAPTCHA", "SMS_PIN"),
    "contact_source": ("Google", "Outlook", "Phone contacts", "Yahoo"),
    "currency": ("EUR", "EUR", "CHF", "SEK", "PLN"),
    "degree": ("Bachelor of Science", "Master of Science", "Bachelor of Arts", "Master of Arts", "PhD",
               "MBA", "Diploma"),
    "empty": ("",),
    "engagement_status": ("OPEN", "CLOSED", "ACCEPTED", "DECLINED"),
    "folder": ("INBOX", "INBOX", "INBOX", "ARCHIVE"),
    "frequency": ("DAILY", "WEEKLY"),
    "industry": ("Software Development", "Financial Services", "Hospital & Health Care", "Higher Education",
                 "Retail", "Automotive", "Marketing Services", "Telecommunications", "Renewable Energy"),
    "inference_type": ("Seniority", "Job function", "Industry", "Interest"),
    "language": ("English", "German", "French", "Spanish", "Italian", "Dutch", "Polish", "Swedish",
                 "Portuguese"),
    "learning_type": ("VIDEO", "COURSE", "LEARNING_PATH"),
    "login_type": ("WEB", "MOBILE", "API"),
    "no": ("No",),
    "phone_type": ("Mobile", "Work", "Home"),
    "proficiency": ("Native or bilingual proficiency", "Full professional proficiency",
                    "Professional working proficiency", "Limited working proficiency",
                    "Elementary proficiency"),
    "product": ("Premium Career - 1 month", "Premium Business - 1 month", "Learning - 1 year",
                "Job post promotion"),
    "reaction": ("LIKE", "LIKE", "LIKE", "PRAISE", "EMPATHY", "INTEREST", "APPRECIATION", "ENTERTAINMENT"),
    "resume": ("resume.pdf", "CV.pdf", "cv-2025.pdf", ""),
    "skill": ("Python", "Project Management", "SQL", "Leadership", "Data Analysis", "Public Speaking",
              "Machine Learning", "Negotiation", "Accounting", "Kubernetes", "Marketing", "Java",
              "Customer Service", "Research", "Agile Methodologies", "Figma", "Excel", "Sales", "Go",
              "Team Management", "Strategy", "Rust", "Copywriting", "Supply Chain Management"),
    "start_time": ("Immediately", "Flexible", "In 1 to 3 months"),
    "subscription": ("Basic", "Basic", "Premium Career"),
    "visibility": ("MEMBER_NETWORK", "PUBLIC", "PUBLIC", "CONNECTIONS"),
    "visibility_status": ("VISIBLE", "HIDDEN"),
    "yes": ("Yes",),
    "yes_no": ("Yes", "No"),
}

_MAIL_DOMAINS = ("gmail.com", "outlook.com", "gmx.de", "web.de", "proton.me", "orange.fr", "yahoo.com")


def _email(person: Person, ctx: RecordContext) -> str:
    return f"{_ascii_slug(person.first)}.{_ascii_slug(person.last)}@{ctx.pick(_MAIL_DOMAINS)}"


def _end_month(ctx: RecordContext) -> str:
    if ctx.rng.random() < 0.3:
        return ""  # still ongoing
    months_later = 3 + int(ctx.rng.random() * 36)
    end_ms = min(ctx.time_ms + months_later * 30 * DAY_MS, ctx.member.anchor_ms)
    return utc_datetime(end_ms).strftime("%b %Y")


def _html_line(ctx: RecordContext) -> str:
    """ARTICLES rows are HTML fragments, deliberately malformed as the real service's are."""
    text = ctx.pick(ctx.pools.sentence)
    shapes = (
        f"<p>{text}<b>", f"<h2>{ctx.pick(ctx.pools.title)}</h3>", f'<a href="{ctx.pick(ctx.pools.url)}>{text}',
        f"</div></p><br>{text}", f"&nbsp{text}<", f"<li>{text}</ul>", f"<p class=\"{text}</p>",
    )
    return shapes[int(ctx.rng.random() * len(shapes))]


def _article_title(ctx: RecordContext) -> str:
    titles = ctx.pools.title
    return titles[group_key(ctx.member, ctx.spec.name, ctx.group) % len(titles)]


def _choice(values: tuple[str, ...]) -> Callable[[RecordContext], str]:
    return lambda ctx: ctx.pick(values)


def _digits(ctx: RecordContext, count: int) -> str:
    return str(int(ctx.rng.random() * 10 ** count)).zfill(count)


GENERATORS: dict[str, Callable[[RecordContext], str]] = {
    # the member and the other person of the record
    "self_first": lambda c: c.member.me.first,
    "self_last": lambda c: c.member.me.last,
    "contact_first": lambda c: c.contact.first,
    "contact_last": lambda c: c.contact.last,
    "contact_name": lambda c: c.contact.name,
    "contact_url": lambda c: c.contact.url,
    "contact_email": lambda c: _email(c.contact, c) if c.rng.random() < 0.15 else "",
    "from_name": lambda c: c.sender.name,
    "from_url": lambda c: c.sender.url,
    "to_name": lambda c: c.recipient.name,
    "to_url": lambda c: c.recipient.url,
    "direction": lambda c: "OUTGOING" if c.outbound else "INCOMING",
    "conversation_id": lambda c: thread_id(c.member, c.contact),
    "conversation_title": lambda c: "",
    # times
    "date": lambda c: format_date(c.moment),
    "datetime": lambda c: format_datetime(c.moment),
    "month": lambda c: c.moment.strftime("%b %Y"),
    "end_month": _end_month,
    "year": lambda c: c.moment.strftime("%Y"),
    "birth_date": lambda c: f"{c.pick(('Jan', 'Mar', 'May', 'Jul', 'Sep', 'Nov'))} {1 + int(c.rng.random() * 28)}",
    "invitation_time": lambda c: format_invitation_time(c.moment),
    # text
    "sentence": lambda c: c.pick(c.pools.sentence),
    "paragraph": lambda c: c.pick(c.pools.paragraph),
    "message": lambda c: c.pick(c.pools.sentence if c.rng.random() < 0.7 else c.pools.paragraph),
    "invitation_note": lambda c: c.pick(c.pools.sentence) if c.rng.random() < 0.4 else "",
    "subject": lambda c: "",
    "title": lambda c: c.pick(c.pools.title),
    "article_title": _article_title,
    "html_line": _html_line,
    "words": lambda c: " ".join(c.pick(c.pools.word) for _ in range(3)),
    "query": lambda c: " ".join(c.pick(c.pools.word) for _ in range(1 + int(c.rng.random() * 3))),
    "question": lambda c: c.pick(c.pools.sentence).rstrip(".") + "?",
    "job_line": lambda c: f"{c.pick(c.pools.job)} at {c.pick(c.pools.company)}",
    # things
    "company": lambda c: c.pick(c.pools.company),
    "job": lambda c: c.pick(c.pools.job),
    "school": lambda c: f"University of {c.pick(c.pools.city)}",
    "location": lambda c: f"{c.pick(c.pools.city)}, {c.pick(c.pools.country)}",
    "address": lambda c: c.pick(c.pools.street),
    "postcode": lambda c: c.pick(c.pools.postcode),
    "country_code": lambda c: c.pick(("DE", "FR", "NL", "ES", "IT", "PL", "SE", "CH")),
    "email": lambda c: _email(c.member.me, c),
    "phone": lambda c: c.pick(c.pools.phone),
    "ip": lambda c: c.pick(c.pools.ip),
    "user_agent": lambda c: c.pick(c.pools.user_agent),
    "url": lambda c: c.pick(c.pools.url),
    "website": lambda c: c.pick(c.pools.url) if c.rng.random() < 0.5 else "",
    "post_url": lambda c: f"https://www.linkedin.com/feed/update/urn:li:activity:7{_digits(c, 18)}",
    "job_url": lambda c: f"https://www.linkedin.com/jobs/view/{_digits(c, 10)}",
    "media_url": lambda c: f"https://www.linkedin.com/dms/prv/image/D4E{_digits(c, 12)}",
    "ad_id": lambda c: f"urn:li:sponsoredCreative:{_digits(c, 9)}",
    "attachment": lambda c: "" if c.rng.random() < 0.9 else f"https://www.linkedin.com/dms/D4E{_digits(c, 12)}",
    "license": lambda c: f"{_digits(c, 4)}-{_digits(c, 6)}",
    "course_number": lambda c: f"{c.pick(('CS', 'EC', 'MA', 'BU'))}{_digits(c, 3)}",
    "invoice": lambda c: f"P{_digits(c, 9)}",
    "score": lambda c: str(50 + int(c.rng.random() * 50)),
    "rating": lambda c: str(1 + int(c.rng.random() * 5)),
    "amount": lambda c: f"{5 + c.rng.random() * 60:.2f}",
    "tax": lambda c: f"{c.rng.random() * 12:.2f}",
    **{kind: _choice(values) for kind, values in CHOICES.items()},
}


@functools.lru_cache(maxsize=4)
def generator(locale: str) -> DataGenerator:
    """The record factory of every model of ``locale`` (each world's): what it makes is a pure
    function of its arguments, so its caches serve them all."""
    return DataGenerator(locale)


class DataGenerator:
    """The record factory of one locale; cheap to create, pools are shared per locale."""

    def __init__(self, locale: str) -> None:
        self.locale = locale
        self._pools: Pools | None = None
        self._contacts: dict[tuple[int, str, int], Person] = {}

    @property
    def pools(self) -> Pools:
        if self._pools is None:
            self._pools = pools(self.locale)
        return self._pools

    def person(self, *identity: object, name: str | None = None) -> Person:
        """A person drawn from the pools by ``identity``; ``name`` ("First Last") overrides."""
        key = mix(*identity)
        if name and name.strip():
            first, _, last = name.strip().partition(" ")
        else:
            first = self.pools.first[key % len(self.pools.first)]
            last = self.pools.last[(key >> 20) % len(self.pools.last)]
        urn_id = person_urn_id(*identity)
        slug = f"{_ascii_slug(first)}-{_ascii_slug(last)}-{key & 0xFFFFFFF:07x}" if last else _ascii_slug(first)
        return Person(first, last, urn_id, slug)

    def contact(self, member: MemberSeed, index: int) -> Person:
        key = (member.seed, member.member_id, index)
        found = self._contacts.get(key)
        if found is None:
            if len(self._contacts) > 100_000:
                self._contacts.clear()  # bounded; contacts are cheap to rebuild
            found = self._contacts[key] = self.person(member.seed, member.member_id, "contact", index)
        return found

    def record(self, member: MemberSeed, domain: str, index: int) -> Row:
        spec = DOMAINS[domain]
        ctx = RecordContext(self, member, spec, index)
        return {column: GENERATORS[kind](ctx) for column, kind in spec.columns}

    def newer_than(self, member: MemberSeed, domain: str, cutoff_ms: int) -> int:
        """How many generated records of ``domain`` are at or after ``cutoff_ms`` (a prefix)."""
        low, high = 0, member.sizes.get(domain, 0)
        while low < high:  # binary search: record_time_ms decreases with the index
            middle = (low + high) // 2
            if record_time_ms(member, domain, middle) >= cutoff_ms:
                low = middle + 1
            else:
                high = middle
        return low
