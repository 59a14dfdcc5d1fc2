"""The fixed reference data behind the SUPPLYCHAIN demo: lines, ports, ships and goods.

The catalogues are real where that matters for an agent: 15 container lines with their SCAC
codes, 25 container ports with their UN/LOCODEs and positions, real HS codes and UN numbers.
Ships get plausible names in their line's style; :func:`imo_check_digit` and
:func:`iso6346_check_digit` give the check digits of IMO ship numbers and ISO 6346 container
numbers. Nothing here is random: :mod:`agent_harness.supplychain.generate` draws from it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "CARRIERS",
    "PORTS",
    "VESSELS",
    "Product",
    "PORT_GROUPS",
    "PRODUCTS",
    "COMPANIES",
    "TARE_KG",
    "MAX_GROSS_KG",
    "imo_check_digit",
    "iso6346_remainder",
    "iso6346_check_digit",
]

# --- carriers, ports, vessels ---------------------------------------------------------------
#: name, SCAC, country, headquarters, founded, voyage-code prefix, container owner codes
CARRIERS = (
    ("MSC Mediterranean Shipping Company", "MSCU", "Switzerland", "Geneva", 1970, "MSC",
     ("MSCU", "MEDU")),
    ("A.P. Moller-Maersk", "MAEU", "Denmark", "Copenhagen", 1904, "MAE", ("MAEU", "MSKU", "MRKU")),
    ("CMA CGM", "CMDU", "France", "Marseille", 1978, "CMA", ("CMAU",)),
    ("COSCO Shipping Lines", "COSU", "China", "Shanghai", 1961, "COS", ("CSNU", "CBHU")),
    ("Hapag-Lloyd", "HLCU", "Germany", "Hamburg", 1970, "HLC", ("HLXU", "HLBU")),
    ("Ocean Network Express (ONE)", "ONEY", "Singapore", "Singapore", 2017, "ONE", ("ONEU",)),
    ("Evergreen Line", "EGLV", "Taiwan", "Taoyuan", 1968, "EVG", ("EGHU", "EMCU")),
    ("HMM", "HDMU", "South Korea", "Seoul", 1976, "HMM", ("HDMU",)),
    ("Yang Ming Marine Transport", "YMLU", "Taiwan", "Keelung", 1972, "YML", ("YMLU", "YMMU")),
    ("ZIM Integrated Shipping Services", "ZIMU", "Israel", "Haifa", 1945, "ZIM", ("ZIMU",)),
    ("Wan Hai Lines", "WHLC", "Taiwan", "Taipei", 1965, "WHL", ("WHLU",)),
    ("Pacific International Lines (PIL)", "PCIU", "Singapore", "Singapore", 1967, "PIL",
     ("PCIU",)),
    ("Orient Overseas Container Line (OOCL)", "OOLU", "China", "Hong Kong", 1969, "OOL",
     ("OOLU", "OOCU")),
    ("Matson", "MATS", "United States", "Honolulu", 1882, "MAT", ("MATU",)),
    ("APL", "APLU", "Singapore", "Singapore", 1848, "APL", ("APLU", "APZU")),
)  # fmt: skip

#: UN/LOCODE, name, country, ocean region, latitude, longitude, container berths, max draft (m)
PORTS = (
    ("CNSHA", "Shanghai (Yangshan)", "China", "PACIFIC", 30.625, 122.065, 52, 16.0),
    ("CNNGB", "Ningbo-Zhoushan", "China", "PACIFIC", 29.938, 121.865, 46, 17.0),
    ("CNYTN", "Shenzhen (Yantian)", "China", "PACIFIC", 22.56, 114.275, 20, 17.0),
    ("HKHKG", "Hong Kong", "China", "PACIFIC", 22.33, 114.115, 24, 15.5),
    ("SGSIN", "Singapore", "Singapore", "PACIFIC", 1.27, 103.775, 67, 16.0),
    ("KRPUS", "Busan", "South Korea", "PACIFIC", 35.075, 128.83, 43, 17.0),
    ("JPTYO", "Tokyo", "Japan", "PACIFIC", 35.605, 139.775, 15, 15.0),
    ("TWKHH", "Kaohsiung", "Taiwan", "PACIFIC", 22.57, 120.3, 26, 16.5),
    ("USLAX", "Los Angeles", "United States", "PACIFIC", 33.74, -118.265, 27, 16.2),
    ("MYPKG", "Port Klang", "Malaysia", "INDIAN", 2.995, 101.36, 37, 16.5),
    ("LKCMB", "Colombo", "Sri Lanka", "INDIAN", 6.95, 79.845, 12, 18.0),
    ("INNSA", "Nhava Sheva (JNPT)", "India", "INDIAN", 18.95, 72.95, 14, 14.5),
    ("AEJEA", "Jebel Ali", "United Arab Emirates", "INDIAN", 25.01, 55.06, 67, 17.0),
    ("SAJED", "Jeddah", "Saudi Arabia", "INDIAN", 21.47, 39.16, 20, 16.0),
    ("ZADUR", "Durban", "South Africa", "INDIAN", -29.87, 31.03, 15, 14.2),
    ("EGPSD", "Port Said", "Egypt", "MEDITERRANEAN", 31.23, 32.36, 8, 16.5),
    ("GRPIR", "Piraeus", "Greece", "MEDITERRANEAN", 37.945, 23.58, 9, 18.5),
    ("ITGOA", "Genoa", "Italy", "MEDITERRANEAN", 44.405, 8.91, 12, 15.0),
    ("ESVLC", "Valencia", "Spain", "MEDITERRANEAN", 39.445, -0.315, 17, 16.0),
    ("NLRTM", "Rotterdam", "Netherlands", "ATLANTIC", 51.96, 4.045, 35, 20.0),
    ("BEANR", "Antwerp", "Belgium", "ATLANTIC", 51.28, 4.26, 30, 16.0),
    ("DEHAM", "Hamburg", "Germany", "ATLANTIC", 53.54, 9.93, 30, 15.1),
    ("USNYC", "New York/New Jersey", "United States", "ATLANTIC", 40.68, -74.14, 35, 15.2),
    ("USSAV", "Savannah", "United States", "ATLANTIC", 32.13, -81.14, 9, 14.3),
    ("BRSSZ", "Santos", "Brazil", "ATLANTIC", -23.96, -46.3, 15, 15.0),
)

#: name, carrier SCAC, TEU, year built, flag, service speed (kn), ports called (3), pattern.
#: Pattern: statuses of the two voyages (C=COMPLETED, A=ACTIVE, D=DELAYED, S=SCHEDULED);
#: a trailing "a" = the delayed ship waits at anchor off its port, "m" = it sailed yesterday.
VESSELS = (
    ("MSC CELESTINA", "MSCU", 23756, 2020, "Panama", 22.0, "CNNGB NLRTM CNNGB", "CA"),
    ("MSC OSCAR", "MSCU", 19224, 2015, "Panama", 22.8, "SGSIN ITGOA SGSIN", "AS"),
    ("MSC LUCIANA", "MSCU", 8089, 2009, "Panama", 24.1, "BRSSZ ESVLC BRSSZ", "CD"),
    ("MADRID MAERSK", "MAEU", 20568, 2017, "Denmark", 22.0, "CNYTN DEHAM CNYTN", "CD"),
    ("ANE MAERSK", "MAEU", 16592, 2024, "Singapore", 21.0, "MYPKG NLRTM MYPKG", "CS"),
    ("MAERSK KENSINGTON", "MAEU", 6478, 2007, "Singapore", 24.5, "USSAV NLRTM USSAV", "AS"),
    ("CMA CGM TROCADERO", "CMDU", 23112, 2020, "France", 22.0, "HKHKG NLRTM HKHKG", "CAm"),
    ("CMA CGM AMAZON", "CMDU", 9365, 2015, "Malta", 21.5, "BEANR BRSSZ BEANR", "CS"),
    ("CMA CGM TAGE", "CMDU", 6650, 2008, "Malta", 24.0, "EGPSD ESVLC EGPSD", "DS"),
    ("COSCO SHIPPING VIRGO", "COSU", 20119, 2018, "Hong Kong", 22.0, "CNSHA GRPIR CNSHA", "AS"),
    ("COSCO PRIDE", "COSU", 13386, 2011, "Hong Kong", 24.3, "CNYTN USNYC CNYTN", "CA"),
    ("COSCO SHIPPING LOTUS", "COSU", 4896, 2019, "China", 19.5, "INNSA AEJEA INNSA", "DSa"),
    ("BERLIN EXPRESS", "HLCU", 23664, 2023, "Germany", 21.5, "SGSIN DEHAM SGSIN", "CS"),
    ("VALPARAISO EXPRESS", "HLCU", 9814, 2016, "Liberia", 21.0, "DEHAM USNYC DEHAM", "AS"),
    ("ONE INNOVATION", "ONEY", 23976, 2023, "Liberia", 22.0, "SGSIN NLRTM SGSIN", "CS"),
    ("ONE APUS", "ONEY", 14052, 2019, "Japan", 22.5, "JPTYO USLAX JPTYO", "DS"),
    ("EVER GIVEN", "EGLV", 20124, 2018, "Panama", 22.8, "TWKHH BEANR TWKHH", "CA"),
    ("EVER LOVELY", "EGLV", 8452, 2013, "United Kingdom", 24.0, "CNNGB USLAX CNNGB", "CS"),
    ("HMM ALGECIRAS", "HDMU", 23964, 2020, "Panama", 22.0, "KRPUS DEHAM KRPUS", "CA"),
    ("HMM NURI", "HDMU", 16010, 2021, "Panama", 22.5, "USLAX KRPUS USLAX", "CDa"),
    ("YM WELLNESS", "YMLU", 14198, 2015, "Liberia", 23.0, "CNSHA SAJED EGPSD", "AS"),
    ("YM INITIATIVE", "YMLU", 2800, 2020, "Liberia", 20.0, "HKHKG SGSIN HKHKG", "CS"),
    ("ZIM MOUNT DENALI", "ZIMU", 15000, 2023, "Liberia", 21.0, "CNSHA USSAV CNSHA", "AS"),
    ("ZIM VIRGINIA", "ZIMU", 4250, 2010, "Malta", 23.5, "GRPIR ITGOA USNYC", "CA"),
    ("WAN HAI 357", "WHLC", 3055, 2019, "Singapore", 20.0, "MYPKG LKCMB INNSA", "AS"),
    ("KOTA PERDANA", "PCIU", 11923, 2017, "Singapore", 22.0, "SGSIN ZADUR BRSSZ", "CAm"),
    ("OOCL HONG KONG", "OOLU", 21413, 2017, "Hong Kong", 22.0, "CNSHA BEANR CNSHA", "CS"),
    ("OOCL LUXEMBOURG", "OOLU", 8888, 2013, "Hong Kong", 23.5, "HKHKG USLAX HKHKG", "CS"),
    ("DANIEL K. INOUYE", "MATS", 3600, 2018, "United States", 23.5, "CNSHA USLAX CNSHA", "CS"),
    ("APL RAFFLES", "APLU", 13892, 2013, "Singapore", 22.5, "TWKHH USLAX TWKHH", "CS"),
)


# --- goods ----------------------------------------------------------------------------------
class Product(NamedTuple):
    """A kind of goods: real HS code, packaging, value and the ports that export it."""

    hs_code: str
    description: str
    container_type: str
    size_ft: int
    origins: str  # port groups (see PORT_GROUPS) that export it
    trade: str  # line of business, for shipper and receiver names
    usd: tuple[float, float]  # value of one unit in US dollars
    unit_kg: tuple[float, float]  # net weight of one unit
    per_teu: tuple[float, float]  # units that fill one TEU of container space
    temp_c: float | None = None  # reefer set point
    un_number: str | None = None
    hazmat_class: str | None = None


PORT_GROUPS = {
    "CNSHA": "CN", "CNNGB": "CN", "CNYTN": "CN", "HKHKG": "CN", "SGSIN": "SEA", "MYPKG": "SEA",
    "KRPUS": "KR", "JPTYO": "JP", "TWKHH": "TW", "USLAX": "US", "USNYC": "US", "USSAV": "US",
    "LKCMB": "LK", "INNSA": "IN", "AEJEA": "ME", "SAJED": "ME", "ZADUR": "ZA", "EGPSD": "EG",
    "GRPIR": "MED", "ITGOA": "MED", "ESVLC": "MED", "NLRTM": "NEU", "BEANR": "NEU",
    "DEHAM": "NEU", "BRSSZ": "BR",
}  # fmt: skip

P = Product
PRODUCTS = (
    P("847130", "Laptop computers, portable, under 10 kg", "DRY", 40, "CN TW SEA", "Electronics",
      (380, 1150), (2.6, 2.6), (1800, 2600)),
    P("851713", "Smartphones", "DRY", 40, "CN KR IN SEA", "Electronics", (140, 720), (0.45, 0.45),
      (5000, 9000)),
    P("852872", "LED television receivers, 43 to 65 inch", "DRY", 40, "CN KR", "Electronics",
      (160, 620), (12, 22), (280, 420)),
    P("854143", "Photovoltaic modules (solar panels)", "DRY", 40, "CN SEA", "Solar Energy",
      (55, 140), (22, 24), (300, 360)),
    P("940360", "Wooden furniture (tables, cabinets, shelving)", "DRY", 40, "CN SEA", "Furniture",
      (45, 320), (18, 40), (180, 300)),
    P("940161", "Upholstered seats with wooden frames (sofas, armchairs)", "DRY", 40, "CN",
      "Furniture", (85, 420), (25, 45), (80, 140)),
    P("610910", "T-shirts, knitted, of cotton", "DRY", 40, "CN IN LK", "Textiles", (1.6, 5.8),
      (0.2, 0.2), (15000, 30000)),
    P("640399", "Footwear with leather uppers", "DRY", 40, "CN IN MED", "Footwear", (12, 65),
      (1.1, 1.1), (3500, 6000)),
    P("950300", "Toys (plastic, electronic and plush)", "DRY", 40, "CN", "Toys", (2, 28),
      (0.5, 0.5), (8000, 15000)),
    P("401110", "New pneumatic car tyres, rubber", "DRY", 40, "KR JP CN IN", "Automotive",
      (38, 140), (8, 11), (700, 1000)),
    P("870899", "Motor vehicle parts and accessories", "DRY", 20, "JP KR NEU US", "Automotive",
      (12, 260), (1, 8), (1500, 3500)),
    P("871200", "Bicycles, not motorised", "DRY", 40, "TW", "Cycles", (95, 650), (13, 17),
      (200, 300)),
    P("848180", "Industrial valves and taps", "DRY", 20, "NEU MED CN US", "Engineering",
      (18, 240), (1.5, 6), (2000, 4000)),
    P("090111", "Green coffee beans, not roasted, 60 kg bags", "DRY", 20, "BR", "Coffee",
      (260, 420), (60, 60), (320, 320)),
    P("090240", "Black tea, fermented, 50 kg sacks", "DRY", 20, "LK", "Tea", (150, 260),
      (50, 50), (300, 380)),
    P("080212", "Almonds, shelled, 22.68 kg cartons", "DRY", 20, "US", "Foods", (95, 150),
      (22.68, 22.68), (800, 880)),
    P("150920", "Extra virgin olive oil, cases of 12 x 1 l", "DRY", 20, "MED", "Foods",
      (60, 110), (11, 11), (1200, 1600)),
    P("220421", "Wine of fresh grapes, cases of 12 x 0.75 l", "DRY", 20, "MED ZA", "Beverages",
      (35, 180), (16, 16), (1000, 1200)),
    P("690721", "Porcelain floor tiles (per square metre)", "DRY", 20, "MED", "Building Materials",
      (7, 25), (20, 23), (900, 1050)),
    P("390120", "High-density polyethylene (HDPE) resin, 25 kg bags", "DRY", 20, "ME",
      "Polymers", (28, 36), (25, 25), (880, 1000)),
    P("760110", "Unwrought aluminium ingots, not alloyed", "DRY", 20, "ME", "Metals", (55, 62),
      (22.5, 22.5), (900, 1000)),
    P("401512", "Nitrile examination gloves, cartons of 1,000", "DRY", 40, "SEA", "Healthcare",
      (25, 45), (6.5, 6.5), (1400, 2000)),
    P("520512", "Cotton yarn, single, uncombed, 85 % or more cotton", "DRY", 20, "EG",
      "Textiles", (90, 150), (30, 30), (550, 700)),
    P("720241", "Ferro-chromium, over 4 % carbon, 1 t big bags", "DRY", 20, "ZA", "Metals",
      (1100, 1500), (1000, 1000), (20, 24)),
    P("842952", "Hydraulic crawler excavator, 360-degree superstructure", "OPEN_TOP", 40,
      "JP KR CN NEU US", "Machinery", (42000, 165000), (5500, 13500), (0.5, 0.5)),
    P("847989", "Industrial machinery, crated", "OPEN_TOP", 40, "NEU MED JP CN", "Machinery",
      (18000, 240000), (2500, 9000), (0.5, 0.75)),
    P("680221", "Marble slabs, sawn and polished", "OPEN_TOP", 20, "MED", "Building Materials",
      (180, 900), (250, 320), (60, 75)),
    P("730890", "Fabricated structural steel sections", "OPEN_TOP", 40, "CN KR NEU",
      "Engineering", (900, 2400), (500, 800), (12, 18)),
    P("840820", "Diesel engines for vehicles", "OPEN_TOP", 20, "JP NEU US KR", "Automotive",
      (3500, 18000), (480, 1600), (8, 14)),
    P("080390", "Bananas, fresh (Cavendish), 13 kg cartons", "REEFER", 40, "IN", "Fresh Produce",
      (9, 14), (13, 13), (740, 800), 13.0),
    P("030617", "Frozen shrimps and prawns (vannamei), 10 kg cartons", "REEFER", 40, "IN SEA CN",
      "Seafood", (60, 130), (10, 10), (1150, 1300), -18.0),
    P("020230", "Frozen boneless beef cuts, 27 kg cartons", "REEFER", 40, "BR US", "Meat",
      (140, 230), (27, 27), (460, 520), -18.0),
    P("020714", "Frozen chicken cuts, 15 kg cartons", "REEFER", 40, "BR US", "Meat", (25, 42),
      (15, 15), (850, 950), -18.0),
    P("080510", "Fresh oranges, 15 kg cartons", "REEFER", 40, "EG ZA", "Fresh Produce", (10, 16),
      (15, 15), (760, 840), 5.0),
    P("080810", "Fresh apples, 18 kg cartons", "REEFER", 40, "US MED", "Fresh Produce", (18, 32),
      (18, 18), (500, 560), 1.0),
    P("080410", "Fresh dates, 5 kg cartons", "REEFER", 20, "ME", "Fresh Produce", (12, 45),
      (5, 5), (1800, 2200), 1.0),
    P("040690", "Cheese (Gouda, Emmental, Parmesan), 12 kg cartons", "REEFER", 40, "NEU MED",
      "Foods", (55, 140), (12, 12), (900, 1050), 4.0),
    P("300490", "Medicaments for retail sale, temperature-controlled", "REEFER", 40,
      "NEU IN SEA US", "Healthcare", (450, 3800), (8, 8), (600, 1000), 5.0),
    P("030389", "Frozen fish (mackerel, pollock), 20 kg blocks", "REEFER", 40, "CN KR JP TW",
      "Seafood", (35, 80), (20, 20), (600, 650), -25.0),
    P("320810", "Paint, solvent-based (polyester), 20 l pails", "HAZMAT", 20,
      "CN KR JP NEU MED US SEA IN", "Coatings", (38, 95), (25, 25), (600, 720), None, "UN1263",
      "3"),
    P("271012", "Motor spirit (gasoline), 200 l steel drums", "HAZMAT", 20, "ME NEU SEA US IN",
      "Petrochemicals", (140, 220), (150, 150), (78, 80), None, "UN1203", "3"),
    P("290511", "Methanol, 1,000 l IBCs", "HAZMAT", 20, "ME", "Petrochemicals", (290, 420),
      (792, 792), (18, 20), None, "UN1230", "3"),
    P("281512", "Sodium hydroxide solution (caustic soda lye), 1,000 l IBCs", "HAZMAT", 20,
      "NEU US CN", "Chemicals", (260, 480), (1520, 1520), (12, 14), None, "UN1824", "8"),
    P("280700", "Sulphuric acid, 1,000 l IBCs", "HAZMAT", 20, "CN KR JP NEU", "Chemicals",
      (160, 280), (1840, 1840), (10, 12), None, "UN1830", "8"),
    P("850760", "Lithium-ion batteries, 18 kg cartons", "HAZMAT", 20, "CN KR JP", "Batteries",
      (320, 1900), (18, 18), (700, 900), None, "UN3480", "9"),
    P("330530", "Hair spray aerosols, cartons of 24 cans", "HAZMAT", 20, "NEU MED US CN",
      "Cosmetics", (28, 60), (8, 8), (1400, 1800), None, "UN1950", "2.1"),
    P("310230", "Ammonium nitrate, technical grade, 1 t big bags", "HAZMAT", 20, "NEU US ME",
      "Fertilizers", (330, 450), (1000, 1000), (20, 22), None, "UN1942", "5.1"),
    P("380891", "Insecticide, solid, toxic, 20 kg cartons", "HAZMAT", 20, "CN IN NEU US",
      "Agrochemicals", (90, 260), (20, 20), (800, 900), None, "UN2588", "6.1"),
)  # fmt: skip
del P

#: Company name stems and legal suffix by country, for shippers and receivers.
COMPANIES = {
    "China": (("Zhejiang Huaxin", "Guangdong Minghua", "Jiangsu Hengtai"), "Co., Ltd."),
    "Singapore": (("Straits", "Lion City"), "Pte. Ltd."),
    "South Korea": (("Hanbit", "Daesung"), "Co., Ltd."),
    "Japan": (("Tokai", "Nippon Kaisei"), "K.K."),
    "Taiwan": (("Formosa Lianhe", "Hsinchu"), "Co., Ltd."),
    "United States": (("Golden State", "Atlantic Harbor", "Peachtree"), "Inc."),
    "Malaysia": (("Klang Valley", "Selangor Jaya"), "Sdn. Bhd."),
    "Sri Lanka": (("Ceylon Highland", "Lanka Coast"), "(Pvt) Ltd"),
    "India": (("Konkan", "Deccan Star"), "Pvt. Ltd."),
    "United Arab Emirates": (("Al Noor", "Gulf Horizon"), "FZE"),
    "Saudi Arabia": (("Al Rawabi", "Red Sea"), "Co."),
    "South Africa": (("Cape Meridian", "Natal Coast"), "(Pty) Ltd"),
    "Egypt": (("Nile Delta", "Suez Gate"), "S.A.E."),
    "Greece": (("Aegean", "Attica"), "S.A."),
    "Italy": (("Liguria", "Tirreno"), "S.p.A."),
    "Spain": (("Levante", "Turia"), "S.L."),
    "Netherlands": (("Van Dijk", "Maasland"), "B.V."),
    "Belgium": (("Scheldeport", "Flanders"), "NV"),
    "Germany": (("Hanseatic", "Nordelbe"), "GmbH"),
    "Brazil": (("Paulista", "Serra Verde"), "Ltda."),
}


#: Empty weight of a container by type, (20 ft, 40 ft), in kg.
TARE_KG = {
    "DRY": (2200, 3750),
    "REEFER": (3000, 4600),
    "OPEN_TOP": (2350, 3900),
    "HAZMAT": (2250, 3800),
}
#: Maximum gross weight of a container (ISO 668), in kg.
MAX_GROSS_KG = 30480


# --- identifiers ----------------------------------------------------------------------------
def imo_check_digit(first_six: str | int) -> int:
    """IMO check digit: sum of the first six digits times 7, 6, 5, 4, 3, 2, modulo 10."""
    digits = f"{int(first_six):06d}"
    return sum(int(d) * w for d, w in zip(digits, (7, 6, 5, 4, 3, 2))) % 10


def _iso6346_value(ch: str) -> int:
    if ch.isdigit():
        return int(ch)
    value = 10 + ord(ch) - ord("A")
    return value + (value - 1) // 10  # letters skip 11, 22 and 33


def iso6346_remainder(first_ten: str) -> int:
    """The ISO 6346 weighted sum of owner code + category letter + serial, modulo 11.

    The check digit is this remainder modulo 10. ISO 6346 advises against serials whose
    remainder is 10: their check digit (0) would equal that of remainder 0.
    """
    return sum(_iso6346_value(ch) * 2**i for i, ch in enumerate(first_ten.upper())) % 11


def iso6346_check_digit(first_ten: str) -> int:
    """ISO 6346 check digit of owner code + category letter + 6-digit serial (10 characters)."""
    return iso6346_remainder(first_ten) % 10
