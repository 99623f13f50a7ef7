"""The generated packages: golden output, typing, vendorability and lossless round trips."""

from __future__ import annotations

import ast
import difflib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from mcpgen.messages.roundtrip import same_json
from shared import REPO_ROOT, REVISIONS, committed_packages, package_name

GOLDEN = REPO_ROOT / "generated"


def round_trip(adapter: TypeAdapter[Any], value: Any) -> Any:
    return adapter.dump_python(
        adapter.validate_python(value), mode="json", by_alias=True, exclude_unset=True
    )


def files(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and p.suffix != ".pyc"
    )


@pytest.mark.parametrize("package", committed_packages())
def test_committed_output_matches_a_fresh_generation(
    generated_root: Path, package: str
) -> None:
    fresh, golden = generated_root / package, GOLDEN / package
    names = files(fresh)
    assert names == files(golden)
    assert sorted(
        p.name for p in GOLDEN.iterdir() if p.is_dir() and not p.name.startswith(".")
    ) == sorted(committed_packages())
    for name in names:
        want, have = (fresh / name).read_text("utf-8"), (golden / name).read_text(
            "utf-8"
        )
        diff = "".join(
            difflib.unified_diff(
                have.splitlines(True),
                want.splitlines(True),
                f"generated/{name}",
                "fresh",
            )
        )
        assert (
            not diff
        ), f"generated/ is stale; regenerate it (see README):\n{diff[:4000]}"


def test_generated_code_passes_mypy_strict(generated_root: Path) -> None:
    targets = [str(generated_root / package) for package in committed_packages()]
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *targets],
        capture_output=True,
        text=True,
        cwd=generated_root,
    )
    assert run.returncode == 0, run.stdout[-4000:]


@pytest.mark.parametrize("package", committed_packages())
def test_packages_import_only_pydantic_and_the_standard_library(
    generated_root: Path, package: str
) -> None:
    allowed = {"pydantic", "pydantic_core", "typing_extensions"} | set(
        sys.stdlib_module_names
    )
    for path in (generated_root / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert roots <= allowed, f"{path.name} imports {roots - allowed}"


@pytest.mark.parametrize("revision", REVISIONS)
def test_header_and_constants(
    packages: dict[str, Any], revision: str, schema_dir: Path
) -> None:
    import hashlib

    pkg = packages[revision]
    sha = hashlib.sha256(
        (schema_dir / revision / "schema.json").read_bytes()
    ).hexdigest()
    assert pkg.PROTOCOL_VERSION == revision and pkg.SCHEMA_SHA256 == sha
    for path in Path(pkg.__file__).parent.glob("*.py"):
        head = path.read_text("utf-8").splitlines()[:4]
        assert head[1:3] == [f"# MCP revision: {revision}", f"# Schema sha256: {sha}"]
        assert head[3].startswith("# Errata applied: ") and all(
            e in head[3] for e in pkg.ERRATA
        )


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_definition_is_a_public_name(
    packages: dict[str, Any], schema_dir: Path, revision: str
) -> None:
    schema = json.loads((schema_dir / revision / "schema.json").read_text("utf-8"))
    names = schema.get("$defs") or schema["definitions"]
    types = packages[revision].types
    for name in names:
        TypeAdapter(getattr(types, name))
    assert not [n for n in dir(types) if n.rstrip("0123456789") != n and n[0].isupper()]


# Upstream examples the corrected schema rejects, and why (see README, "Example bugs").
EXAMPLE_BUGS = {
    # lacks cacheScope and ttlMs, which ReadResourceResult requires; upstream only accepted it
    # through InputRequiredResult's bare-string resultType, closed by erratum input-required-result-type
    "ReadResourceResultResponse/read-resource-result-response.json": {
        "cacheScope",
        "ttlMs",
    },
}


def test_all_2026_07_28_typed_examples_round_trip_exactly(
    packages: dict[str, Any], schema_dir: Path
) -> None:
    from pydantic import ValidationError

    types = packages["2026-07-28"].types
    files = sorted((schema_dir / "2026-07-28" / "examples").glob("*/*.json"))
    assert len(files) == 129
    failures, rejected = [], {}
    for path in files:
        key = f"{path.parent.name}/{path.name}"
        value = json.loads(path.read_text("utf-8"))
        try:
            out = round_trip(TypeAdapter(getattr(types, path.parent.name)), value)
        except ValidationError as exc:
            rejected[key] = {
                str(e["loc"][-1]) for e in exc.errors() if e["type"] == "missing"
            }
            continue
        if not same_json(out, value):
            failures.append(f"{key}: {json.dumps(out)[:300]}")
    assert not failures, "\n".join(failures)
    assert rejected == EXAMPLE_BUGS


CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {
        "name": "t",
        "arguments": {"n": 1, "x": 1.5, "deep": {"k": [1, 2.0, None]}},
        "_meta": {"progressToken": 3, "vendor/extra": {"kept": True}},
        "undeclared": "kept",
    },
    "extra-top": 1,
}


