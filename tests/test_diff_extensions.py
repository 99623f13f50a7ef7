"""`mcpgen diff` on extension schemas: two versions of an extension, and an extension's copies of core
definitions against a revision (its drift), with the same rule ids, gates and ignore entries.

Each expected verdict is confirmed on the schemas first (jsonschema, `accepts`), never by the module under test.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from diff_worlds import Schema, accepts, obj, ref, world
from mcpgen.commands.diff.command import diff_command

JOBS = "io.example/jobs"
STRING = {"type": "string"}


def jobs(job: dict[str, Any] | None = None, with_cancel: bool = True, copies: dict[str, Any] | None = None) -> Schema:
    """A jobs extension over `world()`: its own `Job`, `jobs/get` and `jobs/cancel` (its role union says the
    client sends them), and copies of core definitions (`CallParams` as the core has it, unless `copies`)."""
    request = lambda method, params: obj(  # noqa: E731
        {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]}, "method": {"const": method, "type": "string"},
         "params": ref(params)},
        ("jsonrpc", "id", "method", "params"),
    )
    defs: dict[str, Any] = {
        "CallParams": copy.deepcopy(world()["$defs"]["CallParams"]),
        "Job": job or obj({"jobId": STRING, "state": {"enum": ["queued", "done"], "type": "string"}}, ("jobId",)),
        "JobParams": obj({"jobId": STRING}, ("jobId",)),
        "GetJobRequest": request("jobs/get", "JobParams"),
        "GetJobResult": obj({"job": ref("Job")}, ("job",)),
        "ClientRequest": {"anyOf": [ref("GetJobRequest")]},
        **(copies or {}),
    }
    if with_cancel:
        defs["CancelJobRequest"] = request("jobs/cancel", "JobParams")
        defs["CancelJobResult"] = obj({})
        defs["ClientRequest"]["anyOf"].append(ref("CancelJobRequest"))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "description": f"Jobs. Extension Identifier: {JOBS}",
        "$defs": defs,
    }


def write(folder: Path, name: str, schema: Schema) -> str:
    path = folder / name
    path.write_text(json.dumps(schema), "utf-8")
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(diff_command, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def changes(*args: str) -> list[dict[str, Any]]:
    code, out, err = run(*args, "--format", "json")
    assert code == 0, err
    return [c for c in json.loads(out)["changes"] if not c["cosmetic"]]


def test_two_versions_of_an_extension_compare_like_two_revisions(tmp_path: Path) -> None:
    stricter = obj({"jobId": STRING, "state": {"enum": ["queued", "done"], "type": "string"}, "owner": STRING},
                   ("jobId", "owner"))
    old, new = jobs(), jobs(job=stricter, with_cancel=False)
    instance = {"jobId": "j"}
    assert accepts(old, "Job", instance) and not accepts(new, "Job", instance)
    found = {(c["kind"], c["subject"]): (c["client"], c["server"]) for c in changes(write(tmp_path, "old.json", old), write(tmp_path, "new.json", new))}
    # The server writes Job (in GetJobResult): a server built against OLD omits `owner`; a client that
    # sends jobs/cancel meets a server that no longer answers it.
    assert found == {
        ("field.added.required", "Job.owner"): ("compatible", "breaking"),
        ("method.removed", "jobs/cancel"): ("breaking", "compatible"),
        ("definition.removed", "CancelJobRequest"): ("compatible", "compatible"),
        ("definition.removed", "CancelJobResult"): ("compatible", "compatible"),
    }


def test_the_gates_and_ignore_entries_apply_to_extensions(tmp_path: Path) -> None:
    old = write(tmp_path, "old.json", jobs())
    new = write(tmp_path, "new.json", jobs(with_cancel=False))
    code, _, err = run(old, new, "--fail-on", "client")
    assert code == 1 and err == "mcpgen: --fail-on client: 1 change breaks clients (exit 1)\n"
    ignore = tmp_path / "accepted.txt"
    ignore.write_text("method.removed jobs/*\n", "utf-8")
    code, out, _ = run(old, new, "--fail-on", "client", "--ignore", str(ignore))
    assert code == 0 and "1 ignored" in out


def test_copies_that_match_the_revision_report_nothing(tmp_path: Path) -> None:
    core = write(tmp_path, "core.json", world())
    assert changes(core, write(tmp_path, "jobs.json", jobs())) == []


def test_a_drifted_copy_is_reported_against_the_revision_both_ways(tmp_path: Path) -> None:
    drifted = obj({"name": STRING, "dryRun": {"type": "boolean"}}, ("name", "dryRun"))
    core_schema, ext_schema = world(), jobs(copies={"CallParams": drifted})
    instance = {"name": "x"}
    assert accepts(core_schema, "CallParams", instance) and not accepts(ext_schema, "CallParams", instance)
    core, ext = write(tmp_path, "core.json", core_schema), write(tmp_path, "jobs.json", ext_schema)
    ahead = changes(core, ext)
    assert [(c["kind"], c["subject"], c["client"], c["server"]) for c in ahead] == [
        ("field.added.required", "CallParams.dryRun", "breaking", "compatible")  # the client writes CallParams
    ]
    behind = changes(ext, core)
    assert [(c["kind"], c["subject"]) for c in behind] == [("field.removed.required", "CallParams.dryRun")]
    code, out, _ = run(core, ext)
    assert out.splitlines()[0] == f"mcpgen diff {core} → {ext}"


def test_a_file_of_neither_kind_is_refused_with_what_diff_accepts(tmp_path: Path) -> None:
    core = write(tmp_path, "core.json", world())
    unnamed = jobs()
    unnamed["description"] = "Jobs."
    path = write(tmp_path, "unnamed.json", unnamed)
    code, out, err = run(core, path)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "neither a revision's schema" in err and f"IDENTIFIER={path}" in err and "--extension" not in err
    assert changes(core, f"{JOBS}={path}") == []


def test_an_extension_with_a_reference_to_nothing_is_one_error_line(tmp_path: Path) -> None:
    """Two versions of an extension are read without the revision: a dangling `$ref` was typed `Any`."""
    dangling = jobs(job=obj({"jobId": STRING, "owner": ref("Owner")}, ("jobId",)))
    code, out, err = run(write(tmp_path, "old.json", jobs()), write(tmp_path, "new.json", dangling))
    assert (code, out) == (2, "") and err == "mcpgen: error: schema reference '#/$defs/Owner' does not resolve\n"
