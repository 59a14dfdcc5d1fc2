"""The Jupyter kernels the tests start (nbclient, papermill) talk over local sockets.

Over TCP, jupyter_client picks five free ports and the kernel binds them a moment later; with
two test workers starting kernels at once, one run failed with "Kernel died before replying
to kernel_info" (``ZMQError: Address already in use``). tests/jupyter_grading.py's
``LocalSocketKernelManager`` starts them over ipc, as ``workshop lab`` does.
"""

from __future__ import annotations

import nbformat
import papermill

from tests.jupyter_grading import LocalSocketKernelManager, execute

ASK = "from ipykernel.kernelapp import IPKernelApp\nprint(IPKernelApp.instance().transport)"


def _printed(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))


def test_nbclient_kernels_use_local_sockets(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(ASK)])
    nb, status = execute(nb, tmp_path, None, 120)
    assert status == "ok" and _printed(nb).strip() == "ipc", _printed(nb)


def test_papermill_kernels_use_local_sockets(tmp_path):
    source = tmp_path / "in.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(ASK)]), source)
    papermill.execute_notebook(
        str(source),
        str(tmp_path / "out.ipynb"),
        kernel_name="python3",
        progress_bar=False,
        kernel_manager_class=LocalSocketKernelManager,
    )
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert _printed(out).strip() == "ipc", _printed(out)
