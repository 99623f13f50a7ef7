"""Judging a conversation in order, each message against the revision its handshake negotiated.

The revision of a message is the one given (`--revision`), else: the one a 2026-07-28 request names in its
`_meta` (and its response, the one its request had), else the conversation's: the version the latest
`initialize` response negotiated (its request asked for, when it has none), or the first `_meta` version.
A message whose revision is not known yet (before the first handshake, or while an `initialize` awaits
its response) is held and judged once it is. `mcpgen validate` judges a file and `mcpgen tap` a live
session with this one core.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import McpgenError
from ..inputs.pins import KNOWN_REVISIONS
from .findings import Finding
from .handshake import Handshake, announced, answered, asked, is_initialize
from .validator import Validator, unreadable
from .targets import id_key
from .wire import OTHER, Message

MAX_ASKED = 100_000
"""Requests remembered (for the revision of their response) per conversation; the oldest are forgotten."""


class UnknownRevision(McpgenError):
    """A handshake names a protocol version mcpgen does not know."""


class NoRevision(McpgenError):
    """No handshake named a protocol version, and none was given."""


NO_HANDSHAKE = "pass --revision: no initialize, server/discover or request _meta names the protocol version"


@dataclass(frozen=True)
class Verdict:
    """One judged message: the revision it was judged against (None: not judged) and its findings."""

    message: Message
    revision: str | None
    findings: list[Finding]
    method: str | None = None  # the method it is, or the method of the request it answers


def unknown(handshake: Handshake) -> str:
    """Why a handshake's version cannot be judged against."""
    return (
        f"{handshake.place} names the protocol version {handshake.version[:100]!r}, which mcpgen does not know "
        f"(known: {', '.join(KNOWN_REVISIONS)}): pass --revision"
    )


def _mismatch(handshake: Handshake, revision: str) -> Finding:
    return Finding(
        handshake.definition,
        handshake.path,
        f"{handshake.what} names {handshake.version[:100]!r}, but --revision is {revision} "
        "(leave out --revision to validate against the handshake's version)",
        rule="revision",
    )


