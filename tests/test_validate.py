"""`mcpgen validate` on real messages from the corpus, written to temporary JSON and JSONL files."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import mcpgen.emit.output
import mcpgen.commands.validate
from mcpgen.commands.validate import MAX_ERRORS, validate_command
from test_examples import REPO_ROOT, run_broken

REVISION = "2025-06-18"


def _doc(schema_dir: Path, name: str, revision: str = REVISION) -> dict:
    return json.loads((schema_dir / revision / "doc-examples" / name).read_text("utf-8"))


def _run(schema_dir: Path, *args: str, revision: str = REVISION) -> Result:
    return CliRunner().invoke(validate_command, ["--revision", revision, "--schema-dir", str(schema_dir), *args])


def _jsonl(path: Path, values: list) -> Path:
    path.write_text("".join(json.dumps(v) + "\n" for v in values), "utf-8")
    return path


def _conversation(schema_dir: Path) -> list[dict]:
    names = ["basic/lifecycle/01.json", "basic/lifecycle/02.json", "basic/lifecycle/03.json", "server/tools/04.json", "server/tools/05.json"]
    return [_doc(schema_dir, n) for n in names]


def _lists_and_progress(schema_dir: Path) -> list[dict]:
    """resources/list and resources/templates/list with their responses, and a progress notification."""
    names = ["server/resources/05.json", "server/resources/06.json", "server/resources/09.json", "server/resources/10.json", "basic/utilities/progress/02.json"]
    return [_doc(schema_dir, n) for n in names]


def test_valid_conversation_passes(schema_dir: Path, tmp_path: Path) -> None:
    dirs = ["c2s", "s2c", "c2s", "c2s", "s2c"]
    path = _jsonl(tmp_path / "ok.jsonl", [{"dir": d, "msg": m} for d, m in zip(dirs, _conversation(schema_dir))])
    result = _run(schema_dir, str(path))
    assert result.exit_code == 0, result.output
    assert "5 messages, 0 failed" in result.output


def test_broken_message_is_reported_with_line_definition_and_path(schema_dir: Path, tmp_path: Path) -> None:
    messages = _conversation(schema_dir)
    messages[4]["result"]["content"][0]["text"] = 42  # the tools/call response, paired by id
    result = _run(schema_dir, "--format", "json", str(_jsonl(tmp_path / "broken.jsonl", messages)))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["messages"], report["failed"]) == (5, 1)
    [failure] = report["failures"]
    assert (failure["line"], failure["error_count"]) == (5, 1)
    assert failure["errors"] == [{"definition": "CallToolResult", "path": "/result/content/0/text", "error": "42 is not of type 'string'"}]


def test_response_is_checked_as_the_result_of_its_request(schema_dir: Path, tmp_path: Path) -> None:
    request, response = _doc(schema_dir, "server/prompts/04.json"), _doc(schema_dir, "server/prompts/05.json")
    del response["result"]["messages"]
    path = _jsonl(tmp_path / "prompt.jsonl", [request, response])
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    assert f"{path}:2: GetPromptResult at /result: 'messages' is a required property" in result.stdout


def test_one_message_per_file_and_wrong_sender(schema_dir: Path, tmp_path: Path) -> None:
    single = tmp_path / "one.json"
    single.write_text(json.dumps(_doc(schema_dir, "client/roots/02.json"), indent=2), "utf-8")
    assert _run(schema_dir, str(single)).exit_code == 0
    wrong = _jsonl(tmp_path / "wrong.jsonl", [{"dir": "c2s", "msg": _doc(schema_dir, "client/roots/02.json")}])
    result = _run(schema_dir, str(wrong))
    assert result.exit_code == 1
    assert "roots/list is not sent by the client" in result.stdout


def test_unknown_method_fails(schema_dir: Path, tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "unknown.jsonl", [{"jsonrpc": "2.0", "id": 4, "method": "tools/frobnicate", "params": {}}])
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    assert f"{path}:1: JSONRPCRequest at /method: unknown method 'tools/frobnicate'" in result.stdout
    assert "1 messages, 1 failed" in result.stderr


def test_response_to_no_request_fails(schema_dir: Path, tmp_path: Path) -> None:
    request, response = _doc(schema_dir, "server/tools/04.json"), _doc(schema_dir, "server/tools/05.json")
    orphan = _jsonl(tmp_path / "orphan.jsonl", [response])
    result = _run(schema_dir, str(orphan))
    assert result.exit_code == 1
    assert f"{orphan}:1: JSONRPCResponse at /id: response to no request" in result.stdout
    # With directions, a response must answer a request of the other side.
    same_side = _jsonl(tmp_path / "same-side.jsonl", [{"dir": "s2c", "msg": request}, {"dir": "s2c", "msg": response}])
    result = _run(schema_dir, str(same_side))
    assert result.exit_code == 1
    assert f"{same_side}:2: JSONRPCResponse at /id: response to no request" in result.stdout


def test_a_line_that_is_not_json_fails_alone_and_the_rest_is_checked(schema_dir: Path, tmp_path: Path) -> None:
    messages = _conversation(schema_dir)
    messages[4]["result"]["content"][0]["text"] = 42
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(messages[3]) + "\n{not json\n" + json.dumps(messages[4]) + "\n", "utf-8")
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    assert f"{path}:2: not JSON" in result.stdout
    assert f"{path}:3: CallToolResult at /result/content/0/text: 42 is not of type 'string'" in result.stdout
    assert "3 messages, 2 failed" in result.stderr
    assert "Traceback" not in result.output


def test_a_file_that_is_not_json_fails_at_its_line(schema_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "jsonrpc": "2.0",\n  "id": 1\n  "method": "ping"\n}\n', "utf-8")
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    [line] = result.stdout.splitlines()
    assert line.startswith(f"{path}:4: not JSON (Expecting ',' delimiter: line 4 column 3")


def test_unreadable_file_exits_2_with_one_line(schema_dir: Path, tmp_path: Path) -> None:
    result = _run(schema_dir, str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"mcpgen: error: cannot read {tmp_path / 'missing.jsonl'}")
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.output


def test_every_error_of_a_message_is_reported_up_to_a_cap(schema_dir: Path, tmp_path: Path) -> None:
    request, response = _doc(schema_dir, "server/tools/04.json"), _doc(schema_dir, "server/tools/05.json")
    response["result"]["isError"] = "no"
    response["result"]["content"] = [{"type": "text", "text": n} for n in range(MAX_ERRORS + 2)]
    path = _jsonl(tmp_path / "many.jsonl", [request, response])
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == MAX_ERRORS + 1
    assert lines[:2] == [f"{path}:2: CallToolResult at /result/content/{i}/text: {i} is not of type 'string'" for i in range(2)]
    assert lines[-1] == f"{path}:2: … and 3 more errors"
    report = json.loads(_run(schema_dir, "--format", "json", str(path)).stdout)
    assert (report["failed"], report["failures"][0]["error_count"], len(report["failures"][0]["errors"])) == (1, MAX_ERRORS + 3, MAX_ERRORS)


def test_batches_are_refused_where_the_revision_has_none(schema_dir: Path, tmp_path: Path) -> None:
    batch = [_doc(schema_dir, "basic/lifecycle/01.json"), _doc(schema_dir, "basic/lifecycle/03.json")]
    path = _jsonl(tmp_path / "batch.jsonl", [batch])
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    assert f"{path}:1: JSONRPCMessage at /: JSON-RPC batches are not allowed in {REVISION}" in result.stdout


def test_batch_elements_are_checked_where_batches_are_allowed(schema_dir: Path, tmp_path: Path) -> None:
    revision = "2025-03-26"
    request, response = _doc(schema_dir, "server/tools/04.json", revision), _doc(schema_dir, "server/tools/05.json", revision)
    ping = {"jsonrpc": "2.0", "id": "p", "method": "ping"}
    good = _jsonl(tmp_path / "good.jsonl", [[request, ping], [response, {"jsonrpc": "2.0", "id": "p", "result": {}}]])
    result = _run(schema_dir, str(good), revision=revision)
    assert result.exit_code == 0, result.output
    assert "4 messages, 0 failed" in result.stderr
    response["result"]["content"][0]["text"] = 42
    bad = _jsonl(tmp_path / "bad.jsonl", [[request, ping], [ping, response], [{"jsonrpc": "2.0", "id": "p", "result": {}}, response]])
    result = _run(schema_dir, str(bad), revision=revision)
    assert result.exit_code == 1
    assert f"{bad}:2: JSONRPCMessage at /: a batch of JSONRPCRequest and JSONRPCResponse" in result.stdout
    assert f"{bad}:3: CallToolResult at /1/result/content/0/text: 42 is not of type 'string'" in result.stdout


@pytest.mark.parametrize(
    ("generator_break", "expected"),
    [
        ("swapped-list-results", ":2: ListResourcesResult at /result: mcpgen's parse_result('resources/list') rejects it"),
        ("number-as-float", ":5: ProgressNotification at /params/progress: mcpgen does not round-trip it: 50 became 50.0"),
    ],
)
def test_a_broken_generator_fails_validate(generator_break: str, expected: str, schema_dir: Path, tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "traffic.jsonl", _lists_and_progress(schema_dir))
    assert _run(schema_dir, str(path)).exit_code == 0
    result = run_broken(generator_break, "mcpgen.cli:main", ["validate", "--revision", REVISION, "--schema-dir", str(schema_dir), str(path)], tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{path}{expected}" in result.stdout


def test_an_installed_mcpgen_leaves_nothing_in_the_temp_dir(schema_dir: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"  # the wheel's layout (pyproject's package-dir), without the checkout's generated/
    package_dir = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in sorted(package_dir.items()):  # parents before children: "mcpgen" < "mcpgen.runtime"
        target = site.joinpath(*package.split("."))
        shutil.copytree(REPO_ROOT / folder, target, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
    temp = tmp_path / "tmp"
    temp.mkdir()
    path = _jsonl(tmp_path / "ok.jsonl", _conversation(schema_dir))
    env = {**os.environ, "PYTHONPATH": str(site), "TMPDIR": str(temp), "PYTHONDONTWRITEBYTECODE": "1"}
    code = "import mcpgen, sys; assert mcpgen.__file__.startswith(sys.argv[1]), mcpgen.__file__; sys.argv[1:2] = []; from mcpgen.cli import main; main()"
    for cache in ("off", "on"):
        env["MCPGEN_NO_CACHE"] = "1" if cache == "off" else ""
        result = subprocess.run(
            [sys.executable, "-c", code, str(site), "validate", "--revision", REVISION, "--schema-dir", str(schema_dir), str(path)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert sorted(p.name for p in temp.iterdir()) == []


def test_validate_names_no_function_like_output() -> None:
    def own(module: object) -> set[str]:
        return {n for n, f in inspect.getmembers(module, inspect.isfunction) if f.__module__ == module.__name__}  # type: ignore[attr-defined]

    assert own(mcpgen.commands.validate) & own(mcpgen.emit.output) == set()


def _handshake(schema_dir: Path, revision: str = "2025-11-25") -> list[dict]:
    """An initialize request and its response, both naming `revision`."""
    return [_doc(schema_dir, f"basic/lifecycle/0{n}.json", revision) for n in (1, 2)]


def test_the_revision_is_inferred_from_the_initialize_response(schema_dir: Path, tmp_path: Path) -> None:
    messages = _handshake(schema_dir)
    assert messages[0]["params"]["protocolVersion"] == messages[1]["result"]["protocolVersion"] == "2025-11-25"
    path = _jsonl(tmp_path / "trace.jsonl", messages)
    result = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), str(path)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"mcpgen: validating against 2025-11-25, the version the initialize response at {path}:2 names",
        "2 messages, 0 failed (2025-11-25)",
    ]


def test_the_revision_is_inferred_from_server_discover(schema_dir: Path, tmp_path: Path) -> None:
    messages = [_doc(schema_dir, f"server/discover/0{n}.json", "2026-07-28") for n in (1, 2)]
    path = _jsonl(tmp_path / "trace.jsonl", messages)
    result = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), "--format", "json", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["revision"] == "2026-07-28"
    assert result.stderr == f"mcpgen: validating against 2026-07-28, the version the server/discover request at {path}:1 names\n"


def test_a_handshake_naming_another_revision_than_the_one_given_fails(schema_dir: Path, tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "trace.jsonl", _handshake(schema_dir))
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    assert result.stdout == (
        f"{path}:2: InitializeResult at /result/protocolVersion: the initialize response names '2025-11-25', "
        f"but --revision is {REVISION} (leave out --revision to validate against the handshake's version)\n"
    )


def test_a_negotiation_down_to_the_revision_given_passes(schema_dir: Path, tmp_path: Path) -> None:
    request, response = _handshake(schema_dir, REVISION)
    request["params"]["protocolVersion"] = "2025-11-25"  # the client asks for newer; the server answers its own
    path = _jsonl(tmp_path / "trace.jsonl", [request, response])
    result = _run(schema_dir, str(path))
    assert result.exit_code == 0, result.output
    inferred = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), str(path)])
    assert inferred.exit_code == 0 and f"validating against {REVISION}, the version the initialize response" in inferred.stderr


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (None, "mcpgen: error: pass --revision: no initialize, server/discover or request _meta names the protocol version"),
        ("2099-01-01", "names the protocol version '2099-01-01', which mcpgen does not know"),
    ],
)
def test_without_a_known_handshake_the_revision_must_be_given(schema_dir: Path, tmp_path: Path, version: str | None, expected: str) -> None:
    messages = _conversation(schema_dir)[3:] if version is None else _handshake(schema_dir)[:1]
    if version is not None:
        messages[0]["params"]["protocolVersion"] = version
    result = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), str(_jsonl(tmp_path / "t.jsonl", messages))])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and expected in result.stderr


def test_a_content_type_no_branch_admits_is_named_with_the_ones_admitted(schema_dir: Path, tmp_path: Path) -> None:
    messages = _conversation(schema_dir)[3:]
    messages[1]["result"]["content"][0]["type"] = "txt"
    result = _run(schema_dir, str(_jsonl(tmp_path / "t.jsonl", messages)))
    assert result.exit_code == 1
    assert result.stdout == (
        f"{tmp_path / 't.jsonl'}:2: CallToolResult at /result/content/0/type: "
        "'txt' was given; the union admits 'text', 'image', 'audio', 'resource_link' or 'resource'\n"
    )


def _meta(revision: str = "2026-07-28") -> dict:
    return {"io.modelcontextprotocol/protocolVersion": revision, "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}


def test_a_tap_capture_is_read_with_its_raw_lines_and_its_sessions(schema_dir: Path, tmp_path: Path) -> None:
    """`mcpgen tap --log` records: `ts` and `session` beside `dir`/`msg`, and `raw` for a line that was not JSON.
    Two sessions reuse request ids; each is its own conversation."""
    request, response = _handshake(schema_dir)
    records = []
    for session in ("1", "2"):
        records += [
            {"dir": "c2s", "msg": request, "ts": "2026-11-27T10:00:00.000000Z", "session": session},
            {"dir": "s2c", "msg": response, "ts": "2026-11-27T10:00:00.100000Z", "session": session},
        ]
    records.insert(2, {"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 41, "method": "ping"}, "session": "1"})
    records.insert(4, {"dir": "s2c", "raw": "hello {", "ts": "2026-11-27T10:00:00.200000Z"})
    # Session 1 asked with id 41, session 2 did not: its answer with id 41 answers nothing.
    records.append({"dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 41, "result": {}}, "ts": "2026-11-27T10:00:01.000000Z", "session": "2"})
    path = _jsonl(tmp_path / "capture.jsonl", records)
    result = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), str(path)])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{path}:5: not JSON (Expecting value: line 1 column 1 (char 0))",
        f"{path}:7: JSONRPCResultResponse at /id: response to no request: no earlier request from the client has id 41",
    ]
    assert result.stderr.splitlines()[-1] == "7 messages, 2 failed (2025-11-25)"


def test_each_conversation_is_judged_against_the_revision_it_negotiates(schema_dir: Path, tmp_path: Path) -> None:
    """A client that asks `server/discover` (2026-07-28), is told the method does not exist, and falls
    back to `initialize` at 2025-11-25: each message is judged against its own revision."""
    discover = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": _meta()}}
    unknown = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}}
    request, response = _handshake(schema_dir)
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    tools = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
    dirs = ["c2s", "s2c", "c2s", "s2c", "c2s", "s2c"]
    path = _jsonl(tmp_path / "fallback.jsonl", [{"dir": d, "msg": m} for d, m in zip(dirs, [discover, unknown, request, response, listing, tools])])
    result = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), "--format", "json", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["revisions"] == ["2026-07-28", "2025-11-25"]
    assert result.stderr.splitlines() == [
        f"mcpgen: validating against 2026-07-28, the version the server/discover request at {path}:1 names",
        f"mcpgen: validating against 2025-11-25, the version the initialize response at {path}:4 names",
    ]
    forced = _run(schema_dir, str(path), revision="2025-11-25")
    assert forced.exit_code == 1
    assert "server/discover request names '2026-07-28', but --revision is 2025-11-25" in forced.stdout


def test_a_request_that_names_its_revision_in_meta_needs_no_handshake(schema_dir: Path, tmp_path: Path) -> None:
    listing = {"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {"_meta": _meta()}}
    tools = {"jsonrpc": "2.0", "id": "a", "result": {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private"}}
    path = _jsonl(tmp_path / "stateless.jsonl", [listing, tools])
    result = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), str(path)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"mcpgen: validating against 2026-07-28, the version the tools/list request at {path}:1 names"


def test_a_request_naming_another_revision_in_meta_is_answered_in_that_revision(schema_dir: Path, tmp_path: Path) -> None:
    """In a 2025-11-25 session, a request whose `_meta` names 2026-07-28 is judged in 2026-07-28, and so
    is its response: a 2026-07-28 tools/list result must carry `ttlMs` and `cacheScope` (2025-11-25's need not)."""
    request, response = _handshake(schema_dir)
    listing = {"jsonrpc": "2.0", "id": "m", "method": "tools/list", "params": {"_meta": _meta()}}
    tools = {"jsonrpc": "2.0", "id": "m", "result": {"tools": []}}
    path = _jsonl(tmp_path / "mixed.jsonl", [request, response, listing, tools])
    result = CliRunner().invoke(validate_command, ["--schema-dir", str(schema_dir), str(path)])
    assert result.exit_code == 1
    failed = result.stdout.splitlines()
    assert f"{path}:4: ListToolsResult at /result: 'cacheScope' is a required property" in failed
    assert f"{path}:4: ListToolsResult at /result: 'ttlMs' is a required property" in failed
    assert result.stderr.splitlines()[-1] == "4 messages, 1 failed (2025-11-25, 2026-07-28)"


def test_line_separators_inside_json_strings_do_not_end_a_line(schema_dir: Path, tmp_path: Path) -> None:
    """U+2028, U+2029 and U+0085 are legal raw in a JSON string: a JSONL line ends at a newline only."""
    dirs = ["c2s", "s2c", "c2s", "c2s", "s2c"]
    messages = [{"dir": d, "msg": m} for d, m in zip(dirs, _conversation(schema_dir))]
    messages[3]["msg"]["params"]["arguments"] = {"text": "a\u2028b\u2029c\x85d"}
    path = tmp_path / "separators.jsonl"
    path.write_text("".join(json.dumps(v, ensure_ascii=False) + "\r\n" for v in messages), "utf-8")
    result = _run(schema_dir, str(path))
    assert result.exit_code == 0, result.output
    assert "5 messages, 0 failed" in result.output


def test_a_message_read_but_too_deep_to_write_back_fails_on_its_line(schema_dir: Path, tmp_path: Path) -> None:
    """300 levels: json reads it, pydantic validates it but cannot dump it; a failure, not an internal error."""
    messages = _conversation(schema_dir)[:3]
    deep = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": None}}
    data: Any = []
    for _ in range(300):
        data = [data]
    deep["params"]["data"] = data
    path = _jsonl(tmp_path / "deep.jsonl", [*messages, deep])
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1, result.output
    assert "deep.jsonl:4:" in result.output and "cannot be written back" in result.output
    assert "4 messages, 1 failed" in result.output


def test_a_json_file_of_lines_is_read_line_by_line_even_when_one_is_too_deep(schema_dir: Path, tmp_path: Path) -> None:
    """A `.json` file holding JSONL: a line too deep to read is one failure, and the lines after it are checked."""
    messages = _conversation(schema_dir)[:3]
    path = tmp_path / "lines.json"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n" + "".join(json.dumps(m) + "\n" for m in messages), "utf-8")
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1, result.output
    assert "lines.json:1: JSON nested too deeply to read" in result.output
    assert "4 messages, 1 failed" in result.output
