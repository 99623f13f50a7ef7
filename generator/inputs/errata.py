"""Known upstream schema defects, fixed as data: JSON Patches in `schema/errata/<revision>.json`.

Each file is a list of `{"id", "reason", "upstream", "patch"}` objects. A patch states where it applies:
every `replace`/`remove` directly follows a `test` of the same path, and an `add`/`copy` must create a
member that does not exist yet. An erratum applies, all or nothing, to any schema on which every one of
its operations holds, whatever the schema's revision name or bytes. Errata sharing an id are variants
of one fix for differently shaped schemas: at most one of them applies.

The errata of the revision a schema is read as are tried first, then those of every other known
revision, newest first. On the pinned bytes of their revision they must all apply (one that does not
is stale: upstream fixed the defect, retire the patch); on any other schema one that does not apply is
a warning, and errata of other revisions that do not apply are skipped silently.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

import jsonpatch
import jsonpointer

from ..errors import ErratumError
from ..model.ir import Erratum
from .pins import known_revisions
from .sources import SchemaSource, load_json, parse_json

if TYPE_CHECKING:
    from .extensions import ExtensionInput, ExtensionSource

_OPS = frozenset({"test", "add", "copy", "replace", "remove"})
_GUARDED = frozenset({"replace", "remove"})
_CREATING = frozenset({"add", "copy"})
_DEFINITIONS = ("$defs", "definitions")
_MISSING = object()


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
    def definitions(self) -> tuple[str, ...]:
        """The schema definitions the patch changes, in patch order."""
        names = []
        for op in self.patch:
            parts = jsonpointer.JsonPointer(op["path"]).parts
            if op["op"] != "test" and len(parts) > 1 and parts[0] in _DEFINITIONS:
                names.append(parts[1])
        return tuple(dict.fromkeys(names))

    @property
    def erratum(self) -> Erratum:
        """The provenance record the IR and the generated code carry."""
        return Erratum(id=self.id, reason=self.reason, upstream=self.upstream, definitions=self.definitions)


@dataclass(frozen=True)
class Corrected:
    """A schema with every erratum whose operations hold applied, and what its reader should know."""

    schema: dict[str, Any]
    applied: tuple[ErratumPatch, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def errata(self) -> tuple[Erratum, ...]:
        """The provenance records of the applied errata, in the order they were applied."""
        return tuple(e.erratum for e in self.applied)


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


def candidates(revision: str) -> tuple[ErratumPatch, ...]:
    """Every shipped erratum in the order they are tried on a schema read as `revision`: its own
    first, then those of the other known revisions, newest first."""
    others = [r for r in reversed(known_revisions()) if r != revision]
    return tuple(e for r in (revision, *others) for e in load_errata(r))


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


def apply_errata(schema: dict[str, Any], revision: str, *, pinned: bool = False) -> Corrected:
    """`schema` corrected (read as `revision`; `pinned`: its bytes are that revision's pin).

    `schema` itself is never modified: the corrected document shares every part no erratum writes
    into with it. ErratumError when `pinned` and one of the revision's own errata does not apply.
    """
    document = schema
    applied: list[ErratumPatch] = []
    missed: dict[str, tuple[ErratumPatch, str]] = {}
    for erratum in candidates(revision):
        if any(e.id == erratum.id for e in applied):
            continue
        document, failure = attempt(document, erratum)
        if failure is None:
            applied.append(erratum)
        elif erratum.revision == revision and (pinned or not _absent(document, erratum)):
            if pinned:
                raise _stale(erratum, failure)
            missed.setdefault(erratum.id, (erratum, failure))
    done = {e.id for e in applied}
    warnings = tuple(_not_applied(e, failure) for key, (e, failure) in missed.items() if key not in done)
    return Corrected(document, tuple(applied), warnings)


def attempt(document: dict[str, Any], erratum: ErratumPatch) -> tuple[dict[str, Any], str | None]:
    """`document` with `erratum` applied and None, or `document` unchanged and why the erratum does not apply.

    The corrected document shares with `document` every part the patch does not write into.
    """
    out = _detached(document, erratum.patch)
    for op in erratum.patch:
        path = op["path"]
        missing = _missing(out, op)
        if missing is not None:
            return document, f"test failed at {path}" if op["op"] == "test" else f"{missing} not found"
        if op["op"] in _CREATING and _exists(out, path):
            return document, f"{path} already exists"
        try:
            jsonpatch.JsonPatch([copy.deepcopy(op)]).apply(out, in_place=True)
        except jsonpatch.JsonPatchTestFailed:
            return document, f"test failed at {path}"
        except (jsonpatch.JsonPatchConflict, jsonpointer.JsonPointerException):  # e.g. an array index past the end
            return document, f"{path} not found"
    return out, None


def _absent(document: dict[str, Any], erratum: ErratumPatch) -> bool:
    """Whether `document` lacks everything `erratum` corrects: every place its tests read (a draft from
    before the definition or field existed has nothing to correct, so nothing to warn about; one that has
    part of it does, and hears why the rest does not apply)."""
    tests = [op for op in erratum.patch if op["op"] == "test"]
    return bool(tests) and all(
        _lookup(document, jsonpointer.JsonPointer(op["path"]).parts) is _MISSING for op in tests
    )


def corrected_schema(source: SchemaSource) -> Corrected:
    """Parse a resolved schema and apply every erratum whose operations hold on it (what generation,
    the harness and `mcpgen diff` all read)."""
    return apply_errata(load_json(source), source.revision, pinned=source.pinned)


def corrected_extension(source: ExtensionSource) -> ExtensionInput:
    """An extension schema read as generation and `mcpgen diff` read it: errata applied where they hold
    (its own, `ext-<name>`, then the core revisions', for the core definitions it copies), each recorded
    with where it comes from (`ext-apps/<id>`, `2026-07-28/<id>`), and the facts of its identifier."""
    from .extensions import ExtensionInput, facts_for

    fixed = apply_errata(parse_json(source.data, source.origin), f"ext-{source.name}", pinned=source.pinned)
    return ExtensionInput(
        name=source.name,
        identifier=source.identifier,
        schema=fixed.schema,
        sha256=source.sha256,
        pinned=source.pinned,
        errata=tuple(dataclasses.replace(patch.erratum, id=patch.qualified_id) for patch in fixed.applied),
        facts=facts_for(source.identifier),
        warnings=tuple(f"extension {source.name}: {w}" for w in fixed.warnings),
    )


def _detached(document: dict[str, Any], patch: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """A shallow copy of `document` in which every container a patch operation writes into is a copy too."""
    root = copy.copy(document)
    fresh = {id(root)}
    for op in patch:
        if op["op"] == "test":
            continue
        node: Any = root
        for token in jsonpointer.JsonPointer(op["path"]).parts[:-1]:
            key: Any = int(token) if isinstance(node, list) and token.isdigit() else token
            try:
                child = node[key]
            except (KeyError, IndexError, TypeError):
                break
            if not isinstance(child, (dict, list)):
                break
            if id(child) not in fresh:
                child = copy.copy(child)
                fresh.add(id(child))
                node[key] = child
            node = child
    return root


def _missing(document: Any, op: dict[str, Any]) -> str | None:
    """The path `op` names that `document` lacks (a copy's source, an add's parent, any other op's
    target), or None; checked here because jsonpointer's own failures print the whole document."""
    parts = jsonpointer.JsonPointer(op["path"]).parts
    if op["op"] == "copy" and _lookup(document, jsonpointer.JsonPointer(op["from"]).parts) is _MISSING:
        return str(op["from"])
    needed = parts[:-1] if op["op"] in _CREATING else parts
    return str(op["path"]) if _lookup(document, needed) is _MISSING else None


def _lookup(document: Any, tokens: list[str]) -> Any:
    """The value at `tokens` in `document`, or _MISSING."""
    node = document
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _exists(document: Any, path: str) -> bool:
    """True when `path` names an existing object member (adding into an array only inserts)."""
    *parents, key = jsonpointer.JsonPointer(path).parts
    parent = _lookup(document, parents)
    return isinstance(parent, dict) and key in parent


def _stale(erratum: ErratumPatch, detail: str) -> ErratumError:
    return ErratumError(
        f"erratum {erratum.qualified_id} no longer applies ({detail}): "
        "upstream may have fixed it — retire the patch"
    )


def _not_applied(erratum: ErratumPatch, detail: str) -> str:
    names = erratum.definitions
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (
        f"erratum {erratum.qualified_id} not applied ({detail}): the schema differs where it corrects "
        f"(upstream may have fixed it), so {shown or 'the schema'} {'stays' if len(names) < 2 else 'stay'} as written"
    )
