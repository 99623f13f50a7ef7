"""Extensions (SEP-2133): a tiny extension schema over the tiny session schema, generated into the package.

The extension `io.example/jobs` copies three core definitions (two as the core has them, one changed),
adds its own types, methods (its own role unions say who sends them), a capability-settings object and
a method whose sender nothing states. The oracle is jsonschema on the extension schema and on the base
schema, never the generated module.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pytest

from mcpgen.commands.generate import GeneratedPackage, GenerateConfig, generate
from mcpgen.errors import SchemaError

from .oracle import accepts, assert_agrees
from .packages import Wire, generate_extended, run
from .schemas import Schema, const, extension_schema, notification, obj, ref, request, result
from .session import STRING, session_schema

INTEGER = {"type": "integer"}
JOBS = "io.example/jobs"
EXTENSIONS = {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {}}}


def base_schema() -> Schema:
    """The session schema whose capabilities carry extensions (SEP-2133)."""
    schema = session_schema(batching=False)
    for holder in ("ServerCapabilities", "ClientCapabilities"):
        schema["$defs"][holder]["properties"]["extensions"] = copy.deepcopy(EXTENSIONS)
    return schema


def jobs_schema() -> Schema:
    """The jobs extension: copies of `Tool` (its description reworded), `RequestId` and `CallToolResult` as the
    core has them (the last refers to `TextContent`), a `TextContent` that gained `annotations`, and its own
    jobs, methods and settings."""
    core = base_schema()["$defs"]
    return extension_schema(
        JOBS,
        {
            "Tool": {**copy.deepcopy(core["Tool"]), "description": "A tool, as the jobs extension describes it."},
            "RequestId": copy.deepcopy(core["RequestId"]),
            "CallToolResult": copy.deepcopy(core["CallToolResult"]),
            "TextContent": obj(
                {
                    "type": const("text"),
                    "text": STRING,
                    "annotations": obj({"priority": {"type": "number"}}, additionalProperties=False),
                },
                ["type", "text"],
            ),
            "JobState": {"enum": ["queued", "running", "done"], "type": "string"},
            "Job": obj(
                {
                    "jobId": STRING,
                    "state": ref("JobState"),
                    "tool": ref("Tool"),
                    "log": {"type": "array", "items": ref("TextContent")},
                    "events": {"type": "array", "items": ref("JobEvent")},
                },
                ["jobId", "state"],
            ),
            "JobStarted": obj({"kind": const("started"), "at": STRING}, ["kind", "at"]),
            "JobStep": obj({"kind": {"enum": ["step", "started"], "type": "string"}, "step": INTEGER}, ["kind", "step"]),
            "JobEvent": {"anyOf": [ref("JobStarted"), ref("JobStep")]},
            "GetJobRequest": request("jobs/get", obj({"jobId": STRING}, ["jobId"]), params_required=True),
            "GetJobResult": result({"job": ref("Job")}, ["job"]),
            "JobUpdatedNotification": notification("notifications/jobs", ref("Job"), params_required=True),
            "ListToolsNotification": notification("notifications/jobs/tools"),
            "PingJobRequest": request("jobs/ping"),
            "PingJobResult": result(),
            "JobsExtensionCapability": obj(  # as ext-tasks writes its settings: closed, with trivial propertyNames
                {"maxJobs": {"type": "integer", "minimum": 1}, "legacy": {"not": {}}},
                additionalProperties={"not": {}},
                propertyNames={"type": "string"},
            ),
            "JobsAcknowledgement": {  # ext-tasks' TasksExtensionCapability: an object that allows no key
                "type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"not": {}},
            },
            "ClientRequest": {"anyOf": [ref("GetJobRequest")]},
            "ServerNotification": {"anyOf": [ref("JobUpdatedNotification"), ref("ListToolsNotification")]},
        },
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, GeneratedPackage]:
    """The package of the base schema with the jobs extension, and what generating it reported."""
    return generate_extended(tmp_path_factory.mktemp("jobs"), base_schema(), "fn_jobs", (jobs_schema(),))


@pytest.fixture(scope="module")
def pkg(made: tuple[ModuleType, GeneratedPackage]) -> ModuleType:
    return made[0]


@pytest.fixture(scope="module")
def jobs(pkg: ModuleType) -> ModuleType:
    """The extension's subpackage."""
    import importlib

    return importlib.import_module(f"{pkg.__name__}.ext.jobs")