@pytest.mark.parametrize("revision", REVISIONS)
def test_requests_round_trip_with_unknown_keys_and_meta(
    packages: dict[str, Any], revision: str
) -> None:
    pkg = packages[revision]
    if (
        revision >= "2026-07-28"
    ):  # stateless: every request carries the client's capabilities in _meta
        CALL["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = {}  # type: ignore[index]
        CALL["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = revision  # type: ignore[index]
    msg = pkg.parse_message(json.dumps(CALL))
    assert type(msg).__name__ == "CallToolRequest"
    assert same_json(
        msg.model_dump(mode="json", by_alias=True, exclude_unset=True), CALL
    )
    assert msg.params.name == "t"
    assert msg.params.meta is not None  # declared (by erratum before 2025-11-25)


def test_lossless_scalars(packages: dict[str, Any]) -> None:
    types = packages["2025-11-25"].types
    resource = {"uri": "HTTP://Example.COM:80/a/../b?q#f", "name": "r", "size": 3}
    assert same_json(round_trip(TypeAdapter(types.Resource), resource), resource)
    blob = {"uri": "file:///x", "blob": "not base64 at all!"}
    assert same_json(round_trip(TypeAdapter(types.BlobResourceContents), blob), blob)
    for priority in (1, 0.5, 0):
        value = {"priority": priority}
        assert same_json(round_trip(TypeAdapter(types.Annotations), value), value)
    result = {"content": [], "structuredContent": {"n": 1}, "vendor": [1, {"a": None}]}
    assert same_json(round_trip(TypeAdapter(types.CallToolResult), result), result)


def test_discriminated_unions_pick_the_right_member(packages: dict[str, Any]) -> None:
    types = packages["2025-11-25"].types
    blocks = TypeAdapter(list[types.ContentBlock]).validate_python(
        [
            {"type": "text", "text": "t"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
        ]
    )
    assert [type(b).__name__ for b in blocks] == ["TextContent", "ImageContent"]
    request = TypeAdapter(types.ClientRequest).validate_python(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    )
    assert type(request).__name__ == "PingRequest"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{", -32700),
        ("[]", -32600),
        ('{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600),
        ('{"jsonrpc": "2.0", "id": 1, "method": "no/such"}', -32601),
        (
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 3}}',
            -32602,
        ),
        ('{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "x"}}', -32600),
    ],
)
def test_parse_message_error_codes(
    packages: dict[str, Any], raw: str, code: int
) -> None:
    pkg = packages["2025-11-25"]
    with pytest.raises(pkg.ProtocolError) as info:
        pkg.parse_message(raw)
    assert info.value.code == code
    json.dumps(info.value.to_error())


def test_parse_result_and_responses(packages: dict[str, Any]) -> None:
    pkg = packages["2026-07-28"]
    typed = pkg.parse_result(
        "tools/call", {"resultType": "input_required", "requestState": "s"}
    )
    assert type(typed).__name__ == "InputRequiredResult"
    done = pkg.parse_result("tools/call", {"resultType": "complete", "content": []})
    assert type(done).__name__ == "CallToolResult"
    error = pkg.parse_message(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}
    )
    assert type(error).__name__ == "JSONRPCErrorResponse"


def test_methods_registry(packages: dict[str, Any]) -> None:
    methods = packages["2025-11-25"].METHODS
    m = methods["prompts/list"]
    assert (m.kind, m.senders, m.python_name) == (
        "request",
        frozenset({"client"}),
        "list_prompts",
    )
    assert (
        m.result.__name__ == "ListPromptsResult"
        and m.message.__name__ == "ListPromptsRequest"
    )
    assert methods["notifications/progress"].result is None


def test_vendored_under_a_dotted_package_name(tmp_path: Path, schema_dir: Path) -> None:
    from mcpgen.commands.generate import GenerateConfig, generate

    target = tmp_path / "myapp" / "_vendor" / "mcp"
    for pkg in (tmp_path / "myapp", tmp_path / "myapp" / "_vendor"):
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").write_text("")
    generate(
        GenerateConfig(
            revision="2025-11-25",
            package="myapp._vendor.mcp",
            output=target,
            schema_dir=schema_dir,
        )
    )
    code = "import myapp._vendor.mcp as m; print(m.PROTOCOL_VERSION, len(m.METHODS))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[0] == "2025-11-25"
