"""A subset of ISIC Rev. 4 (the classes listed companies mostly fall in), all four levels.

The real service names the levels ``sector`` (section, a letter), ``industry_group`` (division,
2 digits), ``industry`` (group, 3 digits) and ``sub_industry`` (class, 4 digits); codes and names
below are the official ISIC Rev. 4 ones. A class's position in :data:`CLASSES` is its index in
the catalogue, so the order must never change.
"""

from __future__ import annotations

from dataclasses import dataclass

SECTIONS: dict[str, str] = {
    "A": "Agriculture, forestry and fishing",
    "B": "Mining and quarrying",
    "C": "Manufacturing",
    "D": "Electricity, gas, steam and air conditioning supply",
    "E": "Water supply; sewerage, waste management and remediation activities",
    "F": "Construction",
    "G": "Wholesale and retail trade; repair of motor vehicles and motorcycles",
    "H": "Transportation and storage",
    "I": "Accommodation and food service activities",
    "J": "Information and communication",
    "K": "Financial and insurance activities",
    "L": "Real estate activities",
    "M": "Professional, scientific and technical activities",
    "N": "Administrative and support service activities",
    "P": "Education",
    "Q": "Human health and social work activities",
    "R": "Arts, entertainment and recreation",
    "S": "Other service activities",
}

DIVISIONS: dict[str, tuple[str, str]] = {  # code -> (section, name)
    "01": ("A", "Crop and animal production, hunting and related service activities"),
    "03": ("A", "Fishing and aquaculture"),
    "06": ("B", "Extraction of crude petroleum and natural gas"),
    "07": ("B", "Mining of metal ores"),
    "10": ("C", "Manufacture of food products"),
    "11": ("C", "Manufacture of beverages"),
    "14": ("C", "Manufacture of wearing apparel"),
    "20": ("C", "Manufacture of chemicals and chemical products"),
    "21": ("C", "Manufacture of basic pharmaceutical products and pharmaceutical preparations"),
    "24": ("C", "Manufacture of basic metals"),
    "26": ("C", "Manufacture of computer, electronic and optical products"),
    "27": ("C", "Manufacture of electrical equipment"),
    "28": ("C", "Manufacture of machinery and equipment n.e.c."),
    "29": ("C", "Manufacture of motor vehicles, trailers and semi-trailers"),
    "30": ("C", "Manufacture of other transport equipment"),
    "32": ("C", "Other manufacturing"),
    "35": ("D", "Electricity, gas, steam and air conditioning supply"),
    "38": ("E", "Waste collection, treatment and disposal activities; materials recovery"),
    "41": ("F", "Construction of buildings"),
    "42": ("F", "Civil engineering"),
    "46": ("G", "Wholesale trade, except of motor vehicles and motorcycles"),
    "47": ("G", "Retail trade, except of motor vehicles and motorcycles"),
    "49": ("H", "Land transport and transport via pipelines"),
    "50": ("H", "Water transport"),
    "51": ("H", "Air transport"),
    "52": ("H", "Warehousing and support activities for transportation"),
    "55": ("I", "Accommodation"),
    "56": ("I", "Food and beverage service activities"),
    "58": ("J", "Publishing activities"),
    "60": ("J", "Programming and broadcasting activities"),
    "61": ("J", "Telecommunications"),
    "62": ("J", "Computer programming, consultancy and related activities"),
    "63": ("J", "Information service activities"),
    "64": ("K", "Financial service activities, except insurance and pension funding"),
    "65": ("K", "Insurance, reinsurance and pension funding, except compulsory social security"),
    "66": ("K", "Activities auxiliary to financial service and insurance activities"),
    "68": ("L", "Real estate activities"),
    "70": ("M", "Activities of head offices; management consultancy activities"),
    "71": ("M", "Architectural and engineering activities; technical testing and analysis"),
    "72": ("M", "Scientific research and development"),
    "73": ("M", "Advertising and market research"),
    "77": ("N", "Rental and leasing activities"),
    "78": ("N", "Employment activities"),
    "85": ("P", "Education"),
    "86": ("Q", "Human health activities"),
    "92": ("R", "Gambling and betting activities"),
    "96": ("S", "Other personal service activities"),
}

