"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in package-lock.json) against
the generated Streamable HTTP transport: every server check, and every scenario the suite scores for a
revision (`--requirements`, authorization included) on both sides, must pass.

Node ≥ 22 comes from the `node` npm package installed beside the suite (`npm ci --prefix tests/conformance`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterator

import pytest

from shared import EXTENDED, missing

HERE = Path(__file__).resolve().parent
NODE = HERE / "node_modules" / "node" / "bin" / "node"
SUITES = {
    "0.1": HERE / "node_modules" / "conformance-0.1" / "dist" / "index.js",
    "0.2": HERE / "node_modules" / "conformance-0.2" / "dist" / "index.js",
}
PASSING = {"SUCCESS", "INFO"}
"""Statuses that count as passed; FAILURE, WARNING and SKIPPED all fail the test."""
SCORED_PASSING = PASSING | {"SKIPPED"}
"""Statuses the suite's scoring does not count as failed: a check of a scored scenario may be skipped
(a 2026-07-28 client sends no `initialize`, so the check of its headers does not apply)."""


@pytest.fixture(scope="module")
def node() -> Path:
    """The pinned Node 22 and both conformance suites; missing() when `npm ci` has not run."""
    if not NODE.is_file() or not all(s.is_file() for s in SUITES.values()):
        missing("conformance suites not installed: run `npm ci --prefix tests/conformance`")
    version = subprocess.run([str(NODE), "--version"], capture_output=True, text=True, timeout=30).stdout
    if int(version.lstrip("v").split(".")[0]) < 22:
        missing(f"the conformance suite needs Node >= 22, {NODE} is {version.strip()}")
    return NODE


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def _fixture_server(generated_root: Path, package: str) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(generated_root)}
    process = subprocess.Popen(
        [sys.executable, str(HERE / "everything_server.py"), package, str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "fixture server did not start"
            time.sleep(0.05)
        yield f"http://localhost:{port}/mcp"
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
        assert b"Traceback" not in stderr, stderr.decode()


RUN_STAMP = re.compile(r"-\d{4}-\d\d-\d\dT[\d-]+Z$")
"""The time the suite appends to each scenario's result folder."""


def _checks(out: Path) -> list[dict[str, Any]]:
    """Every check the suite wrote under `out`, with its scenario (`auth/...` scenarios sit a level deeper)."""
    found: list[dict[str, Any]] = []
    for path in sorted(out.rglob("checks.json")):
        scenario = RUN_STAMP.sub("", path.parent.relative_to(out).as_posix())
        for check in json.loads(path.read_text("utf-8")):
            found.append({"scenario": scenario, **check})
    return found


def _assert_all_pass(
    checks: list[dict[str, Any]], done: subprocess.CompletedProcess[str], passing: set[str] = PASSING
) -> None:
    bad = [
        f"{c['scenario']}: {c['id']} {c['status']} {c.get('errorMessage', '')}"
        for c in checks
        if c["status"] not in passing
    ]
    assert not bad, "\n".join(bad)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


SERVER_RUNS = [
    ("0.1", "2025-11-25", 46, []),
    ("0.2", "2025-11-25", 83, ["--spec-version", "2025-11-25"]),
    ("0.2", "2026-07-28", 152, ["--spec-version", "2026-07-28"]),
]
"""(suite, revision, fewest SUCCESS checks, options) of each `server --suite all` run."""
MULTI_SERVER = "mcp_2024_11_05_to_2026_07_28"
"""The multi-revision package whose one server process takes every server run (surface 2026-07-28)."""


def _run_server_suite(node: Path, url: str, out: Path, suite: str, minimum: int, options: list[str]) -> None:
    """Run every server scenario of `suite` against `url`; every check must pass, at least `minimum` succeed."""
    command = [str(node), str(SUITES[suite]), "server", "--url", url, "--suite", "all", "-o", str(out), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=out)
    checks = _checks(out)
    _assert_all_pass(checks, done)
    assert sum(c["status"] == "SUCCESS" for c in checks) >= minimum, f"only {len(checks)} checks ran"


@pytest.mark.parametrize(("suite", "revision", "minimum", "options"), SERVER_RUNS)
def test_server_suite_passes_every_check(
    node: Path, generated_root: Path, tmp_path: Path, suite: str, revision: str, minimum: int, options: list[str]
) -> None:
    package = "mcp_" + revision.replace("-", "_")
    with _fixture_server(generated_root, package) as url:
        _run_server_suite(node, url, tmp_path, suite, minimum, options)


@pytest.fixture(scope="module")
def multi_revision_server(generated_root: Path) -> Iterator[str]:
    """One fixture server process on the multi-revision package, shared by every run below."""
    with _fixture_server(generated_root, MULTI_SERVER) as url:
        yield url


@pytest.mark.parametrize(("suite", "revision", "minimum", "options"), SERVER_RUNS)
def test_one_multi_revision_server_passes_every_run(
    node: Path, multi_revision_server: str, tmp_path: Path, suite: str, revision: str, minimum: int, options: list[str]
) -> None:
    """The same endpoint serves 2025-11-25 sessions (handlers written against 2026-07-28, converted by the
    runtime) and 2026-07-28 stateless requests, each passing the suite as the single-revision package does."""
    _run_server_suite(node, multi_revision_server, tmp_path, suite, minimum, options)


CLIENT_SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]
SINGLE, MULTI = "mcp_2025_11_25", "mcp_2024_11_05_to_2025_11_25"


def _client_cases() -> list[tuple[str, str, str]]:
    """Every scenario of both suites with the single-revision client and the multi-revision one.

    Suite 0.1's sse-retry server negotiates 2025-03-26, which a 2025-11-25-only client must refuse (the test
    below), so that scenario runs with the multi-revision client only there."""
    cases = [(suite, scenario, MULTI) for suite in SUITES for scenario in CLIENT_SCENARIOS]
    cases += [(suite, s, SINGLE) for suite in SUITES for s in CLIENT_SCENARIOS if (suite, s) != ("0.1", "sse-retry")]
    return cases


def _run_client(node: Path, generated_root: Path, tmp_path: Path, suite: str, scenario: str, package: str) -> Any:
    """Play `scenario` of `suite` with the conformance client on `package`; the suite's process and its checks."""
    client = f"{sys.executable} {HERE / 'everything_client.py'} {package}"
    command = [
        str(node),
        str(SUITES[suite]),
        "client",
        "--command",
        client,
        "--scenario",
        scenario,
        "-o",
        str(tmp_path),
    ]
    if suite == "0.2":
        command += ["--spec-version", "2025-11-25"]
    env = {**os.environ, "PYTHONPATH": str(generated_root)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    return done, _checks(tmp_path)


@pytest.mark.parametrize(("suite", "scenario", "package"), _client_cases())
def test_client_scenario_passes(
    node: Path, generated_root: Path, tmp_path: Path, suite: str, scenario: str, package: str
) -> None:
    done, checks = _run_client(node, generated_root, tmp_path, suite, scenario, package)
    assert checks, done.stdout[-3000:]
    _assert_all_pass(checks, done)


def test_single_revision_client_refuses_a_server_of_another_revision(
    node: Path, generated_root: Path, tmp_path: Path
) -> None:
    done, _ = _run_client(node, generated_root, tmp_path, "0.1", "sse-retry", SINGLE)
    assert "the server speaks protocol versions 2025-03-26; this client speaks 2025-11-25" in done.stdout + done.stderr


# --- the requirement sets: what the suite scores for a revision (SDK tiering), on both sides -----------

REQUIREMENTS = {"2025-11-25": "mcp_2025_11_25", "2026-07-28": "mcp_2026_07_28"}
"""Each requirement set and the single-revision package playing it (the multi-revision package plays each too)."""
CLIENT_TIMEOUT_MS = 120_000
"""How long the suite lets each client process run: it starts every scenario's at once, and on a loaded
2-core machine a few dozen Python processes take longer than its default 30 s to do their part."""
BACKCOMPAT = ["auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"]
"""The 2025-03-26 authorization scenarios (no protected-resource metadata; default endpoints)."""

EXTENSIONS = [
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/wif-jwt-bearer",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
]
"""The authorization extension scenarios (`[extension]` in `conformance list --client`): client credentials,
workload identity, enterprise-managed authorization (SEP-990), DPoP (SEP-1932) with and without nonces."""


def _scored(node: Path, side: str, revision: str) -> list[str]:
    """The scenarios the suite scores for `side` ("client" or "server") at `revision`, as it lists them."""
    listing = subprocess.run(
        [str(node), str(SUITES["0.2"]), "list", f"--{side}", "--requirements", revision],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    section = listing.split(f"{side.capitalize()} scenarios (test against a {side}):", 1)[1]
    scored = [line.strip()[2:] for line in section.split("\n\n", 1)[0].splitlines() if line.strip().startswith("- ")]
    assert scored, listing
    return scored


def _assert_scored_pass(
    checks: list[dict[str, Any]], scored: list[str], done: subprocess.CompletedProcess[str]
) -> None:
    """Every scored scenario ran and passed every check, and so did any authorization extension scenario
    that ran; the other unscored scenarios are reported as a warning."""
    ran = {c["scenario"] for c in checks}
    assert not [s for s in scored if s not in ran], f"scored scenarios that did not run: {set(scored) - ran}"
    _assert_all_pass([c for c in checks if c["scenario"] in scored], done, SCORED_PASSING)
    others: dict[str, list[str]] = {}
    for check in checks:
        if check["scenario"] not in scored:
            others.setdefault(check["scenario"], []).append(check["status"])
    regressed = [name for name in EXTENSIONS if name in others and not all(s in PASSING for s in others[name])]
    assert not regressed, f"authorization extension scenarios failing: {regressed}"
    if others:
        report = ", ".join(
            f"{name} {'passes' if all(s in PASSING for s in statuses) else 'fails'}"
            for name, statuses in sorted(others.items())
        )
        warnings.warn(f"scenarios run but not scored: {report}", stacklevel=2)


@pytest.mark.parametrize("revision", REQUIREMENTS)
def test_server_requirements_pass(node: Path, generated_root: Path, tmp_path: Path, revision: str) -> None:
    """`server --requirements` on the fixture server of the revision's package: every scored scenario passes."""
    with _fixture_server(generated_root, REQUIREMENTS[revision]) as url:
        command = [str(node), str(SUITES["0.2"]), "server", "--url", url, "--requirements", revision]
        done = subprocess.run([*command, "-o", str(tmp_path)], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    checks = [{**c, "scenario": c["scenario"].removeprefix("server-")} for c in _checks(tmp_path)]
    _assert_scored_pass(checks, _scored(node, "server", revision), done)


def _run_requirements(node: Path, generated_root: Path, out: Path, package: str, options: list[str]) -> Any:
    """Play the client scenarios `options` select with the conformance client on `package`."""
    client = f"{sys.executable} {HERE / 'everything_client.py'} {package}"
    command = [str(node), str(SUITES["0.2"]), "client", "--command", client, "-o", str(out), *options]
    command += ["--timeout", str(CLIENT_TIMEOUT_MS)]
    env = {**os.environ, "PYTHONPATH": str(generated_root)}
    return subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=out, env=env)


@pytest.mark.parametrize("package", ["single", MULTI_SERVER])
@pytest.mark.parametrize("revision", REQUIREMENTS)
def test_client_requirements_pass(
    node: Path, generated_root: Path, tmp_path: Path, revision: str, package: str
) -> None:
    """`client --requirements`: every scored scenario, authorization included, passes with the package's client."""
    name = REQUIREMENTS[revision] if package == "single" else package
    done = _run_requirements(node, generated_root, tmp_path, name, ["--requirements", revision])
    _assert_scored_pass(_checks(tmp_path), _scored(node, "client", revision), done)


@pytest.mark.parametrize("scenario", BACKCOMPAT)
def test_2025_03_26_authorization_scenarios_pass(
    node: Path, generated_root: Path, tmp_path: Path, scenario: str
) -> None:
    """A 2025-03-26 client authorizes with a server that has no protected-resource metadata."""
    options = ["--scenario", scenario, "--spec-version", "2025-03-26"]
    done = _run_requirements(node, generated_root, tmp_path, "mcp_2025_03_26", options)
    checks = _checks(tmp_path)
    assert {c["scenario"] for c in checks} == {scenario}, done.stdout[-3000:]
    _assert_all_pass(checks, done)


EXTENSION_RUNS = {
    REQUIREMENTS["2026-07-28"]: ["--spec-version", "2026-07-28", "--force"],
    MULTI_SERVER: [],
}
"""Package → the options its extension runs take: the 2026-07-28 package at its revision's wire (the suite
runs extensions only when forced to a revision), the multi-revision one at the suite's default wire for
extensions (2025-11-25, a session)."""


@pytest.mark.parametrize("package", EXTENSION_RUNS)
@pytest.mark.parametrize("scenario", EXTENSIONS)
def test_authorization_extension_scenarios_pass(
    node: Path, generated_root: Path, tmp_path: Path, scenario: str, package: str
) -> None:
    """Each authorization extension scenario: every check passes and the client exits cleanly."""
    options = ["--scenario", scenario, *EXTENSION_RUNS[package]]
    done = _run_requirements(node, generated_root, tmp_path, package, options)
    checks = _checks(tmp_path)
    assert {c["scenario"] for c in checks} == {scenario}, done.stdout[-3000:]
    _assert_all_pass(checks, done)


# --- extension scenarios (SEP-2133): tasks (SEP-2663) on the package generated with the extension -----
# The suite runs extension scenarios only when named (`--spec-version` filters them out), on the stateless
# 2026-07-28 wire. Each one below passes every check; a regression fails CI.

TASKS_SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
    "tasks-status-notifications",
]
SUITE_PENDING = {"tasks-status-notifications"}
"""Checks the suite itself always reports SKIPPED (it has not rewritten them for listen streams yet)."""


@pytest.fixture(scope="module")
def tasks_server(generated_root: Path) -> Iterator[str]:
    """The fixture server on the package generated with the tasks extension."""
    with _fixture_server(generated_root, EXTENDED[2]) as url:
        yield url


def _server_scenario(
    node: Path, url: str, out: Path, scenario: str
) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    """The checks of one extension `scenario` run by the suite 0.2 against the server at `url` (no
    `--spec-version`: the suite runs extension scenarios only then), and the suite's run."""
    command = [str(node), str(SUITES["0.2"]), "server", "--url", url, "--scenario", scenario]
    done = subprocess.run([*command, "-o", str(out)], capture_output=True, text=True, timeout=300, cwd=out)
    checks = [{**c, "scenario": c["scenario"].removeprefix("server-")} for c in _checks(out)]
    assert {c["scenario"] for c in checks} == {scenario}, done.stdout[-3000:]
    return checks, done


@pytest.mark.parametrize("scenario", TASKS_SCENARIOS)
def test_tasks_scenario_passes(node: Path, tasks_server: str, tmp_path: Path, scenario: str) -> None:
    checks, done = _server_scenario(node, tasks_server, tmp_path, scenario)
    pending = [c for c in checks if c["id"] in SUITE_PENDING and c["status"] == "SKIPPED"]
    _assert_all_pass([c for c in checks if c not in pending], done)
    assert len(checks) - len(pending) >= (0 if pending else 2), checks


def test_the_tasks_fixture_sends_status_notifications_on_a_listen_stream(tasks_server: str, schema_dir: Path) -> None:
    """What the suite's pending `tasks-status-notifications` describes, checked here over raw HTTP: a listen
    request naming a task gets the acknowledgement naming it, then `notifications/tasks` whose params carry
    `taskId` and `status` (a terminal one inlining its result), each a valid ext-tasks `TaskStatusNotification`
    on the listen request's stream; a listener that did not declare the extension gets -32021."""
    import httpx
    from jsonschema.validators import validator_for

    schema = json.loads((schema_dir / "extensions" / "tasks" / "schema.json").read_text("utf-8"))
    validator = validator_for(schema)({**schema, "$ref": "#/$defs/TaskStatusNotification"})
    declared = {"extensions": {"io.modelcontextprotocol/tasks": {}}}

    def message(request_id: int, method: str, params: dict[str, Any], capabilities: Any = declared) -> dict[str, Any]:
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }
        return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}

    def headers(method: str, name: str | None = None) -> dict[str, str]:
        found = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        found.update({"mcp-protocol-version": "2026-07-28", "mcp-method": method})
        return {**found, "mcp-name": name} if name is not None else found

    def events(response: httpx.Response) -> Iterator[dict[str, Any]]:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                yield json.loads(line[len("data: ") :])

    def answer(response: httpx.Response) -> dict[str, Any]:
        found: dict[str, Any] = response.json() if "json" in response.headers["content-type"] else next(events(response))
        return found

    with httpx.Client(timeout=30) as client:
        call = message(1, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0.5, "label": "heard"}})
        created = client.post(tasks_server, json=call, headers=headers("tools/call", "slow_compute"))
        task_id = answer(created)["result"]["taskId"]
        listen = message(2, "subscriptions/listen", {"notifications": {"taskIds": [task_id, "nonexistent"]}})
        heard: list[dict[str, Any]] = []
        with client.stream("POST", tasks_server, json=listen, headers=headers("subscriptions/listen")) as stream:
            for event in events(stream):
                heard.append(event)
                if "id" in event or event.get("params", {}).get("status") in ("completed", "failed", "cancelled"):
                    break
        refused = client.post(
            tasks_server,
            json=message(3, "subscriptions/listen", {"notifications": {"taskIds": [task_id]}}, {}),
            headers=headers("subscriptions/listen"),
        )
    ack, *statuses = heard
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"taskIds": [task_id]}
    assert statuses and all(s["method"] == "notifications/tasks" for s in statuses)
    for status in statuses:
        errors = sorted(validator.iter_errors(status), key=str)
        assert not errors, f"{status}: {errors[0].message}"
        assert status["params"]["taskId"] == task_id
        assert status["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 2
    assert statuses[-1]["params"]["status"] == "completed"
    assert statuses[-1]["params"]["result"]["content"][0]["text"].startswith("computed heard")
    assert answer(refused)["error"]["code"] == -32021


# --- skills (SEP-2640): the fixture server mounts tests/conformance/skills; the fixture client plays the host ---

SKILLS_SERVER_SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"]
SKILLS_CLIENT_SCENARIOS = [
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
]


@pytest.mark.parametrize("scenario", SKILLS_SERVER_SCENARIOS)
def test_skills_server_scenario_passes(node: Path, tasks_server: str, tmp_path: Path, scenario: str) -> None:
    checks, done = _server_scenario(node, tasks_server, tmp_path, scenario)
    _assert_all_pass(checks, done)
    assert sum(c["status"] == "SUCCESS" for c in checks) >= 6, checks


@pytest.mark.parametrize("package", [SINGLE, EXTENDED[2]])
@pytest.mark.parametrize("scenario", SKILLS_CLIENT_SCENARIOS)
def test_skills_client_scenario_passes(
    node: Path, generated_root: Path, tmp_path: Path, scenario: str, package: str
) -> None:
    """Run without `--spec-version` (the suite runs extension scenarios only then): a 2025-11-25 client
    (`initialize`) and a 2026-07-28 one (`server/discover`)."""
    client = f"{sys.executable} {HERE / 'everything_client.py'} {package}"
    command = [str(node), str(SUITES["0.2"]), "client", "--command", client, "--scenario", scenario, "-o", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(generated_root)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    checks = _checks(tmp_path)
    assert [c["scenario"] for c in checks] == [scenario], done.stdout[-3000:]
    _assert_all_pass(checks, done)
    assert [c["status"] for c in checks] == ["SUCCESS"], checks
