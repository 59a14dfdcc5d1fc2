"""The relevance floor: below it, no tool is offered by rank ("no suitable tool found").

Hybrid ranking min-max normalises meaning over the toolbox, so the best tool for ANY question
scores high, nonsense included ("zzzz qqqq purple elephant poetry" ranked ``scratch_write`` at
0.70). The floor is an absolute test on the cosine similarity of the question and the tool
(``similarity`` in :meth:`~agent_harness.tools.registry.ToolRegistry.rank`'s rows):
:meth:`~agent_harness.tools.registry.ToolRegistry.retrieve` picks a tool by rank only when its
similarity reaches the policy's ``relevance_floor``, or when the question spells the tool's
name or one of its snake_case argument names (an exact identifier, e.g. ``lei_code``, is a
request for that tool whatever the embedding says). The always-on tools are offered anyway.

Its value is measured, not guessed (:func:`measure_floor`): the similarity of the right tool
for questions the tools answer (:data:`RELEVANT`), and of the best tool for questions no tool
is for (:data:`IRRELEVANT`); :func:`choose_floor` takes the value that misclassifies the
fewest questions, the middle of the widest such interval. Notebook 08 plots both
distributions; ``tests/test_relevance_floor.py`` holds the policy's default to the
measurement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "RELEVANT",
    "IRRELEVANT",
    "FloorMeasurement",
    "reaches_floor",
    "named_identifiers",
    "choose_floor",
    "measure_floor",
    "FloorCalibration",
    "calibrate_floor",
]

#: Questions the domain tools answer, each with the tool that answers it (two per tool, worded
#: as users ask, not as the descriptions say).
RELEVANT: tuple[tuple[str, str], ...] = (
    ("Where is the Maersk Mc-Kinney Moller according to the live AIS feed?", "ais_live_position"),
    ("Give me the live AIS position of MSC GULSUN as received now", "ais_live_position"),
    ("What is the total declared cargo value of voyage MAE-2514W?", "cargo_value"),
    ("How much is the cargo in container MSCU1234566 worth in dollars?", "cargo_value"),
    ("Which ships does Hapag-Lloyd operate?", "carrier_fleet"),
    ("How big is the fleet of MSC in TEU?", "carrier_fleet"),
    ("Which containers are addressed to IKEA?", "consignee_shipments"),
    ("Show me the shipments for the consignee Walmart", "consignee_shipments"),
    ("What cargo is inside container MSCU1234566?", "container_manifest"),
    ("List the cargo lines of container CMAU1608509", "container_manifest"),
    ("Which containers are held by customs right now?", "containers_on_hold"),
    ("How long have the customs holds been waiting?", "containers_on_hold"),
    ("Convert 500 nautical miles to kilometres", "convert_units"),
    ("How many FEU are 120 TEU?", "convert_units"),
    ("Which voyages are running late?", "delayed_voyages"),
    ("Show the overdue voyages in the Atlantic", "delayed_voyages"),
    ("When will EVER GIVEN arrive at its destination port?", "eta_estimate"),
    ("What is the estimated time of arrival of the ship HMM ALGECIRAS?", "eta_estimate"),
    ("Find the ship with IMO number 9811000", "find_vessel"),
    ("Which vessels have EVER in their name?", "find_vessel"),
    ("How much container capacity is deployed in the Pacific?", "fleet_capacity_by_region"),
    ("TEU at sea per ocean region", "fleet_capacity_by_region"),
    ("Which containers carry dangerous goods?", "hazmat_containers"),
    ("List the flammable cargo containers with their UN numbers", "hazmat_containers"),
    ("What does HS code 8471 mean?", "hs_code_lookup"),
    ("Which tariff chapter is HS 0302?", "hs_code_lookup"),
    ("Which ports are congested this week?", "port_congestion"),
    ("How many ships are due at Rotterdam in the next 7 days?", "port_congestion"),
    ("How far is Shanghai from Rotterdam?", "port_distance"),
    ("Distance in nautical miles between Singapore and Los Angeles", "port_distance"),
    ("How many berths does the port of Hamburg have?", "port_info"),
    ("Tell me about the port NLRTM", "port_info"),
    ("Which refrigerated containers are colder than -18 degrees?", "reefer_containers"),
    ("Show reefer containers between 2 and 8 degrees Celsius", "reefer_containers"),
    ("Append this line to my notes file", "scratch_append"),
    ("Add a line to the scratchpad file notes/delays.md", "scratch_append"),
    ("Which files are in my scratchpad?", "scratch_list"),
    ("List my scratch files", "scratch_list"),
    ("Read back the file notes/delays.md from the scratchpad", "scratch_read"),
    ("Open my scratchpad note about delays", "scratch_read"),
    ("Save these notes to a scratchpad file", "scratch_write"),
    ("Write a summary into notes/summary.md", "scratch_write"),
    ("Scan the database schema into memory", "scan_database"),
    ("Rescan the SUPPLYCHAIN tables and columns", "scan_database"),
    ("Where is the vessel CMA CGM JACQUES SAADE now?", "vessel_position"),
    ("What is the latest position and speed of MSC OSCAR?", "vessel_position"),
    ("Which ships are near Singapore?", "vessels_near_port"),
    ("Vessels within 200 nautical miles of the port of Busan", "vessels_near_port"),
    ("What is the status of voyage MAE-2514W?", "voyage_status"),
    ("Which ship sails voyage CMA-2521W and where is it going?", "voyage_status"),
    ("Which voyages go from Shanghai to Rotterdam?", "voyages_between"),
    ("List all sailings between Singapore and Hamburg", "voyages_between"),
    ("Explain what you did in your last turn", "explain_turn"),
    ("Why did you call that tool in the previous answer?", "explain_turn"),
    ("How healthy is the tool registry?", "registry_health"),
    ("Which tools are failing or slow right now?", "registry_health"),
)

#: Questions no tool of the harness is for: chit-chat, other domains, nonsense.
IRRELEVANT: tuple[str, ...] = (
    "zzzz qqqq purple elephant poetry",
    "What's the weather like in Paris tomorrow?",
    "Write a haiku about autumn leaves",
    "Who won the football world cup in 2018?",
    "Recommend a good pasta recipe",
    "Tell me a joke",
    "How do I bake sourdough bread?",
    "What is the capital of Australia?",
    "Translate hello into Japanese",
    "asdf jkl qwerty uiop",
    "Explain quantum entanglement simply",
    "What movies are playing tonight?",
    "hello",
    "I feel sad today",
    "Best guitar for beginners?",
    "How do I fix a flat bicycle tyre?",
    "What is the meaning of life?",
    "Play some jazz music",
    "Book me a dentist appointment",
    "Who painted the Mona Lisa?",
    "How many calories are in a banana?",
    "Summarise the plot of Hamlet",
    "Set an alarm for 7 am",
    "Is it going to rain in London?",
    "Teach me to knit a scarf",
    "What's a good name for a cat?",
    "Compose a love song",
    "Which phone should I buy?",
    "How tall is Mount Everest?",
    "What is 2 plus 2?",
    "Lorem ipsum dolor sit amet",
)

_WORD = re.compile(r"\w+")


def named_identifiers(tool) -> set[str]:
    """The identifiers a question may spell to ask for ``tool``: its name and its argument
    names that hold an underscore (``lei_code``; a plain word such as ``name`` or ``port``
    is not an identifier)."""
    arguments = (tool.parameters or {}).get("properties") or {}
    return {tool.name.lower(), *(a.lower() for a in arguments if "_" in a)}


def reaches_floor(row: dict, floor: float, query: str, tool) -> bool:
    """True when a ranked ``row`` may be offered for ``query``: its ``similarity`` is at least
    ``floor`` (a row without a similarity, from keyword ranking, always is), or the query
    spells one of :func:`named_identifiers` of ``tool``."""
    similarity = row.get("similarity")
    if similarity is None or similarity >= floor:
        return True
    return bool(named_identifiers(tool) & set(_WORD.findall(str(query or "").lower())))


@dataclass
class FloorMeasurement:
    """The similarities behind the floor.

    Attributes:
        relevant: ``(question, tool, similarity)`` of each relevant question's right tool.
        irrelevant: ``(question, best tool, similarity)`` of each irrelevant question's best
            tool that is not always on.
        floor: The value :func:`choose_floor` takes from them.
        missed: Relevant questions whose right tool falls below the floor.
        offered: Irrelevant questions whose best tool reaches the floor.
    """

    relevant: list[tuple[str, str, float]] = field(default_factory=list)
    irrelevant: list[tuple[str, str, float]] = field(default_factory=list)
    floor: float = 0.0
    missed: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: the floor, the two ranges and the errors."""
        rel = [s for _, _, s in self.relevant]
        irr = [s for _, _, s in self.irrelevant]
        return (
            f"floor {self.floor:.3f}: {len(rel)} relevant questions, their tool's similarity "
            f"{min(rel):.3f}..{max(rel):.3f}; {len(irr)} irrelevant ones, their best tool "
            f"{min(irr):.3f}..{max(irr):.3f}; {len(self.missed)} missed, "
            f"{len(self.offered)} offered a tool"
        )


