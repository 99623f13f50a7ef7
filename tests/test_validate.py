"""`mcpgen validate` on real messages from the corpus, written to temporary JSONL files."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mcpgen.validate import validate_command

REVISION = "2025-06-18"


def _doc(schema_dir: Path, name: str) -> dict:
    return json.loads((schema_dir / REVISION / "doc-examples" / name).read_text("utf-8"))


def _run(schema_dir: Path, *args: str):
    return CliRunner().invoke(validate_command, ["--revision", REVISION, "--schema-dir", str(schema_dir), *args])


def _conversation(schema_dir: Path) -> list[dict]:
    names = ["basic/lifecycle/01.json", "basic/lifecycle/02.json", "basic/lifecycle/03.json", "server/tools/04.json", "server/tools/05.json"]
    return [_doc(schema_dir, n) for n in names]


def test_valid_conversation_passes(schema_dir: Path, tmp_path: Path) -> None:
    messages = _conversation(schema_dir)
    dirs = ["c2s", "s2c", "c2s", "c2s", "s2c"]
    path = tmp_path / "ok.jsonl"
    path.write_text("".join(json.dumps({"dir": d, "msg": m}) + "\n" for d, m in zip(dirs, messages)), "utf-8")
    result = _run(schema_dir, str(path))
    assert result.exit_code == 0, result.output
    assert "5 messages, 0 failed" in result.output


def test_broken_message_is_reported_with_line_definition_and_path(schema_dir: Path, tmp_path: Path) -> None:
    messages = _conversation(schema_dir)
    messages[4]["result"]["content"][0]["text"] = 42  # the tools/call response, paired by id
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in messages) + "\n", "utf-8")
    result = _run(schema_dir, "--format", "json", str(path))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["messages"] == 5
    [failure] = report["failures"]
    assert failure["line"] == 5
    assert failure["definition"] == "CallToolResult"
    assert failure["path"] == "/result/content/0/text"


def test_response_is_checked_as_the_result_of_its_request(schema_dir: Path, tmp_path: Path) -> None:
    request, response = _doc(schema_dir, "server/prompts/04.json"), _doc(schema_dir, "server/prompts/05.json")
    del response["result"]["messages"]
    path = tmp_path / "prompt.jsonl"
    path.write_text(json.dumps(request) + "\n" + json.dumps(response) + "\n", "utf-8")
    result = _run(schema_dir, str(path))
    assert result.exit_code == 1
    assert f"{path}:2: GetPromptResult at /result: 'messages' is a required property" in result.stdout


def test_one_message_per_file_and_wrong_sender(schema_dir: Path, tmp_path: Path) -> None:
    single = tmp_path / "one.json"
    single.write_text(json.dumps(_doc(schema_dir, "client/roots/02.json")), "utf-8")
    assert _run(schema_dir, str(single)).exit_code == 0
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(json.dumps({"dir": "c2s", "msg": _doc(schema_dir, "client/roots/02.json")}) + "\n", "utf-8")
    result = _run(schema_dir, str(wrong))
    assert result.exit_code == 1
    assert "roots/list is not sent by the client" in result.stdout


def test_bad_input_exits_2_with_one_line(schema_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(_doc(schema_dir, "basic/lifecycle/01.json")) + "\n{not json\n", "utf-8")
    result = _run(schema_dir, str(path))
    assert result.exit_code == 2
    assert f"{path}:2: not JSON" in result.output
    assert "Traceback" not in result.output
