"""HS (Harmonized System) tariff codes: what the codes in the data mean, and hs_code_lookup."""

from __future__ import annotations

import re

from agent_harness.supplychain.reference_data import PRODUCTS
from agent_harness.tools.supplychain.lookups import cents_sum, query, required_text, usd
from agent_harness.tools.tool import ToolError

#: The category of every tool in this module (``Tool.from_function`` reads it).
TOOL_CATEGORY = "cargo"

__all__ = [
    "HS_CHAPTERS",
    "HS_HEADINGS",
    "HS_SUBHEADINGS",
    "hs_code_lookup",
]

#: HS chapters (2 digits) of the goods in the data.
HS_CHAPTERS = {
    "02": "Meat and edible meat offal",
    "03": "Fish and crustaceans, molluscs and other aquatic invertebrates",
    "04": "Dairy produce; birds' eggs; natural honey",
    "08": "Edible fruit and nuts; peel of citrus fruit or melons",
    "09": "Coffee, tea, mate and spices",
    "15": "Animal or vegetable fats and oils",
    "22": "Beverages, spirits and vinegar",
    "27": "Mineral fuels, mineral oils and products of their distillation",
    "28": "Inorganic chemicals",
    "29": "Organic chemicals",
    "30": "Pharmaceutical products",
    "31": "Fertilisers",
    "32": "Tanning or dyeing extracts; paints and varnishes; inks",
    "33": "Essential oils; perfumery, cosmetic or toilet preparations",
    "38": "Miscellaneous chemical products",
    "39": "Plastics and articles thereof",
    "40": "Rubber and articles thereof",
    "52": "Cotton",
    "61": "Articles of apparel, knitted or crocheted",
    "64": "Footwear, gaiters and the like",
    "68": "Articles of stone, plaster, cement, asbestos or mica",
    "69": "Ceramic products",
    "72": "Iron and steel",
    "73": "Articles of iron or steel",
    "76": "Aluminium and articles thereof",
    "84": "Machinery and mechanical appliances; nuclear reactors, boilers",
    "85": "Electrical machinery and equipment; sound and television apparatus",
    "87": "Vehicles other than railway or tramway rolling stock",
    "94": "Furniture; bedding; lamps; prefabricated buildings",
    "95": "Toys, games and sports requisites",
}
#: HS headings (4 digits) of the goods in the data.
HS_HEADINGS = {
    "0202": "Meat of bovine animals, frozen",
    "0207": "Meat and edible offal of poultry, fresh, chilled or frozen",
    "0303": "Fish, frozen (excluding fillets)",
    "0306": "Crustaceans: shrimps, prawns, crabs, lobsters",
    "0406": "Cheese and curd",
    "0802": "Other nuts: almonds, hazelnuts, walnuts and others",
    "0803": "Bananas, including plantains",
    "0804": "Dates, figs, pineapples, avocados, guavas and mangoes",
    "0805": "Citrus fruit",
    "0808": "Apples, pears and quinces",
    "0901": "Coffee",
    "0902": "Tea",
    "1509": "Olive oil",
    "2204": "Wine of fresh grapes",
    "2710": "Petroleum oils other than crude (e.g. motor spirit)",
    "2807": "Sulphuric acid; oleum",
    "2815": "Sodium hydroxide (caustic soda); potassium hydroxide",
    "2905": "Acyclic alcohols (e.g. methanol)",
    "3004": "Medicaments, packaged for retail sale",
    "3102": "Mineral or chemical fertilisers, nitrogenous",
    "3208": "Paints and varnishes in a non-aqueous medium",
    "3305": "Preparations for use on the hair",
    "3808": "Insecticides, fungicides, herbicides and similar products",
    "3901": "Polymers of ethylene, in primary forms",
    "4011": "New pneumatic tyres, of rubber",
    "4015": "Apparel and gloves of vulcanised rubber",
    "5205": "Cotton yarn (85 % or more cotton), not for retail sale",
    "6109": "T-shirts, singlets and other vests, knitted",
    "6403": "Footwear with uppers of leather",
    "6802": "Worked monumental or building stone",
    "6907": "Ceramic flags, paving, floor and wall tiles",
    "7202": "Ferro-alloys",
    "7308": "Structures and parts of structures, of iron or steel",
    "7601": "Unwrought aluminium",
    "8408": "Compression-ignition (diesel) engines",
    "8429": "Bulldozers, graders, excavators and similar self-propelled machines",
    "8471": "Automatic data-processing machines (computers)",
    "8479": "Machines with individual functions, not elsewhere specified",
    "8481": "Taps, cocks, valves and similar appliances",
    "8507": "Electric accumulators (batteries)",
    "8517": "Telephone sets, including smartphones",
    "8528": "Monitors, projectors and television receivers",
    "8541": "Semiconductor devices; photovoltaic cells and modules",
    "8708": "Parts and accessories of motor vehicles",
    "8712": "Bicycles and other cycles, not motorised",
    "9401": "Seats",
    "9403": "Other furniture",
    "9503": "Toys",
}
#: HS subheadings (6 digits): the catalogue's own descriptions.
HS_SUBHEADINGS = {p.hs_code: p.description for p in PRODUCTS}


def hs_code_lookup(hs_code: str) -> dict:
    """What an HS (Harmonized System) tariff code means: its chapter (2 digits), heading
    (4 digits) and subheading (6 digits), plus the cargo lines in the data whose code starts
    with it (count, quantity, value in US dollars, example descriptions).

    Args:
        hs_code: 2 to 6 digits, e.g. "84", "8471" or "847130" (dots and spaces are ignored).
    """
    code = re.sub(r"[\s.]", "", required_text(hs_code, "hs_code"))
    if not re.fullmatch(r"\d{2}|\d{4}|\d{6}", code):
        raise ToolError(f"'{hs_code}' is not an HS code: give 2, 4 or 6 digits, e.g. 847130")
    if code[:2] not in HS_CHAPTERS:
        raise ToolError(
            f"HS chapter {code[:2]} is not used in this data. Chapters present: "
            + ", ".join(f"{k} {v}" for k, v in HS_CHAPTERS.items())
        )
    rows = query(
        "SELECT i.hs_code, i.description, COUNT(*) AS lines, SUM(i.quantity) AS quantity,"
        " SUM(i.quantity * i.unit_value_cents) AS cents"
        " FROM supplychain.cargo_items i WHERE i.hs_code LIKE :prefix"
        " GROUP BY i.hs_code, i.description ORDER BY i.hs_code",
        prefix=code + "%",
    )
    result = {"hs_code": code, "chapter": {"code": code[:2], "title": HS_CHAPTERS[code[:2]]}}
    if len(code) >= 4:
        result["heading"] = {"code": code[:4], "title": HS_HEADINGS.get(code[:4], "unknown")}
    if len(code) == 6:
        result["subheading"] = {"code": code, "title": HS_SUBHEADINGS.get(code, "unknown")}
    cents = cents_sum(r["cents"] for r in rows)
    result["cargo"] = {
        "lines": sum(r["lines"] for r in rows),
        "quantity": sum(r["quantity"] for r in rows),
        "value_usd": usd(cents),
        "codes": [
            {"hs_code": r["hs_code"], "description": r["description"], "lines": r["lines"]}
            for r in rows
        ],
    }
    return result
