"""ISINs and LEIs of generated companies: valid check digits, and decodable back to the company.

A generated company's identifiers encode its id through a bijective scramble, so a filter by
ISIN or LEI is a decode plus a comparison, never a search through 33,500 companies.
"""

from __future__ import annotations

import string

NSIN_MODULUS = 10**9
NSIN_MULTIPLIER = 387_420_489  # 3**18: coprime with 10**9, so the scramble is a bijection
NSIN_INVERSE = pow(NSIN_MULTIPLIER, -1, NSIN_MODULUS)
NSIN_OFFSET = 104_729_017
SHARE_CLASS_STRIDE = 10**8  # an NSIN encodes company id + share class * stride

LEI_MODULUS = 36**12
LEI_MULTIPLIER = 3_141_592_653_589_793_239  # odd and not a multiple of 3: coprime with 36**12
LEI_INVERSE = pow(LEI_MULTIPLIER, -1, LEI_MODULUS)
LEI_OFFSET = 1_234_567_891_011
ALPHABET = string.digits + string.ascii_uppercase
_DOUBLED_DIGIT_SUM = {str(d): (2 * d) // 10 + (2 * d) % 10 for d in range(10)}
_AS_NUMBERS = str.maketrans({ch: str(value) for value, ch in enumerate(ALPHABET)})


def _digits_of(text: str) -> str:
    """Letters as numbers (A=10 ... Z=35), as ISIN and LEI check digits need."""
    return text.translate(_AS_NUMBERS)


def isin_check_digit(body: str) -> str:
    """The Luhn check digit of an 11-character ISIN body."""
    digits = _digits_of(body)[::-1]  # Luhn: double every other digit, starting from the right
    total = sum(map(_DOUBLED_DIGIT_SUM.__getitem__, digits[0::2])) + sum(map(int, digits[1::2]))
    return str((10 - total % 10) % 10)


def is_valid_isin(isin: str) -> bool:
    isin = isin.upper()
    return (len(isin) == 12 and isin[:2].isalpha() and isin.isalnum()
            and all(ch in ALPHABET for ch in isin) and isin_check_digit(isin[:11]) == isin[11])


def make_isin(country: str, company_id: int, share_class: int = 0) -> str:
    nsin = (NSIN_MULTIPLIER * (company_id + share_class * SHARE_CLASS_STRIDE) + NSIN_OFFSET) % NSIN_MODULUS
    body = f"{country}{nsin:09d}"
    return body + isin_check_digit(body)


def decode_isin(isin: str) -> tuple[str, int, int] | None:
    """(country, company id, share class) a generated ISIN encodes, or None if it is not one."""
    isin = isin.strip().upper()
    if not is_valid_isin(isin) or not isin[2:11].isdigit():
        return None
    raw = (NSIN_INVERSE * (int(isin[2:11]) - NSIN_OFFSET)) % NSIN_MODULUS
    share_class, company_id = divmod(raw, SHARE_CLASS_STRIDE)
    return isin[:2], company_id, share_class


def lei_check_digits(body18: str) -> str:
    """ISO 17442 (ISO 7064 MOD 97-10) check digits of an 18-character LEI body."""
    return f"{98 - int(_digits_of(body18 + '00')) % 97:02d}"


def is_valid_lei(lei: str) -> bool:
    lei = lei.upper()
    return (len(lei) == 20 and all(ch in ALPHABET for ch in lei) and int(_digits_of(lei)) % 97 == 1)


def make_lei(lou: str, company_id: int) -> str:
    """A LEI issued by the local operating unit ``lou`` (4 characters) for a company."""
    value = (LEI_MULTIPLIER * company_id + LEI_OFFSET) % LEI_MODULUS
    entity = ""
    for _ in range(12):
        value, digit = divmod(value, 36)
        entity = ALPHABET[digit] + entity
    body = f"{lou}00{entity}"
    return body + lei_check_digits(body)


def decode_lei(lei: str) -> int | None:
    """The company id a generated LEI encodes, or None if it is not one."""
    lei = lei.strip().upper()
    if not is_valid_lei(lei) or lei[4:6] != "00":
        return None
    value = 0
    for ch in lei[6:18]:
        value = value * 36 + ALPHABET.index(ch)
    return (LEI_INVERSE * (value - LEI_OFFSET)) % LEI_MODULUS


# FIGIs: "BBG00" + 7 characters of the FIGI alphabet (no vowels), encoding (company id, share
# class, kind) through a bijective scramble, so a filter by FIGI is a decode, not a search.
FIGI_ALPHABET = "BCDFGHJKLMNPQRSTVWXYZ0123456789"
FIGI_MODULUS = len(FIGI_ALPHABET) ** 7
FIGI_MULTIPLIER = 7_919_000_021  # coprime with 31**7
FIGI_INVERSE = pow(FIGI_MULTIPLIER, -1, FIGI_MODULUS)
FIGI_OFFSET = 1_618_033_988
FIGI_KINDS = ("figi", "composite_figi", "share_class_figi")  # the venue's, the country's, the class's


def make_figi(company_id: int, share_class: int = 0, kind: int = 0) -> str:
    value = (FIGI_MULTIPLIER * (company_id * 16 + share_class * 4 + kind) + FIGI_OFFSET) % FIGI_MODULUS
    chars = []
    for _ in range(7):
        value, digit = divmod(value, len(FIGI_ALPHABET))
        chars.append(FIGI_ALPHABET[digit])
    return "BBG00" + "".join(reversed(chars))


def decode_figi(figi: str) -> tuple[int, int, int] | None:
    """(company id, share class, kind) a generated FIGI encodes, or None if it is not one."""
    figi = figi.strip().upper()
    if len(figi) != 12 or not figi.startswith("BBG00") or any(ch not in FIGI_ALPHABET for ch in figi[5:]):
        return None
    value = 0
    for ch in figi[5:]:
        value = value * len(FIGI_ALPHABET) + FIGI_ALPHABET.index(ch)
    raw = (FIGI_INVERSE * (value - FIGI_OFFSET)) % FIGI_MODULUS
    company_id, rest = divmod(raw, 16)
    share_class, kind = divmod(rest, 4)
    if kind >= len(FIGI_KINDS):
        return None
    return company_id, share_class, kind
