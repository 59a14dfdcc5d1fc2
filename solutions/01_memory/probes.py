"""Probes of 01_memory.

The hidden tests of ``scan_tables`` check: facts ordered by table name, each table once, an
``int`` row count; the same facts for "supplychain" and "SupplyChain"; [] for an owner without
tables; hostile owners raise ValueError before any SQL is sent (as the docstring says); no
memory is written; the table comment is
read from the database at call time. The probes record the same things as plain data
(subjects, kinds, row counts and their types, whether the content holds the comment and the
count), never memory ids.
"""

from grader.value_checks import Probe

# The comments and row counts as the database has them now (read by the probe, not the student).
_TRUTH = """
_dictionary = h.backend.query(
    "SELECT t.table_name, c.comments FROM all_tables t LEFT JOIN all_tab_comments c"
    " ON c.owner = t.owner AND c.table_name = t.table_name WHERE t.owner = 'SUPPLYCHAIN'")
_comment = {r["table_name"]: (r["comments"] or "").strip() for r in _dictionary}
_count = {t: h.backend.query(f"SELECT COUNT(*) AS n FROM SUPPLYCHAIN.{t}")[0]["n"]
          for t in _comment}


def _describe(facts):
    # One plain row per fact: what the hidden tests look at, as data.
    if type(facts) is not list:
        return {"not a list": type(facts).__name__}
    rows = []
    for fact in facts:
        fact = plain(fact)
        if type(fact) is not dict:
            rows.append({"not a dict": fact})
            continue
        meta = fact.get("metadata") if type(fact.get("metadata")) is dict else {}
        subject = fact.get("subject")
        table = subject.split(".", 1)[-1] if type(subject) is str else None
        content = fact.get("content") if type(fact.get("content")) is str else ""
        n = meta.get("row_count")
        rows.append([
            subject,
            fact.get("kind"),
            n,
            type(n).__name__,
            meta.get("owner"),
            meta.get("table"),
            bool(_comment.get(table)) and _comment[table] in content,
            f"{_count.get(table)} rows" in content,
        ])
    return rows
"""

_ORDERED = "A list ordered by table name, one dict per table:"
_SHAPE = '"content": "Table OWNER.TABLE: <the table comment> (<n> rows)"'
_COUNT = "with OWNER and TABLE in upper case and n (an int) from SELECT COUNT(*)."
_ANY_CASE = 'The schema, in any case ("SUPPLYCHAIN" or "supplychain").'
_EMPTY = "An owner without tables gives []."
_RAISES = "owner is not a plain schema name (see IDENTIFIER); nothing is run then."
_READS_ONLY = "It only reads: it stores no memory"

PROBES = {
    "scan_tables_all": [
        Probe(
            "facts",
            _TRUTH + 'value = _describe(scan_tables("SUPPLYCHAIN"))',
            "the facts of SUPPLYCHAIN are not right: one fact per table, ordered by table name, "
            "kind 'table', subject and metadata owner/table in upper case, metadata row_count an "
            "int from SELECT COUNT(*), and the content holding the comment and 'N rows'",
            (_ORDERED, _SHAPE, _COUNT),
        ),
        Probe(
            "owner in any case",
            _TRUTH
            + """
_base = plain(scan_tables("SUPPLYCHAIN"))


def _key(facts):
    if type(facts) is not list or not all(type(f) is dict for f in facts):
        return facts
    return [[f.get("subject"), f.get("content"), (f.get("metadata") or {}).get("row_count")]
            for f in facts]


value = [[_describe(scan_tables(v)), _key(plain(scan_tables(v))) == _key(_base)]
         for v in ("supplychain", "SupplyChain", "sUPPLYCHAIN")]
""",
            "for the owner written in other cases (lower, mixed) expected the same facts "
            "(subjects, contents, row counts) as for 'SUPPLYCHAIN'",
            (_ANY_CASE,),
        ),
        Probe(
            "owner without tables",
            'value = [outcome(scan_tables, name) for name in ("NOBODY", "nobody", "Nobody_2")]',
            "for owners that have no tables (in several cases) expected an empty list []",
            (_EMPTY,),
        ),
        Probe(
            "hostile owners",
            """
_before = h.memory.count()
_tables = len(h.backend.query("SELECT table_name FROM all_tables WHERE owner = 'SUPPLYCHAIN'"))
_hostile = ("SUPPLYCHAIN' OR '1'='1", "SUPPLYCHAIN; DROP TABLE memories", "supplychain.vessels",
            "SUPPLYCHAIN --", "", "1SUPPLYCHAIN", "SUPPLY CHAIN", "SUPPLYCHAIN\\n",
            "' OR 1=1 --", "SUPPLYCHAIN/*", "_SUPPLYCHAIN", "x" * 129, "SUPPLY-CHAIN")
_sent = []
_real_query = type(h.backend).query


def _spy(sql, binds=None):
    _sent.append(sql)
    return _real_query(h.backend, sql, binds)


value = []
for _name in _hostile:
    _sent.clear()
    h.backend.query = _spy
    try:
        _o = outcome(scan_tables, _name)
    finally:
        del h.backend.query
    value.append([_o == ["raised", "ValueError"], len(_sent)])
value.append(h.memory.count() == _before)
value.append(len(h.backend.query(
    "SELECT table_name FROM all_tables WHERE owner = 'SUPPLYCHAIN'")) == _tables)
""",
            "for owners that are not plain schema names (quotes, spaces, dots, comments, a "
            "leading digit, too long, ...) expected a ValueError before any SQL is sent, and "
            "no change to the data",
            (_RAISES,),
        ),
        Probe(
            "no memories written",
            """
_before = h.memory.count()
scan_tables("SUPPLYCHAIN")
scan_tables("supplychain")
value = h.memory.count() - _before
""",
            "for two more calls (SUPPLYCHAIN in upper and lower case) expected no memory "
            "stored: scan_tables only reads (the notebook stores the facts later)",
            (_READS_ONLY,),
        ),
        Probe(
            "current comment",
            _TRUTH
            + """
_original = h.backend.query(
    "SELECT comments FROM all_tab_comments WHERE owner = 'SUPPLYCHAIN' AND table_name = 'PORTS'"
)[0]["comments"]
h.backend.set_comment("ports", None, "Harbours of the demo (probe marker 5521).")
try:
    _facts = plain(scan_tables("SUPPLYCHAIN"))
    _ports = [f.get("content") for f in _facts if type(f) is dict
              and f.get("subject") == "SUPPLYCHAIN.PORTS"] if type(_facts) is list else []
    value = [len(_ports), bool(_ports) and type(_ports[0]) is str
             and "probe marker 5521" in _ports[0]]
finally:
    h.backend.set_comment("ports", None, _original)
""",
            "after a table comment was changed, scan_tables did not show the new comment: read "
            "each table's comment from the database when called",
            (_SHAPE,),
        ),
    ],
}

_BY_NAME = {probe.name: probe for probe in PROBES.pop("scan_tables_all")}
#: The facts (2 points) and the owner handling (1 point) are graded apart.
PROBES["scan_tables_checks"] = [
    _BY_NAME[name] for name in ("facts", "no memories written", "current comment")
]
PROBES["scan_tables_owner"] = [
    _BY_NAME[name] for name in ("owner in any case", "owner without tables", "hostile owners")
]