class Conversation:
    """The messages of one conversation, judged in order against the revision each belongs to.

    `strict` raises UnknownRevision when a handshake names a version mcpgen does not know (`validate`);
    otherwise the messages it would decide are passed on unjudged (`tap`). `hold` bounds the messages
    held while no revision is known: beyond it the oldest is passed on unjudged.
    """

    def __init__(
        self,
        revision: str | None,
        schema_dir: Path | None,
        strict: bool = True,
        hold: int | None = None,
        validator: Callable[[str, Path | None], Validator] = Validator.of,
    ) -> None:
        self.forced = revision
        self.revision = revision
        self.schema_dir = schema_dir
        self.strict = strict
        self.hold = hold
        self.handshakes: list[Handshake] = []
        """Each handshake that set the conversation's revision (not those that named the same one again)."""
        self._validator = validator
        self._validators: dict[str, Validator] = {}
        self._held: deque[Message] = deque()
        self._initialize: tuple[Message, Handshake | None] | None = None
        self._asked: OrderedDict[tuple[str | None, str], str | None] = OrderedDict()

    def validator(self, revision: str) -> Validator:
        """This conversation's validator of `revision` (its pairing of requests and responses is the conversation's)."""
        found = self._validators.get(revision)
        if found is None:
            found = self._validators[revision] = self._validator(revision, self.schema_dir)
        return found

    def add(self, entry: Message) -> list[Verdict]:
        """Judge `entry` (and whatever it lets be judged that was held); [] when it is held. A line that
        holds no message is judged at once: no revision changes that."""
        if entry.unreadable is not None:
            return [Verdict(entry, self.revision, [unreadable(entry)])]
        value = entry.value
        if self.forced is None and is_initialize(value) and self._initialize is None:
            self._initialize = (entry, asked(value, entry.file, entry.line))
        elif self._initialize is not None and self._answers(entry, self._initialize[0]):
            wanted = self._initialize[1]
            self._initialize = None
            self._held.append(entry)
            return self._release(self._settle(answered(value, entry.file, entry.line) or wanted))
        elif self.forced is None and self.revision is None and self._initialize is None:
            named = announced(value, entry.file, entry.line)
            if named is not None:
                self._held.append(entry)
                return self._release(self._settle(named))
        if self._initialize is not None or self.revision is None:
            self._held.append(entry)
            return self._overflow()
        return self._judge(entry)

    def finish(self, default: str | None = None) -> list[Verdict]:
        """Judge what is still held: an `initialize` without a response is settled by what it asked for;
        a conversation no handshake named a version for takes `default` (another one's). Raises
        NoRevision (strict) when no version is known and messages are held."""
        if self._initialize is not None:
            wanted = self._initialize[1]
            self._initialize = None
            return self._release(self._settle(wanted))
        if self.revision is None and self._held:
            if default is not None:
                self.revision = default
            elif self.strict:
                raise NoRevision(NO_HANDSHAKE)
        return self._release(None)

    @staticmethod
    def _answers(entry: Message, request: Message) -> bool:
        value = entry.value
        return (
            isinstance(value, dict)
            and "method" not in value
            and ("result" in value or "error" in value)
            and entry.direction in (None, OTHER.get(request.direction or ""))
            and id_key(value.get("id")) == id_key(request.value.get("id"))
        )

    def _settle(self, handshake: Handshake | None) -> Handshake | None:
        """Make the version `handshake` names the conversation's; the handshake when mcpgen does not know it."""
        if handshake is None:
            return None
        if handshake.version not in KNOWN_REVISIONS:
            if self.strict:
                raise UnknownRevision(unknown(handshake))
            self.revision = None
            return handshake
        self._note(handshake)
        self.revision = handshake.version
        return None

    def _note(self, handshake: Handshake) -> None:
        if not self.handshakes or self.handshakes[-1].version != handshake.version:
            self.handshakes.append(handshake)

    def _release(self, unknown_at: Handshake | None) -> list[Verdict]:
        """Judge the held messages in order (passed on unjudged when no revision is known, the one at an
        unknown handshake saying so)."""
        if self.revision is None:
            held = list(self._held)
            self._held.clear()
            last = len(held) - 1
            return [Verdict(m, None, self._unknown(unknown_at) if i == last else []) for i, m in enumerate(held)]
        out: list[Verdict] = []
        while self._held and self._initialize is None:
            out.extend(self._judge(self._held.popleft()))
        return out

    @staticmethod
    def _unknown(handshake: Handshake | None) -> list[Finding]:
        return [] if handshake is None else [Finding(handshake.definition, handshake.path, unknown(handshake), rule="revision")]

    def _overflow(self) -> list[Verdict]:
        if self.hold is None or len(self._held) <= self.hold:
            return []
        return [Verdict(self._held.popleft(), None, [])]

    def _revision_of(self, entry: Message) -> tuple[str | None, Handshake | None]:
        """The revision `entry` is judged against, and the handshake it carries in its `_meta` if any."""
        value = entry.value
        named = announced(value, entry.file, entry.line)
        if self.forced is not None:
            return self.forced, named
        if named is not None:
            return (named.version if named.version in KNOWN_REVISIONS else None), named
        if isinstance(value, dict) and "method" not in value and "id" in value:
            key = (OTHER.get(entry.direction or ""), id_key(value["id"]))
            if key in self._asked:
                return self._asked.pop(key), None
        return self.revision, None

    def _judge(self, entry: Message) -> list[Verdict]:
        revision, named = self._revision_of(entry)
        value = entry.value
        if isinstance(value, dict) and isinstance(value.get("method"), str) and "id" in value:
            key = (entry.direction, id_key(value["id"]))
            self._asked.pop(key, None)
            self._asked[key] = revision
            if len(self._asked) > MAX_ASKED:
                self._asked.popitem(last=False)
        if revision is None:
            return [Verdict(entry, None, self._unknown(named))]
        if named is not None and self.forced is None:
            self._note(named)
        validator = self.validator(revision)
        out = []
        for msg, findings in validator.messages(entry):
            mismatch = self._mismatch_of(msg, named)
            out.append(Verdict(msg, revision, [*mismatch, *findings], validator.method_of(msg)))
        return out

    def _mismatch_of(self, msg: Message, named: Handshake | None) -> list[Finding]:
        """A finding when --revision was given and the message names another version for the conversation."""
        if self.forced is None or msg.at:
            return []
        value = msg.value if msg.unreadable is None else None
        if named is None and is_initialize(value):
            return []  # the response settles what an initialize request asks for
        if named is None and isinstance(value, dict) and "method" not in value:
            named = answered(value, msg.file, msg.line) if "result" in value and self._initialize_id(msg) else None
        if named is None or named.version == self.forced:
            return []
        return [_mismatch(named, self.forced)]

    def _initialize_id(self, msg: Message) -> bool:
        """True when `msg` answers an initialize request of this conversation."""
        validator = self._validators.get(self.forced or "")
        return validator is not None and validator.method_of(msg) == "initialize"
