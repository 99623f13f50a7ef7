"""`generate --schema FILE` on schemas mcpgen has never seen: a newer draft, an unpairable request."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpgen.errors import SchemaError
from mcpgen.commands.generate import GenerateConfig, generate


def newer_draft(schema_dir: Path) -> dict[str, Any]:
    """2026-07-28 plus a request, its result and a notification that no revision has."""
    schema = json.loads((schema_dir / "2026-07-28" / "schema.json").read_text("utf-8"))
    defs = schema["$defs"]
    request = copy.deepcopy(defs["ListToolsRequest"])
    request["properties"]["method"] = {"const": "widgets/spin", "type": "string"}
    defs["SpinWidgetsRequest"] = request
    defs["SpinWidgetsResult"] = {
        "type": "object",
        "properties": {"resultType": {"type": "string"}, "rpm": {"type": "number"}},
        "required": ["resultType", "rpm"],
    }
    note = copy.deepcopy(defs["ToolListChangedNotification"])
    note["properties"]["method"] = {"const": "notifications/widgets/spun", "type": "string"}
    defs["WidgetsSpunNotification"] = note
    defs["ClientRequest"]["anyOf"].append({"$ref": "#/$defs/SpinWidgetsRequest"})
    defs["ServerNotification"]["anyOf"].append({"$ref": "#/$defs/WidgetsSpunNotification"})
    return schema


def test_a_newer_draft_generates_with_its_new_methods(tmp_path: Path, schema_dir: Path) -> None:
    draft = tmp_path / "schema.json"
    draft.write_text(json.dumps(newer_draft(schema_dir)))
    generate(GenerateConfig(schema_file=draft, revision="2099-01-01", output=tmp_path / "mcp_draft"))
    code = (
        "import mcp_draft as m\n"
        "s = m.METHODS['widgets/spin']\n"
        "print(s.python_name, s.result.__name__, sorted(s.senders))\n"
        "n = m.METHODS['notifications/widgets/spun']\n"
        "print(n.kind, sorted(n.senders))\n"
        "r = m.parse_result('widgets/spin', {'resultType': 'complete', 'rpm': 33})\n"
        "print(type(r).__name__, r.model_dump(by_alias=True, exclude_unset=True)['rpm'])\n"
        "print(hasattr(m.Server, 'on_spin_widgets'), hasattr(m.Client, 'spin_widgets'))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "spin_widgets SpinWidgetsResult ['client']",
        "notification ['server']",
        "SpinWidgetsResult 33",
        "True True",
    ]


def test_an_unpairable_draft_request_gets_the_base_result_with_a_warning(tmp_path: Path, schema_dir: Path) -> None:
    from click.testing import CliRunner

    from mcpgen.cli import main

    schema = newer_draft(schema_dir)
    del schema["$defs"]["SpinWidgetsResult"]
    draft = tmp_path / "schema.json"
    draft.write_text(json.dumps(schema))
    out = tmp_path / "mcp_draft"
    done = CliRunner().invoke(main, ["generate", "--schema", str(draft), "--revision", "2099-01-01", "-o", str(out)])
    assert done.exit_code == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("mcpgen: warning: ")]
    assert len(warnings) == 1
    assert "SpinWidgetsRequest" in warnings[0] and "--pair SpinWidgetsRequest=" in warnings[0]
    head = (out / "__init__.py").read_text("utf-8")
    assert "# Paired with the base Result (no result in the schema; --pair chooses one): SpinWidgetsRequest" in head
    assert '"assumed":[["SpinWidgetsRequest","Result"]]' in head
    code = (
        "import mcp_draft as m\n"
        "r = m.parse_result('widgets/spin', {'resultType': 'complete', 'rpm': 33})\n"
        "print(type(r).__name__, r.model_dump(by_alias=True, exclude_unset=True))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "Result {'resultType': 'complete', 'rpm': 33}"  # unknown keys kept
    again = CliRunner().invoke(main, ["generate", "--schema", str(draft), "--revision", "2099-01-01", "-o", str(out), "--force"])
    assert again.exit_code == 0 and again.stderr.count("mcpgen: warning: ") == 1  # a cached package says it too
    checked = CliRunner().invoke(main, ["check", str(out), "--schema", str(draft)])
    assert checked.exit_code == 0, checked.output + checked.stderr


def test_a_draft_07_schema_without_some_role_unions(tmp_path: Path, schema_dir: Path) -> None:
    schema = json.loads((schema_dir / "2024-11-05" / "schema.json").read_text("utf-8"))
    del schema["definitions"]["ServerRequest"]
    draft = tmp_path / "schema.json"
    draft.write_text(json.dumps(schema))
    generate(GenerateConfig(schema_file=draft, revision="2024-10-01", output=tmp_path / "mcp_old"))
    code = "import mcp_old as m; print(sorted(m.METHODS['ping'].senders), 'roots/list' in m.METHODS)"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[0] == "['client'] False"


def test_pair_option_completes_an_unpairable_draft_and_check_honours_it(tmp_path: Path, schema_dir: Path) -> None:
    from click.testing import CliRunner

    from mcpgen.cli import main

    schema = newer_draft(schema_dir)
    del schema["$defs"]["SpinWidgetsResult"]
    draft = tmp_path / "schema.json"
    draft.write_text(json.dumps(schema))
    out = tmp_path / "mcp_draft"
    args = ["generate", "--schema", str(draft), "--revision", "2099-01-01", "-o", str(out)]
    done = CliRunner().invoke(main, [*args, "--pair", "SpinWidgetsRequest=EmptyResult"])
    assert done.exit_code == 0, done.stderr
    assert "warning" not in done.stderr
    assert "# Pairings: SpinWidgetsRequest=EmptyResult" in (out / "methods.py").read_text()
    checked = CliRunner().invoke(main, ["check", str(out), "--schema", str(draft)])
    assert checked.exit_code == 0, checked.output + checked.stderr
    unknown = CliRunner().invoke(main, [*args, "--force", "--pair", "SpinWidgetsRequest=NoSuchResult"])
    assert unknown.exit_code == 2 and "no definition NoSuchResult" in unknown.stderr
    malformed = CliRunner().invoke(main, [*args, "--force", "--pair", "SpinWidgetsRequest"])
    assert malformed.exit_code == 2 and "REQUEST=RESULT" in malformed.stderr