GROUPS: dict[str, str] = {  # code -> name (the division is the first two digits)
    "011": "Growing of non-perennial crops",
    "032": "Aquaculture",
    "061": "Extraction of crude petroleum",
    "062": "Extraction of natural gas",
    "072": "Mining of non-ferrous metal ores",
    "107": "Manufacture of other food products",
    "110": "Manufacture of beverages",
    "141": "Manufacture of wearing apparel, except fur apparel",
    "201": "Manufacture of basic chemicals, fertilizers and nitrogen compounds, plastics and synthetic rubber in "
           "primary forms",
    "210": "Manufacture of pharmaceuticals, medicinal chemical and botanical products",
    "241": "Manufacture of basic iron and steel",
    "261": "Manufacture of electronic components and boards",
    "263": "Manufacture of communication equipment",
    "271": "Manufacture of electric motors, generators, transformers and electricity distribution and control "
           "apparatus",
    "281": "Manufacture of general-purpose machinery",
    "291": "Manufacture of motor vehicles",
    "293": "Manufacture of parts and accessories for motor vehicles",
    "303": "Manufacture of air and spacecraft and related machinery",
    "325": "Manufacture of medical and dental instruments and supplies",
    "351": "Electric power generation, transmission and distribution",
    "352": "Manufacture of gas; distribution of gaseous fuels through mains",
    "382": "Waste treatment and disposal",
    "410": "Construction of buildings",
    "421": "Construction of roads and railways",
    "464": "Wholesale of household goods",
    "471": "Retail sale in non-specialized stores",
    "479": "Retail trade not in stores, stalls or markets",
    "491": "Transport via railways",
    "501": "Sea and coastal water transport",
    "511": "Passenger air transport",
    "522": "Support activities for transportation",
    "551": "Short term accommodation activities",
    "561": "Restaurants and mobile food service activities",
    "582": "Software publishing",
    "602": "Television programming and broadcasting activities",
    "611": "Wired telecommunications activities",
    "612": "Wireless telecommunications activities",
    "620": "Computer programming, consultancy and related activities",
    "631": "Data processing, hosting and related activities; web portals",
    "641": "Monetary intermediation",
    "642": "Activities of holding companies",
    "643": "Trusts, funds and similar financial entities",
    "651": "Insurance",
    "652": "Reinsurance",
    "661": "Activities auxiliary to financial service activities, except insurance and pension funding",
    "663": "Fund management activities",
    "681": "Real estate activities with own or leased property",
    "682": "Real estate activities on a fee or contract basis",
    "702": "Management consultancy activities",
    "711": "Architectural and engineering activities and related technical consultancy",
    "721": "Research and experimental development on natural sciences and engineering",
    "731": "Advertising",
    "771": "Renting and leasing of motor vehicles",
    "781": "Activities of employment placement agencies",
    "854": "Other education",
    "861": "Hospital activities",
    "920": "Gambling and betting activities",
    "960": "Other personal service activities",
}


@dataclass(frozen=True, slots=True)
class IsicClass:
    code: str  # 4 digits
    name: str
    weight: int  # relative frequency among listed companies
    word: str  # an industry word for generated company names

    @property
    def group(self) -> str:
        return self.code[:3]

    @property
    def division(self) -> str:
        return self.code[:2]

    @property
    def section(self) -> str:
        return DIVISIONS[self.division][0]


