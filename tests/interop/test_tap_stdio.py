"""`mcpgen tap` over stdio between real peers: the official SDK's client and MCPServer, the reference
server-everything with a generated client, a generated client and server, and a faulty server."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from tap_support import FAULTY_SERVER, INITIALIZE, SDK_SERVER, TAP, RawClient, Said, notification, request, said_in, tap_env, validate, write_script

from .everything_session import run_session

mcp = pytest.importorskip("mcp", reason="the official MCP Python SDK (`mcp`) is not installed")
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402


async def _sdk_session(argv: list[str], errlog: Any) -> dict[str, Any]:
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=tap_env())
    out: dict[str, Any] = {}
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            out["init"] = (await session.initialize()).model_dump(mode="json")
            out["tools"] = (await session.list_tools()).model_dump(mode="json")
            out["echo"] = [(await session.call_tool("echo", {"text": f"héllo {i}"})).model_dump(mode="json") for i in range(20)]
            out["slow"] = (await session.call_tool("slow", {"steps": 2}, progress_callback=on_progress)).model_dump(mode="json")
            out["progress"] = progress
    return out


def _run_sdk(argv: list[str], stderr: Path) -> dict[str, Any]:
    with stderr.open("w") as errlog:
        return asyncio.run(asyncio.wait_for(_sdk_session(argv, errlog), 60))


def test_the_sdk_session_through_the_tap_is_the_direct_one(tmp_path: Path, schema_dir: Path) -> None:
    server = write_script(tmp_path, "server.py", SDK_SERVER)
    direct = _run_sdk([sys.executable, str(server)], tmp_path / "direct.err")
    capture = tmp_path / "session.jsonl"
    tapped = _run_sdk([*TAP, "--log", str(capture), "--", sys.executable, str(server)], tmp_path / "tap.err")
    assert tapped == direct
    assert direct["progress"] == [1, 2]
    said = said_in(tmp_path / "tap.err")
    assert said.violations == [] and said.notes == []
    assert said.summary[0] == "mcpgen tap: summary: 2025-11-25; 49 messages, 0 violations"
    assert "mcpgen tap:   c2s: initialize 1, notifications/initialized 1, tools/call 21, tools/list 1" in said.summary
    checked = validate(capture)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stderr.endswith("49 messages, 0 failed (2025-11-25)\n")
    records = [json.loads(line) for line in capture.read_text().splitlines()]
    assert {r["dir"] for r in records} == {"c2s", "s2c"} and all(r["ts"].endswith("Z") for r in records)


def test_a_faulty_server_is_reported_message_by_message_and_its_bytes_reach_the_client_unchanged(tmp_path: Path) -> None:
    server = write_script(tmp_path, "faulty.py", FAULTY_SERVER)
    capture = tmp_path / "faulty.jsonl"
    client = RawClient([*TAP, "--log", str(capture), "--", sys.executable, str(server)], env=tap_env())
    client.send(INITIALIZE)
    client.wait_for(1)
    client.send(notification("notifications/initialized") + request(2, "tools/list"))
    received = client.wait_for(4)
    status, err = client.close()
    # What the faulty server wrote, byte for byte (its script is the oracle).
    expected = [
        b'{ "jsonrpc" : "2.0" ,\t"id" : 1 , "result" : {"protocolVersion":"2025-11-25","capabilities":{"tools":{}},'
        b'"serverInfo":{"name":"faulty","version":"1"}} }  \r\n',
        b'{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"broken"}]}}\n',
        b"this is not JSON\n",
        b'{"jsonrpc":"2.0","id":9999,"result":{}}\n',
    ]
    assert received == expected
    assert status == 0
    said = Said.read(err)
    assert said.violations == [
        {"dir": "s2c", "what": "tools/list response (id 2)", "rest": "ListToolsResult at /result/tools/0: 'inputSchema' is a required property"},
        {"dir": "s2c", "what": "message 6", "rest": "not JSON (Expecting value: line 1 column 1 (char 0))"},
        {"dir": "s2c", "what": "response (id 9999)", "rest": "JSONRPCResultResponse at /id: response to no request: no earlier request from the client has id 9999"},
    ]
    assert said.summary[0] == "mcpgen tap: summary: 2025-11-25; 7 messages, 3 violations"
    assert "mcpgen tap:   violations: not-json 1, schema 1, unpaired 1" in said.summary
    checked = validate(capture)
    assert checked.returncode == 1
    assert [line.split(": ", 1)[1] for line in checked.stdout.splitlines()] == [v["rest"] for v in said.violations]


def test_the_json_format_gives_one_object_per_violation_and_a_summary(tmp_path: Path) -> None:
    from tap_support import json_lines

    server = write_script(tmp_path, "faulty.py", FAULTY_SERVER)
    client = RawClient([*TAP, "--format", "json", "--", sys.executable, str(server)], env=tap_env())
    client.send(INITIALIZE + notification("notifications/initialized") + request(2, "tools/list"))
    client.wait_for(4)
    status, err = client.close()
    found = json_lines(err)
    violations = [f for f in found if f["tap"] == "violation"]
    assert [(v["dir"], v["rule"], v["definition"], v["path"], v["id"]) for v in violations] == [
        ("s2c", "schema", "ListToolsResult", "/result/tools/0", 2),
        ("s2c", "not-json", "", "", None),
        ("s2c", "unpaired", "JSONRPCResultResponse", "/id", 9999),
    ]
    (summary,) = [f for f in found if f["tap"] == "summary"]
    assert summary["revisions"] == ["2025-11-25"] and summary["violations"] == {"not-json": 1, "schema": 1, "unpaired": 1}
    assert summary["messages"]["c2s"] == {"initialize": 1, "notifications/initialized": 1, "tools/list": 1}


def test_the_tap_exits_with_the_servers_status_and_passes_its_stderr(tmp_path: Path) -> None:
    server = write_script(tmp_path, "exits.py", "import sys\nsys.stdin.readline()\nsys.stderr.write('server says bye\\n')\nsys.exit(7)\n")
    client = RawClient([*TAP, "--", sys.executable, str(server)], env=tap_env())
    client.send(INITIALIZE)
    status, err = client.close()
    assert status == 7
    assert "server says bye\n" in err


def test_a_generated_client_with_server_everything_through_the_tap(
    tmp_path: Path, package: Callable[[str], ModuleType], everything_command: list[str], schema_dir: Path
) -> None:
    pkg = package("2025-11-25")
    capture = tmp_path / "everything.jsonl"
    extra = {"MCPGEN_CACHE_DIR": os.environ["MCPGEN_CACHE_DIR"]}
    tapped = [*TAP, "--schema-dir", str(schema_dir), "--log", str(capture), "--", *everything_command]
    err = tmp_path / "tap.err"
    with err.open("w") as stderr:
        session = asyncio.run(run_session(pkg, tapped, extra_env=extra, stderr=stderr))
    direct = asyncio.run(run_session(pkg, everything_command))
    assert set(session.results) == set(direct.results) and set(session.errors) == set(direct.errors)
    # What server-everything sends in the background (task status, logging) varies with timing; the rest not.
    assert {(d, m.get("method")) for d, m in session.trace} == {(d, m.get("method")) for d, m in direct.trace}
    steady = [
        label for label in direct.results
        if label.startswith(("prompts/", "resources/read ", "tools/call echo", "tools/call get-sum"))
        and "dynamic" not in label and label != "prompts/get resource-prompt"  # these carry the time they were made
    ]  # fmt: skip
    assert len(steady) > 10
    assert {label: session.results[label].model_dump(mode="json") for label in steady} == {label: direct.results[label].model_dump(mode="json") for label in steady}
    said = said_in(err)
    assert said.violations == [], said.text
    checked = validate(capture)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{len(session.trace)} messages, 0 failed (2025-11-25)" in checked.stderr


def test_a_generated_client_and_server_through_the_tap(tmp_path: Path, generated_dir: Path) -> None:
    import re
    import shutil
    import subprocess

    doc = Path(__file__).resolve().parents[2] / "docs" / "stubs.md"
    server, client = re.findall(r"```python\n(.*?)```", doc.read_text("utf-8"), re.S)
    client = client.replace('[sys.executable, "server.py"]', f'[*{TAP!r}, "--log", "session.jsonl", "--", sys.executable, "server.py"]')
    assert "mcpgen" in client
    (tmp_path / "server.py").write_text(server, "utf-8")
    (tmp_path / "client.py").write_text(client, "utf-8")
    shutil.copytree(generated_dir / "mcp_2025_11_25", tmp_path / "mcp_2025_11_25")
    done = subprocess.run([sys.executable, "client.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=tap_env())
    assert done.returncode == 0, done.stderr
    expected = re.search(r"\$ python client.py\n(.*?)```", doc.read_text("utf-8"), re.S)
    assert expected is not None and done.stdout == expected.group(1)
    said = Said.read(done.stderr)
    assert said.violations == [] and said.summary, done.stderr
    assert validate(tmp_path / "session.jsonl").returncode == 0
