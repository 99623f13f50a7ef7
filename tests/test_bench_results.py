"""`benchmarks/run.py --json FILE` writes what it measured as numbers, and `benchmarks/plot.py` draws a
bar for every ratio of it, marked by its target: a real (quick) generation benchmark, then its plot; the
runner's `Server.handle` rows time whole answers."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from shared import REPO_ROOT

BENCHMARKS = REPO_ROOT / "benchmarks"


def test_a_quick_generation_run_is_written_as_json_and_plotted(schema_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    argv = [sys.executable, str(BENCHMARKS / "run.py"), "--quick", "--only", "generation", "--reps", "1"]
    done = subprocess.run([*argv, "--schema-dir", str(schema_dir), "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text("utf-8"))
    assert results["format"] == "mcpgen-bench/1" and results["parts"] == ["generation"] and results["reps"] == 1
    rows = {row["benchmark"]: row for row in results["rows"]}
    cold = rows["generate 2025-11-25 (cold cache)"]
    assert cold["target"]["op"] == "<=" and cold["target"]["bound"] == 0.6  # issue 35: cold generation in 0.6x
    seconds = [float(value.split()[0]) for value in (cold["mcpgen"], cold["baseline"])]
    assert abs(cold["ratio"] - seconds[0] / seconds[1]) < 0.02  # the printed ratio, from the printed times
    assert cold["target"]["met"] == (cold["ratio"] <= 0.6)
    assert rows["peak RSS 2025-11-25"]["ratio"] is None and rows["cpu time 2025-11-25"]["target"] is None
    for row in results["rows"]:  # every ratio the run printed is in the JSON, as a number
        if row["ratio"] is not None:
            assert re.search(rf"{re.escape(row['benchmark'])}.*{row['ratio']:.2f}x", done.stdout), row

    spec = importlib.util.spec_from_file_location("plot", BENCHMARKS / "plot.py")
    assert spec is not None and spec.loader is not None
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    svg = plot.chart(results, "quick")
    plotted = [row for row in results["rows"] if row["ratio"] is not None]
    assert len(re.findall(r'height="16" fill=', svg)) == len(plotted)
    assert len(re.findall(r'stroke="#212121" stroke-width="2"/>', svg)) == sum(row["target"] is not None for row in plotted) + 1


def test_the_server_handle_rows_time_whole_answers(packages: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    """What the runner times for `Server.handle` is the answer, not a coroutine made and dropped
    (`Peer.handle` hands on the endpoint's coroutine: a plain function returning one)."""
    import warnings

    spec = importlib.util.spec_from_file_location("bench_run", BENCHMARKS / "run.py")
    assert spec is not None and spec.loader is not None
    run = importlib.util.module_from_spec(spec)
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setitem(sys.modules, "bench_run", run)  # its dataclasses look their module up
    spec.loader.exec_module(run)
    handle = run.server_handler(packages["2025-11-25"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a coroutine never awaited warns when it is dropped
        reply = handle(b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}')
        refused = handle(b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {}}')
    assert reply == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert refused["id"] == 4 and refused["error"]["code"] == -32602
