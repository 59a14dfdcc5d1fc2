"""Probes of 00_setup.

The hidden tests call ``top_carriers_by_teu`` with several sizes (1, 2, 5, every carrier, more
than there are carriers) and twice with the same n. The probes record the (name, total) pairs
as plain data: a look-alike object (a str or int subclass) never equals the reference.
"""

from grader.probes import Probe

_PAIRS = """
def _pairs(n):
    return [plain(list(item)) for item in top_carriers_by_teu(n)]
"""

PROBES = {
    "top_carriers_by_teu_checks": [
        Probe(
            "sizes",
            _PAIRS + "value = [_pairs(n) for n in (1, 2, 4, 5, 7, 14, 15)]",
            "top_carriers_by_teu(n) does not return the expected (carrier, total TEU) pairs for "
            "some values of n",
        ),
        Probe(
            "more than there are",
            _PAIRS + "value = [_pairs(n) for n in (16, 22, 40, 1000)]",
            "when n is larger than the number of carriers with vessels, return all of them "
            "(largest first)",
        ),
        Probe(
            "repeat",
            _PAIRS + "value = [_pairs(3), _pairs(3), _pairs(1)]",
            "calling top_carriers_by_teu again with the same n gives a different answer",
        ),
    ],
}
