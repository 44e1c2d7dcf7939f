"""Dates and date-times in query values, read the way the real service's Django forms read them.

The real service filters with django-filter, whose date-time fields accept what Django's
``parse_datetime`` accepts (Python's ``datetime.fromisoformat``, then Django's own ISO pattern:
``T`` or a space, optional seconds and fraction, and ``Z``, ``+0000``, ``+00:00``, ``+00`` or no
offset) and then Django's default input formats (``2025-03-01 14:30``, ``03/01/2025``,
``Mar 1 2025`` ...). A value without an offset is UTC here (the real service's ``TIME_ZONE`` is
not published; the official client's own ``...%z`` form always carries one). So the official
client's ``2025-03-01T00:00:00.000000+0000`` selects exactly what ``2025-03-01T00:00:00Z`` does.

A value that names a day without a time (``2025-03-01``, ``03/01/2025``) means that day's first
second as a lower bound and its last second as an upper bound (an inclusive range of days).
"""

from __future__ import annotations

import datetime as dt
import re

#: Django's ``django.utils.dateparse.datetime_re`` (what ``parse_datetime`` falls back to)
_DJANGO_DATETIME = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})"
    r"[T ](?P<hour>\d{1,2}):(?P<minute>\d{1,2})"
    r"(?::(?P<second>\d{1,2})(?:[.,](?P<microsecond>\d{1,6})\d{0,6})?)?"
    r"\s*(?P<tzinfo>Z|[+-]\d{2}(?::?\d{2})?)?$")
#: Django's default DATE_INPUT_FORMATS and DATETIME_INPUT_FORMATS (English)
DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y", "%b %d %Y", "%b %d, %Y", "%d %b %Y", "%d %b, %Y",
                "%B %d %Y", "%B %d, %Y", "%d %B %Y", "%d %B, %Y")
DATETIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M", "%m/%d/%Y %H:%M:%S",
                    "%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M", "%m/%d/%y %H:%M:%S", "%m/%d/%y %H:%M:%S.%f",
                    "%m/%d/%y %H:%M")
MAX_LENGTH = 64  # longer than any form above: refused before any parsing work


class InvalidDate(ValueError):
    """Not a date or date-time any of the accepted forms reads."""


def parse_day(value: str) -> dt.date | None:
    """The day a value names without a time of day (Django's date input formats), or None."""
    text = value.strip()
    if not text or len(text) > MAX_LENGTH:
        return None
    for form in DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, form).date()
        except ValueError:
            continue
    return None


def parse_moment(value: str) -> dt.datetime:
    """An aware date-time (UTC when the value has no offset), as Django's DateTimeField reads it."""
    text = value.strip()
    if not text or len(text) > MAX_LENGTH:
        raise InvalidDate(value)
    moment = _parse_datetime(text)
    if moment is None:
        for form in (*DATETIME_FORMATS, *DATE_FORMATS):
            try:
                moment = dt.datetime.strptime(text, form)
                break
            except ValueError:
                continue
    if moment is None:
        raise InvalidDate(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment


def _parse_datetime(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        pass
    match = _DJANGO_DATETIME.match(text)
    if match is None:
        return None
    parts = match.groupdict()
    zone = parts.pop("tzinfo")
    fraction = parts.pop("microsecond")
    numbers = {name: int(number) for name, number in parts.items() if number is not None}
    tzinfo: dt.tzinfo | None = None
    if zone == "Z":
        tzinfo = dt.UTC
    elif zone is not None:
        minutes = 60 * int(zone[1:3]) + (int(zone[-2:]) if len(zone) > 3 else 0)
        if minutes >= 24 * 60:
            raise InvalidDate(text)
        tzinfo = dt.timezone(dt.timedelta(minutes=-minutes if zone[0] == "-" else minutes))
    try:
        return dt.datetime(**numbers, microsecond=int(fraction.ljust(6, "0")) if fraction else 0, tzinfo=tzinfo)
    except (ValueError, OverflowError):
        raise InvalidDate(text) from None


def epoch_s(moment: dt.datetime) -> int:
    """Whole epoch seconds of an aware date-time (release times have no fraction: floor)."""
    return int((moment - _EPOCH).total_seconds() // 1)


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def instant_s(value: str, *, end_of_day: bool) -> int:
    """Epoch seconds of a filter bound: a day's first or last second, or the date-time's second.

    A fraction is cut off downwards: ``...:00.5`` as a lower bound admits what ``...:00`` does, as
    an upper bound it admits ``...:00`` itself (whole-second release times), like the ``Z`` form."""
    day = parse_day(value)
    if day is not None:
        start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
        return epoch_s(start) + (86_399 if end_of_day else 0)
    moment = parse_moment(value)
    seconds = epoch_s(moment)
    if not end_of_day and moment.microsecond:
        return seconds + 1  # at or after 00:00.5 is at or after 00:01 in whole seconds
    return seconds


def parse_date(value: str) -> dt.date:
    """A date as Django's DateField reads it (its input formats), for date-only parameters."""
    day = parse_day(value)
    if day is None:
        raise InvalidDate(value)
    return day