def test_copies_with_the_core_shape_are_the_core_classes(pkg: ModuleType, jobs: ModuleType) -> None:
    assert not hasattr(jobs.types, "Tool") and not hasattr(jobs.types, "RequestId")
    job = jobs.types.Job.model_validate({"jobId": "j", "state": "queued", "tool": {"name": "t"}})
    assert type(job.tool) is pkg.types.Tool
    request = jobs.methods.parse_message({"jsonrpc": "2.0", "id": "r1", "method": "jobs/get", "params": {"jobId": "j"}})
    assert request.id == "r1"  # the id is the core's RequestId
    for instance in ({"name": "t"}, {"name": 3}, {}, {"name": "t", "x": 1}):
        assert_agrees(pkg.types, jobs_schema(), "Tool", instance)


def test_a_copy_that_differs_is_reported_once_and_never_replaces_the_core_type(
    made: tuple[ModuleType, GeneratedPackage], pkg: ModuleType, jobs: ModuleType
) -> None:
    _, report = made
    lines = [w for w in report.warnings if "TextContent" in w]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "extension jobs: its copy of TextContent differs from 2099-01-01's" in lines[0]
    assert "/properties/annotations only in the extension's" in lines[0]
    assert not [w for w in report.warnings if "Tool " in w or "RequestId" in w]
    # A copy the same as the core's that refers to the one that differs is the extension's too, said once.
    (through,) = [w for w in report.warnings if "CallToolResult" in w]
    assert through == (
        "extension jobs: its copies of CallToolResult refer to copies that differ from 2099-01-01's, "
        "so the extension keeps its own of them too"
    )
    assert jobs.types.CallToolResult is not pkg.types.CallToolResult
    with pytest.raises(pydantic.ValidationError):
        jobs.types.CallToolResult.model_validate({"content": [{"type": "text", "text": "x", "annotations": 1}]})
    annotated = {"type": "text", "text": "x", "annotations": {"priority": "high"}}
    # The core keeps its own TextContent (open, no `annotations`); the extension's Job.log uses the extension's.
    assert accepts(base_schema(), "TextContent", annotated) and not accepts(jobs_schema(), "TextContent", annotated)
    pkg.types.TextContent.model_validate(annotated)
    with pytest.raises(pydantic.ValidationError):
        jobs.types.Job.model_validate({"jobId": "j", "state": "done", "log": [annotated]})
    for instance in (annotated, {"type": "text", "text": "x", "annotations": {"priority": 0.5}}, {"type": "text"}):
        assert_agrees(jobs.types, jobs_schema(), "TextContent", instance)
        assert_agrees(pkg.types, base_schema(), "TextContent", instance)


@pytest.mark.parametrize(
    "instance",
    [
        {"jobId": "j", "state": "running"},
        {"jobId": "j", "state": "paused"},
        {"jobId": "j"},
        {"jobId": "j", "state": "done", "log": [{"type": "text", "text": "ok"}], "extra": [1, 2.5]},
        {"jobId": "j", "state": "done", "tool": {"name": 1}},
        {"jobId": "j", "state": "done", "events": [{"kind": "started", "at": "t"}, {"kind": "started", "step": 1}]},
        {"jobId": "j", "state": "done", "events": [{"kind": "step", "at": "t"}]},
        {"jobId": "j", "state": "done", "events": [{"kind": "stop"}]},
    ],
)
def test_the_extension_types_accept_what_its_schema_accepts(jobs: ModuleType, instance: Any) -> None:
    assert_agrees(jobs.types, jobs_schema(), "Job", instance)


def test_an_extension_union_whose_tags_overlap_dispatches_on_its_tag(jobs: ModuleType) -> None:
    events = pydantic.TypeAdapter(jobs.types.JobEvent)
    picked = [events.validate_python(e) for e in ({"kind": "started", "at": "t"}, {"kind": "started", "step": 1})]
    assert [type(e).__name__ for e in picked] == ["JobStarted", "JobStep"]
    with pytest.raises(pydantic.ValidationError) as caught:
        events.validate_python({"kind": "step"})
    assert [e["loc"] for e in caught.value.errors()] == [("step", "step")]


@pytest.mark.parametrize("instance", [{}, {"maxJobs": 2}, {"maxJobs": 0}, {"maxJobs": 2, "other": 1}, {"legacy": True}])
@pytest.mark.parametrize("definition", ["JobsExtensionCapability", "JobsAcknowledgement"])
def test_a_schema_that_allows_nothing_reads_as_a_closed_object(jobs: ModuleType, definition: str, instance: Any) -> None:
    assert_agrees(jobs.types, jobs_schema(), definition, instance)


def test_an_object_that_allows_no_key_is_a_model_a_side_can_declare(jobs: ModuleType) -> None:
    """Settings with nothing in them yet (ext-tasks': `{}`, nothing else) are still a model to construct."""
    acknowledgement = jobs.types.JobsAcknowledgement()
    assert acknowledgement.model_dump(by_alias=True) == {}


