"""Known upstream schema defects, fixed as data: JSON Patches in `schema/errata/<revision>.json`.

Each file is a list of `{"id", "reason", "upstream", "patch"}` objects. A patch must fail loudly once
upstream fixes the defect: every `replace`/`remove` directly follows a `test` of the same path, and an
`add`/`copy` must create a member that does not exist yet. Errata only apply to the exact pinned bytes
of their revision: pass the schema's sha256 to `apply_errata` (or use `corrected_schema`) and an
unpinned schema gets none; without a sha256 the caller vouches that the schema is the pinned one.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

import jsonpatch
import jsonpointer

from ..errors import ErratumError, SourceError
from ..model.ir import Erratum
from .pins import get_pin
from .sources import SchemaSource, load_json

_OPS = frozenset({"test", "add", "copy", "replace", "remove"})
_GUARDED = frozenset({"replace", "remove"})
_CREATING = frozenset({"add", "copy"})


@dataclass(frozen=True)
class ErratumPatch:
    """One erratum of a revision: why, where it was reported, and the JSON Patch that fixes it."""

    revision: str
    id: str
    reason: str
    upstream: str
    patch: tuple[dict[str, Any], ...]

    @property
    def qualified_id(self) -> str:
        """`<revision>/<id>`, as error messages name it."""
        return f"{self.revision}/{self.id}"

    @property
    def erratum(self) -> Erratum:
        """The provenance record the IR and the generated code carry."""
        return Erratum(id=self.id, reason=self.reason, upstream=self.upstream)


def errata_file_name(revision: str) -> str:
    """The packaged file holding a revision's errata."""
    return f"{revision}.json"


def load_errata(revision: str) -> tuple[ErratumPatch, ...]:
    """The errata shipped for `revision`, in file order (none when it has no errata file)."""
    name = errata_file_name(revision)
    resource = resources.files("mcpgen.schema").joinpath("errata").joinpath(name)
    if not resource.is_file():
        return ()
    try:
        entries = json.loads(resource.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ErratumError(f"errata file {name} cannot be read: {exc}") from exc
    return parse_errata(revision, entries, name)


def parse_errata(revision: str, entries: Any, origin: str) -> tuple[ErratumPatch, ...]:
    """Check and freeze the errata list of one revision; ErratumError on a malformed entry."""
    if not isinstance(entries, list):
        raise ErratumError(f"errata file {origin} must hold a JSON list of errata")
    out: list[ErratumPatch] = []
    for index, entry in enumerate(entries):
        out.append(_parse_entry(revision, entry, f"{origin} entry {index}"))
    ids = [e.id for e in out]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ErratumError(f"errata file {origin} repeats erratum ids: {', '.join(duplicates)}")
    return tuple(out)


def _parse_entry(revision: str, entry: Any, where: str) -> ErratumPatch:
    if not isinstance(entry, dict):
        raise ErratumError(f"{where}: an erratum must be a JSON object")
    for key in ("id", "reason", "upstream"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ErratumError(f"{where}: {key!r} must be a non-empty string")
    patch = entry.get("patch")
    if not isinstance(patch, list) or not patch:
        raise ErratumError(f"{where} ({entry['id']}): 'patch' must be a non-empty list of JSON Patch operations")
    _check_guards(patch, f"{where} ({entry['id']})")
    return ErratumPatch(
        revision=revision,
        id=entry["id"],
        reason=entry["reason"],
        upstream=entry["upstream"],
        patch=tuple(patch),
    )


def _check_guards(patch: list[Any], where: str) -> None:
    previous: dict[str, Any] | None = None
    for op in patch:
        if not isinstance(op, dict) or op.get("op") not in _OPS or not isinstance(op.get("path"), str):
            raise ErratumError(f"{where}: unsupported operation {op!r} (allowed: {', '.join(sorted(_OPS))})")
        if op["op"] in _GUARDED and not (
            previous is not None and previous["op"] == "test" and previous["path"] == op["path"]
        ):
            raise ErratumError(f"{where}: {op['op']} {op['path']} must directly follow a test of the same path")
        previous = op


def applies_to(sha256: str, revision: str) -> bool:
    """True when `sha256` is the pinned hash of `revision`, the only bytes its errata were written for."""
    try:
        return get_pin(revision).sha256 == sha256
    except SourceError:
        return False


def apply_errata(
    schema: dict[str, Any], revision: str, *, sha256: str | None = None
) -> tuple[dict[str, Any], tuple[Erratum, ...]]:
    """A corrected copy of `schema` and the errata applied; none when `sha256` is given and is not the pin."""
    document = copy.deepcopy(schema)
    if sha256 is not None and not applies_to(sha256, revision):
        return document, ()
    errata = load_errata(revision)
    for erratum in errata:
        document = apply_one(document, erratum)
    return document, tuple(e.erratum for e in errata)


def apply_one(document: dict[str, Any], erratum: ErratumPatch) -> dict[str, Any]:
    """Apply one erratum's patch in place; ErratumError naming the erratum and path when it fails."""
    for op in erratum.patch:
        path = op["path"]
        if op["op"] in _CREATING and _exists(document, path):
            _stale(erratum, f"{path} already exists")
        try:
            jsonpatch.JsonPatch([op]).apply(document, in_place=True)
        except jsonpatch.JsonPatchTestFailed:
            _stale(erratum, f"test failed at {path}")
        except (jsonpatch.JsonPatchConflict, jsonpointer.JsonPointerException):
            missing = op.get("from", path) if op["op"] == "copy" else path
            _stale(erratum, f"{missing} not found")
    return document


def corrected_schema(source: SchemaSource) -> tuple[dict[str, Any], tuple[Erratum, ...]]:
    """Parse a resolved schema and apply its revision's errata when its bytes are the pinned ones
    (what generation, the harness and `mcpgen diff` all read)."""
    return apply_errata(load_json(source), source.revision, sha256=source.sha256)


def _exists(document: Any, path: str) -> bool:
    """True when `path` names an existing object member (adding into an array only inserts)."""
    try:
        parent, key = jsonpointer.JsonPointer(path).to_last(document)
    except jsonpointer.JsonPointerException:
        return False
    return isinstance(parent, dict) and key in parent


def _stale(erratum: ErratumPatch, detail: str) -> None:
    raise ErratumError(
        f"erratum {erratum.qualified_id} no longer applies ({detail}): "
        "upstream may have fixed it — retire the patch"
    )
