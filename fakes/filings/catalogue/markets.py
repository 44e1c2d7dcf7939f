"""The 44 European markets of the catalogue and the languages their filings are written in.

Static reference data, ordered and immutable: a market's position in :data:`MARKETS` is its
index everywhere in the catalogue arithmetic, so the order must never change (it would change
every generated company and filing of every seed).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Language:
    id: int
    code: str  # ISO 639-1
    name: str


LANGUAGES: tuple[Language, ...] = tuple(Language(i + 1, code, name) for i, (code, name) in enumerate([
    ("en", "English"), ("de", "German"), ("fr", "French"), ("sv", "Swedish"), ("it", "Italian"),
    ("es", "Spanish"), ("pl", "Polish"), ("no", "Norwegian"), ("nl", "Dutch"), ("da", "Danish"),
    ("fi", "Finnish"), ("el", "Greek"), ("pt", "Portuguese"), ("tr", "Turkish"), ("uk", "Ukrainian"),
    ("ro", "Romanian"), ("bg", "Bulgarian"), ("hr", "Croatian"), ("sr", "Serbian"), ("bs", "Bosnian"),
    ("cs", "Czech"), ("hu", "Hungarian"), ("sk", "Slovak"), ("sl", "Slovenian"), ("et", "Estonian"),
    ("lv", "Latvian"), ("lt", "Lithuanian"), ("is", "Icelandic"), ("mk", "Macedonian"), ("sq", "Albanian"),
    ("fo", "Faroese"), ("mt", "Maltese"),
]))
LANGUAGE_BY_CODE: dict[str, Language] = {lang.code: lang for lang in LANGUAGES}
ENGLISH = 0  # index of "en" in LANGUAGES


@dataclass(frozen=True, slots=True)
class Market:
    code: str  # ISO 3166-1 alpha-2, also the ISIN prefix
    name: str
    share: int  # companies listed there, at full scale (sums to about 33,500)
    languages: tuple[tuple[str, int], ...]  # (ISO 639-1, weight) of a company's main filing language
    english_copies: int  # percent of companies with another main language that also file in English
    esef: bool  # EU/EEA issuer: files an ESEF annual report package
    exchange: str  # main exchange's name
    mic: str  # its ISO 10383 code
    regulator: str  # the generic label of the source the filings come from
    cities: tuple[str, ...]
    legal_forms: tuple[tuple[str, str], ...]  # (name suffix, ISO 20275 ELF code)
    faker_locale: str
    currency: str


def _m(code: str, name: str, share: int, langs: str, english: int, esef: bool, exchange: str, mic: str,
       regulator: str, cities: str, forms: str, locale: str, currency: str) -> Market:
    languages = tuple((part.split(":")[0], int(part.split(":")[1])) for part in langs.split())
    legal = tuple((form.split("=")[0], form.split("=")[1]) for form in forms.split("|"))
    return Market(code, name, share, languages, english, esef, exchange, mic, regulator,
                  tuple(cities.split("|")), legal, locale, currency)


MARKETS: tuple[Market, ...] = (
    _m("GB", "United Kingdom", 2600, "en:1", 0, False, "London Stock Exchange", "XLON",
       "UK regulatory news service", "London|Manchester|Edinburgh|Birmingham|Leeds|Bristol",
       "plc=H0PO", "en_GB", "GBP"),
    _m("DE", "Germany", 2400, "de:1", 45, True, "Deutsche Boerse Xetra", "XETR",
       "German company register", "Frankfurt am Main|Munich|Hamburg|Berlin|Stuttgart|Duesseldorf|Cologne",
       "AG=6QQB|SE=SQKS|KGaA=AZFE", "de_DE", "EUR"),
    _m("FR", "France", 2100, "fr:1", 35, True, "Euronext Paris", "XPAR",
       "French officially appointed mechanism", "Paris|Lyon|Marseille|Toulouse|Lille|Bordeaux|Nantes",
       "SA=6CHY|SE=QE5F|SCA=K65D", "fr_FR", "EUR"),
    _m("SE", "Sweden", 2000, "sv:1", 60, True, "Nasdaq Stockholm", "XSTO",
       "Swedish financial supervisory register", "Stockholm|Gothenburg|Malmoe|Uppsala|Lund",
       "AB (publ)=XJHM", "sv_SE", "SEK"),
    _m("IT", "Italy", 1500, "it:1", 30, True, "Borsa Italiana", "XMIL",
       "Italian storage mechanism", "Milan|Rome|Turin|Bologna|Florence|Genoa",
       "S.p.A.=P418", "it_IT", "EUR"),
    _m("ES", "Spain", 1200, "es:1", 30, True, "Bolsa de Madrid", "XMAD",
       "Spanish securities market register", "Madrid|Barcelona|Valencia|Bilbao|Seville",
       "S.A.=5RDO", "es_ES", "EUR"),
    _m("PL", "Poland", 1600, "pl:1", 25, True, "Warsaw Stock Exchange", "XWAR",
       "Polish current reports system", "Warsaw|Krakow|Wroclaw|Poznan|Gdansk|Lodz",
       "S.A.=FJ0E", "pl_PL", "PLN"),
    _m("NO", "Norway", 1000, "no:1", 55, True, "Oslo Bors", "XOSL",
       "Norwegian news publication service", "Oslo|Bergen|Stavanger|Trondheim",
       "ASA=YI42", "no_NO", "NOK"),
    _m("CH", "Switzerland", 900, "de:6 fr:3 it:1", 50, False, "SIX Swiss Exchange", "XSWX",
       "Swiss ad hoc publication service", "Zurich|Geneva|Basel|Lausanne|Bern|Lugano",
       "AG=MVII|SA=2JZ4", "de_CH", "CHF"),
    _m("NL", "Netherlands", 700, "nl:6 en:4", 60, True, "Euronext Amsterdam", "XAMS",
       "Dutch financial markets register", "Amsterdam|Rotterdam|The Hague|Utrecht|Eindhoven",
       "N.V.=B5PM", "nl_NL", "EUR"),
    _m("DK", "Denmark", 600, "da:1", 55, True, "Nasdaq Copenhagen", "XCSE",
       "Danish financial supervisory register", "Copenhagen|Aarhus|Odense|Aalborg",
       "A/S=ZRPO", "da_DK", "DKK"),
    _m("FI", "Finland", 600, "fi:8 sv:2", 60, True, "Nasdaq Helsinki", "XHEL",
       "Finnish officially appointed mechanism", "Helsinki|Espoo|Tampere|Turku|Oulu",
       "Oyj=K6VE", "fi_FI", "EUR"),
    _m("BE", "Belgium", 550, "nl:5 fr:5", 45, True, "Euronext Brussels", "XBRU",
       "Belgian financial markets register", "Brussels|Antwerp|Ghent|Liege|Leuven",
       "NV=R85P|SA=R85P", "nl_BE", "EUR"),
    _m("AT", "Austria", 350, "de:1", 40, True, "Wiener Boerse", "XWBO",
       "Austrian issuer information service", "Vienna|Linz|Graz|Salzburg|Innsbruck",
       "AG=EQOV", "de_AT", "EUR"),
    _m("GR", "Greece", 450, "el:1", 35, True, "Athens Stock Exchange", "XATH",
       "Greek capital market announcements", "Athens|Thessaloniki|Patras|Heraklion",
       "S.A.=ZE5T", "el_GR", "EUR"),
    _m("PT", "Portugal", 250, "pt:1", 35, True, "Euronext Lisbon", "XLIS",
       "Portuguese securities market system", "Lisbon|Porto|Braga|Coimbra",
       "S.A.=8QQA", "pt_PT", "EUR"),
    _m("IE", "Ireland", 300, "en:1", 0, True, "Euronext Dublin", "XDUB",
       "Irish officially appointed mechanism", "Dublin|Cork|Galway|Limerick",
       "plc=LZIC", "en_IE", "EUR"),
    _m("LU", "Luxembourg", 500, "fr:4 de:2 en:4", 50, True, "Luxembourg Stock Exchange", "XLUX",
       "Luxembourg storage mechanism", "Luxembourg|Esch-sur-Alzette|Differdange",
       "S.A.=5GGB", "fr_FR", "EUR"),
    _m("TR", "Turkey", 1200, "tr:1", 30, False, "Borsa Istanbul", "XIST",
       "Turkish public disclosure platform", "Istanbul|Ankara|Izmir|Bursa|Antalya",
       "A.S.=HFWJ", "tr_TR", "TRY"),
    _m("UA", "Ukraine", 900, "uk:1", 15, False, "PFTS Stock Exchange", "PFTS",
       "Ukrainian disclosure system", "Kyiv|Kharkiv|Lviv|Dnipro|Odesa",
       "PJSC=SDYX", "uk_UA", "UAH"),
    _m("RO", "Romania", 1000, "ro:1", 20, True, "Bucharest Stock Exchange", "XBSE",
       "Romanian capital market reports", "Bucharest|Cluj-Napoca|Timisoara|Iasi|Constanta",
       "S.A.=ANDT", "ro_RO", "RON"),
    _m("BG", "Bulgaria", 1100, "bg:1", 15, True, "Bulgarian Stock Exchange", "XBUL",
       "Bulgarian financial supervision register", "Sofia|Plovdiv|Varna|Burgas",
       "AD=WTK4", "bg_BG", "BGN"),
    _m("HR", "Croatia", 700, "hr:1", 25, True, "Zagreb Stock Exchange", "XZAG",
       "Croatian officially appointed mechanism", "Zagreb|Split|Rijeka|Osijek",
       "d.d.=T3Q7", "hr_HR", "EUR"),
    _m("RS", "Serbia", 1400, "sr:1", 10, False, "Belgrade Stock Exchange", "XBEL",
       "Serbian securities commission register", "Belgrade|Novi Sad|Nis|Kragujevac",
       "a.d.=FS7B", "hr_HR", "RSD"),
    _m("BA", "Bosnia and Herzegovina", 900, "bs:1", 10, False, "Sarajevo Stock Exchange", "XSSE",
       "Bosnian securities commission register", "Sarajevo|Banja Luka|Tuzla|Mostar",
       "d.d.=BXW5", "hr_HR", "BAM"),
    _m("CZ", "Czechia", 300, "cs:1", 35, True, "Prague Stock Exchange", "XPRA",
       "Czech central storage", "Prague|Brno|Ostrava|Plzen",
       "a.s.=6CQN", "cs_CZ", "CZK"),
    _m("HU", "Hungary", 250, "hu:1", 35, True, "Budapest Stock Exchange", "XBUD",
       "Hungarian capital market disclosures", "Budapest|Debrecen|Szeged|Gyor",
       "Nyrt.=BKUX", "hu_HU", "HUF"),
    _m("SK", "Slovakia", 250, "sk:1", 20, True, "Bratislava Stock Exchange", "XBRA",
       "Slovak central register", "Bratislava|Kosice|Zilina|Nitra",
       "a.s.=2EEG", "sk_SK", "EUR"),
    _m("SI", "Slovenia", 200, "sl:1", 40, True, "Ljubljana Stock Exchange", "XLJU",
       "Slovenian information system", "Ljubljana|Maribor|Celje|Koper",
       "d.d.=FSOQ", "sl_SI", "EUR"),
    _m("EE", "Estonia", 120, "et:1", 60, True, "Nasdaq Tallinn", "XTAL",
       "Estonian officially appointed mechanism", "Tallinn|Tartu|Parnu",
       "AS=9LJA", "et_EE", "EUR"),
    _m("LV", "Latvia", 150, "lv:1", 55, True, "Nasdaq Riga", "XRIS",
       "Latvian central storage", "Riga|Daugavpils|Liepaja",
       "AS=V7DZ", "lv_LV", "EUR"),
    _m("LT", "Lithuania", 180, "lt:1", 55, True, "Nasdaq Vilnius", "XLIT",
       "Lithuanian central storage", "Vilnius|Kaunas|Klaipeda",
       "AB=CQMY", "lt_LT", "EUR"),
    _m("CY", "Cyprus", 300, "el:5 en:5", 50, True, "Cyprus Stock Exchange", "XCYS",
       "Cypriot announcements service", "Nicosia|Limassol|Larnaca",
       "Plc=XCPY", "el_GR", "EUR"),
    _m("MT", "Malta", 150, "en:1", 0, True, "Malta Stock Exchange", "XMAL",
       "Maltese company announcements", "Valletta|Sliema|Birkirkara",
       "p.l.c.=ABAK", "en_GB", "EUR"),
    _m("IS", "Iceland", 100, "is:1", 70, True, "Nasdaq Iceland", "XICE",
       "Icelandic officially appointed mechanism", "Reykjavik|Kopavogur|Akureyri",
       "hf.=UXWZ", "is_IS", "ISK"),
    _m("LI", "Liechtenstein", 60, "de:1", 40, True, "SIX Swiss Exchange", "XSWX",
       "Liechtenstein disclosure service", "Vaduz|Schaan|Balzers",
       "AG=1DGT", "de_CH", "CHF"),
    _m("ME", "Montenegro", 250, "sr:1", 10, False, "Montenegro Stock Exchange", "XMNX",
       "Montenegrin capital market register", "Podgorica|Niksic|Bar",
       "a.d.=T3X8", "hr_HR", "EUR"),
    _m("MK", "North Macedonia", 350, "mk:1", 15, False, "Macedonian Stock Exchange", "XMAE",
       "Macedonian securities commission register", "Skopje|Bitola|Kumanovo",
       "AD=1QXR", "bg_BG", "MKD"),
    _m("AL", "Albania", 120, "sq:1", 20, False, "Albanian Securities Exchange", "XALS",
       "Albanian financial supervisory register", "Tirana|Durres|Vlore",
       "Sh.a.=J5OR", "en_GB", "ALL"),
    _m("MD", "Moldova", 200, "ro:1", 10, False, "Moldova Stock Exchange", "XMOL",
       "Moldovan capital market register", "Chisinau|Balti|Cahul",
       "S.A.=2F2M", "ro_RO", "MDL"),
    _m("GG", "Guernsey", 500, "en:1", 0, False, "The International Stock Exchange", "TISE",
       "Channel Islands announcements service", "St Peter Port|St Sampson",
       "Limited=KQ2F", "en_GB", "GBP"),
    _m("JE", "Jersey", 500, "en:1", 0, False, "The International Stock Exchange", "TISE",
       "Channel Islands announcements service", "St Helier|St Brelade",
       "plc=V1CX", "en_GB", "GBP"),
    _m("IM", "Isle of Man", 200, "en:1", 0, False, "London Stock Exchange", "XLON",
       "Isle of Man announcements service", "Douglas|Ramsey|Castletown",
       "plc=HU8M", "en_GB", "GBP"),
    _m("FO", "Faroe Islands", 40, "fo:1", 70, False, "Nasdaq Iceland", "XICE",
       "Faroese announcements service", "Torshavn|Klaksvik",
       "P/F=K9IJ", "da_DK", "DKK"),
)
MARKET_INDEX: dict[str, int] = {market.code: i for i, market in enumerate(MARKETS)}
assert len(MARKETS) == 44 and len(MARKET_INDEX) == 44


def market_language_indexes(market: Market) -> list[int]:
    """Indexes into LANGUAGES of the market's own languages (a company's possible main language)."""
    return [LANGUAGES.index(LANGUAGE_BY_CODE[code]) for code, _ in market.languages]
