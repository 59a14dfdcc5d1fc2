"""Probes of 01_memory.

The hidden tests of ``scan_tables`` check: facts ordered by table name, each table once, an
``int`` row count; the same facts for "supplychain" and "SupplyChain"; [] for an owner without
tables; hostile owners raise ValueError or give []; no memory is written; the table comment is
read from the database at call time. The probes record the same things as plain data
(subjects, kinds, row counts and their types, whether the content holds the comment and the
count), never memory ids.
"""

from grader.probes import Probe

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

PROBES = {
    "scan_tables_checks": [
        Probe(
            "facts",
            _TRUTH + 'value = _describe(scan_tables("SUPPLYCHAIN"))',
            "the facts of SUPPLYCHAIN are not right: one fact per table, ordered by table name, "
            "kind 'table', subject and metadata owner/table in upper case, metadata row_count an "
            "int from SELECT COUNT(*), and the content holding the comment and 'N rows'",
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
            "scan_tables must give the same facts (subjects, contents, row counts) whatever the "
            "case of the owner: upper-case it before using it",
        ),
        Probe(
            "owner without tables",
            'value = [outcome(scan_tables, name) for name in ("NOBODY", "nobody", "Nobody_2")]',
            "an owner that has no tables must give an empty list []",
        ),
        Probe(
            "hostile owners",
            """
_before = h.memory.count()
_tables = len(h.backend.query("SELECT table_name FROM all_tables WHERE owner = 'SUPPLYCHAIN'"))
_hostile = ("SUPPLYCHAIN' OR '1'='1", "SUPPLYCHAIN; DROP TABLE memories", "supplychain.vessels",
            "SUPPLYCHAIN --", "", "1SUPPLYCHAIN", "SUPPLY CHAIN", "SUPPLYCHAIN\\n",
            "' OR 1=1 --", "SUPPLYCHAIN/*", "_SUPPLYCHAIN", "x" * 129, "SUPPLY-CHAIN")
value = []
for _name in _hostile:
    _o = outcome(scan_tables, _name)
    value.append(_o in (["raised", "ValueError"], ["ok", []]))
value.append(h.memory.count() == _before)
value.append(len(h.backend.query(
    "SELECT table_name FROM all_tables WHERE owner = 'SUPPLYCHAIN'")) == _tables)
""",
            "an owner that is not a plain schema name (quotes, spaces, dots, comments, a leading "
            "digit, ...) must raise ValueError or give [], and scan_tables must change nothing",
        ),
        Probe(
            "no memories written",
            """
_before = h.memory.count()
scan_tables("SUPPLYCHAIN")
scan_tables("supplychain")
value = h.memory.count() - _before
""",
            "scan_tables must only read: it must not store memories (the notebook stores them "
            "later)",
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
            "scan_tables must read each table's comment from all_tab_comments when it is called "
            "(a comment changed since must show up)",
        ),
    ],
}
