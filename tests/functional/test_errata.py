"""Errata: JSON patches applied to the pinned bytes of a revision and recorded in the generated package."""

from __future__ import annotations

import copy
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonpatch
import pytest

from mcpgen.errors import ErratumError

from .oracle import assert_agrees, text
from .packages import REVISION, generate_package, headers, pinned
from .schemas import Schema, mcp_schema, obj, ref, request, result

ENTRIES: list[dict[str, Any]] = [
    {
        "id": "widen-value",
        "reason": "value is any number, not only an integer",
        "upstream": "https://example.invalid/issues/1",
        "patch": [
            {"op": "test", "path": "/$defs/Measure/properties/value/type", "value": "integer"},
            {"op": "replace", "path": "/$defs/Measure/properties/value/type", "value": "number"},
        ],
    },
    {
        "id": "declare-unit",
        "reason": "unit is sent but not declared",
        "upstream": "not yet reported",
        "patch": [
            {"op": "add", "path": "/$defs/Measure/properties/unit", "value": {"type": "string"}}
        ],
    },
]


def errata_schema() -> Schema:
    """A schema with the defects ENTRIES correct."""
    return mcp_schema(
        {
            "Measure": obj({"value": {"type": "integer"}}, ["value"]),
            "MeasureRequest": request("measure"),
            "MeasureResult": result({"measure": ref("Measure")}, ["measure"]),
        },
        client_requests=["MeasureRequest"],
    )


def corrected(schema: Schema) -> Schema:
    """The oracle's copy of `schema` with every patch of ENTRIES applied by jsonpatch itself."""
    out = copy.deepcopy(schema)
    for entry in ENTRIES:
        out = jsonpatch.apply_patch(out, entry["patch"])
    return out


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
    assert_agrees(pkg.types, corrected(errata_schema()), "Measure", instance)


def test_a_field_an_erratum_adds_is_declared(pkg: ModuleType) -> None:
    measure = pkg.types.Measure.model_validate({"value": 1, "unit": "m"})
    assert (measure.unit, measure.model_extra) == ("m", {})


def test_the_applied_errata_are_recorded_in_the_package_and_every_header(pkg: ModuleType) -> None:
    assert pkg.ERRATA == ("widen-value", "declare-unit")
    files = headers(pkg)
    assert files and all("# Errata applied: widen-value, declare-unit\n" in header for header in files)


def test_other_bytes_of_the_revision_get_no_errata(tmp_path: Path) -> None:
    schema = errata_schema()
    schema["$defs"]["Measure"]["description"] = "not the pinned bytes"
    with pinned(errata_schema(), ENTRIES):
        unpinned = generate_package(tmp_path, schema, "fn_errata_unpinned")
    assert unpinned.ERRATA == ()
    assert all("# Errata applied: none\n" in header for header in headers(unpinned))
    with pytest.raises(ValueError):
        unpinned.types.Measure.model_validate({"value": 2.5})


def test_an_erratum_that_no_longer_applies_fails_generation(tmp_path: Path) -> None:
    stale = copy.deepcopy(ENTRIES)
    stale[0]["patch"][0]["value"] = "string"
    with (
        pinned(errata_schema(), stale),
        pytest.raises(ErratumError, match=f"{REVISION}/widen-value no longer applies"),
    ):
        generate_package(tmp_path, errata_schema(), "fn_never_written")
    assert not (tmp_path / "fn_never_written").exists()