def test_the_extension_methods_carry_their_senders(
    made: tuple[ModuleType, GeneratedPackage], jobs: ModuleType
) -> None:
    table = {name: (m.kind, sorted(m.senders), m.python_name) for name, m in jobs.methods.METHODS.items()}
    assert table == {
        "jobs/get": ("request", ["client"], "get_job"),
        "notifications/jobs": ("notification", ["server"], "job_updated"),
        "notifications/jobs/tools": ("notification", ["server"], "list_tools_"),
        "jobs/ping": ("request", [], "ping_job"),
    }
    assert jobs.methods.METHODS["jobs/get"].result is jobs.types.GetJobResult
    result = jobs.methods.parse_result("jobs/get", {"job": {"jobId": "j", "state": "done"}})
    assert type(result) is jobs.types.GetJobResult and result.job.state == "done"
    (line,) = [w for w in made[1].warnings if "jobs/ping" in w]
    assert "nothing says who sends jobs/ping" in line and "no handler or call" in line


def test_handlers_and_calls_join_the_server_and_client_after_the_core_names(pkg: ModuleType) -> None:
    assert pkg.Server.handlers["jobs/get"] == "on_get_job"
    assert pkg.Client.handlers["notifications/jobs"] == "on_job_updated"
    assert pkg.Client.handlers["notifications/jobs/tools"] == "on_list_tools_"  # `list_tools` is the core's
    assert callable(pkg.Client.get_job) and callable(pkg.Server.notify_job_updated)
    assert callable(pkg.Client.list_tools) and callable(pkg.Server.notify_list_tools_)
    assert "jobs/ping" not in pkg.Server.handlers and not hasattr(pkg.Client, "ping_job")
    assert [e.identifier for e in pkg.Server.extensions] == [JOBS] == [e.identifier for e in pkg.Client.extensions]
    (entry,) = pkg.Server.extensions
    assert entry.module == f"{pkg.__name__}.ext.jobs"
    assert set(entry.methods) == {"jobs/get", "notifications/jobs", "notifications/jobs/tools", "jobs/ping"}


def test_overriding_an_extension_handler_advertises_the_extension(pkg: ModuleType) -> None:
    async def on_get_job(self: Any, params: Any) -> Any:
        raise NotImplementedError

    server = type("Jobs", (pkg.Server,), {"on_get_job": on_get_job})()
    assert server.derived_capabilities().extensions == {JOBS: {}}
    assert pkg.Server().derived_capabilities().extensions is None


def test_the_capability_settings_are_typed(pkg: ModuleType, jobs: ModuleType) -> None:
    capabilities = jobs.capabilities
    assert capabilities.IDENTIFIER == JOBS == jobs.IDENTIFIER
    assert capabilities.ClientSettings is jobs.types.JobsExtensionCapability
    declared = capabilities.client_declaration(jobs.types.JobsExtensionCapability(max_jobs=2))
    assert declared == {JOBS: {"maxJobs": 2}}
    assert capabilities.server_declaration() == {JOBS: {}}
    client = pkg.types.ClientCapabilities(extensions=declared)
    assert capabilities.client_settings(client) == jobs.types.JobsExtensionCapability(max_jobs=2)
    assert capabilities.client_settings(pkg.types.ClientCapabilities()) is None
    assert capabilities.server_settings(pkg.types.ServerCapabilities(extensions={"other/x": {}})) is None
    with pytest.raises(pydantic.ValidationError):
        capabilities.client_settings(pkg.types.ClientCapabilities(extensions={JOBS: {"maxJobs": 2, "x": 1}}))


def _jobs_peers(pkg: ModuleType, jobs: ModuleType, server_declares: bool, client_declares: bool) -> tuple[Any, Any]:
    """A server answering `jobs/get` (overriding its handler declares the extension) or not, and a client
    declaring the extension in its capabilities or not."""

    class Declaring(pkg.Server):  # type: ignore[misc, name-defined]
        async def on_get_job(self, params: Any) -> Any:
            job_id = params.model_dump(by_alias=True)["jobId"]
            return jobs.methods.parse_result("jobs/get", {"job": {"jobId": job_id, "state": "done"}})

    class Client(pkg.Client):  # type: ignore[misc, name-defined]
        capabilities = {"extensions": {JOBS: {}}} if client_declares else {}

    return (Declaring() if server_declares else pkg.Server()), Client()


