"""The README's HTTP server (10 lines) and client run as written, against each other on loopback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from httpserve import serve
from shared import REPO_ROOT


def _snippets() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text("utf-8")
    section = text.split("## Serving over HTTP", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_readme_server_and_client(packages: dict[str, ModuleType], generated_root: Path) -> None:
    server, client = _snippets()
    assert len([line for line in server.splitlines() if line.strip()]) <= 10
    namespace: dict[str, object] = {}
    exec(compile(server, "README server", "exec"), namespace)
    with serve(namespace["app"]) as served:
        port = served.url.split(":")[2].split("/")[0]
        code = client.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        env = {**os.environ, "PYTHONPATH": str(generated_root)}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hi\n"
