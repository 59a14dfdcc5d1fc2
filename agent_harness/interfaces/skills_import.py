"""Fetch a skills library (a local folder or a .zip/.tar.gz URL) for ingestion.

Used for the optional import of Oracle's public skills library: the user names the path or URL
at setup time; nothing is committed to the project.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["fetch_skills_folder"]


@contextmanager
def fetch_skills_folder(source: str, timeout: float = 60.0) -> Iterator[Path]:
    """Yield a local folder holding the skills named by ``source``.

    Args:
        source: A folder, a .zip/.tar.gz file, or an http(s) URL of one.
        timeout: Download time limit in seconds.

    Raises:
        ValueError: The source is neither a folder nor a supported archive.
        OSError: The download or extraction failed.
    """
    path = Path(source).expanduser()
    if path.is_dir():
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="skills-") as tmp:
        tmp_path = Path(tmp)
        if source.startswith(("http://", "https://")):
            archive = tmp_path / ("download" + (".zip" if source.endswith(".zip") else ".tar.gz"))
            with (
                urllib.request.urlopen(source, timeout=timeout) as response,
                archive.open("wb") as out,
            ):
                shutil.copyfileobj(response, out)
        elif path.is_file():
            archive = path
        else:
            raise ValueError(f"{source!r} is not a folder, an archive file or an http(s) URL")
        target = tmp_path / "skills"
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                for member in zf.namelist():  # refuse paths that escape the folder
                    if member.startswith("/") or ".." in Path(member).parts:
                        raise ValueError(f"unsafe path in archive: {member}")
                zf.extractall(target)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tf:
                tf.extractall(target, filter="data")
        else:
            raise ValueError(f"{source!r} is not a .zip or .tar.gz archive")
        yield target
