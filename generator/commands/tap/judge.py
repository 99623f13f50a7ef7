"""The live judge: every message the tap relays, judged as `mcpgen validate` judges a capture, plus the
rules only a live session shows; it runs in its own process, fed by the relay (`channel`)."""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from ...inputs.pins import KNOWN_REVISIONS
from ...messages.conversation import Conversation, Verdict
from ...messages.targets import id_key
from ...messages.validator import UNPAIRED
from ...messages.wire import TOO_DEEP, parse
from ...runtime.facts import Lifecycle
from . import redact
from .capture import Capture
from .config import TapConfig
from .framing import MAX_MESSAGE, Events, Lines
from .live import Live, Problem
from .report import Reporter, Violation, what
from .transport import SSE, Exchange, answer_problems, media, request_problems

HOLD = 1_000
"""Messages held per conversation while no handshake has named a revision; beyond, they go unjudged."""
MAX_SESSIONS = 1_000
"""HTTP sessions followed at once; the one heard from least recently is forgotten first."""
MAX_EXCHANGES = 1_024
"""HTTP exchanges followed at once (the proxy allows fewer)."""


class Session:
    """One conversation through the tap: its judge of messages, its live state, its message count."""

    def __init__(self, label: str | None, config: TapConfig, from_start: bool) -> None:
        self.label = label
        self.conversation = Conversation(config.revision, config.schema_dir, strict=False, hold=HOLD)
        self.live = Live(config.timeout, from_start)
        self.count = 0
        self.noted = 0  # the conversation's handshakes the judge has taken the revision of


class Reply:
    """The answer of one HTTP exchange as it streams: an SSE body cut into events, or a JSON body whole."""

    def __init__(self, exchange: Exchange, session: Session) -> None:
        self.exchange = exchange
        self.session = session
        self.events = Events() if media(exchange.answer.get("content-type"))[:1] == [SSE] else None
        self.body = bytearray()
        self.size = 0
        self.too_long = False
        self.lost = False  # judging fell behind and bytes of it were not handed over
        encoding = exchange.answer.get("content-encoding", "identity").strip().lower()
        self.encoded = None if encoding in ("", "identity") else encoding


