"""The judging process of `mcpgen tap`: reads the relay's records on stdin, judges, reports on stderr.

Started by the tap (`python -m mcpgen.commands.tap.worker CONFIG`) in a session of its own, so that a
Ctrl-C meant for the tap does not stop it: it ends when its input does, after the summary.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time

from ...errors import McpgenError
from ...reporting import one_line
from .capture import Capture
from .channel import C2S, DIRECTIONS, GAP, HTTP, S2C, SKIP, Records, read_gap, read_http
from .config import TapConfig
from .judge import Judge
from .report import Reporter

TICK = 0.25
"""Seconds between looks at the requests in flight."""
NICENESS = 10
"""How much lower the judging process's scheduling priority is than the tap's."""
GATHER, PAUSE = 64 * 1024, 0.01
"""After a read of fewer bytes than GATHER, the judge waits PAUSE seconds before it judges them, so that
it wakes a hundred times a second at most rather than once per message (judging a few messages later)."""


def run(config: TapConfig, fd: int) -> None:
    """Judge the records read from `fd` until it ends, then print the summary."""
    reporter = Reporter(config.format, config.color)
    capture = Capture(config.log) if config.log is not None else None
    judge = Judge(config, reporter, capture)
    records = Records()
    broken = False
    ticked = time.monotonic()
    while True:
        readable, _, _ = select.select([fd], [], [], TICK)
        if readable:
            data = os.read(fd, 1 << 20)
            if not data:
                break
            if len(data) < GATHER:  # let the next few records gather: fewer wake-ups beside the relay
                time.sleep(PAUSE)
            for kind, mono, wall, payload in records.feed(data):
                if broken:
                    continue
                try:
                    dispatch(judge, kind, mono, wall, payload)
                except McpgenError as exc:  # the schema or the package cannot be had: relay only
                    reporter.note(f"cannot judge: {one_line(exc)}; relaying without judging")
                    broken = True
                except Exception as exc:  # a bug in the judge: say so, and judge what comes next
                    reporter.note(f"internal error: {type(exc).__name__}: {one_line(exc, 300)} (please report this)")
        if not broken and time.monotonic() - ticked >= TICK:
            ticked = time.monotonic()
            judge.tick(ticked)
    if broken:
        reporter.summary([], 0)
    else:
        judge.finish()


def dispatch(judge: Judge, kind: int, mono: float, wall: float, payload: bytes) -> None:
    """Hand one record to the judge."""
    if kind in (C2S, S2C):
        judge.data(DIRECTIONS[kind], payload, mono, wall)
    elif kind == GAP:
        judge.gap(*read_gap(payload))
    elif kind == SKIP:
        direction, count, _ = read_gap(payload)
        judge.lines[direction].skipped(count)
    elif kind == HTTP:
        judge.http(*read_http(payload), mono, wall)


def main() -> None:
    """The process's entry point."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)  # the relay and its peers come first: judging takes the CPU they leave
    config = TapConfig.from_json(sys.argv[1])
    try:
        run(config, sys.stdin.fileno())
    except McpgenError as exc:
        print(f"mcpgen tap: error: {one_line(exc)}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