@pytest.mark.parametrize(("server_declares", "client_declares"), [(True, True), (True, False), (False, True)])
def test_an_extension_method_runs_only_when_both_sides_declare_the_extension(
    pkg: ModuleType, jobs: ModuleType, server_declares: bool, client_declares: bool
) -> None:
    """SEP-2133: both declared, the typed call is sent and answered; else the client refuses it before
    anything is sent, naming the side that did not declare it."""

    async def scenario() -> tuple[Any, list[Any]]:
        server, client = _jobs_peers(pkg, jobs, server_declares, client_declares)
        wire = Wire(pkg, client, server)
        init = await client.start_session()
        declared = init.model_dump(by_alias=True)["capabilities"].get("extensions") or {}
        assert (JOBS in declared) is server_declares
        try:
            got: Any = await client.get_job({"jobId": "j7"})
        except pkg.ProtocolError as exc:
            got = exc
        return got, wire.sent["client"]

    got, sent = run(scenario())
    asked = "jobs/get" in [m.get("method") for m in sent]
    if server_declares and client_declares:
        assert got.model_dump(by_alias=True, exclude_unset=True) == {"job": {"jobId": "j7", "state": "done"}} and asked
    else:
        assert got.code == -32601 and not asked
        assert ("this client" in got.message) is not client_declares
        assert ("the server" in got.message) is not server_declares


def test_a_client_that_did_not_declare_the_extension_is_refused_by_the_server(pkg: ModuleType, jobs: ModuleType) -> None:
    """The server declares the extension, the session's client did not: its `jobs/get` is refused (this
    session-era revision has no missing-capability error, so -32601) and the handler never runs."""

    async def scenario() -> Any:
        server, _ = _jobs_peers(pkg, jobs, True, False)
        hello = {"protocolVersion": pkg.SURFACE_VERSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        await server.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        await server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return await server.handle({"jsonrpc": "2.0", "id": 2, "method": "jobs/get", "params": {"jobId": "j"}})

    reply = run(scenario())
    assert reply["error"]["code"] == -32601 and "result" not in reply


def test_the_extension_is_imported_only_when_used(made: tuple[ModuleType, GeneratedPackage]) -> None:
    root = made[1].path.parent
    probe = (
        "import sys, fn_jobs_probe, fn_jobs_probe.server, fn_jobs_probe.client\n"
        "print(sorted(m for m in sys.modules if m.startswith('fn_jobs_probe.ext')))\n"
        "import fn_jobs_probe.ext.jobs\n"
        "print(fn_jobs_probe.ext.jobs.methods.METHODS['jobs/get'].python_name)\n"
    )
    link = root / "fn_jobs_probe"
    if not link.exists():
        link.symlink_to(made[1].path)
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['fn_jobs_probe.ext']", "get_job"]


def test_the_header_records_the_extension(made: tuple[ModuleType, GeneratedPackage]) -> None:
    init = (made[1].path / "__init__.py").read_text("utf-8")
    sha = __import__("hashlib").sha256(json.dumps(jobs_schema()).encode()).hexdigest()
    assert f"# Extensions: jobs=io.example/jobs sha256 {sha}" in init
    record = json.loads(next(line for line in init.splitlines() if line.startswith("# mcpgen-provenance: "))[21:])
    assert record["extensions"] == [["jobs", JOBS, sha]]
    for path in (made[1].path / "ext").rglob("*.py"):
        assert f"# Extensions: jobs=io.example/jobs sha256 {sha}" in path.read_text("utf-8")


def test_the_package_type_checks_and_types_its_calls(made: tuple[ModuleType, GeneratedPackage], tmp_path: Path) -> None:
    root = made[1].path.parent
    (tmp_path / "use_jobs.py").write_text(
        "from fn_jobs import Client, types\n"
        "from fn_jobs.ext.jobs import capabilities, types as jobs\n\n\n"
        "async def ask(client: Client) -> str:\n"
        "    got: jobs.GetJobResult = await client.get_job({'jobId': 'j'})\n"
        "    settings = capabilities.client_settings(types.ClientCapabilities())\n"
        "    return got.job.job_id + str(settings.max_jobs if settings else 0)\n"
    )
    (tmp_path / "misuse_jobs.py").write_text(
        "from fn_jobs import Client\n\n\n"
        "async def ask(client: Client) -> int:\n"
        "    return await client.get_job({'jobId': 'j'})\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", *targets],
            cwd=root, capture_output=True, text=True, timeout=600, env={"MYPYPATH": str(root), "PATH": "/usr/bin:/bin"},
        )
        for targets in (["fn_jobs", str(tmp_path / "use_jobs.py")], [str(tmp_path / "misuse_jobs.py")])
    ]
    assert runs[0].returncode == 0, runs[0].stdout
    assert runs[1].returncode == 1 and 'got "GetJobResult", expected "int"' in runs[1].stdout, runs[1].stdout


