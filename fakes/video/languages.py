"""Language tags of uploaded captions and chapters (IETF tags, dashes only) and their own names.

Captions and chapters take an IETF language tag: a primary language (``fr``), optionally a script
(``zh-Hans``, ``sr-Cyrl``) and a region (``fr-CA``, ``zh-Hans-CN``). A tag written with another
separator (``fr_CA``) or outside the covered set is refused, as the reference says. The covered
set is the 33 transcription languages plus common regional and script variants; the answer's
``languageName`` is the language's name in itself.
"""

from __future__ import annotations

import re

from .data import LANGUAGE_NAMES

#: tag -> the language's own name (the 33 transcription languages first)
CAPTION_LANGUAGES: dict[str, str] = {
    **LANGUAGE_NAMES,
    "af": "Afrikaans", "bg": "български", "bn": "বাংলা", "bs": "bosanski", "cy": "Cymraeg", "et": "eesti",
    "eu": "euskara", "ga": "Gaeilge", "gl": "galego", "gu": "ગુજરાતી", "hy": "հայերեն", "id": "Indonesia",
    "is": "íslenska", "ka": "ქართული", "kk": "қазақ тілі", "km": "ខ្មែរ", "kn": "ಕನ್ನಡ", "lt": "lietuvių",
    "lv": "latviešu", "mk": "македонски", "mn": "монгол", "mr": "मराठी", "ms": "Melayu", "mt": "Malti",
    "nb": "norsk bokmål", "pa": "ਪੰਜਾਬੀ", "ro": "română", "sq": "shqip", "sr": "српски", "sv": "svenska",
    "sw": "Kiswahili", "ta": "தமிழ்", "th": "ไทย", "tl": "Tagalog", "uz": "o\u2018zbek", "zu": "isiZulu",
    "de-AT": "Österreichisches Deutsch", "de-CH": "Schweizer Hochdeutsch", "en-AU": "Australian English",
    "en-CA": "Canadian English", "en-GB": "British English", "en-US": "American English",
    "es-ES": "español de España", "es-MX": "español de México", "es-419": "español latinoamericano",
    "fr-BE": "français (Belgique)", "fr-CA": "français canadien", "fr-CH": "français suisse",
    "it-CH": "italiano (Svizzera)", "nl-BE": "Vlaams", "pt-BR": "português (Brasil)", "pt-PT": "português europeu",
    "sr-Cyrl": "српски (ћирилица)", "sr-Latn": "srpski (latinica)", "zh-Hans": "简体中文", "zh-Hant": "繁體中文",
    "zh-Hans-CN": "简体中文 (中国)", "zh-Hant-TW": "繁體中文 (台灣)", "zh-Hant-HK": "繁體中文 (香港)",
}
_BY_LOWER = {tag.lower(): tag for tag in CAPTION_LANGUAGES}
#: letters and digits in dash-separated subtags: the reference's "only letters and dashes" rule
TAG_FORM = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}")
TAG_PATTERN = TAG_FORM.pattern


def canonical_tag(raw: str) -> str | None:
    """The covered tag ``raw`` names (any letter case), or None."""
    if len(raw) > 32 or not TAG_FORM.fullmatch(raw):
        return None
    return _BY_LOWER.get(raw.lower())
