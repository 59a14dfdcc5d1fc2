"""The interfaces a person runs: the ``workshop`` command (``cli.py``), JupyterLab
(``lab.py``), ``workshop doctor``, the handover to a live room, the skills import."""
