"""`mcpgen diff` reads both sides alike: errata applied wherever their tests hold, and an erratum
that applies to one side only reported apart from the upstream changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import jsonpointer
import pytest
from click.testing import CliRunner

from diff_worlds import Schema, accepts, obj, world
from mcpgen.commands.diff import diff_revisions, load_revision
from mcpgen.commands.diff.command import diff_command
from mcpgen.commands.diff.model import Report
from mcpgen.inputs import errata

WIDEN: dict[str, Any] = {
    "id": "widen-value",
    "reason": "value is any number, not only an integer",
    "upstream": "https://example.invalid/issues/1",
    "patch": [
        {"op": "test", "path": "/$defs/CallResult/properties/value/type", "value": "integer"},
        {"op": "replace", "path": "/$defs/CallResult/properties/value/type", "value": "number"},
    ],
}


@pytest.fixture()
def shipped(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """WIDEN shipped as an erratum of a known revision: tried on every schema a diff reads."""
    monkeypatch.setattr(
        errata, "load_errata", lambda revision: errata.parse_errata(revision, [WIDEN] if revision == "2025-06-18" else [], "test")
    )
    yield


def measured(value: dict[str, Any], **more: Any) -> Schema:
    """The diff world whose CallResult carries `value` (upstream's defect when it is an integer)."""
    return world(call_result=obj({"value": value, **more}, ("value",)))


def _write(tmp_path: Path, name: str, schema: Schema) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(schema), "utf-8")
    return str(path)


def _diff(tmp_path: Path, old: Schema, new: Schema) -> Report:
    return diff_revisions(load_revision(_write(tmp_path, "old", old)), load_revision(_write(tmp_path, "new", new)))


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(diff_command, list(args))
    assert isinstance(result.exception, SystemExit) or result.exception is None, result.exception
    return result.exit_code, result.stdout


# --- tiny schemas -------------------------------------------------------------------------------


def test_an_erratum_that_holds_on_both_sides_is_no_change(tmp_path: Path, shipped: None) -> None:
    old, new = measured({"type": "integer"}), measured({"type": "integer"}, note={"type": "string"})
    report = _diff(tmp_path, old, new)
    assert [(c.kind, c.subject) for c in report.changes] == [("field.added.optional", "CallResult.note")]
    assert report.old.errata == report.new.errata == ("widen-value",)
    assert report.errata == ()


def test_an_erratum_upstream_fixed_on_one_side_is_reported_apart(tmp_path: Path, shipped: None) -> None:
    old, new = measured({"type": "integer"}), measured({"type": "number"})
    assert not accepts(old, "CallResult", {"value": 2.5}) and accepts(new, "CallResult", {"value": 2.5})
    report = _diff(tmp_path, old, new)
    assert report.changes == ()  # upstream's widening is what the erratum already did to OLD
    (note,) = report.errata
    assert (note.id, note.applied_to, note.definitions) == ("widen-value", "old", ("CallResult",))
    assert note.revision == report.old.revision and note.reason == WIDEN["reason"]
    assert (report.old.errata, report.new.errata) == (("widen-value",), ())


def test_an_erratum_upstream_fixed_differently_leaves_the_change_next_to_its_note(tmp_path: Path, shipped: None) -> None:
    old, new = measured({"type": "integer"}), measured({"type": "string"})
    report = _diff(tmp_path, old, new)
    (change,) = report.changes
    assert (change.kind, change.subject, change.old) == ("type.changed", "CallResult.value", {"type": "number"})
    assert [(e.id, e.applied_to) for e in report.errata] == [("widen-value", "old")]


def test_every_format_shows_one_sided_errata_apart_from_the_changes(tmp_path: Path, shipped: None) -> None:
    old = _write(tmp_path, "old", measured({"type": "integer"}))
    new = _write(tmp_path, "new", measured({"type": "number"}, note={"type": "string"}))
    code, text = _run(old, new, "--fail-on", "breaking")
    assert code == 0 and "1 changes, 0 breaking" in text
    section = text.split("Errata on one side only\n", 1)[1].splitlines()
    assert section[0].startswith("  mcpgen's corrections of upstream defects, not upstream changes")
    assert section[1] == f"  ~ widen-value: applied to OLD ({old}) only, at CallResult"
    _, markdown = _run(old, new, "--format", "markdown")
    assert markdown.rstrip().endswith(f"- `widen-value`: applied to OLD ({old}) only, at `CallResult`")
    assert "\n## Errata on one side only\n" in markdown
    _, raw = _run(old, new, "--format", "json")
    data = json.loads(raw)
    assert data["errata"] == [{"id": "widen-value", "applied_to": "old", "revision": old, "definitions": ["CallResult"],
                               "reason": WIDEN["reason"]}]
    assert data["summary"]["changes"] == 1 and [c["subject"] for c in data["changes"]] == ["CallResult.note"]


def test_no_errata_section_when_both_sides_agree(tmp_path: Path, shipped: None) -> None:
    old = _write(tmp_path, "old", measured({"type": "integer"}))
    new = _write(tmp_path, "new", measured({"type": "integer"}, note={"type": "string"}))
    _, text = _run(old, new)
    _, markdown = _run(old, new, "--format", "markdown")
    assert "Errata" not in text and "Errata" not in markdown
    assert json.loads(_run(old, new, "--format", "json")[1])["errata"] == []


# --- drafts derived from the pinned 2026-07-28 schema ---------------------------------------------


def _draft(tmp_path: Path, schema_dir: Path, edits: dict[str, Any]) -> str:
    """The pinned 2026-07-28 schema with upstream-like edits (JSON pointer -> new value), as a file."""
    schema = json.loads((schema_dir / "2026-07-28" / "schema.json").read_text("utf-8"))
    for pointer, value in edits.items():
        jsonpointer.set_pointer(schema, pointer, value)
    folder = tmp_path / "2026-07-28"
    folder.mkdir()
    (folder / "schema.json").write_text(json.dumps(schema), "utf-8")
    return str(folder / "schema.json")


def test_a_draft_with_the_same_defects_reports_only_upstream_changes(tmp_path: Path, schema_dir: Path) -> None:
    required = json.loads((schema_dir / "2026-07-28" / "schema.json").read_text("utf-8"))["$defs"]["DiscoverResult"]["required"]
    draft = _draft(tmp_path, schema_dir, {"/$defs/DiscoverResult/required": [r for r in required if r != "resultType"]})
    code, raw = _run("2026-07-28", draft, "--schema-dir", str(schema_dir), "--format", "json")
    data = json.loads(raw)
    assert code == 0 and data["errata"] == []
    assert data["old"]["errata"] == data["new"]["errata"] == [
        "elicit-result-number", "json-value-number-null", "input-required-result-type", "complete-result-type"
    ]
    assert [(c["kind"], c["subject"]) for c in data["changes"]] == [("field.now_optional", "DiscoverResult.resultType")]


def test_a_draft_that_fixed_a_defect_upstream_is_no_change_and_names_the_erratum(tmp_path: Path, schema_dir: Path) -> None:
    fixed = ["string", "number", "boolean", "null"]
    draft = _draft(tmp_path, schema_dir, {"/$defs/JSONValue/anyOf/2/type": fixed})
    code, raw = _run("2026-07-28", draft, "--schema-dir", str(schema_dir), "--format", "json")
    data = json.loads(raw)
    assert code == 0 and data["changes"] == []
    assert [(e["id"], e["applied_to"], e["definitions"]) for e in data["errata"]] == [
        ("json-value-number-null", "old", ["JSONValue"])
    ]
    assert "json-value-number-null" not in data["new"]["errata"]