def test_an_extension_that_redefines_a_core_method_is_refused(tmp_path: Path) -> None:
    schema = jobs_schema()
    schema["$defs"]["CallToolRequest"] = request("tools/call", obj({"name": STRING}, ["name"]), params_required=True)
    schema["$defs"]["CallToolResult"] = result()
    with pytest.raises(SchemaError, match="extension jobs defines tools/call, which revision 2099-01-01 defines too"):
        generate_extended(tmp_path, base_schema(), "fn_jobs_clash", (schema,))


def test_an_unknown_extension_without_an_identifier_needs_one(tmp_path: Path) -> None:
    from mcpgen.errors import SourceError

    unnamed = tmp_path / "unnamed.json"
    two_settings = {"AExtensionCapability": obj({"a": STRING}), "BExtensionCapability": obj({"b": STRING})}
    unnamed.write_text(json.dumps(extension_schema(None, {"Job": obj({"jobId": STRING}), **two_settings})), "utf-8")
    base = tmp_path / "schema.json"
    base.write_text(json.dumps(base_schema()), "utf-8")
    config = GenerateConfig(schema_file=base, revision="2099-01-01", output=tmp_path / "out", extensions=(str(unnamed),))
    with pytest.raises(SourceError, match=r"pass --extension IDENTIFIER=.*unnamed\.json"):
        generate(config)
    named = GenerateConfig(schema_file=base, revision="2099-01-01", output=tmp_path / "out", package="fn_unnamed",
                           extensions=(f"io.example/unnamed={unnamed}",))
    (made,) = generate(named)
    from shared import load_package

    load_package(made.path, "fn_unnamed")
    import importlib

    capabilities = importlib.import_module("fn_unnamed.ext.unnamed.capabilities")
    # Two definitions could type the settings: neither is chosen, and the settings stay a plain object.
    assert capabilities.ClientSettings == capabilities.ServerSettings == dict[str, Any]
    assert capabilities.client_declaration({"a": "x"}) == {"io.example/unnamed": {"a": "x"}}


def test_in_a_multi_revision_package_the_extension_binds_to_the_surface(tmp_path: Path) -> None:
    """OLD has a `jobs/get` of its own; NEW (the surface) has none: the extension's copies are NEW's classes,
    its handler serves NEW's clients, and generation says OLD keeps its own method."""
    from mcpgen.commands.generate import PackageRequest, package_ir, package_warnings, render_fresh, render_packages
    from mcpgen.emit.output import write_package
    from mcpgen.inputs.extensions import resolve_extension
    from mcpgen.inputs.sources import SchemaSource, sha256_of
    from shared import load_package

    from .packages import schema_bytes

    old = base_schema()
    old["$defs"]["GetJobRequest"] = request("jobs/get", obj({"id": STRING}, ["id"]), params_required=True)
    old["$defs"]["GetJobResult"] = result()
    old["$defs"]["ClientRequest"]["anyOf"].append(ref("GetJobRequest"))
    sources = tuple(
        SchemaSource(rev, schema_bytes(s), sha256_of(schema_bytes(s)), f"<{rev}>", pinned=False)
        for rev, s in (("2099-01-01", old), ("2099-06-01", base_schema()))
    )
    (tmp_path / "jobs.json").write_bytes(schema_bytes(jobs_schema()))
    request_ = PackageRequest(sources, "2099-06-01", extensions=(resolve_extension(str(tmp_path / "jobs.json"), env={}),))
    package = package_ir(request_)
    (note,) = [w for w in package_warnings(package) if "2099-01-01" in w]
    assert note == "extension jobs: jobs/get is also revision 2099-01-01's own; in sessions of that revision it is that revision's method, not the extension's"
    write_package(render_packages([request_], render_fresh, cached=False)[0].files, tmp_path / "fn_jobs_multi")
    pkg = load_package(tmp_path / "fn_jobs_multi", "fn_jobs_multi")
    import importlib

    jobs = importlib.import_module("fn_jobs_multi.ext.jobs")
    job = jobs.types.Job.model_validate({"jobId": "j", "state": "done", "tool": {"name": "t"}})
    assert type(job.tool) is pkg.v2099_06_01.types.Tool
    assert pkg.Server.handlers["jobs/get"] == "on_get_job"
    assert "from ...v2099_06_01 import types as _core" in (tmp_path / "fn_jobs_multi" / "ext" / "jobs" / "types.py").read_text()
