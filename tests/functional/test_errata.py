"""Errata: JSON patches applied wherever their operations hold, all or nothing, and recorded in the package."""

from __future__ import annotations

import copy
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonpatch
import pytest

from mcpgen.commands.generate import GenerateConfig, generate
from mcpgen.errors import ErratumError
from shared import load_package

from .oracle import assert_agrees, text
from .packages import REVISION, generate_package, headers, pinned, schema_bytes, shipped
from .schemas import Schema, draft07, mcp_schema, obj, ref, request, result

OTHER = "2025-06-18"
"""A known revision whose errata a test ships: tried on every schema after the named revision's own."""

WIDEN: dict[str, Any] = {
    "id": "widen-value",
    "reason": "value is any number, not only an integer",
    "upstream": "https://example.invalid/issues/1",
    "patch": [
        {"op": "test", "path": "/$defs/Measure/properties/value/type", "value": "integer"},
        {"op": "replace", "path": "/$defs/Measure/properties/value/type", "value": "number"},
    ],
}
DECLARE: dict[str, Any] = {
    "id": "declare-unit",
    "reason": "unit is sent but not declared",
    "upstream": "not yet reported",
    "patch": [{"op": "add", "path": "/$defs/Measure/properties/unit", "value": {"type": "string"}}],
}
ENTRIES: list[dict[str, Any]] = [WIDEN, DECLARE]


def errata_schema(value: str = "integer") -> Schema:
    """A schema with the defects ENTRIES correct (`value`: the type upstream gives Measure.value)."""
    return mcp_schema(
        {
            "Measure": obj({"value": {"type": value}}, ["value"]),
            "MeasureRequest": request("measure"),
            "MeasureResult": result({"measure": ref("Measure")}, ["measure"]),
        },
        client_requests=["MeasureRequest"],
    )


def draft_of(schema: Schema) -> Schema:
    """Other bytes than the pinned ones, the same where the errata look."""
    out = copy.deepcopy(schema)
    out["$defs"]["MeasureResult"]["description"] = "a draft: not the pinned bytes"
    return out


def corrected(schema: Schema, entries: list[dict[str, Any]]) -> Schema:
    """The oracle's copy of `schema` with every patch of `entries` applied by jsonpatch itself."""
    out = copy.deepcopy(schema)
    for entry in entries:
        out = jsonpatch.apply_patch(out, entry["patch"])
    return out


def generate_draft(directory: Path, schema: Schema, alias: str) -> tuple[ModuleType, tuple[str, ...]]:
    """Generate `schema` (not pinned) as REVISION; its package and the warnings generation gave."""
    schema_file = directory / "schema.json"
    schema_file.write_bytes(schema_bytes(schema))
    config = GenerateConfig(schema_file=schema_file, revision=REVISION, output=directory / alias, package=alias)
    (made,) = generate(config)
    return load_package(directory / alias, alias), made.warnings


def accepts(pkg: ModuleType, instance: dict[str, Any]) -> bool:
    """True when the package's Measure accepts `instance`."""
    try:
        pkg.types.Measure.model_validate(instance)
    except ValueError:
        return False
    return True


# --- the pinned bytes ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The package of the pinned schema, with ENTRIES applied."""
    with pinned(errata_schema(), ENTRIES):
        return generate_package(tmp_path_factory.mktemp("errata"), errata_schema(), "fn_errata")


@pytest.mark.parametrize(
    "instance",
    [{"value": 2.5, "unit": "m"}, {"value": 2}, {"value": 2, "unit": 3}, {"value": [2]}],
    ids=text,
)
def test_the_errata_change_what_the_package_accepts(
    pkg: ModuleType, instance: dict[str, Any]
) -> None:
    assert_agrees(pkg.types, corrected(errata_schema(), ENTRIES), "Measure", instance)


def test_a_field_an_erratum_adds_is_declared(pkg: ModuleType) -> None:
    measure = pkg.types.Measure.model_validate({"value": 1, "unit": "m"})
    assert (measure.unit, measure.model_extra) == ("m", {})


def test_the_applied_errata_are_recorded_in_the_package_and_every_header(pkg: ModuleType) -> None:
    assert pkg.ERRATA == ("widen-value", "declare-unit")
    files = headers(pkg)
    assert files and all("# Errata applied: widen-value, declare-unit\n" in header for header in files)


def test_an_erratum_that_no_longer_applies_to_the_pinned_bytes_fails_generation(tmp_path: Path) -> None:
    stale = copy.deepcopy(ENTRIES)
    stale[0]["patch"][0]["value"] = "string"
    with (
        pinned(errata_schema(), stale),
        pytest.raises(ErratumError, match=f"{REVISION}/widen-value no longer applies"),
    ):
        generate_package(tmp_path, errata_schema(), "fn_never_written")
    assert not (tmp_path / "fn_never_written").exists()


