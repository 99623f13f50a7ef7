"""A cache of generated packages in the user cache dir, keyed by everything that shapes their bytes.

The key covers the schema bytes and revisions, the surface, the pairings, the bytes of mcpgen's own code,
templates and errata, and the versions of the libraries that generate and format the source, so a
hit returns exactly what a fresh generation would. Any unreadable or altered entry is a miss.
The package name is not part of it: the modules import each other relatively, so a package's bytes
do not depend on its name, and `mcpgen check` (which cannot know the name) finds what `generate` stored.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from functools import lru_cache
from pathlib import Path

from .folders import package_folder

DISABLE_ENV = "MCPGEN_NO_CACHE"
FORMAT = 4
_LIBRARIES = {"black": "black", "datamodel-code-generator": "datamodel_code_generator", "jinja2": "jinja2", "pydantic": "pydantic"}
_PARTS = ("mcpgen", "mcpgen.runtime", "mcpgen.templates", "mcpgen.schema")
_SUFFIXES = (".py", ".jinja", ".json")


def enabled() -> bool:
    """False when $MCPGEN_NO_CACHE is set to anything but empty or 0."""
    return os.environ.get(DISABLE_ENV, "") in ("", "0")


def _tree_files(root: str, prefix: str) -> list[tuple[str, str]]:
    """(name under `prefix`, path) of every source, template and data file below `root`."""
    found = []
    with os.scandir(root) as entries:
        for entry in entries:
            name = f"{prefix}/{entry.name}"
            if entry.is_dir():
                if entry.name != "__pycache__":
                    found += _tree_files(entry.path, name)
            elif entry.name.endswith(_SUFFIXES):
                found.append((name, entry.path))
    return found


def installed_version(library: str, module: str) -> str:
    """The installed version of `library` (top-level module `module`), or `missing`.

    Read from the name of the one `.dist-info` directory beside the module when there is one:
    importlib.metadata scans every entry of sys.path first, which costs more than the rest of a
    cached run.
    """
    spec = importlib.util.find_spec(module)
    if spec is not None and spec.origin:
        site = Path(spec.origin).parent.parent
        prefix = module.lower() + "-"
        try:
            found = [e for e in os.listdir(site) if e.lower().startswith(prefix) and e.endswith(".dist-info")]
        except OSError:
            found = []
        if len(found) == 1:
            return found[0][len(prefix) : -len(".dist-info")]
    from importlib import metadata  # slow to import, and rarely needed

    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return "missing"


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """sha256 over mcpgen's code (its runtime too, a folder of its own in an editable install),
    templates and errata, the generating libraries' versions and Python's."""
    digest = hashlib.sha256(f"mcpgen-cache-{FORMAT}\0{sys.version_info[:2]}\0".encode())
    for library, module in _LIBRARIES.items():
        digest.update(f"{library}=={installed_version(library, module)}\0".encode())
    seen = set()
    for part in _PARTS:
        for name, path in sorted(_tree_files(str(package_folder(part)), part)):
            if name in seen:
                continue
            seen.add(name)
            with open(path, "rb") as handle:
                data = handle.read()
            digest.update(f"{name}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def package_key(
    revisions: tuple[tuple[str, str], ...],
    surface: str,
    pairings: tuple[tuple[str, str], ...] = (),
    extensions: tuple[tuple[str, str, str], ...] = (),
) -> str:
    """The cache key of one generated package: its (revision, schema sha256) pairs, surface, pairings and
    (name, identifier, schema sha256) of its extensions."""
    text = json.dumps([fingerprint(), revisions, surface, pairings, *([extensions] if extensions else [])])
    return hashlib.sha256(text.encode()).hexdigest()


def _entry(cache_dir: Path, key: str) -> Path:
    return cache_dir / "packages" / f"{key}.json"


def load(cache_dir: Path, key: str) -> tuple[dict[str, str], tuple[str, ...]] | None:
    """The cached files of `key` and their package's warnings, or None when absent, unreadable or not intact."""
    try:
        head, _, body = _entry(cache_dir, key).read_bytes().partition(b"\n")
        header = json.loads(head)
        if header["key"] != key or header["sha256"] != hashlib.sha256(body).hexdigest():
            return None
        entry = json.loads(body)
        files, warnings = entry["files"], entry["warnings"]
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            return None
        if not all(isinstance(w, str) for w in warnings):
            return None
        return dict(files), tuple(warnings)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store(cache_dir: Path, key: str, files: dict[str, str], warnings: tuple[str, ...] = ()) -> None:
    """Save `files` and their warnings under `key` atomically; a cache that cannot be written is skipped silently.

    An entry is a line of JSON naming its key and the sha256 of the rest, then the JSON of the files and
    warnings (one line: JSON text holds no raw newline), so `load` checks it without encoding it again."""
    import tempfile  # only a cache miss writes

    path = _entry(cache_dir, key)
    body = json.dumps({"files": files, "warnings": list(warnings)}, sort_keys=True).encode()
    head = json.dumps({"key": key, "sha256": hashlib.sha256(body).hexdigest()}).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(head + b"\n" + body)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
