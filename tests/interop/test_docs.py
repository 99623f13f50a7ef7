"""The server and client of docs/stubs.md run as written, over stdio."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "stubs.md"


def test_guide_server_and_client_run(generated_dir: Path, tmp_path: Path) -> None:
    text = DOC.read_text("utf-8")
    server, client = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(server.splitlines()) <= 26 and len(client.splitlines()) <= 26
    (tmp_path / "server.py").write_text(server, "utf-8")
    (tmp_path / "client.py").write_text(client, "utf-8")
    shutil.copytree(generated_dir / "mcp_2025_11_25", tmp_path / "mcp_2025_11_25")
    done = subprocess.run(
        [sys.executable, "client.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    expected = re.search(r"\$ python client.py\n(.*?)```", text, re.S)
    assert expected is not None
    assert done.stdout == expected.group(1)
