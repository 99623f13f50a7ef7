"""The documentation site: `mkdocs build --strict` builds it (every link and anchor resolves), its API
reference has the public names and the guides link to them, the performance page has its plots and the
timeline its chart, and headless Chromium renders the home page and the performance page with the
theme's script running and no JavaScript error."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared import REPO_ROOT, missing

CHROMIUM = "/usr/bin/chromium"
PAGES = [
    "getting-started", "generated-package", "stubs", "http", "multi-revision", "authorization", "extensions",
    "scaling", "validate", "tap", "diff", "diff-rules", "revisions", "errata", "configuration", "performance",
    "architecture", "contributing", "limitations", "reference/package", "reference/runtime",
]  # fmt: skip
PACKAGE_NAMES = [
    "Server", "Client", "ProtocolError", "parse_message", "Server.handle", "Client.start_session",
    "http.streamable_http_app", "http.connect_http", "stdio.serve_stdio", "stdio.connect_stdio",
    "auth.OAuth", "auth.ClientCredentials", "auth.JwtBearer", "auth.ResourceServer", "auth.JwtVerifier",
    "auth.AccessToken", "auth.access_token",
]  # fmt: skip
RUNTIME_NAMES = [
    "ServerBase", "ClientBase", "http.streamable_http_app", "http.connect_http", "stdio.serve_stdio",
    "auth.ResourceServer", "auth.OAuth", "fanout.RedisFanout", "fanout.Fanout",
]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built from the checkout with `mkdocs build --strict` (a warning fails the build)."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
        missing("mkdocs and mkdocstrings are not installed (pip install '.[test]' or '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def html(site: Path, page: str) -> str:
    """The built HTML of a page."""
    return (site / page / "index.html").read_text("utf-8") if page else (site / "index.html").read_text("utf-8")


def test_every_page_is_built(site: Path) -> None:
    for page in PAGES:
        assert "<h1" in html(site, page), page


def test_the_reference_documents_the_public_names(site: Path) -> None:
    package, runtime = html(site, "reference/package"), html(site, "reference/runtime")
    for name in PACKAGE_NAMES:
        assert f'id="mcp_2025_11_25.{name}"' in package, name
    for name in RUNTIME_NAMES:
        assert f'id="mcpgen.runtime.{name}"' in runtime, name


def test_guides_link_the_names_they_use_to_the_reference(site: Path) -> None:
    reference = "../reference/package/#mcp_2025_11_25."
    assert f'href="{reference}http.streamable_http_app"' in html(site, "http")
    assert f'href="{reference}http.connect_http"' in html(site, "http")
    assert f'href="{reference}auth.ResourceServer"' in html(site, "authorization")
    assert f'href="{reference}stdio.serve_stdio"' in html(site, "stubs")


def test_the_performance_page_plots_every_ratio_of_the_results(site: Path) -> None:
    page = html(site, "performance")
    for name in ("generation", "multi", "http"):
        assert f'src="../assets/performance/{name}.svg"' in page
        results = json.loads((REPO_ROOT / "benchmarks" / "results" / f"{name}.json").read_text("utf-8"))
        svg = (site / "assets" / "performance" / f"{name}.svg").read_text("utf-8")
        rows = [row for row in results["rows"] if row["ratio"] is not None]
        for row in rows:
            assert f">{row['ratio']:.2f}x</text>" in svg and f">{row['benchmark']}</text>" in svg.replace("&gt;", ">")
        bars = re.findall(r'<rect x="\d+" y="\d+" width="[\d.]+" height="16" fill="(#[0-9a-f]{6})"', svg)
        expected = ["#78909c" if not row["target"] else "#2e7d32" if row["target"]["met"] else "#e65100" for row in rows]
        assert rows and bars == expected


def test_the_timeline_counts_every_step_of_the_golden_diffs(site: Path) -> None:
    page = html(site, "revisions")
    reports = [json.loads(p.read_text("utf-8"))["summary"] for p in (REPO_ROOT / "tests/golden/diff").glob("*.json")]
    svg = (site / "assets" / "revisions.svg").read_text("utf-8")
    values = sorted(int(v) for v in re.findall(r'text-anchor="middle" fill="#212121">(\d+)</text>', svg))
    expected = sorted(v for s in reports for v in (s["breaking_client"], s["breaking_server"], s["changes"] - s["breaking"]))
    assert values == expected
    assert page.count("<h2") == len(reports) and 'src="../assets/revisions.svg"' in page


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on a free loopback port (as a reader gets it: the search worker needs HTTP)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Requests are not logged."""


def render(url: str, profile: Path) -> tuple[str, list[str]]:
    """The DOM headless Chromium has after loading `url` and running its scripts, and its console lines."""
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        missing("Debian's chromium is not installed (apt-get install chromium)")
    argv = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
        "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", url,
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.parametrize("page, title", [("", "mcpgen"), ("performance/", "Performance")])
def test_chromium_renders_the_page_with_its_scripts_and_no_error(served: str, tmp_path: Path, page: str, title: str) -> None:
    dom, console = render(served + page, tmp_path / "profile")
    assert not console, "\n".join(console)
    assert re.search(r'<html[^>]*class="[^"]*\bjs-focus-visible\b', dom), "the theme's script did not run"
    article = re.search(r'<article class="md-content__inner md-typeset">(.*?)</article>', dom, re.S)
    assert article is not None, "no article: a blank page"
    assert re.search(rf"<h1[^>]*>{title}", article.group(1))
    text = re.sub(r"<[^>]+>", " ", article.group(1))
    assert len(text.split()) > 300, "the page has almost no text"
    if page == "performance/":
        assert dom.count('<img alt="') >= 3 and "assets/performance/http.svg" in dom


def test_chromium_reports_a_script_error(served: str, site: Path, tmp_path: Path) -> None:
    """The console check can fail: a page with a broken script is reported."""
    (site / "broken.html").write_text("<html><body><h1>x</h1><script>undefinedFunction()</script></body></html>")
    _, console = render(served + "broken.html", tmp_path / "profile")
    assert any("Uncaught ReferenceError" in line for line in console)
