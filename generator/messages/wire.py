"""One message as read from a line: its value, direction and place, and the wrapped form a capture stores it in.

A capture line is a bare message, or `{"dir": "c2s"|"s2c", "msg": ...}` (what `mcpgen tap --log` writes,
with `"ts"` and, for HTTP sessions, `"session"`), or `{"dir": ..., "raw": "..."}`: a relayed line that is
not JSON, kept as its text so that reading the capture finds it unreadable in the same words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

SENDER = {"c2s": "client", "s2c": "server"}
"""Who sends the messages of each direction."""
OTHER = {"c2s": "s2c", "s2c": "c2s"}
"""The direction the answers to a direction's requests take."""
_OPTIONAL = {"ts", "session"}
TOO_DEEP = "JSON nested too deeply to read"
"""Why a line nested deeper than the JSON reader goes holds no message."""


@dataclass(frozen=True)
class Message:
    """One message of a capture: its place (file and line), value, direction when given, and place in a batch."""

    file: str
    line: int
    value: Any
    direction: str | None
    at: str = ""  # JSON pointer of the message in its line (an element of a batch)
    unreadable: str | None = None  # why the line holds no message at all
    session: str | None = None  # the HTTP session a tap capture names (its conversation)


def not_json(exc: ValueError) -> str:
    """The words for a line that is not JSON."""
    return f"not JSON ({exc})"


def parse(text: str, file: str, line: int, direction: str | None = None, session: str | None = None) -> Message:
    """The message a line of text holds (unwrapped when it is a capture record), or why it holds none."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        return Message(file, line, None, direction, unreadable=not_json(exc), session=session)
    except RecursionError:
        return Message(file, line, None, direction, unreadable=TOO_DEEP, session=session)
    if direction is not None:
        return Message(file, line, value, direction, session=session)
    return unwrap(value, file, line)


def unwrap(value: Any, file: str, line: int) -> Message:
    """A capture record as the message it holds; any other value as a message of unknown direction."""
    if not (isinstance(value, dict) and "dir" in value and len({"msg", "raw"} & set(value)) == 1 and set(value) <= {"dir", "msg", "raw", *_OPTIONAL}):
        return Message(file, line, value, None)
    if value["dir"] not in SENDER:
        return Message(file, line, value, None, unreadable=f"'dir' must be \"c2s\" or \"s2c\", not {value['dir']!r}")
    session = value.get("session")
    session = None if session is None else str(session)
    if "raw" in value:
        if not isinstance(value["raw"], str):
            return Message(file, line, value, None, unreadable="'raw' must be the text of a line")
        return parse(value["raw"], file, line, value["dir"], session)
    return Message(file, line, value["msg"], value["dir"], session=session)


def record(direction: str, message: Message | None, text: str, ts: str, session: str | None = None) -> str:
    """The capture line (no newline) of a relayed line: its message, or its text when it is not JSON."""
    out: dict[str, Any] = {"dir": direction}
    if message is not None and message.unreadable is None:
        out["msg"] = message.value
    else:
        out["raw"] = text
    out["ts"] = ts
    if session is not None:
        out["session"] = session
    return json.dumps(out, separators=(",", ":"))
