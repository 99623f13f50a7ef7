"""The stdio tap: start the server, relay both ways byte for byte, hand copies to the judge.

Two threads relay, each reading what is there (`os.read`) and writing it on at once: nothing is
re-encoded, reordered or held back; a copy is queued for the judge (which never blocks) first, so that
the judge sees a request before the response to it. The
server's stderr is the tap's. The main thread waits for the server, forwards the signals the tap gets,
and watches the relay: a peer that takes nothing of what the tap writes for --timeout seconds, or a
client that stops reading, ends the tap with one line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from typing import Callable

from .channel import C2S, S2C, SKIP, Feed, gap_payload
from .framing import Budget
from .config import TapConfig, TapError

CHUNK = 1 << 16
"""The most bytes one read takes."""
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
STOP_GRACE = 5.0
"""Seconds a server the tap stops has between SIGTERM and SIGKILL."""
DRAIN = 2.0
"""Seconds the tap waits, once the server exited, for the rest of its output (a child may hold the pipe)."""


class Relay:
    """The two relaying threads and what the main thread needs to know of them."""

    def __init__(self, server: subprocess.Popen[bytes], feed: Feed) -> None:
        assert server.stdin is not None and server.stdout is not None
        self.server = server
        self.feed = feed
        self.writing: dict[str, float | None] = {"c2s": None, "s2c": None}
        self.failure: str | None = None
        self.threads = [
            threading.Thread(target=self._relay, args=(0, server.stdin.fileno(), C2S, "c2s"), name="mcpgen-tap-c2s", daemon=True),
            threading.Thread(target=self._relay, args=(server.stdout.fileno(), 1, S2C, "s2c"), name="mcpgen-tap-s2c", daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def _relay(self, source: int, target: int, kind: int, direction: str) -> None:
        budget = Budget()
        while True:
            try:
                data = os.read(source, CHUNK)
            except OSError:
                data = b""
            if not data:
                self._ended(direction)
                return
            mono, wall = time.monotonic(), time.time()
            # Queued before it goes on, so that a request is queued before the response it gets.
            for part in budget.take(data):
                if isinstance(part, int):
                    self.feed.put(SKIP, gap_payload(kind, part, False), kind, mono, wall)
                else:
                    self.feed.put(kind, part, kind, mono, wall)
            self.writing[direction] = mono
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(target, view) :]
            except OSError:
                self._broken(direction)
                return
            finally:
                self.writing[direction] = None

    def _ended(self, direction: str) -> None:
        """The client closed its output (the server's input is closed in turn) or the server its own."""
        if direction == "c2s":
            _quietly(self.server.stdin.close)  # type: ignore[union-attr]
        else:
            _close_stdout()

    def _broken(self, direction: str) -> None:
        if direction == "s2c":
            self.failure = "the client stopped reading (the tap's stdout is closed)"

    def stalled(self, timeout: float) -> str | None:
        """Which peer has left what the tap wrote unread for longer than `timeout`, if one has."""
        now = time.monotonic()
        for direction, since in self.writing.items():
            if timeout and since is not None and now - since > timeout:
                peer = "server has not read its input" if direction == "c2s" else "client has not read the server's output"
                return f"the {peer} for {timeout:g} s"
        return None


def _close_stdout() -> None:
    """End the client's input: stdout becomes /dev/null (so nothing else takes its number)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass


def _quietly(close: Callable[[], None]) -> None:
    try:
        close()
    except OSError:
        pass


def exit_status(returncode: int) -> int:
    """The tap's exit status for the server's: the same, or 128+N when a signal N ended it (as a shell says)."""
    return 128 - returncode if returncode < 0 else returncode


def run_stdio(config: TapConfig) -> int:
    """Relay between this process's stdin/stdout and the server `config.command` starts, judging off the
    relay's path; the server's exit status. Raises TapError when the server cannot start or a peer stalls."""
    feed = Feed(config)
    try:
        server = subprocess.Popen(list(config.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, start_new_session=True)
    except OSError as exc:
        feed.close()
        raise TapError(f"cannot start {config.command[0]!r}: {exc.strerror or exc}") from None
    leaving = threading.Event()  # a signal once the server is gone: stop waiting for the judge

    def forward(number: int, frame: object) -> None:
        if server.returncode is not None:
            leaving.set()
        _forward(server, number)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        relay = Relay(server, feed)
        problem = _wait(server, relay, config.timeout)
        relay.threads[1].join(DRAIN)
        feed.close(leaving=leaving)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if problem is not None:
        raise TapError(problem)
    return exit_status(server.returncode)


def _wait(server: subprocess.Popen[bytes], relay: Relay, timeout: float) -> str | None:
    """Wait for the server to exit; stop it when a peer stalls or the client went away, and say why."""
    while True:
        try:
            server.wait(0.2)
            return relay.failure
        except subprocess.TimeoutExpired:
            pass
        problem = relay.failure or relay.stalled(timeout)
        if problem is not None:
            _stop(server)
            return f"{problem}: stopped the server"


def _forward(server: subprocess.Popen[bytes], number: int) -> None:
    if server.returncode is None:
        try:
            server.send_signal(number)
        except OSError:
            pass


def _stop(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after STOP_GRACE seconds."""
    _forward(server, signal.SIGTERM)
    try:
        server.wait(STOP_GRACE)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
