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