def test_the_pinned_bytes_also_get_another_revisions_erratum_whose_tests_hold(tmp_path: Path) -> None:
    with pinned(errata_schema(), [DECLARE]), shipped({REVISION: [DECLARE], OTHER: [WIDEN]}):
        both = generate_package(tmp_path, errata_schema(), "fn_errata_pinned_other")
    assert both.ERRATA == ("declare-unit", "widen-value")
    assert accepts(both, {"value": 2.5, "unit": "m"})


# --- any other schema: drafts, --schema files under any revision name ----------------------------


def test_other_bytes_get_the_errata_whose_tests_hold_on_them(tmp_path: Path) -> None:
    with shipped({REVISION: ENTRIES}):
        draft, warnings = generate_draft(tmp_path, draft_of(errata_schema()), "fn_errata_draft")
    assert (draft.ERRATA, warnings) == (("widen-value", "declare-unit"), ())
    assert all("# Errata applied: widen-value, declare-unit\n" in header for header in headers(draft))
    assert accepts(draft, {"value": 2.5, "unit": "m"}) and not accepts(draft, {"value": 2, "unit": 3})


def test_an_erratum_of_the_named_revision_whose_test_fails_is_a_warning(tmp_path: Path) -> None:
    fixed_upstream = draft_of(errata_schema(value="boolean"))
    with shipped({REVISION: ENTRIES}):
        draft, warnings = generate_draft(tmp_path, fixed_upstream, "fn_errata_warned")
    assert draft.ERRATA == ("declare-unit",)
    assert all("# Errata applied: declare-unit\n" in header for header in headers(draft))
    (warning,) = warnings
    assert warning.startswith(f"revision {REVISION}: erratum {REVISION}/widen-value not applied ")
    assert "(test failed at /$defs/Measure/properties/value/type)" in warning and "Measure stays as written" in warning
    assert_agrees(draft.types, corrected(fixed_upstream, [DECLARE]), "Measure", {"value": True, "unit": "m"})
    assert not accepts(draft, {"value": 2.5})


@pytest.mark.parametrize("count", [None, {"type": "string"}], ids=["count-missing", "count-a-string"])
def test_an_erratum_applies_all_or_nothing(tmp_path: Path, count: dict[str, Any] | None) -> None:
    both = {
        "id": "widen-both",
        "reason": "value and count are any numbers",
        "upstream": "not yet reported",
        "patch": [
            *WIDEN["patch"],
            {"op": "test", "path": "/$defs/Measure/properties/count/type", "value": "integer"},
            {"op": "replace", "path": "/$defs/Measure/properties/count/type", "value": "number"},
        ],
    }
    schema = draft_of(errata_schema())
    if count is not None:
        schema["$defs"]["Measure"]["properties"]["count"] = count
    with shipped({REVISION: [both]}):
        draft, warnings = generate_draft(tmp_path, schema, f"fn_errata_atomic_{'string' if count else 'missing'}")
    assert draft.ERRATA == ()
    assert len(warnings) == 1 and "widen-both not applied (test failed at /$defs/Measure/properties/count/type)" in warnings[0]
    assert not accepts(draft, {"value": 2.5})  # its first, holding test did not widen value alone


def test_errata_of_other_revisions_apply_where_they_hold_and_are_skipped_silently_elsewhere(tmp_path: Path) -> None:
    elsewhere = {**DECLARE, "id": "declare-elsewhere", "patch": [
        {"op": "test", "path": "/$defs/Gauge/type", "value": "object"},
        {"op": "add", "path": "/$defs/Gauge/properties/unit", "value": {"type": "string"}},
    ]}
    with shipped({OTHER: [WIDEN], "2024-11-05": [elsewhere]}):
        draft, warnings = generate_draft(tmp_path, draft_of(errata_schema()), "fn_errata_others")
    assert (draft.ERRATA, warnings) == (("widen-value",), ())
    assert accepts(draft, {"value": 2.5})


def test_variants_of_one_erratum_apply_once_and_a_variant_that_holds_silences_the_named_ones(tmp_path: Path) -> None:
    draft07_variant = {**WIDEN, "patch": [
        {**op, "path": op["path"].replace("/$defs/", "/definitions/")} for op in WIDEN["patch"]
    ]}
    with shipped({REVISION: [WIDEN], OTHER: [draft07_variant], "2024-11-05": [WIDEN]}):
        draft, warnings = generate_draft(tmp_path, draft07(draft_of(errata_schema())), "fn_errata_variant")
    assert (draft.ERRATA, warnings) == (("widen-value",), ())
    assert accepts(draft, {"value": 2.5})


def test_only_the_first_variant_that_holds_applies(tmp_path: Path) -> None:
    other_variant = {**DECLARE, "id": WIDEN["id"]}  # holds too, but the fix is in once the named variant applied
    with shipped({REVISION: [WIDEN], OTHER: [other_variant]}):
        draft, warnings = generate_draft(tmp_path, draft_of(errata_schema()), "fn_errata_first_variant")
    assert (draft.ERRATA, warnings) == (("widen-value",), ())
    assert accepts(draft, {"value": 2.5}) and accepts(draft, {"value": 2, "unit": 3})  # unit left undeclared
