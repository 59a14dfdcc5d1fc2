"""The offline room kit: one folder that installs the workshop with no network.

``workshop kit build OUT`` writes it (``build.py``: the plan in ``plan.py``, the files from
``sources.py``, wheel tags and markers in ``targets.py``); ``python3 setup/bootstrap.py --kit
PATH`` installs from it after the checks of ``manifest.py`` (standard library only);
``workshop kit verify PATH`` checks a copy (``verify.py``).
"""
