"""Value checks ("probes") of the grade cells, evaluated in the student's process and compared
with the reference in the grader's process.

A probe is a piece of Python run after the notebook's cells, in the notebook's namespace; it
sets ``value``. The runner turns ``value`` into plain data (exact built-in types only; any other
object becomes ``{"__object__": type name}``) and the grader compares it with the value the same
probe gave on the instructor's solution. ``outcome(fn, *args)`` gives ``["ok", value]`` or
``["raised", "ValueError"]``. A grade cell earns its points only when its visible checks pass
in the student's process AND every probe of the cell equals the reference, so always-equal
objects, patched asserts and printed fake results earn nothing.

The probe files live with the grader, never in the sandbox (a ``grader`` folder inside what the
sandbox mounts, as in a non-editable install's site-packages, is covered by an empty one): the
student's process sees a probe only while it runs, one at a time after all cells ran, and
nothing it does then reaches the feedback (a failing probe shows the instructor's message, not
the student's output).

A notebook's probes are ``PROBES`` of ``grader/probes/nb_<notebook>.py``. A module that exists
but does not import is an error (:class:`ProbeModuleError`), never "no probes": that would
silently drop every value check of the notebook. What a probe is and how values compare live in
:mod:`grader.value_checks` (re-exported here for the probe files), so grading's other modules,
and ``workshop check`` in a student distribution, do not need this folder.
"""

from grader.value_checks import Probe, ProbeModuleError, probes_for, same

__all__ = ["Probe", "ProbeModuleError", "probes_for", "same"]
