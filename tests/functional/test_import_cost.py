"""Importing a generated package builds no validator: each model builds its own on first use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .packages import generate_package
from .schemas import Schema, mcp_schema, obj, ref, request, result

FRESH = """
import json
import fn_lazy, fn_lazy.client, fn_lazy.methods, fn_lazy.server, fn_lazy.types as types
seen = {"built": types.Measure.__pydantic_complete__}
message = fn_lazy.parse_message(b'{"jsonrpc": "2.0", "id": 1, "method": "measure", "params": {}}')
measure = types.Measure.model_validate({"n": 1.5, "unit": "m"})
seen.update(read=type(message).__name__, n=measure.n, built_after=types.Measure.__pydantic_complete__)
try:
    types.Measure.model_validate({"unit": "m"})
except Exception as error:
    seen["refused"] = type(error).__name__
print(json.dumps(seen))
"""


def lazy_schema() -> Schema:
    """A request whose result holds a model with a required number."""
    measure = obj({"n": {"type": "number"}, "unit": {"type": "string"}}, ["n"])
    return mcp_schema(
        {
            "Measure": measure,
            "MeasureRequest": request("measure"),
            "MeasureResult": result({"m": ref("Measure")}),
        },
        client_requests=["MeasureRequest"],
    )


def test_importing_a_package_builds_no_validator_until_a_model_is_used(tmp_path: Path) -> None:
    generate_package(tmp_path, lazy_schema(), "fn_lazy")
    done = subprocess.run(
        [sys.executable, "-c", FRESH],
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen["built"] is False
    assert seen["read"] == "MeasureRequest"
    assert seen["n"] == 1.5 and seen["built_after"] is True
    assert seen["refused"] == "ValidationError"


SERVING_ONLY = (
    "asyncio",
    "concurrent.futures",
    "selectors",
    "socket",
    "ssl",
    "subprocess",
    "fn_lean.auth",
    "fn_lean.http",
    "fn_lean.stdio",
    "fn_lean.runtime.auth",
    "fn_lean.runtime.fanout",
    "fn_lean.runtime.http",
    "fn_lean.runtime.redis_tasks",
    "fn_lean.runtime.skills",
    "fn_lean.runtime.stdio",
    "fn_lean.runtime.tasks",
)
"""Modules only serving or awaiting a task needs: importing the package must load none of them."""

LEAN = """
import json, sys
import fn_lean.types, fn_lean.methods, fn_lean.server, fn_lean.client
loaded = sorted(name for name in {names!r} if name in sys.modules)
import fn_lean
from fn_lean import stdio
seen = {{"loaded": loaded, "stdio": stdio is fn_lean.stdio and stdio.__name__, "serve": callable(stdio.serve_stdio)}}
try:
    fn_lean.nothing_here
except AttributeError as error:
    seen["missing"] = str(error)
print(json.dumps(seen))
"""


def test_importing_a_package_loads_nothing_only_serving_needs(tmp_path: Path) -> None:
    generate_package(tmp_path, lazy_schema(), "fn_lean")
    done = subprocess.run(
        [sys.executable, "-c", LEAN.format(names=SERVING_ONLY)],
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen["loaded"] == []
    assert seen["stdio"] == "fn_lean.stdio" and seen["serve"] is True
    assert seen["missing"] == "module 'fn_lean' has no attribute 'nothing_here'"