CLASSES: tuple[IsicClass, ...] = tuple(IsicClass(*row) for row in [
    ("0111", "Growing of cereals (except rice), leguminous crops and oil seeds", 2, "Agro"),
    ("0321", "Marine aquaculture", 2, "Seafood"),
    ("0610", "Extraction of crude petroleum", 4, "Petroleum"),
    ("0620", "Extraction of natural gas", 3, "Gas"),
    ("0729", "Mining of other non-ferrous metal ores", 4, "Mining"),
    ("1073", "Manufacture of cocoa, chocolate and sugar confectionery", 2, "Foods"),
    ("1103", "Manufacture of malt liquors and malt", 2, "Breweries"),
    ("1410", "Manufacture of wearing apparel, except fur apparel", 3, "Fashion"),
    ("2011", "Manufacture of basic chemicals", 4, "Chemicals"),
    ("2100", "Manufacture of pharmaceuticals, medicinal chemical and botanical products", 6, "Pharma"),
    ("2410", "Manufacture of basic iron and steel", 3, "Steel"),
    ("2610", "Manufacture of electronic components and boards", 4, "Electronics"),
    ("2630", "Manufacture of communication equipment", 3, "Networks"),
    ("2710", "Manufacture of electric motors, generators, transformers and electricity distribution and control "
             "apparatus", 3, "Electric"),
    ("2811", "Manufacture of engines and turbines, except aircraft, vehicle and cycle engines", 3, "Engineering"),
    ("2910", "Manufacture of motor vehicles", 2, "Motors"),
    ("2930", "Manufacture of parts and accessories for motor vehicles", 3, "Automotive"),
    ("3030", "Manufacture of air and spacecraft and related machinery", 2, "Aerospace"),
    ("3250", "Manufacture of medical and dental instruments and supplies", 4, "Medical"),
    ("3510", "Electric power generation, transmission and distribution", 5, "Energy"),
    ("3520", "Manufacture of gas; distribution of gaseous fuels through mains", 2, "Utilities"),
    ("3821", "Treatment and disposal of non-hazardous waste", 2, "Environmental"),
    ("4100", "Construction of buildings", 5, "Construction"),
    ("4210", "Construction of roads and railways", 3, "Infrastructure"),
    ("4649", "Wholesale of other household goods", 3, "Trading"),
    ("4711", "Retail sale in non-specialized stores with food, beverages or tobacco predominating", 3, "Retail"),
    ("4791", "Retail sale via mail order houses or via Internet", 4, "Commerce"),
    ("4911", "Passenger rail transport, interurban", 1, "Rail"),
    ("5012", "Sea and coastal freight water transport", 3, "Shipping"),
    ("5110", "Passenger air transport", 2, "Airlines"),
    ("5224", "Cargo handling", 2, "Logistics"),
    ("5510", "Short term accommodation activities", 3, "Hotels"),
    ("5610", "Restaurants and mobile food service activities", 2, "Restaurants"),
    ("5820", "Software publishing", 6, "Software"),
    ("6020", "Television programming and broadcasting activities", 2, "Media"),
    ("6110", "Wired telecommunications activities", 2, "Telecom"),
    ("6120", "Wireless telecommunications activities", 2, "Mobile"),
    ("6201", "Computer programming activities", 5, "Digital"),
    ("6202", "Computer consultancy and computer facilities management activities", 4, "Systems"),
    ("6311", "Data processing, hosting and related activities", 3, "Data"),
    ("6419", "Other monetary intermediation", 8, "Bank"),
    ("6420", "Activities of holding companies", 9, "Holding"),
    ("6430", "Trusts, funds and similar financial entities", 7, "Capital"),
    ("6511", "Life insurance", 3, "Life"),
    ("6512", "Non-life insurance", 3, "Insurance"),
    ("6520", "Reinsurance", 1, "Re"),
    ("6611", "Administration of financial markets", 1, "Exchange"),
    ("6630", "Fund management activities", 4, "Asset Management"),
    ("6810", "Real estate activities with own or leased property", 9, "Properties"),
    ("6820", "Real estate activities on a fee or contract basis", 3, "Real Estate"),
    ("7020", "Management consultancy activities", 2, "Consulting"),
    ("7110", "Architectural and engineering activities and related technical consultancy", 2, "Engineering"),
    ("7210", "Research and experimental development on natural sciences and engineering", 4, "Biotech"),
    ("7310", "Advertising", 2, "Marketing"),
    ("7710", "Renting and leasing of motor vehicles", 1, "Leasing"),
    ("7810", "Activities of employment placement agencies", 2, "Staffing"),
    ("8549", "Other education n.e.c.", 1, "Learning"),
    ("8610", "Hospital activities", 2, "Healthcare"),
    ("9200", "Gambling and betting activities", 2, "Gaming"),
    ("9609", "Other personal service activities n.e.c.", 1, "Services"),
])
CLASS_INDEX: dict[str, int] = {cls.code: i for i, cls in enumerate(CLASSES)}
assert all(cls.group in GROUPS and cls.division in DIVISIONS for cls in CLASSES)


def section_json(code: str) -> dict[str, str]:
    return {"code": code, "name": SECTIONS[code]}


def division_json(code: str) -> dict[str, object]:
    section, name = DIVISIONS[code]
    return {"code": code, "name": name, "sector": section_json(section)}


def group_json(code: str) -> dict[str, object]:
    return {"code": code, "name": GROUPS[code], "industry_group": division_json(code[:2])}


def class_json(cls: IsicClass) -> dict[str, object]:
    return {"code": cls.code, "name": cls.name, "industry": group_json(cls.group)}
