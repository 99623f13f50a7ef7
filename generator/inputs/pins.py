"""The pinned upstream schema of every known protocol revision (`schema/revisions.json`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from ..errors import SourceError
from ..folders import package_folder

_PINS_FILE = "revisions.json"


@dataclass(frozen=True)
class Pin:
    """One revision's schema file at a fixed upstream commit, with the sha256 of its bytes."""

    revision: str
    commit: str
    path: str
    sha256: str
    raw_url: str

    @property
    def url(self) -> str:
        """The HTTPS address of the pinned file's raw bytes."""
        return self.raw_url.format(commit=self.commit, path=self.path)


@lru_cache(maxsize=None)
def _pins() -> tuple[Pin, ...]:
    try:
        text = (package_folder("mcpgen.schema") / _PINS_FILE).read_text("utf-8")
        table = json.loads(text)
        return tuple(
            Pin(revision=rev, commit=table["commit"], path=e["path"], sha256=e["sha256"], raw_url=table["raw_url"])
            for rev, e in sorted(table["revisions"].items())
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SourceError(f"cannot read the packaged revision pins ({_PINS_FILE}): {exc}") from exc


def load_pins() -> dict[str, Pin]:
    """Every pinned revision, oldest first, keyed by revision name."""
    return {p.revision: p for p in _pins()}


def known_revisions() -> tuple[str, ...]:
    """The pinned revision names, oldest first (YYYY-MM-DD sorts chronologically)."""
    return tuple(p.revision for p in _pins())


def latest_revision() -> str:
    """The newest pinned revision."""
    return known_revisions()[-1]


def revision_index(revision: str) -> int:
    """Position of a known revision in chronological order; SourceError when unknown."""
    known = known_revisions()
    if revision not in known:
        raise SourceError(f"unknown revision {revision!r}; known revisions: {', '.join(known)}")
    return known.index(revision)


def get_pin(revision: str) -> Pin:
    """The pin of a known revision; SourceError listing the known ones otherwise."""
    return _pins()[revision_index(revision)]


KNOWN_REVISIONS: tuple[str, ...] = known_revisions()


def revision_set(spec: str) -> tuple[str, ...]:
    """The revisions a `--revision` value names: one, a comma list, or a range `A..B` of known revisions.

    Lists and ranges come back oldest first and without repeats; a single name is returned as it is
    (it may be a draft read with `--schema`).
    """
    spec = spec.strip()
    if ".." in spec:
        first, _, last = spec.partition("..")
        known = known_revisions()
        start, end = revision_index(first.strip()), revision_index(last.strip())
        if start > end:
            raise SourceError(f"revision range {spec!r} runs backwards; write the older revision first")
        return known[start : end + 1]
    if "," in spec:
        names = [name.strip() for name in spec.split(",") if name.strip()]
        for name in names:
            revision_index(name)
        return tuple(sorted(set(names), key=revision_index))
    return (spec,)
