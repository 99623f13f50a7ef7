"""The tap's judge, fed records as the relay hands them over (no peers): the live rules, the transport
rules, redaction, framing, the bounded channel, and the command line's errors."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mcpgen.cli import main
from mcpgen.commands.tap import redact
from mcpgen.commands.tap.capture import Capture
from mcpgen.commands.tap.channel import C2S, GAP, S2C, Feed, Records, read_gap
from mcpgen.commands.tap.config import TapConfig
from mcpgen.commands.tap.framing import Budget, Events, Lines
from mcpgen.commands.tap.judge import Judge
from mcpgen.commands.tap.report import Reporter
from tap_support import LINE, Said, validate

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
INIT_OK = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Tapped:
    """A judge fed by hand, with what it said and logged."""

    def __init__(self, schema_dir: Path, tmp_path: Path, **options: Any) -> None:
        self.stream = io.StringIO()
        self.log = tmp_path / "capture.jsonl"
        config = TapConfig(command=("server",), schema_dir=schema_dir, **options)
        self.judge = Judge(config, Reporter(config.format, False, self.stream), Capture(self.log))
        self.now = 100.0

    def send(self, direction: str, *messages: Any, raw: bytes | None = None) -> None:
        data = raw if raw is not None else b"".join(json.dumps(m).encode() + b"\n" for m in messages)
        self.judge.data(direction, data, self.now, time.time())

    def handshake(self) -> None:
        self.send("c2s", INIT)
        self.send("s2c", INIT_OK)
        self.send("c2s", INITIALIZED)

    def said(self) -> Said:
        return Said.read(self.stream.getvalue())

    def rests(self) -> list[tuple[str, str, str]]:
        return [(v["dir"], v["what"], v["rest"]) for v in self.said().violations]


def test_an_id_reused_while_in_flight_is_reported(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.handshake()
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    tap.send("c2s", listing, {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"})
    tap.send("s2c", {"jsonrpc": "2.0", "id": 2, "result": {"prompts": []}})  # answers the latest request with id 2
    tap.send("c2s", listing)  # answered by now: reusing the id is fine
    assert tap.rests() == [("c2s", "prompts/list request (id 2)", "id 2 is reused while the tools/list request 1 messages before is still in flight")]


def test_a_response_that_never_comes_is_reported_once(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path, timeout=5)
    tap.handshake()
    tap.send("c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"})
    tap.send("c2s", {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "x", "_meta": {"progressToken": "p"}}})
    tap.send("c2s", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
    tap.judge.tick(tap.now + 4)
    assert tap.rests() == []
    tap.now += 3
    tap.send("s2c", {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 1}})
    tap.judge.tick(tap.now + 3)  # 6 s after tools/list, 3 after the progress that restarted tools/call's clock
    tap.judge.tick(tap.now + 4)
    tap.send("s2c", {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})  # late: no second report
    assert tap.rests() == [("c2s", "tools/list request (id 2)", "no response after 5 s")]
    tap.judge.finish()
    assert "mcpgen tap:   unanswered at exit: 1 requests" in tap.said().summary


def test_messages_before_the_handshake_ends_are_reported(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.send("c2s", INIT, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"})
    tap.send("s2c", {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "starting"}})
    tap.send("s2c", INIT_OK, {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    tap.send("c2s", INITIALIZED)
    tap.send("s2c", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    assert tap.rests() == [
        ("c2s", "tools/list request (id 2)", "sent before the server answered initialize"),
        ("s2c", "notifications/tools/list_changed notification", "sent before the client's notifications/initialized"),
    ]
    tap.judge.finish()
    assert "mcpgen tap:   violations: handshake 2" in tap.said().summary


def test_a_stateless_session_has_no_handshake_to_wait_for(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}
    tap.send("c2s", {"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {"_meta": meta}})
    tap.send("s2c", {"jsonrpc": "2.0", "id": "a", "result": {"resultType": "complete", "tools": [{"name": "t", "inputSchema": {"type": "object"}}], "ttlMs": 0, "cacheScope": "private"}})
    tap.judge.finish()
    assert tap.rests() == []
    assert tap.said().summary[0] == "mcpgen tap: summary: 2026-07-28; 2 messages, 0 violations"


def test_secrets_reach_neither_stderr_nor_the_log(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.handshake()
    secret = "s3cr3t-t0ken-value"
    # A progress token that is an object: the schema's error quotes it whole.
    tap.send("s2c", {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": {"auth": f"Bearer {secret}"}, "progress": 1}})
    tap.send("c2s", {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "login", "arguments": {"Authorization": secret, "access_token": secret, "note": f"cookie: session={secret}"}}})
    tap.send("s2c", raw=f"Authorization: Bearer {secret}\n".encode())
    tap.judge.finish()
    text = tap.stream.getvalue()
    logged = tap.log.read_text()
    assert secret not in text and secret not in logged
    assert "Bearer [redacted]" in text and "'Bearer [redacted]'" in text
    records = [json.loads(line) for line in logged.splitlines()]
    assert records[4]["msg"]["params"]["arguments"] == {"Authorization": "[redacted]", "access_token": "[redacted]", "note": "cookie: [redacted]"}
    assert records[5] == {"dir": "s2c", "raw": "Authorization: Bearer [redacted]", "ts": records[5]["ts"]}


def test_secrets_in_lines_that_are_not_json_and_in_credential_objects_are_replaced(schema_dir: Path, tmp_path: Path) -> None:
    """A line logged as its text (invalid UTF-8, cut off) and a credential member whose value is an object."""
    tap = Tapped(schema_dir, tmp_path)
    tap.handshake()
    secret = "s3cr3t-t0ken-value"
    call = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":%s}}\n'
    tap.send("c2s", raw=call % f'{{"access_token":"{secret}","Client_Secret" : "{secret}\\"","n":"\xff"}}'.encode("latin-1"))
    tap.send("c2s", raw=f'{{"jsonrpc":"2.0","id":8,"params":{{"refresh_token":"{secret}\n'.encode())
    tap.send("c2s", raw=call % json.dumps({"authorization": {"scheme": "Bearer", "credentials": [secret, 1]}, "k": "v"}).encode())
    tap.judge.finish()
    logged = tap.log.read_text()
    assert secret not in tap.stream.getvalue() and secret not in logged
    records = [json.loads(line) for line in logged.splitlines()]
    assert records[3]["raw"] == (call % b'{"access_token":"[redacted]","Client_Secret" : "[redacted]","n":"\\xff"}').decode().rstrip("\n")
    assert records[4]["raw"] == '{"jsonrpc":"2.0","id":8,"params":{"refresh_token":"[redacted]'
    assert records[5]["msg"]["params"]["arguments"] == {"authorization": {"scheme": "[redacted]", "credentials": ["[redacted]", 1]}, "k": "v"}


def test_a_last_line_without_a_newline_is_logged_with_the_time_it_was_judged(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.send("c2s", raw=json.dumps(INIT).encode())
    tap.judge.finish()
    (record,) = [json.loads(line) for line in tap.log.read_text().splitlines()]
    assert record["msg"] == INIT and record["ts"] >= time.strftime("%Y-%m-%dT", time.gmtime(time.time() - 60))


def test_redaction_keeps_values_that_hold_no_secret() -> None:
    value = {"a": [1, "x", {"b": None}], "Token": 5, "authorization": 7}
    assert redact.message(value) is value
    assert redact.text("bearer of good news") == "bearer of good news"
    assert redact.headers([("Authorization", "Bearer abc.def.ghi"), ("Cookie", "a=1"), ("X-Trace", "1"), ("x-trace", "2")]) == {
        "authorization": "[redacted]",
        "cookie": "[redacted]",
        "x-trace": "1, 2",
    }


def test_a_gap_is_reported_and_the_next_whole_line_judged(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.handshake()
    tap.send("s2c", raw=b'{"jsonrpc":"2.0","method":"notifications/mess')
    tap.judge.gap("s2c", 1000)
    tap.send("s2c", raw=b'age","params":{}}\n{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n')
    tap.judge.finish()
    said = tap.said()
    assert said.violations == []
    assert said.notes == ["mcpgen tap: note: judging fell behind: 1000 bytes s2c relayed but not judged or logged"]
    assert "mcpgen tap:   judging fell behind: 0 bytes c2s and 1000 bytes s2c relayed unjudged and unlogged" in said.summary
    assert "notifications/tools/list_changed 1" in said.summary[2]


def test_without_a_handshake_nothing_is_judged_and_the_summary_says_so(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.send("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    tap.judge.finish()
    said = tap.said()
    assert said.summary[:1] == ["mcpgen tap: summary: no revision negotiated; 1 messages, 0 violations"]
    assert "mcpgen tap:   not judged: 1 messages" in said.summary


def test_a_forced_revision_reports_a_handshake_that_names_another(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path, revision="2025-06-18")
    tap.handshake()
    assert tap.rests() == [
        ("s2c", "initialize response (id 1)", "InitializeResult at /result/protocolVersion: the initialize response names '2025-11-25', "
         "but --revision is 2025-06-18 (leave out --revision to validate against the handshake's version)")
    ]  # fmt: skip


def _http(tap: Tapped, event: dict[str, Any], body: bytes = b"") -> None:
    tap.judge.http(event, body, tap.now, time.time())


def test_stateless_headers_must_match_the_body(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.judge.config = TapConfig(upstream="http://127.0.0.1:1/mcp", listen="127.0.0.1:0", schema_dir=schema_dir)
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {}, "_meta": meta}}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list", "mcp-name": "=?base64?ZWNobw==?="}
    _http(tap, {"e": "req", "x": 1, "m": "POST", "h": headers}, json.dumps(call).encode())
    _http(tap, {"e": "res", "x": 1, "s": 200, "h": {"content-type": "application/json"}})
    _http(tap, {"e": "chunk", "x": 1}, json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}}).encode())
    _http(tap, {"e": "end", "x": 1})
    headers.update({"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "other"})
    _http(tap, {"e": "req", "x": 2, "m": "POST", "h": headers}, json.dumps({**call, "id": 2}).encode())
    _http(tap, {"e": "res", "x": 2, "s": 202, "h": {}})
    _http(tap, {"e": "end", "x": 2})
    assert [(d, r) for d, _, r in tap.rests()] == [
        ("c2s", "MCP-Protocol-Version '2025-11-25' does not match the _meta version '2026-07-28'"),
        ("c2s", "Mcp-Method 'tools/list' does not match the body's method 'tools/call'"),
        ("c2s", "Mcp-Name does not match params.name"),
        ("s2c", "answered 202 without a Content-Type: a POST with a request is answered 200 with application/json or text/event-stream"),
    ]


def test_a_message_nested_too_deeply_is_noted_and_what_follows_judged(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.handshake()
    deep = b"[" * 100_000 + b"]" * 100_000
    tap.send("c2s", raw=deep + b"\n" + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "no/such"}).encode() + b"\n")
    tap.judge.finish()
    said = tap.said()
    assert said.notes == ["mcpgen tap: note: c2s message 4: nested too deeply to judge"]
    assert [(v["what"], v["rest"].split(":")[0]) for v in said.violations] == [("no/such request (id 2)", "JSONRPCRequest at /method")]
    assert "mcpgen tap:   c2s: (nested too deeply to judge) 1, initialize 1, no/such 1, notifications/initialized 1" in said.summary
    assert json.loads(tap.log.read_text().splitlines()[3])["raw"] == deep.decode()
    checked = validate(tap.log)
    assert checked.returncode == 1 and f"{tap.log}:4: JSON nested too deeply to read" in checked.stdout.splitlines(), checked.stderr
    whole = tmp_path / "deep.json"
    whole.write_bytes(deep)
    checked = validate(whole)
    assert (checked.returncode, checked.stdout) == (1, f"{whole}:1: JSON nested too deeply to read\n"), checked.stderr


def test_a_post_body_that_cannot_be_read_is_not_taken_for_notifications(schema_dir: Path, tmp_path: Path) -> None:
    tap = Tapped(schema_dir, tmp_path)
    tap.judge.config = TapConfig(upstream="http://127.0.0.1:1/mcp", listen="127.0.0.1:0", schema_dir=schema_dir)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    _http(tap, {"e": "req", "x": 1, "m": "POST", "h": headers}, b"[" * 100_000 + b"]" * 100_000)
    _http(tap, {"e": "res", "x": 1, "s": 200, "h": {"content-type": "application/json"}})
    _http(tap, {"e": "end", "x": 1})
    tap.judge.finish()
    assert tap.rests() == [] and tap.said().notes == ["mcpgen tap: note: c2s message 1: nested too deeply to judge"]


def test_lines_are_cut_bounded_and_resynchronised() -> None:
    lines = Lines(limit=10)
    assert lines.feed(b"ab\ncd") == [(b"ab", 2)]
    assert lines.feed(b"e\n0123456789ABC") == [(b"cde", 3)]
    assert lines.feed(b"DEF\nok\n") == [(None, 16), (b"ok", 2)]
    lines.feed(b"partial")
    lines.lost()
    assert lines.feed(b"rest of it\nnext\n") == [(b"next", 4)]
    assert lines.feed(b"tail") == [] and lines.rest() == (b"tail", 4)


def test_the_relay_hands_over_a_bounded_part_of_each_line_and_counts_the_rest() -> None:
    budget, lines = Budget(limit=4), Lines(limit=4)
    stream = [b"ab\ncdefghij", b"klm", b"n\nop", b"q\n" + b"r" * 70000 + b"\nend\n"]
    handed = [part for chunk in stream for part in budget.take(chunk)]
    assert handed == [b"ab\ncdefg", 7, b"\nop", b"q\nrrrrr", 69995, b"\nend\n"]
    got = []
    for part in handed:
        if isinstance(part, int):
            lines.skipped(part)
        else:
            got.extend(lines.feed(part))
    assert got == [(b"ab", 2), (None, 12), (b"opq", 3), (None, 70000), (b"end", 3)]


def test_sse_events_are_cut_from_any_chunking() -> None:
    events = Events(limit=20)
    body = b"id: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: comment\n\nid: 2\ndata:\n\ndata: " + b"x" * 30 + b"\n\ndata: z\n\n"
    lf = body.replace(b"\r\n", b"\n")
    for stream in (body, lf.replace(b"\n", b"\r"), lf.replace(b"\n", b"\r\n")):  # SSE lines end with CRLF, LF or CR
        for size in (1, 2, 3, len(stream)):
            events = Events(limit=20)
            got = [e for i in range(0, len(stream), size) for e in events.feed(stream[i : i + size])]
            assert got == [(b'{"a":\n1}', 7), (b"", 0), (None, 36), (b"z", 1)], (stream, size)


def test_the_relay_bounds_an_event_streams_lines_ended_by_cr() -> None:
    budget, events = Budget(limit=10, cr=True), Events(limit=10)
    stream = b"data: 1\r\r" * 20 + b"data: " + b"x" * 20 + b"\r\n\r\ndata: 2\n\n"
    got = []
    for i in range(0, len(stream), 13):
        for part in budget.take(stream[i : i + 13]):
            got.extend(events.skipped(part) or [] if isinstance(part, int) else events.feed(part))
    assert got == [(b"1", 1)] * 20 + [(None, 26), (b"2", 1)]


def test_the_channel_keeps_order_and_tells_the_judge_what_it_could_not_queue(tmp_path: Path, schema_dir: Path) -> None:
    """A judge that stops reading (SIGSTOP) fills the pipe; beyond the backlog the relay drops bytes for
    judging only, and once the judge reads again it hears of the gap."""
    config = TapConfig(command=("server",), schema_dir=schema_dir, format="json")
    err = tmp_path / "judge.err"
    with err.open("w") as stream:
        saved = os.dup(2)
        os.dup2(stream.fileno(), 2)
        try:
            feed = Feed(config, backlog=256 * 1024)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    os.kill(feed.process.pid, signal.SIGSTOP)
    try:
        line = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"' + b"x" * 4000 + b'"}}\n'
        started = time.monotonic()
        for _ in range(1000):  # 4 MB: more than the pipe and the backlog hold
            feed.put(S2C, line, S2C)
        assert time.monotonic() - started < 5, "put never waits for the judge"
    finally:
        os.kill(feed.process.pid, signal.SIGCONT)
    assert feed.close(grace=60)
    said = [json.loads(line) for line in err.read_text().splitlines()]
    (note,) = [s for s in said if s["tap"] == "note"]
    summary = said[-1]
    assert note["dir"] == "s2c" and note["bytes"] == summary["missed_bytes"]["s2c"] > 0
    judged = summary["messages"]["s2c"]["notifications/message"]
    assert judged * len(line) + summary["missed_bytes"]["s2c"] == 1000 * len(line)


def test_records_survive_any_split() -> None:
    from mcpgen.commands.tap.channel import frame, gap_payload

    data = frame(C2S, b"abc", 1.0, 2.0) + frame(GAP, gap_payload(S2C, 7, True), 3.0, 4.0)
    records = Records()
    got = [r for i in range(len(data)) for r in records.feed(data[i : i + 1])]
    assert got[0] == (C2S, 1.0, 2.0, b"abc") and read_gap(got[1][3]) == ("s2c", 7, True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give either -- COMMAND [ARG...] (stdio) or --upstream URL --listen HOST:PORT (Streamable HTTP)"),
        (["--upstream", "http://x/mcp"], "--upstream and --listen go together"),
        (["--upstream", "ftp://x/mcp", "--listen", "127.0.0.1:0"], "--upstream 'ftp://x/mcp' is not an http:// or https:// URL"),
        (["--upstream", "http://x/mcp", "--listen", "nowhere"], "--listen 'nowhere' is not HOST:PORT"),
        (["--upstream", "http://u:pw@x/mcp?key=k", "--listen", "nowhere"], "--upstream 'http://u:[redacted]@x/mcp?[redacted]': leave out the query and fragment"),
        (["--upstream", "http://x/mcp", "--listen", "127.0.0.1:1", "--", "server"], "give either -- COMMAND"),
        (["--log", "/nonexistent/dir/capture.jsonl", "--", "server"], "cannot write the log /nonexistent/dir/capture.jsonl"),
        (["--", "/nonexistent/server"], "cannot start '/nonexistent/server'"),
        (["--timeout", "-1", "--", "server"], "Invalid value for '--timeout'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["tap", *args])
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("mcpgen: error: ") and message in result.stderr


def test_without_httpx_the_http_tap_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "httpx", None)
    result = CliRunner().invoke(main, ["tap", "--upstream", "http://127.0.0.1:1/mcp", "--listen", "127.0.0.1:0"])
    assert result.exit_code == 2
    assert result.stderr == "mcpgen: error: mcpgen tap needs httpx and uvicorn for Streamable HTTP: pip install 'mcpgen[tap]'\n"


def test_a_violation_line_names_direction_message_definition_pointer_and_error() -> None:
    from mcpgen.commands.tap.report import Violation

    line = Violation("s2c", "tools/list response (id 2)", "Tool", "/result/tools/0", "'inputSchema' is a required property", "schema").text(False)
    assert line == "mcpgen tap: s2c tools/list response (id 2): Tool at /result/tools/0: 'inputSchema' is a required property"
    assert LINE.match(line)
    coloured = Violation("s2c", "m", "", "", "bad", "r").text(True)
    assert "\x1b[" in coloured and coloured.startswith("mcpgen tap: ")
