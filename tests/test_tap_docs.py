"""docs/tap.md as written: the client configurations run a real tap, the faulty server's output is what
the tap says of it, the capture validates as shown, and the HTTP command listens as shown."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from shared import REPO_ROOT
from tap_support import INITIALIZE, SDK_SERVER, TAP, RawClient, free_port, notification, request, tap_env, wait_for_port, write_script

DOC = (REPO_ROOT / "docs" / "tap.md").read_text("utf-8")


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC, re.S)


def _session(tmp_path: Path, argv: list[str]) -> tuple[list[bytes], str]:
    client = RawClient(argv, cwd=tmp_path, env=tap_env())
    client.send(INITIALIZE)
    client.wait_for(1)
    client.send(notification("notifications/initialized") + request(2, "tools/list"))
    received = client.wait_for(4)
    status, err = client.close()
    assert status == 0, err
    return received, err


def test_the_client_configurations_run_the_tap_on_the_documented_server(tmp_path: Path) -> None:
    (server,) = _blocks("python")
    write_script(tmp_path, "server.py", server)
    configurations = [json.loads(block) for block in _blocks("json")]
    assert len(configurations) == 2
    expected = _blocks("console")[1].splitlines()
    for configuration in configurations:
        (entry,) = (configuration.get("mcpServers") or configuration["servers"]).values()
        assert entry["command"] == "mcpgen" and entry["args"][0] == "tap"
        args = entry["args"][1:]
        log = tmp_path / "capture.jsonl"
        args[args.index("--log") + 1] = str(log)
        args[args.index("python")] = sys.executable
        received, err = _session(tmp_path, [*TAP, *args])
        assert len(received) == 4
        assert err.splitlines() == expected
        assert len(log.read_text().splitlines()) == 7


def test_the_faulty_server_the_output_and_the_capture_are_as_documented(tmp_path: Path) -> None:
    (server,) = _blocks("python")
    write_script(tmp_path, "faulty.py", server)
    command = re.search(r"`(mcpgen tap --log faulty.jsonl -- python faulty.py)`", DOC)
    assert command is not None
    argv = [*TAP, *command.group(1).split()[2:]]
    argv[argv.index("python")] = sys.executable
    received, err = _session(tmp_path, argv)
    assert received[0].endswith(b"}  \r\n") and received[2] == b"this is not JSON\n"
    assert err.splitlines() == _blocks("console")[1].splitlines()
    shown = _blocks("console")[2].splitlines()
    assert shown[0] == "$ mcpgen validate faulty.jsonl"
    done = subprocess.run([sys.executable, "-m", "mcpgen", "validate", "faulty.jsonl"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    stderr = done.stderr.splitlines()
    assert [stderr[0], *done.stdout.splitlines(), *stderr[1:]] == shown[1:]


def test_the_http_command_listens_as_documented(tmp_path: Path) -> None:
    shown = _blocks("console")[0].splitlines()
    command, said = shown[0].removeprefix("$ ").split(), shown[1]
    upstream, listen = free_port(), free_port()
    server = subprocess.Popen([sys.executable, str(write_script(tmp_path, "server.py", SDK_SERVER)), "http", str(upstream)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(upstream, server, "the SDK server")
        argv = [*TAP, *[part.replace("8000", str(upstream)).replace("8765", str(listen)) for part in command[2:]]]
        tap = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tap_env())
        try:
            assert tap.stderr is not None
            line = tap.stderr.readline().decode().rstrip("\n")
            assert line == said.replace("8000", str(upstream)).replace("8765", str(listen))
        finally:
            tap.terminate()
            assert tap.wait(30) == 143
    finally:
        server.terminate()
        server.wait(30)
    assert (tmp_path / "http.jsonl").exists()
