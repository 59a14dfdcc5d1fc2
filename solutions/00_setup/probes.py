"""Probes of 00_setup.

``top_carriers_by_teu_checks``: several sizes (1, 2, 5, every carrier, more than there are
carriers, also with probe carriers that have no vessel) and the same n twice, as (name, total)
pairs of plain data (a look-alike str or int subclass never equals the reference).
``top_carriers_by_teu_ties``: a probe-only copy of the data with equal totals (carriers added in
the grader's copy of the database, then removed).
"""

from grader.value_checks import Probe

_PAIRS = """
def _pairs(n):
    return [plain(list(item)) for item in top_carriers_by_teu(n)]
"""

_TIE = """
def _with_tie(carriers, teu, n):
    # Add carriers with one vessel of ``teu`` each, call the function, remove them again.
    for carrier_id, name in carriers:
        h.backend.supplychain_execute(
            "INSERT INTO supplychain.carriers (carrier_id, name, scac_code) VALUES (:i, :n, :s)",
            {"i": carrier_id, "n": name, "s": f"Q{carrier_id % 1000:03d}"})
        h.backend.supplychain_execute(
            "INSERT INTO supplychain.vessels (imo_number, name, carrier_id, capacity_teu)"
            " VALUES (:imo, :n, :i, :teu)",
            {"imo": 9800000 + carrier_id, "n": name.upper(), "i": carrier_id, "teu": teu})
    try:
        return [plain(list(item)) for item in top_carriers_by_teu(n)]
    finally:
        for carrier_id, _ in carriers:
            h.backend.supplychain_execute("DELETE FROM supplychain.vessels WHERE imo_number = :imo",
                                          {"imo": 9800000 + carrier_id})
            h.backend.supplychain_execute("DELETE FROM supplychain.carriers WHERE carrier_id = :i",
                                          {"i": carrier_id})
"""

_EMPTY = """
value = [_pairs(n) for n in (16, 22)]
for _id, _name in ((971, "Abel Probe Carrier"), (972, "Zora Probe Carrier")):
    h.backend.supplychain_execute("INSERT INTO supplychain.carriers (carrier_id, name, scac_code)"
                    " VALUES (:i, :n, :s)", {"i": _id, "n": _name, "s": f"Q{_id}"})
try:
    value += [_pairs(n) for n in (40, 1000)]
finally:
    h.backend.supplychain_execute("DELETE FROM supplychain.carriers WHERE carrier_id IN (971, 972)")
"""
_NO_VESSELS = "Carriers without vessels are not listed."
_ORDER = "largest total first"
_TIES = "equal totals in carrier-name order"
_N = "How many carriers to return (1 or more)"
_ALL = "When n is larger than the number of carriers with vessels, return all of them."
_SUM = "A carrier's capacity is the sum of vessels.capacity_teu"
_TYPES = "A list of (carrier name, total capacity_teu) tuples, of types (str, int)"

PROBES = {
    "top_carriers_by_teu_checks": [
        Probe(
            "sizes",
            _PAIRS + "value = [_pairs(n) for n in (1, 2, 4, 5, 7, 14, 15)]",
            "top_carriers_by_teu(n) for other values of n (1 up to every carrier) does not give "
            "the n largest (carrier name, SUM of capacity_teu) pairs, largest first",
            (_N, _SUM, _ORDER, _TYPES),
        ),
        Probe(
            "more than there are",
            _PAIRS + _EMPTY,
            "for n larger than the number of carriers with vessels (16 up to 1000) expected all "
            "of them, largest first, and no carrier without vessels (probe carriers without "
            "any)",
            (_ALL, _NO_VESSELS),
        ),
        Probe(
            "repeat",
            _PAIRS + "value = [_pairs(3), _pairs(3), _pairs(1)]",
            "calling top_carriers_by_teu again with the same n (3, then 1) gives a different "
            "answer than the n largest pairs",
            (_N, _ORDER),
        ),
    ],
    "top_carriers_by_teu_ties": [
        Probe(
            "equal totals",
            _TIE
            + """
value = [
    _with_tie([(921, "Xylo Probe Lines"), (922, "Cedar Probe Lines")], 70000, 2),
    _with_tie([(931, "Quill Probe Lines"), (932, "Elm Probe Lines"), (933, "Kite Probe Lines")],
              25000, 40),
]
""",
            "with carriers of equal totals added to the data (at the top, and three in the "
            "middle of the table) expected them in carrier-name order",
            (_TIES,),
        ),
    ],
}