def choose_floor(relevant: list[float], irrelevant: list[float]) -> float:
    """The floor that misclassifies the fewest questions: a relevant similarity below it is a
    miss, an irrelevant one at or above it a false offer. Of the equally good floors, the
    middle of the widest interval between two measured values, rounded to 3 decimals.

    Raises:
        ValueError: Either list is empty.
    """
    if not relevant or not irrelevant:
        raise ValueError("choose_floor needs relevant and irrelevant similarities")
    values = sorted(set(relevant) | set(irrelevant))
    cuts = [(values[0] - 0.01, values[0])]
    cuts += list(zip(values, values[1:]))
    cuts += [(values[-1], values[-1] + 0.01)]
    best = None
    for low, high in cuts:
        floor = (low + high) / 2
        errors = sum(s < floor for s in relevant) + sum(s >= floor for s in irrelevant)
        key = (errors, -(high - low))
        if best is None or key < best[0]:
            best = (key, floor)
    return round(best[1], 3)


def measure_floor(registry, relevant=RELEVANT, irrelevant=IRRELEVANT) -> FloorMeasurement:
    """Measure the similarities on ``registry`` (vector ranking, open tools included) and
    choose the floor from them.

    Args:
        registry: The tool registry (``h.tools``).
        relevant: ``(question, tool)`` pairs; pairs whose tool is not registered are skipped.
        irrelevant: Questions no tool is for.
    """
    names = set(registry.names())
    always_on = set(registry.always_on)
    found = FloorMeasurement()
    for question, tool in relevant:
        if tool not in names:
            continue
        rows = registry.rank(question, k=None, include_open=True, mode="vector")
        similarity = next(r["similarity"] for r in rows if r["name"] == tool)
        found.relevant.append((question, tool, float(similarity)))
    for question in irrelevant:
        rows = registry.rank(question, k=None, include_open=True, mode="vector")
        best = max((r for r in rows if r["name"] not in always_on), key=lambda r: r["similarity"])
        found.irrelevant.append((question, best["name"], float(best["similarity"])))
    found.floor = choose_floor(
        [s for _, _, s in found.relevant], [s for _, _, s in found.irrelevant]
    )
    found.missed = [q for q, _, s in found.relevant if s < found.floor]
    found.offered = [q for q, _, s in found.irrelevant if s >= found.floor]
    return found


