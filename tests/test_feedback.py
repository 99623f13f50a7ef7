"""Feedback: progress on a terminal only, -q/-v, the URL of a failed download, colour choices, --help examples, completion."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mcpgen import console
from mcpgen.inputs import sources as source
from mcpgen.cli import EXAMPLES, main
from mcpgen.inputs.pins import KNOWN_REVISIONS, get_pin

MCPGEN = str(Path(sys.executable).parent / "mcpgen")
ESC = "\x1b["


def run_on_terminal(argv: list[str], env: dict[str, str] | None = None, stdout_too: bool = False) -> tuple[int, str, str]:
    """Run `argv` with stderr (and stdout when `stdout_too`) on a pseudo-terminal; exit code, terminal text, piped stdout."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=slave if stdout_too else subprocess.PIPE, stderr=slave,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    os.close(slave)
    screen = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        screen += data
    os.close(master)
    out = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(timeout=600), screen.decode(errors="replace"), out


def test_progress_on_a_terminal_only(tmp_path: Path, schema_dir: Path) -> None:
    argv = [MCPGEN, "-r", "all", "-o", str(tmp_path / "all"), "--schema-dir", str(schema_dir), "--force"]
    code, screen, out = run_on_terminal(argv)
    assert code == 0, screen
    assert "writing 5/5: " in screen and "\r\x1b[K" in screen
    assert out.count("wrote ") == 5
    code, screen, _ = run_on_terminal([*argv, "-q"])
    assert code == 0 and screen == ""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stderr == ""  # not a terminal: no progress


def test_download_progress_names_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    class Response(io.BytesIO):
        headers = {"Content-Length": str(40 * 1024)}

        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: Any) -> None:
            self.close()

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    import urllib.request

    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: Response(b"x" * 40 * 1024))
    screen = Terminal()
    with console.activated(console.Console(stream=screen)):
        assert source.https_fetch("https://example.invalid/schema.json") == b"x" * 40 * 1024
    text = screen.getvalue()
    assert "downloading https://example.invalid/schema.json: 16 KiB of 40 KiB" in text
    assert "downloading https://example.invalid/schema.json: 40 KiB of 40 KiB" in text
    assert text.endswith("\r\x1b[K")  # the progress line is cleared at the end


def test_a_failed_download_names_the_url(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MCPGEN_SCHEMA_DIR"}
    env.update(MCPGEN_CACHE_DIR=str(tmp_path / "cache"), https_proxy="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
    done = subprocess.run(
        [MCPGEN, "-r", "2025-11-25", "-o", str(tmp_path / "out")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("mcpgen: error: cannot download the 2025-11-25 schema from ")
    assert get_pin("2025-11-25").url in line and "--schema-dir" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_verbose_says_where_things_come_from_and_quiet_says_nothing(tmp_path: Path, schema_dir: Path) -> None:
    out = tmp_path / "pkg"
    args = ["-r", "2024-11-05", "-o", str(out), "--schema-dir", str(schema_dir), "--force"]
    result = CliRunner().invoke(main, ["generate", *args, "-v"])
    assert result.exit_code == 0, result.output
    assert f"mcpgen: schema 2024-11-05: {schema_dir / '2024-11-05' / 'schema.json'} (sha256 " in result.stderr
    assert "mcpgen: package cache: " in result.stderr
    result = CliRunner().invoke(main, ["-q", "generate", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    result = CliRunner().invoke(main, ["check", str(out), "-q"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    result = CliRunner().invoke(main, ["generate", *args, "-q", "-v"])
    assert result.exit_code == 2 and "--quiet and --verbose contradict each other" in result.stderr


DIFF = ["diff", "2025-06-18", "2025-11-25"]


@pytest.mark.parametrize(
    "args, terminal, env, coloured",
    [
        (DIFF, True, {}, True),
        (DIFF, True, {"NO_COLOR": "1"}, False),
        (["--no-color", *DIFF], True, {}, False),
        (DIFF, False, {}, False),
        (["--color", *DIFF], False, {}, True),
        (["--color", *DIFF], True, {"NO_COLOR": "1"}, True),  # the option wins over the variable
    ],
    ids=["terminal", "NO_COLOR", "--no-color", "pipe", "--color", "--color-over-NO_COLOR"],
)
def test_colour_choices_reach_diff(args: list[str], terminal: bool, env: dict[str, str], coloured: bool) -> None:
    result = CliRunner().invoke(main, args, color=terminal, env={"NO_COLOR": None, **env})
    assert result.exit_code == 0, result.output
    assert (ESC in result.stdout) is coloured


def test_no_color_on_a_real_terminal() -> None:
    code, screen, _ = run_on_terminal([MCPGEN, *DIFF], stdout_too=True)
    assert code == 0 and ESC in screen
    code, screen, _ = run_on_terminal([MCPGEN, *DIFF], env={"NO_COLOR": "1"}, stdout_too=True)
    assert code == 0 and ESC not in screen and "mcpgen diff 2025-06-18 → 2025-11-25" in screen


def test_the_tap_colours_its_lines_on_a_terminal_unless_told_not_to(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text("print('not json')\n")
    argv = ["tap", "--", sys.executable, str(server)]
    code, screen, _ = run_on_terminal([MCPGEN, *argv])
    assert code == 0 and ESC in screen and "not JSON" in screen
    line = "mcpgen tap: s2c message 1: not JSON (Expecting value: line 1 column 1 (char 0))"
    for plain in ([MCPGEN, "--no-color", *argv], [MCPGEN, *argv]):
        code, screen, _ = run_on_terminal(plain, env={"NO_COLOR": "1"} if plain[1] == "tap" else None)
        assert code == 0 and ESC not in screen and line in screen.replace("\r\n", "\n").splitlines()


def test_every_command_ends_its_help_with_examples() -> None:
    runner = CliRunner()
    names = ["", *main.list_commands(None)]  # type: ignore[arg-type]
    assert set(names) - {""} <= set(EXAMPLES)
    for name in names:
        result = runner.invoke(main, [*name.split(), "--help"])
        assert result.exit_code == 0
        head, _, tail = result.stdout.rpartition("Examples:")
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        assert head and 2 <= len(lines) <= 3, (name, tail)
        assert all(line.startswith("mcpgen") for line in lines), lines


def complete(words: str) -> list[str]:
    env = {**os.environ, "_MCPGEN_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
    done = subprocess.run([MCPGEN], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines()]


def test_known_extensions_complete_in_the_shell() -> None:
    assert complete("mcpgen generate --extension t") == ["tasks"]
    assert complete("mcpgen --extension a") == ["apps"]


def test_revisions_complete_in_the_shell() -> None:
    assert complete("mcpgen generate --revision 2025-") == [r for r in KNOWN_REVISIONS if r.startswith("2025-")]
    assert complete("mcpgen -r a") == ["all"]
    assert complete("mcpgen generate --revision 2024-11-05,2026") == ["2024-11-05,2026-07-28"]
    assert complete("mcpgen generate --surface 2024") == ["2024-11-05"]


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o"), ("zsh", "compdef"), ("fish", "complete --no-files")])
def test_the_documented_completion_scripts(shell: str, marker: str) -> None:
    documented = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text()
    assert f"_MCPGEN_COMPLETE={shell}_source mcpgen" in documented
    done = subprocess.run([MCPGEN], env={**os.environ, "_MCPGEN_COMPLETE": f"{shell}_source"}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and marker in done.stdout
