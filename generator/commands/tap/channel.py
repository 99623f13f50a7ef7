"""The channel from the relay to the judging process: framed records through a pipe, never waited on.

The relay hands each chunk it relays to `Feed.put`, which writes it to the judging process's pipe
(`python -m mcpgen.commands.tap.worker`; the pipe holds PIPE_SIZE bytes) and returns; what the pipe
cannot take waits in a backlog of at most `BACKLOG` bytes. When judging falls further behind than that,
what does not fit is relayed but neither judged nor logged, and the judge is told how many bytes of
which direction it missed (a gap record), which it reports and counts in the summary: memory stays
bounded whatever a peer sends.
"""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from typing import Any, Iterator

from .config import TapConfig

C2S, S2C, GAP, HTTP, SKIP = 1, 2, 3, 4, 5
"""Record kinds: bytes the client sent, bytes the server sent, bytes not judged (judging fell behind), an
HTTP event, bytes of a line too long to judge (counted, not handed over)."""
DIRECTIONS = {C2S: "c2s", S2C: "s2c"}
_HEAD = struct.Struct("<BIdd")  # kind, payload length, monotonic and wall-clock seconds when relayed
_GAP = struct.Struct("<BQ?")  # direction kind, bytes missed, whether they ended a line
BACKLOG = 32 * 1024 * 1024
"""Bytes queued for judging at most; beyond, the relay goes on and the judge hears of a gap."""
JUDGE_GRACE = 5.0
"""Seconds the tap waits at exit for the judge to catch up and print its summary; a judge still behind
then goes on alone (it is in a session of its own) and prints the summary when it is done."""
PIPE_SIZE = 1 << 20
"""The pipe to the judge is widened to this (Linux's default maximum), so that what is queued in the
kernel survives the tap being killed."""


def frame(kind: int, payload: bytes, mono: float, wall: float) -> bytes:
    """One record as it goes through the pipe."""
    return _HEAD.pack(kind, len(payload), mono, wall) + payload


def gap_payload(direction: int, missed: int, whole: bool) -> bytes:
    """The payload of a gap record (`whole`: the bytes missed ended with a newline)."""
    return _GAP.pack(direction, missed, whole)


def read_gap(payload: bytes) -> tuple[str, int, bool]:
    """The direction, byte count and line end of a gap record."""
    direction, missed, whole = _GAP.unpack(payload)
    return DIRECTIONS[direction], missed, whole


def http_payload(event: dict[str, object], body: bytes = b"") -> bytes:
    """The payload of an HTTP record: the event as JSON, then the bytes it carries."""
    head = json.dumps(event, separators=(",", ":")).encode()
    return len(head).to_bytes(4, "little") + head + body


def read_http(payload: bytes) -> tuple[dict[str, Any], bytes]:
    """The event and the bytes of an HTTP record."""
    size = int.from_bytes(payload[:4], "little")
    event: dict[str, Any] = json.loads(payload[4 : 4 + size])
    return event, payload[4 + size :]


class Records:
    """Splits the bytes read from the pipe into records (kind, monotonic, wall, payload)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[tuple[int, float, float, bytes]]:
        """Every record `data` completes."""
        self._buffer += data
        at = 0
        while len(self._buffer) - at >= _HEAD.size:
            kind, length, mono, wall = _HEAD.unpack_from(self._buffer, at)
            end = at + _HEAD.size + length
            if len(self._buffer) < end:
                break
            yield kind, mono, wall, bytes(self._buffer[at + _HEAD.size : end])
            at = end
        del self._buffer[:at]


class Feed:
    """The relay's side of the channel: a judging process, and the bounded backlog of what its pipe could
    not take at once.

    `put` writes to the pipe itself (it does not block: the pipe is non-blocking), so that while the
    judge keeps up no thread is woken; what the pipe cannot take waits in the backlog, which a thread
    of its own writes as the judge reads, in order.
    """

    def __init__(self, config: TapConfig, backlog: int = BACKLOG) -> None:
        argv = [sys.executable, "-m", "mcpgen.commands.tap.worker", config.to_json()]
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)
        assert self.process.stdin is not None
        self._pipe = self.process.stdin.fileno()
        _widen(self._pipe)
        os.set_blocking(self._pipe, False)
        self._limit = backlog
        self._queue: deque[bytes] = deque()
        self._queued = 0
        self._missed = {C2S: 0, S2C: 0}
        self._whole = {C2S: True, S2C: True}  # whether the bytes missed last ended a line
        self._closed = False
        self.dead = False
        self._ready = threading.Condition()
        self._writer = threading.Thread(target=self._write, name="mcpgen-tap-feed", daemon=True)
        self._writer.start()

    def put(self, kind: int, payload: bytes, direction: int, mono: float | None = None, wall: float | None = None) -> None:
        """Hand a record to the judge, or count its bytes as missed when the backlog is full; never blocks on the judge."""
        record = frame(kind, payload, time.monotonic() if mono is None else mono, time.time() if wall is None else wall)
        with self._ready:
            if self.dead or self._closed:
                return
            missed = self._missed[direction]
            if self._queued + len(record) > self._limit:
                self._missed[direction] = missed + len(payload)
                self._whole[direction] = payload.endswith(b"\n")
                return
            if missed:
                self._missed[direction] = 0
                record = frame(GAP, gap_payload(direction, missed, self._whole[direction]), time.monotonic(), time.time()) + record
            self._send(record)

    def _send(self, data: bytes) -> None:
        """Write what the pipe takes now, and queue the rest behind what is queued (the lock held)."""
        if not self._queue:
            try:
                data = data[os.write(self._pipe, data) :]
            except BlockingIOError:
                pass
            except OSError:
                self.dead = True
                return
            if not data:
                return
            self._ready.notify()
        self._queue.append(data)
        self._queued += len(data)

    def _write(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed and not self.dead:
                    self._ready.wait()
                if not self._queue or self.dead:
                    break
            select.select([], [self._pipe], [], 1.0)
            with self._ready:
                while self._queue:
                    head = self._queue[0]
                    try:
                        written = os.write(self._pipe, head)
                    except BlockingIOError:
                        break
                    except OSError:
                        self.dead = True
                        self._queue.clear()
                        self._queued = 0
                        break
                    self._queued -= written
                    if written < len(head):
                        self._queue[0] = head[written:]
                        break
                    self._queue.popleft()
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass

    def close(self, grace: float = JUDGE_GRACE, leaving: threading.Event | None = None) -> bool:
        """Send what is queued (and any gap left), end the judge's input and wait for it to print its
        summary, at most `grace` seconds or until `leaving` is set; False when it is still judging then
        (it goes on alone)."""
        with self._ready:
            for direction, missed in self._missed.items():
                if missed and not self.dead:
                    self._send(frame(GAP, gap_payload(direction, missed, self._whole[direction]), time.monotonic(), time.time()))
            self._closed = True
            self._ready.notify()
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and not (leaving is not None and leaving.is_set()):
            try:
                self.process.wait(0.05)
                return True
            except subprocess.TimeoutExpired:
                pass
        return self.process.poll() is not None


def _widen(pipe: int) -> None:
    """Make a pipe hold PIPE_SIZE bytes where the system allows (Linux's F_SETPIPE_SZ)."""
    try:
        import fcntl

        fcntl.fcntl(pipe, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    except (OSError, ImportError):
        pass
