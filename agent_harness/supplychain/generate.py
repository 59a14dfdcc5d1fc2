"""Deterministic demo data for the SUPPLYCHAIN schema.

Everything comes from one ``random.Random(SEED)`` and the fixed catalogues below, never from the
clock: ``generate()`` returns the same rows on every call and every machine, and
``data_digest()`` proves it. "Today" in the data is :data:`REFERENCE_DATE`.

The catalogues are real where that matters for an agent: 15 container lines with their SCAC
codes, 25 container ports with their UN/LOCODEs and positions, real HS codes and UN numbers.
Ships get plausible names in their line's style and IMO numbers with valid check digits;
containers get ISO 6346 numbers with valid check digits.

Voyages follow sea lanes: a small graph of waypoints (Malacca, Bab-el-Mandeb, Suez, Gibraltar,
the Channel, Panama, the Cape of Good Hope, Tsugaru, ...) checked against a coastline mask, so a
voyage's ``distance_nm`` is a sailing distance and every AIS fix lies on open water.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import heapq
import json
import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from agent_harness.supplychain.schema import OCEAN_REGIONS

__all__ = [
    "SEED",
    "REFERENCE_DATE",
    "CARRIERS",
    "PORTS",
    "VESSELS",
    "PRODUCTS",
    "WAYPOINTS",
    "SEA_LANES",
    "Leg",
    "SeaRoute",
    "generate",
    "data_digest",
    "sea_route",
    "haversine_nm",
    "initial_bearing",
    "imo_check_digit",
    "iso6346_check_digit",
]

SEED = 20250601
REFERENCE_DATE = dt.date(2025, 6, 1)
EARTH_RADIUS_NM = 3440.065

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

# --- sea lanes ------------------------------------------------------------------------------
#: Waypoints on open water (lat, lon), each checked against a 1 km land mask.
WAYPOINTS = {
    "ECS_N": (30.55, 122.73), "NGB_OFF": (29.75, 122.75), "ECS_S": (28.4, 123.8),
    "JEJU_E": (33.3, 127.4), "KOREA_STR_S": (34.45, 128.85), "BUSAN_OFF": (34.9, 129.15),
    "KOREA_STR": (35.8, 130.4), "JAPAN_SEA": (39.0, 135.5), "TSUGARU_W": (41.25, 139.7),
    "TSUGARU": (41.45, 140.43), "TSUGARU_MID": (41.62, 140.95), "TSUGARU_E": (41.62, 141.5),
    "HOKKAIDO_SE": (41.3, 144.0), "URAGA": (35.25, 139.75), "TOKYO_OFF": (34.8, 140.1),
    "JAPAN_S": (30.0, 142.0), "MIYAKO": (25.3, 126.5), "PHIL_SEA": (22.5, 126.0),
    "TAIWAN_STR_N": (25.6, 120.6), "TAIWAN_STR_S": (23.5, 119.0), "KHH_OFF": (22.45, 120.1),
    "LUZON_STR": (21.0, 120.85), "YTN_OFF": (22.35, 114.45), "LAMMA": (22.18, 114.08),
    "HK_OFF": (22.05, 114.05), "SCS_N": (18.5, 115.5), "SCS_S": (7.5, 108.0),
    "SING_E": (1.32, 104.45), "SING_STRAIT": (1.2, 103.85), "SING_SW": (1.13, 103.7),
    "SING_W": (1.18, 103.5),
    "CAL_W": (33.6, -121.5), "LA_OFF": (33.6, -118.35), "MEXICO_W": (24.0, -116.0),
    "BAJA_S": (22.0, -110.0), "ACAPULCO_OFF": (14.5, -100.0), "PANAMA_PAC": (6.5, -81.0),
    "PANAMA_GULF": (7.3, -79.4), "BALBOA_OFF": (8.85, -79.5), "CULEBRA": (9.05, -79.66),
    "GATUN_LAKE": (9.15, -79.8), "GATUN": (9.27, -79.92), "COLON_OFF": (9.45, -79.92),
    "MALACCA_S": (1.95, 102.35), "KLANG_OFF": (2.9, 101.05), "MALACCA_N": (5.7, 97.9),
    "WEH": (6.2, 94.9), "DONDRA": (5.5, 80.6), "GALLE_OFF": (6.0, 79.9), "CMB_OFF": (6.9, 79.65),
    "COMORIN_S": (7.4, 77.4), "INDIA_SW": (9.5, 75.6), "INDIA_W": (14.0, 73.2),
    "NSA_OFF": (18.8, 72.65), "EIGHT_DEG": (7.7, 72.8), "RAS_AL_HADD": (22.9, 60.3),
    "OMAN_GULF": (25.4, 57.2), "HORMUZ": (26.58, 56.4), "GULF": (26.4, 55.7),
    "JEA_OFF": (25.2, 54.85), "SOCOTRA_N": (13.3, 53.5), "ADEN_GULF": (12.2, 46.0),
    "BAB_EL_MANDEB": (12.58, 43.3), "RED_SEA_S": (15.0, 41.6), "RED_SEA_C": (20.5, 38.5),
    "JED_OFF": (21.5, 38.9), "RED_SEA_N": (25.5, 35.5), "GUBAL_S": (27.4, 34.15),
    "GUBAL": (27.85, 33.75), "SUEZ_GULF": (28.9, 32.95), "SUEZ_N": (29.55, 32.62),
    "SUEZ": (29.85, 32.56), "BITTER_LAKE": (30.35, 32.38), "ISMAILIA": (30.65, 32.33),
    "PSD_OFF": (31.45, 32.35), "MASCARENE_S": (-26.0, 56.0), "SA_EAST": (-31.3, 31.0),
    "DUR_OFF": (-29.9, 31.2), "PORT_ELIZABETH": (-34.5, 26.5), "AGULHAS": (-35.3, 20.5),
    "CAPE": (-35.0, 18.3), "CRETE_S": (34.4, 24.5), "KASOS": (35.3, 26.58),
    "CYCLADES_S": (35.7, 26.3), "MYRTOAN": (36.55, 24.0), "SARONIC": (37.45, 23.75),
    "PIR_OFF": (37.8, 23.58), "KYTHIRA": (36.0, 23.15), "IONIAN": (35.5, 16.5),
    "MESSINA_S": (37.85, 15.45), "MESSINA": (38.2, 15.605), "MESSINA_FARO": (38.243, 15.633),
    "MESSINA_SCILLA": (38.275, 15.69), "MESSINA_N": (38.45, 15.72),
    "TYRRHENIAN_SE": (38.9, 15.55), "TYRRHENIAN": (40.5, 11.0), "TYRRHENIAN_N": (42.2, 9.85),
    "CORSICA_CH": (42.9, 9.86), "GOA_OFF": (44.3, 8.9), "LIGURIAN": (43.6, 8.0),
    "EGADI": (38.2, 11.8), "SICILY_CH": (37.2, 11.6), "ALGERIA_E": (37.8, 8.0),
    "BALEARIC_N": (41.0, 6.0), "ALGERIA_W": (37.0, 1.0), "NAO": (38.55, 0.6),
    "VLC_OFF": (39.4, -0.15), "PALOS": (37.5, -0.45), "GATA": (36.55, -2.1),
    "ALBORAN": (36.15, -3.5), "GIBRALTAR": (35.97, -5.45), "SPARTEL": (35.9, -6.3),
    "ST_VINCENT": (37.0, -9.6), "ROCA": (38.8, -9.9), "FINISTERRE": (43.2, -9.9),
    "USHANT": (48.6, -5.7), "CHANNEL_W": (49.9, -3.5), "CHANNEL_MID": (50.3, -0.5),
    "CHANNEL_E": (50.6, 0.6), "DOVER": (51.0, 1.45), "NORTH_SEA_S": (51.6, 2.6),
    "ANR_OFF": (51.45, 3.2), "SCHELDT": (51.4, 3.6), "RTM_OFF": (52.0, 3.85),
    "NORTH_SEA_C": (52.6, 3.9), "NORTH_SEA_N": (53.6, 4.5), "GERMAN_BIGHT": (53.9, 7.0),
    "ELBE_1": (54.0, 8.1), "ELBE_MOUTH": (53.9, 8.55), "NORTH_ATL": (46.0, -30.0),
    "AZORES_N": (40.3, -28.0), "NANTUCKET": (40.3, -69.5), "NYC_OFF": (40.45, -73.8),
    "SAV_OFF": (31.95, -80.7), "MONA_N": (19.0, -67.7), "MONA_S": (17.8, -68.3),
    "MADEIRA_E": (33.0, -14.5), "CANARIES_W": (28.5, -19.0), "CAPE_VERDE_E": (15.0, -19.5),
    "CAPE_VERDE_W": (15.0, -26.5), "GUINEA": (3.0, -12.0), "RECIFE_OFF": (-7.5, -33.5),
    "SALVADOR_OFF": (-13.0, -37.5), "ABROLHOS": (-18.5, -37.5), "CABO_FRIO": (-23.5, -41.5),
    "SSZ_OFF": (-24.1, -46.25),
}  # fmt: skip

#: Lanes between waypoints and ports, by (ocean region, kind). Kinds: "sea" = open water,
#: "approach" = a port's fairway or river, "canal" = Suez or Panama. AIS fixes lie on sea lanes.
SEA_LANES = {
    ("PACIFIC", "approach"): (
        "CNSHA-ECS_N CNNGB-NGB_OFF CNYTN-YTN_OFF HKHKG-LAMMA LAMMA-HK_OFF SGSIN-SING_STRAIT "
        "KRPUS-BUSAN_OFF JPTYO-URAGA URAGA-TOKYO_OFF TWKHH-KHH_OFF USLAX-LA_OFF"
    ),
    ("PACIFIC", "sea"): (
        "ECS_N-NGB_OFF ECS_N-ECS_S NGB_OFF-ECS_S ECS_S-TAIWAN_STR_N ECS_S-MIYAKO ECS_N-JEJU_E "
        "JEJU_E-KOREA_STR_S KOREA_STR_S-BUSAN_OFF BUSAN_OFF-KOREA_STR KOREA_STR-JAPAN_SEA "
        "JAPAN_SEA-TSUGARU_W TSUGARU_W-TSUGARU TSUGARU-TSUGARU_MID TSUGARU_MID-TSUGARU_E "
        "TSUGARU_E-HOKKAIDO_SE HOKKAIDO_SE-CAL_W MIYAKO-JAPAN_S JAPAN_S-CAL_W TOKYO_OFF-CAL_W "
        "TOKYO_OFF-JAPAN_S LUZON_STR-PHIL_SEA PHIL_SEA-JAPAN_S KHH_OFF-TAIWAN_STR_S "
        "KHH_OFF-LUZON_STR KHH_OFF-SCS_N TAIWAN_STR_N-TAIWAN_STR_S TAIWAN_STR_S-YTN_OFF "
        "TAIWAN_STR_S-HK_OFF TAIWAN_STR_S-SCS_N HK_OFF-SCS_N YTN_OFF-SCS_N SCS_N-SCS_S "
        "SCS_S-SING_E SING_E-SING_STRAIT SING_STRAIT-SING_SW SING_SW-SING_W CAL_W-LA_OFF "
        "JAPAN_S-MEXICO_W LA_OFF-MEXICO_W CAL_W-MEXICO_W HOKKAIDO_SE-MEXICO_W TOKYO_OFF-MEXICO_W "
        "MEXICO_W-BAJA_S BAJA_S-ACAPULCO_OFF ACAPULCO_OFF-PANAMA_PAC PANAMA_PAC-PANAMA_GULF "
        "PANAMA_GULF-BALBOA_OFF"
    ),
    ("PACIFIC", "canal"): ("BALBOA_OFF-CULEBRA CULEBRA-GATUN_LAKE"),
    ("ATLANTIC", "canal"): ("GATUN_LAKE-GATUN GATUN-COLON_OFF"),
    ("INDIAN", "approach"): (
        "MYPKG-KLANG_OFF LKCMB-CMB_OFF INNSA-NSA_OFF AEJEA-JEA_OFF SAJED-JED_OFF ZADUR-DUR_OFF"
    ),
    ("INDIAN", "sea"): (
        "SING_W-MALACCA_S MALACCA_S-KLANG_OFF KLANG_OFF-MALACCA_N MALACCA_N-WEH WEH-DONDRA "
        "DONDRA-GALLE_OFF GALLE_OFF-CMB_OFF DONDRA-EIGHT_DEG CMB_OFF-EIGHT_DEG CMB_OFF-COMORIN_S "
        "COMORIN_S-INDIA_SW INDIA_SW-INDIA_W INDIA_W-NSA_OFF EIGHT_DEG-SOCOTRA_N "
        "NSA_OFF-SOCOTRA_N NSA_OFF-RAS_AL_HADD EIGHT_DEG-RAS_AL_HADD RAS_AL_HADD-OMAN_GULF "
        "OMAN_GULF-HORMUZ HORMUZ-GULF GULF-JEA_OFF SOCOTRA_N-ADEN_GULF ADEN_GULF-BAB_EL_MANDEB "
        "BAB_EL_MANDEB-RED_SEA_S RED_SEA_S-RED_SEA_C RED_SEA_C-JED_OFF JED_OFF-RED_SEA_N "
        "RED_SEA_C-RED_SEA_N RED_SEA_N-GUBAL_S GUBAL_S-GUBAL GUBAL-SUEZ_GULF SUEZ_GULF-SUEZ_N "
        "SUEZ_N-SUEZ WEH-MASCARENE_S EIGHT_DEG-MASCARENE_S MASCARENE_S-SA_EAST SA_EAST-DUR_OFF "
        "SA_EAST-PORT_ELIZABETH PORT_ELIZABETH-AGULHAS"
    ),
    ("MEDITERRANEAN", "canal"): ("SUEZ-BITTER_LAKE BITTER_LAKE-ISMAILIA ISMAILIA-PSD_OFF"),
    ("MEDITERRANEAN", "approach"): ("EGPSD-PSD_OFF ESVLC-VLC_OFF ITGOA-GOA_OFF GRPIR-PIR_OFF"),
    ("MEDITERRANEAN", "sea"): (
        "PSD_OFF-CRETE_S CRETE_S-IONIAN IONIAN-SICILY_CH SICILY_CH-ALGERIA_E ALGERIA_E-ALGERIA_W "
        "ALGERIA_W-ALBORAN ALBORAN-GIBRALTAR GATA-ALBORAN GATA-PALOS PALOS-NAO NAO-VLC_OFF "
        "NAO-ALGERIA_W BALEARIC_N-ALGERIA_W BALEARIC_N-ALGERIA_E BALEARIC_N-LIGURIAN "
        "LIGURIAN-GOA_OFF GOA_OFF-CORSICA_CH CORSICA_CH-TYRRHENIAN_N TYRRHENIAN_N-TYRRHENIAN "
        "TYRRHENIAN-EGADI EGADI-SICILY_CH PIR_OFF-SARONIC SARONIC-MYRTOAN MYRTOAN-CYCLADES_S "
        "CYCLADES_S-KASOS KASOS-PSD_OFF MYRTOAN-KYTHIRA KYTHIRA-IONIAN IONIAN-MESSINA_S "
        "KYTHIRA-MESSINA_S MESSINA_S-MESSINA MESSINA-MESSINA_FARO MESSINA_FARO-MESSINA_SCILLA "
        "MESSINA_SCILLA-MESSINA_N MESSINA_N-TYRRHENIAN_SE TYRRHENIAN_SE-TYRRHENIAN"
    ),
    ("ATLANTIC", "approach"): (
        "NLRTM-RTM_OFF BEANR-SCHELDT SCHELDT-ANR_OFF DEHAM-ELBE_MOUTH ELBE_MOUTH-ELBE_1 "
        "USNYC-NYC_OFF USSAV-SAV_OFF BRSSZ-SSZ_OFF"
    ),
    ("ATLANTIC", "sea"): (
        "AGULHAS-CAPE GIBRALTAR-SPARTEL SPARTEL-ST_VINCENT ST_VINCENT-ROCA ROCA-FINISTERRE "
        "FINISTERRE-USHANT USHANT-CHANNEL_W CHANNEL_W-CHANNEL_MID CHANNEL_MID-CHANNEL_E "
        "CHANNEL_E-DOVER DOVER-NORTH_SEA_S NORTH_SEA_S-RTM_OFF NORTH_SEA_S-ANR_OFF "
        "RTM_OFF-NORTH_SEA_C NORTH_SEA_S-NORTH_SEA_C NORTH_SEA_C-NORTH_SEA_N "
        "NORTH_SEA_N-GERMAN_BIGHT GERMAN_BIGHT-ELBE_1 USHANT-NORTH_ATL NORTH_ATL-NANTUCKET "
        "NANTUCKET-NYC_OFF SPARTEL-AZORES_N AZORES_N-NANTUCKET AZORES_N-SAV_OFF NORTH_ATL-SAV_OFF "
        "MONA_N-NYC_OFF MONA_N-SAV_OFF MONA_N-MONA_S MONA_S-COLON_OFF SSZ_OFF-CABO_FRIO "
        "CABO_FRIO-ABROLHOS ABROLHOS-SALVADOR_OFF SALVADOR_OFF-RECIFE_OFF RECIFE_OFF-CAPE_VERDE_W "
        "CAPE_VERDE_W-CANARIES_W CANARIES_W-MADEIRA_E MADEIRA_E-ST_VINCENT MADEIRA_E-FINISTERRE "
        "MADEIRA_E-SPARTEL SSZ_OFF-CAPE CANARIES_W-CAPE_VERDE_E CAPE_VERDE_E-GUINEA GUINEA-CAPE"
    ),
}


def haversine_nm(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance in nautical miles between two (lat, lon) points in degrees."""
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = (
        math.sin((la2 - la1) / 2) ** 2
        + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_NM * math.asin(min(1.0, math.sqrt(h)))


def initial_bearing(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Initial great-circle course from ``a`` to ``b`` in degrees (0-360, clockwise from north)."""
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    y = math.sin(lo2 - lo1) * math.cos(la2)
    x = math.cos(la1) * math.sin(la2) - math.sin(la1) * math.cos(la2) * math.cos(lo2 - lo1)
    return math.degrees(math.atan2(y, x)) % 360


def _along(a: tuple[float, float], b: tuple[float, float], f: float) -> tuple[float, float]:
    """The point a fraction ``f`` of the way from ``a`` to ``b`` along the great circle."""
    d = haversine_nm(a, b) / EARTH_RADIUS_NM
    if d < 1e-12:
        return a
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    wa, wb = math.sin((1 - f) * d) / math.sin(d), math.sin(f * d) / math.sin(d)
    x = wa * math.cos(la1) * math.cos(lo1) + wb * math.cos(la2) * math.cos(lo2)
    y = wa * math.cos(la1) * math.sin(lo1) + wb * math.cos(la2) * math.sin(lo2)
    z = wa * math.sin(la1) + wb * math.sin(la2)
    return math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x))


@dataclass(frozen=True)
class Leg:
    """One lane of a route, from waypoint (or port) ``start`` to ``end``."""

    start: str
    end: str
    a: tuple[float, float]
    b: tuple[float, float]
    nm: float
    region: str
    kind: str


@dataclass(frozen=True)
class SeaRoute:
    """The shortest sea-lane route between two ports (never through a third port)."""

    origin: str
    dest: str
    legs: tuple[Leg, ...]

    @property
    def distance_nm(self) -> float:
        """Sailing distance in nautical miles."""
        return sum(leg.nm for leg in self.legs)

    @property
    def waypoints(self) -> tuple[str, ...]:
        """Names of the points passed, origin and destination ports included."""
        return (self.legs[0].start, *(leg.end for leg in self.legs))

    @property
    def region(self) -> str:
        """The ocean region where most of the distance lies."""
        nm = Counter()
        for leg in self.legs:
            nm[leg.region] += leg.nm
        return max(OCEAN_REGIONS, key=lambda r: nm[r])

    @property
    def anchorage_nm(self) -> float:
        """Distance to the end of the last open-water leg: where ships wait for a berth."""
        s = end = 0.0
        for leg in self.legs:
            s += leg.nm
            if leg.kind == "sea":
                end = s
        return end

    def point_at(self, s: float) -> tuple[float, float, float, Leg]:
        """(lat, lon, course in degrees, leg) at ``s`` nautical miles from the origin."""
        s = min(max(s, 0.0), self.distance_nm)
        for leg in self.legs:
            if s <= leg.nm or leg is self.legs[-1]:
                f = s / leg.nm if leg.nm else 1.0
                lat, lon = _along(leg.a, leg.b, min(f, 1.0))
                course = (
                    initial_bearing((lat, lon), leg.b) if f < 1 else initial_bearing(leg.a, leg.b)
                )
                return lat, lon, course, leg
            s -= leg.nm
        raise AssertionError("unreachable")

    def locate(self, lat: float, lon: float) -> float:
        """Distance along the route (nm from the origin) of the route point nearest (lat, lon)."""
        best = (math.inf, 0.0)
        start = 0.0
        for leg in self.legs:
            n = max(2, math.ceil(leg.nm / 20))
            for i in range(n + 1):
                d = haversine_nm((lat, lon), _along(leg.a, leg.b, i / n))
                best = min(best, (d, start + leg.nm * i / n))
            start += leg.nm
        lo, hi = best[1] - 25.0, best[1] + 25.0
        for _ in range(40):  # ternary search around the coarse best
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            d1 = haversine_nm((lat, lon), self.point_at(m1)[:2])
            d2 = haversine_nm((lat, lon), self.point_at(m2)[:2])
            lo, hi = (lo, m2) if d1 <= d2 else (m1, hi)
        return min(max((lo + hi) / 2, 0.0), self.distance_nm)

    def nearest_sea_nm(self, s: float, margin: float = 1.0) -> float:
        """``s`` moved, if needed, onto the nearest open-water leg (not a fairway or canal)."""
        best, start = None, 0.0
        for leg in self.legs:
            if leg.kind == "sea":
                lo, hi = start + margin, start + leg.nm - margin
                clamped = min(max(s, lo), hi)
                if best is None or abs(clamped - s) < abs(best - s):
                    best = clamped
            start += leg.nm
        return s if best is None else best


def _point(name: str) -> tuple[float, float]:
    if name in WAYPOINTS:
        return WAYPOINTS[name]
    for code, _, _, _, lat, lon, _, _ in PORTS:
        if code == name:
            return (lat, lon)
    raise KeyError(f"unknown waypoint or port {name!r}")


@functools.cache
def _lane_graph() -> dict[str, list[Leg]]:
    graph: dict[str, list[Leg]] = {}
    for (region, kind), lanes in SEA_LANES.items():
        for lane in lanes.split():
            a, b = lane.split("-")
            pa, pb = _point(a), _point(b)
            nm = haversine_nm(pa, pb)
            graph.setdefault(a, []).append(Leg(a, b, pa, pb, nm, region, kind))
            graph.setdefault(b, []).append(Leg(b, a, pb, pa, nm, region, kind))
    return graph


@functools.cache
def sea_route(origin: str, dest: str) -> SeaRoute:
    """The shortest route along the sea lanes between two ports (UN/LOCODEs).

    Raises:
        KeyError: A code that is not one of the data's ports.
    """
    ports = {p[0] for p in PORTS}
    for code in (origin, dest):
        if code not in ports:
            raise KeyError(f"unknown port {code!r}; ports: {', '.join(sorted(ports))}")
    graph = _lane_graph()
    best = {origin: 0.0}
    previous: dict[str, Leg] = {}
    queue = [(0.0, origin)]
    while queue:
        d, node = heapq.heappop(queue)
        if node == dest:
            break
        if d > best[node]:
            continue
        for leg in graph.get(node, ()):
            if leg.end in ports and leg.end != dest:
                continue  # a route never calls at a third port
            if d + leg.nm < best.get(leg.end, math.inf):
                best[leg.end] = d + leg.nm
                previous[leg.end] = leg
                heapq.heappush(queue, (d + leg.nm, leg.end))
    legs = []
    node = dest
    while node != origin:
        legs.append(previous[node])
        node = previous[node].start
    return SeaRoute(origin, dest, tuple(reversed(legs)))


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

# Empty weight by (type, size), kg; and how often each type is booked.
TARE_KG = {
    "DRY": (2200, 3750),
    "REEFER": (3000, 4600),
    "OPEN_TOP": (2350, 3900),
    "HAZMAT": (2250, 3800),
}
TYPE_WEIGHTS = {"DRY": 0.58, "REEFER": 0.2, "HAZMAT": 0.11, "OPEN_TOP": 0.11}
MAX_GROSS_KG = 30480


def imo_check_digit(first_six: str | int) -> int:
    """IMO check digit: sum of the first six digits times 7, 6, 5, 4, 3, 2, modulo 10."""
    digits = f"{int(first_six):06d}"
    return sum(int(d) * w for d, w in zip(digits, (7, 6, 5, 4, 3, 2))) % 10


def _iso6346_value(ch: str) -> int:
    if ch.isdigit():
        return int(ch)
    value = 10 + ord(ch) - ord("A")
    return value + (value - 1) // 10  # letters skip 11, 22 and 33


def iso6346_check_digit(first_ten: str) -> int:
    """ISO 6346 check digit of owner code + category letter + 6-digit serial (10 characters)."""
    total = sum(_iso6346_value(ch) * 2**i for i, ch in enumerate(first_ten.upper()))
    return total % 11 % 10


# --- generation -----------------------------------------------------------------------------
_REF_DT = dt.datetime.combine(REFERENCE_DATE, dt.time())
_STATUS = {"C": "COMPLETED", "A": "ACTIVE", "D": "DELAYED", "S": "SCHEDULED"}
_DAY = dt.timedelta(days=1)


def _hours(h: float) -> dt.timedelta:
    return dt.timedelta(seconds=round(h * 3600))


def _span_h(later: dt.datetime, earlier: dt.datetime) -> float:
    return (later - earlier).total_seconds() / 3600


@dataclass
class _Voyage:
    vessel: int  # index into VESSELS
    route: SeaRoute
    days: int  # scheduled duration
    status: str = "SCHEDULED"
    departure: dt.date = REFERENCE_DATE
    eta: dt.date = REFERENCE_DATE
    arrival: dt.date | None = None
    anchored: bool = False  # DELAYED: waiting at anchor off the destination
    sailed_yesterday: bool = False  # ACTIVE: its first fix is at the berth
    rest_hours: float = 0.0  # DELAYED: hours until it reaches its berth, seen from today
    voyage_id: int = 0


def _plan(rng: random.Random, vessel: int, origin: str, dest: str) -> _Voyage:
    route = sea_route(origin, dest)
    knots = VESSELS[vessel][5] * rng.uniform(0.72, 0.82)  # liner ships slow-steam
    canal_days = 1 if any(leg.kind == "canal" for leg in route.legs) else 0
    days = math.ceil(route.distance_nm / knots / 24 + canal_days + 0.5)
    return _Voyage(vessel, route, max(days, 2))


def _schedule(rng: random.Random, vessel: int) -> list[_Voyage]:
    """The vessel's two voyages, dated around the reference date as its pattern says."""
    calls, pattern = VESSELS[vessel][6].split(), VESSELS[vessel][7]
    first, second = _plan(rng, vessel, calls[0], calls[1]), _plan(rng, vessel, calls[1], calls[2])
    first.status, second.status = _STATUS[pattern[0]], _STATUS[pattern[1]]
    ref = REFERENCE_DATE
    current = first if pattern[0] in "AD" else second if pattern[1] in "AD" else None
    if current is not None:
        current.anchored, current.sailed_yesterday = "a" in pattern[2:], "m" in pattern[2:]
        if current.status == "ACTIVE":
            elapsed = round(current.days * rng.uniform(0.15, 0.85))
            elapsed = 1 if current.sailed_yesterday else min(max(elapsed, 1), current.days - 1)
            current.departure = ref - elapsed * _DAY
        else:  # DELAYED: the schedule says it should have arrived already
            late = rng.randint(2, 6) if current.anchored else rng.randint(1, 6)
            current.departure = ref - (late + current.days) * _DAY
            current.rest_hours = rng.uniform(24, 60) if current.anchored else rng.uniform(20, 80)
        current.eta = current.departure + current.days * _DAY
    if current is None:  # in port today, between a COMPLETED and a SCHEDULED voyage
        first.arrival = ref - rng.randint(1, 3) * _DAY
        second.departure = ref + rng.randint(1, 4) * _DAY
    elif current is second:
        first.arrival = second.departure - rng.randint(1, 3) * _DAY
    else:
        expected = current.eta
        if current.status == "DELAYED":
            expected = ref + math.ceil(current.rest_hours / 24) * _DAY
        second.departure = max(expected, ref) + rng.randint(1, 3) * _DAY
    if first.status == "COMPLETED":
        first.eta = first.arrival - rng.choice((-1, 0, 0, 0, 1, 1, 2)) * _DAY
        first.departure = first.eta - first.days * _DAY
    if second.status == "SCHEDULED":
        second.eta = second.departure + second.days * _DAY
    return [first, second]


def _direction(route: SeaRoute) -> str:
    dlon = sum((leg.b[1] - leg.a[1] + 540) % 360 - 180 for leg in route.legs)
    dlat = route.legs[-1].b[0] - route.legs[0].a[0]
    if abs(dlon) >= abs(dlat):
        return "E" if dlon > 0 else "W"
    return "N" if dlat > 0 else "S"


def _voyages(rng: random.Random, imos: list[int]) -> tuple[list[_Voyage], list[tuple]]:
    voyages = [v for i in range(len(VESSELS)) for v in _schedule(rng, i)]
    voyages.sort(key=lambda v: (v.departure, VESSELS[v.vessel][0]))
    prefix = {c[1]: c[5] for c in CARRIERS}
    codes: set[str] = set()
    rows = []
    for number, v in enumerate(voyages, start=1):
        v.voyage_id = number
        year, week, _ = v.departure.isocalendar()
        code = ""
        while not code or code in codes:  # two sailings of a line in one week: next number
            code = f"{prefix[VESSELS[v.vessel][1]]}-{year % 100:02d}{week:02d}{_direction(v.route)}"
            week += 1
        codes.add(code)
        r = v.route
        keys = (number, code, imos[v.vessel], r.origin, r.dest)
        rows.append(
            (*keys, v.departure, v.eta, v.arrival, v.status, r.region, round(r.distance_nm))
        )
    return voyages, rows


def _fix_times(rng: random.Random, n: int, earliest: dt.datetime) -> list[dt.datetime]:
    """``n`` report times, newest a few hours before today, oldest not before ``earliest``."""
    newest = _REF_DT - _hours(rng.uniform(0.3, 6))
    gap = min(rng.uniform(6, 20), max(_span_h(newest, earliest), 1) / max(n - 1, 1))
    return [newest - _hours(gap * (n - 1 - i) * rng.uniform(0.85, 1.0)) for i in range(n)]


def _track(rng: random.Random, v: _Voyage, n: int) -> list[tuple]:
    """``n`` AIS fixes (time, lat, lon, knots, heading, nav status) for an ACTIVE/DELAYED voyage."""
    route, dist = v.route, v.route.distance_nm
    dep = dt.datetime.combine(v.departure, dt.time(rng.randint(2, 20)))
    knots = dist / _span_h(dt.datetime.combine(v.eta, dt.time(12)), dep)  # keeps the schedule
    fixes: list[tuple[dt.datetime, float, str, float]] = []  # time, nm from origin, status, knots
    if v.anchored:
        anchored_at = dt.datetime.combine(v.eta, dt.time(12)) - _hours(rng.uniform(0, 18))
        newest = _REF_DT - _hours(rng.uniform(0.3, 6))
        waiting = [newest]
        if n >= 4:
            waiting.append(anchored_at + (newest - anchored_at) * rng.uniform(0.2, 0.6))
        for t in waiting:
            fixes.append((t, route.anchorage_nm, "AT_ANCHOR", 0.0))
        t = anchored_at
        for _ in range(n - len(waiting)):
            t -= _hours(rng.uniform(6, 14))
            fixes.append(
                (t, route.anchorage_nm - knots * _span_h(anchored_at, t), "UNDER_WAY", knots)
            )
    elif v.status == "DELAYED":  # slowed down (weather, congestion): still at sea
        slow = knots * rng.uniform(0.65, 0.85)
        arrives = _REF_DT + _hours(v.rest_hours)
        earliest = max(dep, arrives - _hours(0.9 * dist / slow))
        for t in _fix_times(rng, n, earliest):
            fixes.append((t, dist - slow * _span_h(arrives, t), "UNDER_WAY", slow))
    else:
        earliest = dep + _hours(3)
        if v.sailed_yesterday:
            fixes.append((dep - _hours(rng.uniform(1, 3)), 0.0, "MOORED", 0.0))
            n -= 1
        for t in _fix_times(rng, n, earliest):
            fixes.append((t, knots * _span_h(t, dep), "UNDER_WAY", knots * rng.uniform(1.0, 1.05)))
    track = []
    for t, s, status, speed in sorted(fixes):
        if status == "MOORED":
            lat, lon, heading = *_point(route.origin), rng.uniform(0, 360)
        elif status == "AT_ANCHOR":
            lat, lon, _, _ = route.point_at(s)
            lat, lon = lat + rng.uniform(-0.02, 0.02), lon + rng.uniform(-0.02, 0.02)
            heading, speed = rng.uniform(0, 360), rng.uniform(0, 0.3)
        else:
            lat, lon, course, _ = route.point_at(route.nearest_sea_nm(s))
            heading, speed = course + rng.uniform(-2, 2), speed + rng.uniform(-0.4, 0.4)
        when = t.replace(microsecond=0)
        track.append(
            (when, round(lat, 6), round(lon, 6), round(speed, 1), round(heading) % 360, status)
        )
    return track


def _positions(rng: random.Random, voyages: list[_Voyage], imos: list[int]) -> list[tuple]:
    current = [v for v in voyages if v.status in ("ACTIVE", "DELAYED")]
    counts = [4] * len(current)  # 3-5 fixes each, 4 on average
    shuffled = rng.sample(range(len(current)), len(current))
    k = rng.randint(4, len(current) // 2 - 1)
    for i in shuffled[:k]:
        counts[i] += 1
    for i in shuffled[k : 2 * k]:
        counts[i] -= 1
    rows = []
    for v, n in zip(current, counts):
        for fix in _track(rng, v, n):
            rows.append((len(rows) + 1, imos[v.vessel], v.voyage_id, *fix))
    return rows


def _cents(usd: float) -> int:
    """A price as a trader would write it: whole dollars from $100, else quarters or nickels."""
    step = 100 if usd >= 100 else 25 if usd >= 10 else 5
    return max(step, round(usd * 100 / step) * step)


def _company(rng: random.Random, port: str, trade: str) -> str:
    country = next(p[2] for p in PORTS if p[0] == port)
    stems, suffix = COMPANIES[country]
    return f"{rng.choice(stems)} {trade} {suffix}"


def _container_number(rng: random.Random, owners: tuple[str, ...], used: set[str]) -> str:
    while True:
        owner, serial = rng.choice(owners), f"{rng.randrange(0, 1_000_000):06d}"
        total = sum(_iso6346_value(ch) * 2**i for i, ch in enumerate(owner + serial))
        number = f"{owner}{serial}{total % 11 % 10}"
        if total % 11 != 10 and number not in used:  # ISO 6346 advises against remainder 10
            used.add(number)
            return number


def _may_share(p: Product, first: Product) -> bool:
    """Goods that may share a box: same reefer set point and dangerous-goods class, and no
    single heavy machine (one excavator fills an open-top container)."""
    same = (p.temp_c, p.hazmat_class) == (first.temp_c, first.hazmat_class)
    return p is not first and same and min(p.per_teu[0], first.per_teu[0]) >= 1


def _max_lines(first: Product, mates: list[Product]) -> int:
    """Manifest lines a box may hold: up to 4 in a consolidated dry box, else up to 3."""
    return 1 + min(3 if first.container_type == "DRY" else 2, len(mates))


def _containers(rng: random.Random, voyages: list[_Voyage]) -> tuple[list[tuple], list[tuple]]:
    counts = [2] * 30 + [3] * (len(voyages) - 30)  # 150 containers on 60 voyages
    rng.shuffle(counts)
    slots = [v for v, count in zip(voyages, counts) for _ in range(count)]

    def exports(v: _Voyage, kind: str) -> list[Product]:
        group = PORT_GROUPS[v.route.origin]
        return [p for p in PRODUCTS if p.container_type == kind and group in p.origins.split()]

    # Every product ships at least once: place the rarest (fewest exporting voyages) first.
    firsts: dict[int, Product] = {}
    for p in sorted(PRODUCTS, key=lambda p: sum(p in exports(v, p.container_type) for v in slots)):
        places = [
            i for i, v in enumerate(slots) if i not in firsts and p in exports(v, p.container_type)
        ]
        if not places:
            raise AssertionError(f"no voyage leaves a port that exports {p.hs_code}")
        firsts[rng.choice(places)] = p
    specs = []  # (voyage, first product, compatible products, lines)
    for i, v in enumerate(slots):
        if i in firsts:
            first = firsts[i]
            goods = exports(v, first.container_type)
        else:
            kind = rng.choices(list(TYPE_WEIGHTS), weights=list(TYPE_WEIGHTS.values()))[0]
            goods = exports(v, kind) or exports(v, "DRY")  # else book a dry box
            first = rng.choice(goods)
        mates = [p for p in goods if _may_share(p, first)]
        specs.append([v, first, mates, rng.randint(1, min(3, _max_lines(first, mates)))])
    total = sum(s[3] for s in specs)
    while total != 300:  # manifest lines: exactly 300
        step = 1 if total < 300 else -1
        movable = [s for s in specs if 1 <= s[3] + step <= _max_lines(s[1], s[2])]
        if not movable:
            raise AssertionError("cannot make 300 manifest lines: add goods to PRODUCTS")
        rng.choice(movable)[3] += step
        total += step
    status = dict(
        COMPLETED="DISCHARGED", ACTIVE="IN_TRANSIT", DELAYED="IN_TRANSIT", SCHEDULED="LOADED"
    )
    owners = {c[1]: c[6] for c in CARRIERS}
    used: set[str] = set()
    containers, items = [], []
    for v, first, mates, lines in specs:
        goods = [first, *rng.sample(mates, lines - 1)]
        number = _container_number(rng, owners[VESSELS[v.vessel][1]], used)
        size, kind = first.size_ft, first.container_type
        tare = TARE_KG[kind][size == 40]
        cargo = []
        for p in goods:
            qty = rng.uniform(*p.per_teu) * size / 20 * rng.uniform(0.75, 1.0) / len(goods)
            unit_kg, cents = rng.uniform(*p.unit_kg), _cents(rng.uniform(*p.usd))
            cargo.append([p, max(1, round(qty)), unit_kg, cents])
        net = sum(q * kg for _, q, kg, _ in cargo)
        if tare + net * 1.04 > MAX_GROSS_KG:  # 4 % packaging; stay under the 30,480 kg limit
            factor = (MAX_GROSS_KG - tare) / (net * 1.04) * 0.98
            for line in cargo:
                line[1] = max(1, math.floor(line[1] * factor))
            net = sum(q * kg for _, q, kg, _ in cargo)
        shipper = _company(rng, v.route.origin, first.trade)
        receiver = _company(rng, v.route.dest, first.trade)
        temp = first.temp_c if kind == "REEFER" else None
        hazmat = first.hazmat_class if kind == "HAZMAT" else None
        row = [number, v.voyage_id, kind, size, shipper, receiver, status[v.status]]
        containers.append([*row, round(tare + net * 1.04), temp, hazmat])
        for p, qty, kg, cents in cargo:
            line = (p.hs_code, p.description, qty, cents, round(qty * kg, 2), p.un_number)
            items.append((len(items) + 1, number, *line))
    discharged = [c for c in containers if c[6] == "DISCHARGED"]
    for c in rng.sample(discharged, 6):  # a handful held by customs at the destination
        c[6] = "CUSTOMS_HOLD"
    return [tuple(c) for c in containers], items


def generate() -> dict[str, list[tuple]]:
    """Every SUPPLYCHAIN row, by table name; tuples in the schema's column order.

    Values are int, float (rounded to the column's scale), str, None, ``datetime.date`` for
    date columns and naive-UTC ``datetime.datetime`` (whole seconds) for timestamps. The same
    on every call: all randomness comes from ``random.Random(SEED)``.
    """
    rng = random.Random(SEED)
    carriers = [(i, *c[:5]) for i, c in enumerate(CARRIERS, start=1)]
    carrier_ids = {c[2]: c[0] for c in carriers}
    ports = [tuple(p) for p in PORTS]
    imos, vessels = [], []
    for name, scac, teu, built, flag, knots, _, _ in VESSELS:
        # IMO numbers grow with the keel-laying date: 93xxxxx for 2006, 99xxxxx for 2024.
        first_six = round((932 + (built - 2006) * 3.6) * 1000) + rng.randrange(0, 1500)
        imo = first_six * 10 + imo_check_digit(first_six)
        deadweight = round(teu * (14.5 - teu / 5000) * rng.uniform(0.97, 1.03), -1)
        imos.append(imo)
        vessels.append((imo, name, carrier_ids[scac], teu, int(deadweight), built, flag, knots))
    voyages, voyage_rows = _voyages(rng, imos)
    positions = _positions(rng, voyages, imos)
    containers, items = _containers(rng, voyages)
    return {
        "carriers": carriers,
        "ports": ports,
        "vessels": vessels,
        "voyages": voyage_rows,
        "vessel_positions": positions,
        "containers": containers,
        "cargo_items": items,
    }


def data_digest() -> str:
    """SHA-256 of a canonical JSON dump of :func:`generate` (dates as ISO strings)."""

    def plain(value):
        return value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else value

    rows = {name: [[plain(v) for v in row] for row in table] for name, table in generate().items()}
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()
