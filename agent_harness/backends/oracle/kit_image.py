"""The Oracle Free image in a room kit: ``docker save`` when the kit is built, ``docker load``
in the room, then compose starts it with no registry.

Written from Docker's documentation and the image's; NOT run here (this machine has no Docker
engine): ``tests/test_kit.py`` runs these functions against a stand-in ``docker`` on PATH that
records its arguments and writes a file, so what is tested is the commands, the file handling
and the manifest, not Docker.

- ``docker image save -o FILE IMAGE`` writes the image, all its layers and its tag, to one tar
  archive: https://docs.docker.com/reference/cli/docker/image/save/
- ``docker image load -i FILE`` restores image and tag from that archive:
  https://docs.docker.com/reference/cli/docker/image/load/
- ``docker info`` answers only when the Docker engine (the daemon) is reachable; the CLI alone
  is not enough: https://docs.docker.com/reference/cli/docker/system/info/
- ``docker image inspect --format '{{.Architecture}}' IMAGE`` says which variant is local (the
  image is published for amd64 and arm64; ``docker save`` writes the one this Docker pulled):
  https://docs.docker.com/reference/cli/docker/image/inspect/ and
  https://github.com/gvenzl/oci-oracle-free (README: tags, architectures, faststart)
- Compose pulls a service's image only when it is missing locally (``pull_policy`` ``missing``,
  the default), and ``docker compose up --pull never`` refuses to pull at all, so after the load
  ``docker compose up -d --wait --pull never oracle`` starts the loaded image or fails at once:
  https://docs.docker.com/reference/compose-file/services/#pull_policy and
  https://docs.docker.com/reference/cli/docker/compose/up/
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from agent_harness.foundation.config import PROJECT_ROOT
from agent_harness.kit import manifest as kit_manifest

__all__ = [
    "COMPOSE_UP",
    "KitImageError",
    "compose_image",
    "load_image",
    "require_engine",
    "save_image",
]

COMPOSE_UP = ["docker", "compose", "up", "-d", "--wait", "--pull", "never", "oracle"]


class KitImageError(RuntimeError):
    """Docker is missing or a docker command failed (the message says which and what to do)."""


def compose_image(compose: Path = PROJECT_ROOT / "docker-compose.yml") -> str:
    """The image docker-compose.yml's ``oracle`` service runs (one place pins it)."""
    found = re.search(r"^\s+image:\s*(\S+)", compose.read_text("utf-8"), re.MULTILINE)
    if not found:
        raise KitImageError(f"{compose}: no `image:` line")
    return found.group(1)


def archive_name(image: str) -> str:
    """``gvenzl/oracle-free:23.26.0-faststart`` -> ``gvenzl_oracle-free_23.26.0-faststart.tar``."""
    return re.sub(r"[/:]", "_", image) + ".tar"


def _docker(*args: str) -> subprocess.CompletedProcess:
    docker = shutil.which("docker")
    if docker is None:
        raise KitImageError(
            "the Oracle image needs Docker: `docker` is not on PATH (install Docker, or build "
            "the kit without --oracle)"
        )
    return subprocess.run([docker, *args], capture_output=True, text=True)


def require_engine() -> None:
    """Docker's CLI on PATH and its engine answering (``docker info``)."""
    info = _docker("info", "--format", "{{.ServerVersion}}")
    if info.returncode != 0:
        raise KitImageError(
            "the Oracle image needs Docker's engine, which does not answer (`docker info`: "
            f"{(info.stderr or info.stdout).strip()[:300]}): start Docker, or build the kit "
            "without --oracle"
        )


def save_image(folder: Path, echo=print) -> dict:
    """``docker save`` the compose file's image into ``folder``; its manifest entry."""
    require_engine()
    image = compose_image()
    inspect = ("image", "inspect", "--format", "{{.Architecture}}", image)
    found = _docker(*inspect)
    if found.returncode != 0:
        echo(f"docker pull {image}")
        pulled = _docker("pull", image)
        if pulled.returncode != 0:
            raise KitImageError(f"docker pull {image} failed: {pulled.stderr.strip()}")
        found = _docker(*inspect)
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / archive_name(image)
    echo(f"docker image save -o {archive} {image}")
    saved = _docker("image", "save", "-o", str(archive), image)
    if saved.returncode != 0 or not archive.is_file():
        raise KitImageError(f"docker image save failed: {saved.stderr.strip()}")
    return {
        "image": image,
        "architecture": found.stdout.strip() or None,
        "file": f"{folder.name}/{archive.name}",
        "sha256": kit_manifest.sha256_of(archive),
        "size": archive.stat().st_size,
    }


def load_image(kit: Path, echo=print) -> None:
    """Check the kit's image archive against the manifest, ``docker load`` it, and say how
    compose starts it with no registry."""
    manifest, problems = kit_manifest.read_manifest(kit)
    if manifest is not None and not manifest.get("oracle"):
        raise KitImageError(f"{kit}: this kit has no Oracle image (build it with --oracle)")
    if manifest is not None:
        problems = kit_manifest.check_files(kit, manifest, [manifest["oracle"]["file"]])
    if problems:
        raise KitImageError("; ".join(map(str, problems)))
    archive = Path(kit) / manifest["oracle"]["file"]
    echo(f"docker image load -i {archive}")
    loaded = _docker("image", "load", "-i", str(archive))
    if loaded.returncode != 0:
        raise KitImageError(f"docker image load failed: {loaded.stderr.strip()}")
    echo(f"loaded {manifest['oracle']['image']}; start it with: {' '.join(COMPOSE_UP)}")
