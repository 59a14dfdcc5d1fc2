"""Where a kit's files come from: local folders first (an older kit, a cache), then the index.

The index is read through the Simple Repository API in its JSON form (PEP 691; the file sizes
are PEP 700's), the API pip and uv use, so a company mirror that serves it works too. One page
per package, fetched in parallel; a local folder's file with the sha256 of the chosen one is
copied instead of downloaded. Each file is kept only when its sha256 is one of the lock's hashes
for that release: the lock, not the index, decides what may enter a kit.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

from agent_harness.kit.manifest import sha256_of

__all__ = ["DistFile", "IndexUnavailable", "LocalFiles", "PackageIndex", "fetch"]

PYPI = "https://pypi.org/simple"
ACCEPT = "application/vnd.pypi.simple.v1+json"


class IndexUnavailable(RuntimeError):
    """The package index could not be read."""


@dataclass(frozen=True)
class DistFile:
    """One distribution file: where it is (a local path or a URL), its sha256 and size."""

    filename: str
    sha256: str
    size: int
    path: Path | None = None
    url: str | None = None


def release_of(filename: str) -> tuple[str, str] | None:
    """(canonical name, version) of a wheel or sdist file name, None for anything else."""
    try:
        if filename.endswith(".whl"):
            name, version, *_ = parse_wheel_filename(filename)
        elif filename.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(filename)
        else:
            return None
    except ValueError:
        return None
    return canonicalize_name(name), str(version)


class LocalFiles:
    """Distribution files in local folders (``--find-links``), hashed only when asked for."""

    def __init__(self, folders: Iterable[Path]):
        self._by_release: dict[tuple[str, str], list[Path]] = {}
        for folder in folders:
            for path in sorted(Path(folder).glob("*")):
                release = release_of(path.name) if path.is_file() else None
                if release:
                    self._by_release.setdefault(release, []).append(path)
        self._hashes: dict[Path, str] = {}

    def files(self, name: str, version: str) -> list[DistFile]:
        found = []
        for path in self._by_release.get((canonicalize_name(name), version), []):
            if path not in self._hashes:
                self._hashes[path] = sha256_of(path)
            found.append(DistFile(path.name, self._hashes[path], path.stat().st_size, path=path))
        return found


class PackageIndex:
    """A package index's JSON simple pages (PEP 691), one request per package."""

    def __init__(self, url: str = PYPI, workers: int = 8):
        self.url = url.rstrip("/")
        self.workers = workers
        self.client = httpx.Client(
            timeout=120,
            follow_redirects=True,
            headers={"Accept": ACCEPT},
            transport=httpx.HTTPTransport(retries=3),  # connection failures are retried
        )

    def files(self, name: str, version: str) -> list[DistFile]:
        page = f"{self.url}/{canonicalize_name(name)}/"
        try:
            response = self.client.get(page)
            response.raise_for_status()
            listed = response.json()["files"]
        except (httpx.HTTPError, ValueError, KeyError) as e:
            raise IndexUnavailable(f"{page}: {e}") from e
        found = []
        for entry in listed:
            release = release_of(entry["filename"])
            sha256 = entry.get("hashes", {}).get("sha256")
            if release and release[1] == version and sha256 and entry.get("size") is not None:
                url = str(httpx.URL(page).join(entry["url"]))
                found.append(DistFile(entry["filename"], sha256, entry["size"], url=url))
        return found

    def many(self, releases: list[tuple[str, str]], progress: Callable[[], object]) -> dict:
        """``files`` for many releases at once: {(name, version): [DistFile, ...]}."""

        def one(release):
            try:
                return release, self.files(*release)
            finally:
                progress()

        with ThreadPoolExecutor(self.workers) as pool:
            return dict(pool.map(one, releases))

    def close(self) -> None:
        self.client.close()


def fetch(file: DistFile, destination: Path, client: httpx.Client | None, progress) -> None:
    """Copy or download ``file`` to ``destination``, checking its sha256 on the way.

    Raises:
        ValueError: The bytes are not the ones the lock's hash names (nothing is left behind).
    """
    partial = destination.with_name(destination.name + ".part")
    digest = hashlib.sha256()
    try:
        with open(partial, "wb") as out:
            if file.path is not None:
                with open(file.path, "rb") as source:
                    while block := source.read(1 << 20):
                        digest.update(block)
                        out.write(block)
                        progress(len(block))
            else:
                with client.stream("GET", file.url) as response:
                    response.raise_for_status()
                    for block in response.iter_bytes(1 << 20):
                        digest.update(block)
                        out.write(block)
                        progress(len(block))
        if digest.hexdigest() != file.sha256:
            raise ValueError(
                f"{file.filename} from {file.path or file.url}: sha256 {digest.hexdigest()} "
                f"is not the expected {file.sha256}"
            )
        shutil.move(partial, destination)
    finally:
        partial.unlink(missing_ok=True)
