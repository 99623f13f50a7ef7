"""What an extension shaped like tasks adds to a generated stateless package: a tiny `io.example/jobs` extension
whose facts (as schema/extensions.json states them for tasks) let a server answer `tools/call` with its
`CreateJobResult` and have `jobs/get` carry its target in `Mcp-Name` (`jobId`). Generated twice, with the
extension and without: only the first names the extension in its revision (`extensions=` in revisions.py),
mirrors `jobs/get`'s `jobId` in the HTTP headers, and widens `on_call_tool`'s return type."""

from __future__ import annotations

import copy
import hashlib
import importlib
import typing
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import pytest

from mcpgen.errors import SchemaError
from mcpgen.inputs import extensions as known

from .packages import generate_extended, generate_package, schema_bytes
from .schemas import Schema, const, envelope, extension_schema, obj, request, result
from .test_stateless import STRING, stateless_schema

JOBS = "io.example/jobs"
EXTENSIONS = {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {}}}
FACTS = {
    "methods": {"jobs/get": {"kind": "request", "senders": ["client"]}},
    "results": {"tools/call": ["CreateJobResult"]},
    "name_headers": {"jobs/get": "jobId"},
}


def base() -> Schema:
    """The stateless schema whose capabilities carry extensions (SEP-2133)."""
    schema = stateless_schema()
    for holder in ("ServerCapabilities", "ClientCapabilities"):
        schema["$defs"][holder]["properties"]["extensions"] = copy.deepcopy(EXTENSIONS)
    return schema


def jobs_schema() -> Schema:
    """A job a tool call may start, and `jobs/get` reading it by id."""
    return extension_schema(
        JOBS,
        {
            "CreateJobResult": result({"resultType": const("job"), "jobId": STRING}, ["resultType", "jobId"]),
            "GetJobRequest": request("jobs/get", obj({"jobId": STRING}, ["jobId"]), params_required=True),
            "GetJobResult": result({"state": STRING}, ["state"]),
            "ClientRequest": {"anyOf": [{"$ref": "#/$defs/GetJobRequest"}]},
            "RequestId": envelope()["RequestId"],  # the copy its request refers to, as an extension carries it
        },
    )


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, ModuleType, Path, Path]]:
    """The package with the jobs extension (pinned with `FACTS`), the one without, and their directories."""
    schema = jobs_schema()
    entry = {"identifier": JOBS, "upstream": "tests", "url": "https://example.invalid/jobs.json", **FACTS}
    pin = known.ExtensionPin(
        name="jobs", identifier=JOBS, upstream="tests", url=entry["url"],
        sha256=hashlib.sha256(schema_bytes(schema)).hexdigest(), facts=known.facts_of(entry),
    )
    with_dir, plain_dir = tmp_path_factory.mktemp("jobs_on"), tmp_path_factory.mktemp("jobs_off")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(known, "_pins", lambda: (pin,))
        extended, _ = generate_extended(with_dir, base(), "fn_task_ext", (schema,))
    plain = generate_package(plain_dir, base(), "fn_task_plain")
    yield extended, plain, with_dir / "fn_task_ext", plain_dir / "fn_task_plain"


def test_only_the_extended_package_names_the_extension_in_its_revision(packages: Any) -> None:
    extended, plain, extended_dir, plain_dir = packages
    assert "extensions=EXTENSIONS" in (extended_dir / "revisions.py").read_text("utf-8")
    assert "extensions=" not in (plain_dir / "revisions.py").read_text("utf-8")
    (entry,) = extended.revisions.SURFACE.extensions
    assert entry.identifier == JOBS and entry.results == ("tools/call",)
    assert plain.revisions.SURFACE.extensions == ()


def test_the_extensions_request_carries_its_target_in_mcp_name(packages: Any) -> None:
    extended, plain, _, _ = packages
    common = importlib.import_module(f"{extended.__name__}.runtime.http.common")
    plain_common = importlib.import_module(f"{plain.__name__}.runtime.http.common")
    assert common.eras(extended.revisions.REVISIONS).name_headers.get("jobs/get") == "jobId"
    assert "jobs/get" not in plain_common.eras(plain.revisions.REVISIONS).name_headers


def test_on_call_tool_may_return_the_extensions_result_only_with_the_extension(packages: Any) -> None:
    extended, plain, _, _ = packages
    jobs = importlib.import_module(f"{extended.__name__}.ext.jobs")
    hints = typing.get_type_hints(extended.Server.on_call_tool, localns={"jobs_types": jobs.types})  # imported for type checkers
    widened = typing.get_args(hints["return"])
    narrow = typing.get_args(typing.get_type_hints(plain.Server.on_call_tool)["return"])
    assert jobs.types.CreateJobResult in widened
    assert {t.__name__ for t in widened} - {t.__name__ for t in narrow} == {"CreateJobResult"}


def test_an_extension_s_reference_to_anything_outside_its_schema_is_refused(tmp_path: Path) -> None:
    """As a revision's: no file or URL is read, and the extension is not generated with an `Any` there."""
    schema = jobs_schema()
    schema["$defs"]["GetJobResult"]["properties"]["state"] = {"$ref": "https://example.invalid/state.json"}
    with pytest.raises(SchemaError, match="'https://example.invalid/state.json' is not local"):
        generate_extended(tmp_path, base(), "fn_task_remote", (schema,))
