"""Seeded generated data: identifiers, keys, secrets, caption text and summaries.

Every value is a pure function of (seed, kind, number) or (seed, video id), so two fakes with one
seed answer byte for byte the same and a state export need only carry counters.
"""

from __future__ import annotations

import functools
import hashlib
import math

from faker import Faker

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

#: the 33 transcription languages of the reference's creation payload
LANGUAGES = ("ar", "ca", "cs", "da", "de", "el", "en", "es", "fa", "fi", "fr", "he", "hi", "hr", "hu", "it", "ja",
             "ko", "ml", "nl", "nn", "no", "pl", "pt", "ru", "sk", "sl", "te", "tr", "uk", "ur", "vi", "zh")
LANGUAGE_NAMES = {
    "ar": "العربية", "ca": "català", "cs": "čeština", "da": "dansk", "de": "Deutsch", "el": "Ελληνικά",
    "en": "English", "es": "español", "fa": "فارسی", "fi": "suomi", "fr": "français", "he": "עברית",
    "hi": "हिन्दी", "hr": "hrvatski", "hu": "magyar", "it": "italiano", "ja": "日本語", "ko": "한국어",
    "ml": "മലയാളം", "nl": "Nederlands", "nn": "norsk nynorsk", "no": "norsk", "pl": "polski",
    "pt": "português", "ru": "русский", "sk": "slovenčina", "sl": "slovenščina", "te": "తెలుగు",
    "tr": "Türkçe", "uk": "українська", "ur": "اردو", "vi": "Tiếng Việt", "zh": "中文",
}
#: faker locales with their own sentences, per language (others fall back to English text)
FAKER_LOCALES = {"ar": "ar_AA", "cs": "cs_CZ", "da": "da_DK", "de": "de_DE", "el": "el_GR", "en": "en_US",
                 "es": "es_ES", "fa": "fa_IR", "fi": "fi_FI", "fr": "fr_FR", "he": "he_IL", "hi": "hi_IN",
                 "hr": "hr_HR", "hu": "hu_HU", "it": "it_IT", "ja": "ja_JP", "ko": "ko_KR", "nl": "nl_NL",
                 "no": "no_NO", "nn": "no_NO", "pl": "pl_PL", "pt": "pt_PT", "ru": "ru_RU", "sk": "sk_SK",
                 "sl": "sl_SI", "tr": "tr_TR", "uk": "uk_UA", "vi": "vi_VN", "zh": "zh_CN"}


def token(seed: int, kind: str, number: int, length: int = 22) -> str:
    """``length`` base-62 characters, fixed by (seed, kind, number)."""
    digest = int.from_bytes(hashlib.sha256(f"{seed}:{kind}:{number}".encode()).digest(), "big")
    chars = []
    for _ in range(length):
        digest, index = divmod(digest, 62)
        chars.append(ALPHABET[index])
    return "".join(chars)


def video_id(seed: int, number: int) -> str:
    return "vi" + token(seed, "video", number)


def project_id(seed: int, number: int) -> str:
    return "pr" + token(seed, "project", number)


def api_key(seed: int, environment: str, number: int) -> str:
    # real keys are 43 characters of letters and digits; the environment is part of the draw
    return token(seed, f"key:{environment}", number, 43)


def webhook_id(seed: int, number: int) -> str:
    return "webhook_" + token(seed, "webhook", number)


def signature_secret(seed: int, number: int) -> str:
    return "sig_sec_" + token(seed, "webhook-secret", number, 32)


def summary_id(seed: int, number: int) -> str:
    return "summary_" + token(seed, "summary", number)


def player_id(seed: int, number: int) -> str:
    return "pl" + token(seed, "player", number)


def live_stream_id(seed: int, number: int) -> str:
    return "li" + token(seed, "live-stream", number)


def stream_key(seed: int, number: int) -> str:
    """A live stream's key in the vendor's uuid-like form (8-4-4-4-12 hexadecimal digits)."""
    digest = hashlib.sha256(f"{seed}:stream-key:{number}".encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def watermark_id(seed: int, number: int) -> str:
    return "watermark_" + token(seed, "watermark", number)


def upload_token(seed: int, number: int) -> str:
    return "to" + token(seed, "upload-token", number)


def access_token(seed: int, number: int) -> str:
    return "at." + token(seed, "access", number, 40)


def refresh_token(seed: int, number: int) -> str:
    return "def502" + token(seed, "refresh", number, 58)


def _generator(seed: int, video: str, language: str, what: str) -> Faker:
    fake = Faker(FAKER_LOCALES.get(language, "en_US"))
    fake.seed_instance(int.from_bytes(hashlib.sha256(f"{seed}:{video}:{language}:{what}".encode()).digest()[:8],
                                      "big"))
    return fake


def caption_cues(seed: int, video: str, language: str, duration_s: float) -> list[tuple[float, float, str]]:
    """One cue every 4 seconds over the source's length (at least one), text in ``language``."""
    return list(_caption_cues(seed, video, language, duration_s))


#: generated texts kept per process: a pure function of their arguments, and a Faker instance per
#: call costs a millisecond (a caption track or a summary read again and again)
GENERATED_KEPT = 1024


@functools.lru_cache(maxsize=GENERATED_KEPT)
def _caption_cues(seed: int, video: str, language: str, duration_s: float) -> tuple[tuple[float, float, str], ...]:
    fake = _generator(seed, video, language, "captions")
    cues = []
    count = max(1, math.ceil(duration_s / 4))
    for index in range(count):
        start = index * 4.0
        end = min(duration_s, start + 4.0) if duration_s > start else start + 1.0
        cues.append((start, end, fake.sentence(nb_words=8)))
    return tuple(cues)


def webvtt(cues: list[tuple[float, float, str]]) -> str:
    def stamp(seconds: float) -> str:
        millis = round(seconds * 1000)
        hours, millis = divmod(millis, 3_600_000)
        minutes, millis = divmod(millis, 60_000)
        secs, millis = divmod(millis, 1000)
        return f"{hours:02d}:{minutes:02d}:{secs:02d}.{millis:03d}"

    blocks = ["WEBVTT", ""]
    for number, (start, end, text) in enumerate(cues, 1):
        blocks += [str(number), f"{stamp(start)} --> {stamp(end)}", text, ""]
    return "\n".join(blocks)


def summary(seed: int, video: str, language: str, attributes: tuple[str, ...]) -> dict[str, object]:
    """``{"abstract", "takeaways"}`` (the reference allows at most 3 takeaways); the attribute not
    requested is left out."""
    abstract, takeaways = _summary_texts(seed, video, language)
    body: dict[str, object] = {}
    if "abstract" in attributes:
        body["abstract"] = abstract
    if "takeaways" in attributes:
        body["takeaways"] = list(takeaways)
    return body


@functools.lru_cache(maxsize=GENERATED_KEPT)
def _summary_texts(seed: int, video: str, language: str) -> tuple[str, tuple[str, ...]]:
    fake = _generator(seed, video, language, "summary")
    abstract = fake.paragraph(nb_sentences=3)
    return abstract, tuple(fake.sentence(nb_words=10) for _ in range(3))
