"""Cutting relayed bytes into messages: stdio lines and SSE events, each bounded in size."""

from __future__ import annotations

import re

MAX_MESSAGE = 16 * 1024 * 1024
"""The longest message judged, in bytes; a longer one is relayed, reported and neither judged nor logged."""
_NEWLINE = re.compile(rb"\n")
_SSE_END = re.compile(rb"\r\n?|\n")
"""How an SSE line may end: CRLF, LF or CR."""
_CR_OR_LF = re.compile(rb"[\r\n]")


class Budget:
    """The relay's side of the bound: of each line, the judge is handed the first `limit` + 1 bytes (enough
    to know it is too long) and only the count of the rest, so a huge line costs the queue little.
    `cr`: a CR ends a line too (SSE)."""

    def __init__(self, limit: int = MAX_MESSAGE, cr: bool = False) -> None:
        self.limit = limit + 1
        self._cr = cr
        self._line = 0  # bytes of the line under way handed over
        self._skipped = 0  # bytes of it counted only

    def take(self, data: bytes) -> list[bytes | int]:
        """What to hand over of `data`: bytes, and counts of bytes left out (each before the newline ending them)."""
        if not self._skipped and self._line + len(data) <= self.limit:
            end = max(data.rfind(b"\n"), data.rfind(b"\r") if self._cr else -1)
            self._line = self._line + len(data) if end < 0 else len(data) - end - 1
            return [data]
        out: list[bytes | int] = []
        start = 0
        while start < len(data):
            found = (_CR_OR_LF if self._cr else _NEWLINE).search(data, start)  # a CRLF counts as two line ends here
            end = -1 if found is None else found.start()
            stop = len(data) if end < 0 else end
            keep = min(max(0, self.limit - self._line), stop - start)
            if keep:
                _add(out, data[start : start + keep])
            self._line += keep
            self._skipped += stop - start - keep
            if end < 0:
                break
            if self._skipped:
                out.append(self._skipped)
            _add(out, data[end : end + 1])
            self._line = self._skipped = 0
            start = end + 1
        return out


def _add(out: list[bytes | int], data: bytes) -> None:
    if out and isinstance(out[-1], bytes):
        out[-1] += data
    else:
        out.append(data)


class Lines:
    """Splits a byte stream into lines; a line longer than the limit is given as its length alone. `cr`:
    lines end with CRLF, LF or CR (SSE), not LF alone."""

    def __init__(self, limit: int = MAX_MESSAGE, cr: bool = False) -> None:
        self.limit = limit
        self._ends = _SSE_END if cr else _NEWLINE
        self._after_cr = False  # the last line ended with a CR: an LF starting the next data belongs to it
        self._buffer = bytearray()
        self._skipping = 0  # bytes of an overlong line seen so far
        self._resync = False  # bytes were lost: the line under way is not whole

    def feed(self, data: bytes) -> list[tuple[bytes | None, int]]:
        """The lines `data` completes, each (bytes without the newline, or None when too long; its length)."""
        out: list[tuple[bytes | None, int]] = []
        start = 1 if self._after_cr and data.startswith(b"\n") else 0
        if data:
            self._after_cr = data.endswith(b"\r") and self._ends is _SSE_END
        while True:
            found = self._ends.search(data, start)
            if found is None:
                self._hold(data[start:])
                return out
            piece = data[start : found.start()]
            start = found.end()
            if self._resync:
                self._resync = False
                self._buffer.clear()
                self._skipping = 0
            elif self._skipping:
                out.append((None, self._skipping + len(piece)))
                self._skipping = 0
            elif len(self._buffer) + len(piece) > self.limit:
                out.append((None, len(self._buffer) + len(piece)))
                self._buffer.clear()
            elif self._buffer:
                self._buffer += piece
                out.append((bytes(self._buffer), len(self._buffer)))
                self._buffer.clear()
            else:
                out.append((piece, len(piece)))

    def _hold(self, piece: bytes) -> None:
        if self._resync:
            return
        if self._skipping:
            self._skipping += len(piece)
        elif len(self._buffer) + len(piece) > self.limit:
            self._skipping = len(self._buffer) + len(piece)
            self._buffer.clear()
        else:
            self._buffer += piece

    def skipped(self, count: int) -> None:
        """`count` bytes of the (too long) line under way were counted by the relay, not handed over."""
        self._after_cr = False
        if self._resync:
            return
        self._skipping = (self._skipping or len(self._buffer)) + count
        self._buffer.clear()

    def lost(self, whole: bool = False) -> None:
        """Bytes of the stream were not seen: drop the line under way, and start again after the next
        newline (or at once, when the bytes lost ended a line: `whole`)."""
        self._buffer.clear()
        self._skipping = 0
        self._after_cr = False
        self._resync = not whole

    def rest(self) -> tuple[bytes | None, int] | None:
        """What remains after the stream ended without a final newline."""
        if self._resync or not (self._buffer or self._skipping):
            return None
        out = (None, self._skipping) if self._skipping else (bytes(self._buffer), len(self._buffer))
        self._buffer.clear()
        self._skipping = 0
        return out


class Events:
    """Splits a `text/event-stream` body into the data of its events (None for one over the limit)."""

    def __init__(self, limit: int = MAX_MESSAGE) -> None:
        self._lines = Lines(limit, cr=True)
        self._data: list[bytes] = []
        self._size = 0
        self._too_long = False
        self.limit = limit

    def skipped(self, count: int) -> None:
        """`count` bytes of the line under way were counted by the relay, not handed over."""
        self._lines.skipped(count)

    def feed(self, chunk: bytes) -> list[tuple[bytes | None, int]]:
        """The events `chunk` completes: (their data joined by newlines, or None when too long; its length)."""
        out: list[tuple[bytes | None, int]] = []
        for line, length in self._lines.feed(chunk):
            if line is None:
                self._too_long = True
                self._size += length
                continue
            if not line:
                if self._data or self._too_long:
                    out.append((None if self._too_long else b"\n".join(self._data), self._size))
                self._data, self._size, self._too_long = [], 0, False
                continue
            field, _, value = line.partition(b":")
            if field != b"data":
                continue
            value = value[1:] if value.startswith(b" ") else value
            self._size += len(value)
            if self._size > self.limit:
                self._too_long, self._data = True, []
            elif not self._too_long:
                self._data.append(value)
        return out
