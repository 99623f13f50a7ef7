"""Test support: a throwaway `redis-server` (Debian's package) on a free loopback port, stopped and
started again on the same port at will. Missing redis-server or the redis package skips the test
(fails it under CI=true)."""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import socket
import subprocess
import time
from typing import Iterator

from shared import missing


def free_port() -> int:
    """A TCP port nothing listens on at the moment."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, alive: subprocess.Popen[bytes], what: str, timeout: float = 60) -> None:
    """Return once something accepts connections on `port`; fail when `alive` exits first or the time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if alive.poll() is not None or time.monotonic() > deadline:
                err = alive.stderr.read().decode(errors="replace") if alive.stderr else ""
                raise RuntimeError(f"{what} did not start on port {port}: {err[-2000:]}") from None
            time.sleep(0.05)


class RedisServer:
    """One redis-server keeping nothing on disk."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The URL clients connect with."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server on its port and wait until it answers."""
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for_port(self.port, self.process, "redis-server")

    def stop(self) -> None:
        """Kill the server (connections drop, published messages in flight are lost)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(30)
            self.process = None


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A running redis-server for the block."""
    if shutil.which("redis-server") is None:
        missing("redis-server not found (Debian: apt-get install redis-server)")
    if importlib.util.find_spec("redis") is None:
        missing("the redis package is not installed (pip install 'mcpgen[test]')")
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