@dataclass
class FloorCalibration:
    """What :func:`calibrate_floor` found on one registry.

    Attributes:
        floor: The calibrated floor (the highest that costs at most ``max_cost`` recall).
        recall_without: recall@k of the calibration questions with no floor.
        recall_with: recall@k with ``floor``.
        questions: How many questions it was calibrated on.
    """

    floor: float
    recall_without: float
    recall_with: float
    questions: int


def _recall(ranked: list[tuple[list[str], dict[str, float], set[str]]], floor: float, k: int):
    hits = 0
    for order, similarity, needed in ranked:
        kept = [n for n in order if similarity.get(n, 1.0) >= floor][:k]
        hits += needed <= set(kept)
    return hits / max(len(ranked), 1)


def calibrate_floor(
    registry, questions, k: int = 5, max_cost: float = 0.0, ceiling: float | None = None
) -> FloorCalibration:
    """The relevance floor of ONE registry, from questions it answers: the highest floor (at most
    ``ceiling``, by default the policy's) at which recall@k (every needed tool among the first
    ``k`` that ``retrieve`` offers, hybrid ranking) stays within ``max_cost`` of no floor: by
    default, at which the sample loses no question (measured: a floor that loses half a point
    on a sample of 500 MetaTool questions lost 1.1 on the other 2,000; one that loses none on
    the sample lost 0.35 on the others).

    A registry's similarities depend on its tools: a small registry of one domain keeps the
    workshop's measured floor (its 56 questions lose nothing at 0.283), while a catalogue of
    hundreds of tools written for other purposes (BFCL, MetaTool, ToolLens) has questions whose
    needed tool scores 0.05 and is offered by its keywords: there the floor must be lower, or it
    costs recall. Calibrate on a sample of the registry's own questions, evaluate on others, and
    store the result with ``h.tools.set_policy(relevance_floor=...)`` (the policy lives in the
    registry's database: one floor per registry).

    Args:
        registry: The tool registry (``h.tools``).
        questions: ``{"query": ..., "tools": [needed, ...]}`` records.
        k: How many tools are offered by rank.
        max_cost: The recall@k the floor may cost on the sample (0.005: half a point).
        ceiling: The highest floor considered (None: the policy's ``relevance_floor``).
    """
    ceiling = registry.policy().relevance_floor if ceiling is None else ceiling
    ranked = []
    for q in questions:
        rows = registry.rank(q["query"], k=None, include_open=True, mode="hybrid")
        ranked.append(
            (
                [r["name"] for r in rows],
                {r["name"]: r["similarity"] for r in rows if r.get("similarity") is not None},
                set(q["tools"]),
            )
        )
    without = _recall(ranked, -1.0, k)
    candidates = sorted({round(ceiling - 0.005 * i, 3) for i in range(0, 400)}, reverse=True)
    for floor in [c for c in candidates if c >= -1.0]:
        with_floor = _recall(ranked, floor, k)
        if with_floor >= without - max_cost:
            return FloorCalibration(floor, without, with_floor, len(ranked))
    return FloorCalibration(-1.0, without, without, len(ranked))