class Judge:
    """Judges what one tap relays, session by session, and reports as it goes."""

    def __init__(self, config: TapConfig, reporter: Reporter, capture: Capture | None = None) -> None:
        self.config = config
        self.reporter = reporter
        self.capture = capture
        self.file = "http" if config.upstream else "stdio"
        self.sessions: OrderedDict[str | None, Session] = OrderedDict()
        self.lines = {"c2s": Lines(), "s2c": Lines()}
        self.exchanges: OrderedDict[int, Exchange | Reply] = OrderedDict()
        self.assigned = False  # the server gives HTTP sessions ids
        self._opened = 0  # HTTP sessions seen so far (their labels)
        self._revisions: list[str] = [config.revision] if config.revision else []
        """The revisions negotiated, in order (those of sessions already ended included)."""
        self._unanswered = 0  # requests of ended sessions that never got a response
        self._capture_failed = False

    # --- stdio -------------------------------------------------------------------------------------

    def data(self, direction: str, chunk: bytes, now: float, wall: float) -> None:
        """Bytes relayed over stdio: judge every line they complete."""
        session = self.session(None)
        for line, length in self.lines[direction].feed(chunk):
            self.message(session, direction, line, length, now, wall)

    def gap(self, direction: str, missed: int, whole: bool = False) -> None:
        """The relay could not queue `missed` bytes of `direction` for judging (judging fell behind);
        `whole`: they ended with a newline."""
        self.reporter.missed[direction] += missed
        self.lines[direction].lost(whole)
        for reply in self.exchanges.values():  # over HTTP, which answer lost bytes is not known: any may have
            if isinstance(reply, Reply):
                reply.lost = True
        self.reporter.note(f"judging fell behind: {missed} bytes {direction} relayed but not judged or logged", dir=direction, bytes=missed)

    # --- every transport ---------------------------------------------------------------------------

    def session(self, key: str | None, from_start: bool = True) -> Session:
        """The conversation `key` names (an HTTP session id; None over stdio or without a session)."""
        found = self.sessions.get(key)
        if found is None:
            self._opened += key is not None
            found = self.sessions[key] = Session(None if key is None else str(self._opened), self.config, from_start)
            if len(self.sessions) > MAX_SESSIONS:
                self.end_session(next(iter(self.sessions)))
        self.sessions.move_to_end(key)
        return found

    def end_session(self, key: str | None, default: str | None = None) -> None:
        """A conversation is over (DELETE, the end, or forgotten for newer ones): judge what it holds (a
        conversation no handshake named a revision for takes `default`), keep its revisions and count
        its requests left unanswered."""
        session = self.sessions.pop(key, None)
        if session is None:
            return
        try:
            for verdict in session.conversation.finish(default):
                self.verdict(session, verdict, 0.0)
        except RecursionError:
            pass
        self._negotiated(session)
        self._unanswered += sum(not r.late for r in session.live.in_flight.values())

    def _negotiated(self, session: Session) -> None:
        """Keep the revisions a session's handshakes named since last asked, in the order they came."""
        handshakes = session.conversation.handshakes
        self._revisions.extend(h.version for h in handshakes[session.noted :])
        session.noted = len(handshakes)

    def message(self, session: Session, direction: str, raw: bytes | None, length: int, now: float, wall: float) -> None:
        """One relayed message (a line, a body, an event's data; None when longer than judged): log it, judge it."""
        if raw is None:
            session.count += 1
            self.reporter.count(direction, "(too long to judge)")
            self.reporter.not_judged += 1
            self.reporter.note(f"{direction} message {session.count}: {length} bytes, longer than the tap judges: relayed, not judged or logged")
            return
        text = raw.decode("utf-8", "backslashreplace")
        if not text.strip():
            return
        session.count += 1
        msg = parse(text, self.file, session.count, direction, session.label)
        try:
            if msg.unreadable is None:
                msg = replace(msg, value=redact.message(msg.value))
            else:
                text = redact.text(text)
            if self.capture is not None:
                self.capture.write(direction, msg, text, wall, session.label)
                self._check_capture()
            if msg.unreadable == TOO_DEEP:
                self._too_deep(session, direction)
                return
            shown = what(direction, msg.value, None, session.count)
            for problem in session.live.arrive(direction, msg.value, session.count, now, shown):
                self._problem(session, direction, shown, problem, None, msg.value)
            for verdict in session.conversation.add(msg):
                self.verdict(session, verdict, now)
            self._negotiated(session)
        except RecursionError:
            self._too_deep(session, direction)

    def _too_deep(self, session: Session, direction: str) -> None:
        self.reporter.count(direction, "(nested too deeply to judge)")
        self.reporter.not_judged += 1
        self.reporter.note(f"{direction} message {session.count}: nested too deeply to judge")

    def verdict(self, session: Session, verdict: Verdict, now: float) -> None:
        """Report a judged message's findings and the live rules that need its revision; count it."""
        msg = verdict.message
        direction = msg.direction or "c2s"
        value = msg.value if msg.unreadable is None else None
        self.reporter.count(direction, _label(value, verdict))
        if verdict.revision is None and not verdict.findings:
            self.reporter.not_judged += 1
        shown = what(direction, value, verdict.method, msg.line)
        for f in verdict.findings:
            ident = value.get("id") if isinstance(value, dict) else None
            self.reporter.violation(Violation(direction, shown, f.definition, f.path, f.message, f.rule, verdict.method, ident, session.label, msg.line))
        lifecycle = self.lifecycle(session, verdict.revision)
        for problem in session.live.judged(verdict, lifecycle, now):
            self._problem(session, direction, shown, problem, verdict.method, value)

    def lifecycle(self, session: Session, revision: str | None) -> Lifecycle | None:
        """The lifecycle facts of a revision, from the package mcpgen generates for it."""
        if revision is None:
            return None
        package = session.conversation.validator(revision).package
        lifecycle: Lifecycle = package.revisions.REVISIONS[revision].lifecycle
        return lifecycle

    def _problem(self, session: Session, direction: str, shown: str, problem: Problem, method: str | None, value: Any) -> None:
        ident = value.get("id") if isinstance(value, dict) else None
        self.reporter.violation(Violation(direction, shown, "", "", problem.error, problem.rule, method, ident, session.label, session.count))

    def _check_capture(self) -> None:
        if self.capture is not None and self.capture.failed is not None and not self._capture_failed:
            self._capture_failed = True
            self.reporter.note(f"the log cannot be written ({self.capture.failed}): judging goes on without it")

    def tick(self, now: float) -> None:
        """Report the requests that have waited longer than --timeout; flush the log."""
        for session in self.sessions.values():
            for request in session.live.overdue(now):
                error = f"no response after {self.config.timeout:g} s"
                self.reporter.violation(Violation(request.direction, request.shown, "", "", error, "timeout", request.method, None, session.label, request.number))
        if self.capture is not None:
            self.capture.flush()
            self._check_capture()

    def finish(self) -> None:
        """The relay ended: judge what is held, then print the summary."""
        for xid in list(self.exchanges):
            self._end(xid)
        for direction, lines in self.lines.items():
            rest = lines.rest()
            if rest is not None:
                self.message(self.session(None), direction, rest[0], rest[1], time.monotonic(), time.time())
        # As `mcpgen validate` does: a conversation no handshake named a revision for takes the first one's.
        first = self._revisions[0] if self._revisions else None
        for key in sorted(self.sessions, key=lambda k: not self.sessions[k].conversation.handshakes):
            self.end_session(key, first)
        if self.capture is not None:
            self.capture.close()
            self._check_capture()
        self.reporter.summary(list(dict.fromkeys(self._revisions)), self._unanswered)

    # --- Streamable HTTP ---------------------------------------------------------------------------

    def http(self, event: dict[str, Any], body: bytes, now: float, wall: float) -> None:
        """One event of an HTTP exchange the proxy relays: a request, its answer's head, a chunk, its end."""
        kind, xid = event.get("e"), event.get("x")
        if not isinstance(xid, int):
            return
        if kind == "req":
            messages = _body_messages(body)
            self.exchanges[xid] = Exchange(str(event.get("m", "")), dict(event.get("h", {})), messages, now, wall, body)
            while len(self.exchanges) > MAX_EXCHANGES:
                self._end(next(iter(self.exchanges)))
        elif kind == "res":
            found = self.exchanges.get(xid)
            if isinstance(found, Exchange):
                found.status = int(event.get("s", 0))
                found.answer = dict(event.get("h", {}))
                self.exchanges[xid] = self._asked(found)
        elif kind == "chunk":
            reply = self.exchanges.get(xid)
            if isinstance(reply, Reply) and not reply.lost:
                self._chunk(reply, body, int(event.get("n", len(body))), now, wall)
        elif kind == "skip":
            reply = self.exchanges.get(xid)
            if isinstance(reply, Reply) and reply.events is not None:
                reply.events.skipped(int(event.get("n", 0)))
        elif kind == "left":
            self._left(xid)
        elif kind in ("end", "fail"):
            self._end(xid)

    def _asked(self, exchange: Exchange) -> Reply:
        """Judge a request once its answer's head is known (which tells the session an `initialize` opens)."""
        key = exchange.answer.get("mcp-session-id") if exchange.initialize else None
        key = key or exchange.headers.get("mcp-session-id")
        if exchange.initialize and exchange.answer.get("mcp-session-id"):
            self.assigned = True
        session = self.session(key, from_start=exchange.initialize)
        body = exchange.body
        shown = f"{exchange.method} {self.config.path}"
        negotiated = session.conversation.revision
        for problem in request_problems(exchange, negotiated, self.assigned, lambda r: self._facts(session, r)):
            self._problem(session, "c2s", shown, problem, None, None)
        if body.strip():
            self.message(session, "c2s", body, len(body), exchange.since, exchange.wall)
        if exchange.status is not None and exchange.status >= 400:  # refused: its requests are answered
            for request in exchange.requests:
                session.live.settle("c2s", request.get("id"))
        if exchange.method == "DELETE" and exchange.status is not None and exchange.status < 300 and key is not None:
            self.end_session(key)
        for problem in answer_problems(exchange):
            self._problem(session, "s2c", f"answer to {shown}", problem, None, None)
        return Reply(exchange, session)

    def _facts(self, session: Session, revision: str) -> Lifecycle | None:
        return self.lifecycle(session, revision) if revision in KNOWN_REVISIONS else None

    def _chunk(self, reply: Reply, chunk: bytes, size: int, now: float, wall: float) -> None:
        """A chunk of an answer (`size`: its length as relayed, of which the proxy may have handed over less)."""
        if reply.encoded is not None:
            return
        if reply.events is not None:
            for data, length in reply.events.feed(chunk):
                self.message(reply.session, "s2c", data, length, now, wall)
            return
        reply.size += size
        if not reply.too_long:
            reply.body += chunk
            if reply.size > MAX_MESSAGE:
                reply.too_long = True
                reply.body.clear()

    def _left(self, xid: int) -> None:
        """The client closed the connection while the answer was streaming: say so when it left a request unanswered."""
        reply = self.exchanges.get(xid)
        if not isinstance(reply, Reply):
            return
        waiting = [r for r in reply.exchange.requests if ("c2s", id_key(r.get("id"))) in reply.session.live.in_flight]
        if waiting:
            shown = what("c2s", waiting[0], None, 0)
            self.reporter.note(f"c2s {shown}: the client closed the connection before its answer came")

    def _end(self, xid: int) -> None:
        found = self.exchanges.pop(xid, None)
        if isinstance(found, Exchange):
            found = self._asked(found)  # no answer came (the upstream failed): judge the request alone
        if found is None or found.events is not None or found.lost:
            return
        if found.encoded is not None:
            self.reporter.note(f"the answer to {found.exchange.method} is {found.encoded}-encoded: relayed, not judged")
        elif found.too_long or found.body.strip():
            self.message(found.session, "s2c", None if found.too_long else bytes(found.body), found.size, found.exchange.since, found.exchange.wall)


def _body_messages(body: bytes) -> list[Any]:
    """The messages of a request body (for the transport rules; the body is judged as a message itself)."""
    try:
        value = json.loads(body) if body.strip() else None
    except (ValueError, RecursionError):
        return []
    return value if isinstance(value, list) else [] if value is None else [value]


def _label(value: Any, verdict: Verdict) -> str:
    """How the summary counts a message: its method, `<method> response`, or what it is when neither."""
    if verdict.message.unreadable is not None:
        return "(not JSON)"
    if isinstance(value, dict) and isinstance(value.get("method"), str):
        return str(value["method"])[:100]
    if isinstance(value, dict) and ("result" in value or "error" in value) and verdict.revision is None:
        return "(response)"
    if isinstance(value, dict) and ("result" in value or "error" in value):
        paired = verdict.method is not None and not any(f.rule == UNPAIRED for f in verdict.findings)
        return f"{verdict.method} response" if paired else "(response to no request)"
    return "(not a JSON-RPC message)"

