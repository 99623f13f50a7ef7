"""One revision's method registry: who sends each method with which models, and parsing messages into them."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NamedTuple, Union, cast, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from . import onepass
from .jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ProtocolError,
    error_details,
    load,
    valid_id,
)

Part = Literal["params", "result", "message"]

_ID_TYPES = (str, int)


@dataclass(frozen=True)
class Method:
    """One method of the protocol: its wire name, kind, senders and models."""

    name: str
    kind: Literal["request", "notification"]
    senders: frozenset[str]
    message: type[BaseModel]
    params: Any
    result: Any
    python_name: str
    params_required: bool
    embedded: bool
    result_type: Any

    def sent_by(self, side: str) -> bool:
        """True when `side` ("client" or "server") may send this method."""
        return side in self.senders


class Registry:
    """The methods of one revision, and the parsing of its messages and results into their models."""

    parse_message: Callable[
        [str | bytes | bytearray | Mapping[str, Any] | list[Any]], BaseModel | list[BaseModel]
    ]
    """The typed request, notification, response or error model of a JSON-RPC message (a list for a batch).

    Raises ProtocolError with -32700 (not JSON), -32600 (not a valid message, or a batch where the
    revision has none), -32601 (unknown method) or -32602 (invalid params). Bytes (what transports
    read) are decoded and validated in one pass where `onepass` can, with the same answer; the one
    pass reader is this function itself (no call in between), the rest `_parse_full`.
    """

    def __init__(
        self,
        methods: Mapping[str, Method],
        *,
        error: type[BaseModel],
        response: type[BaseModel],
        batching: bool,
    ) -> None:
        self.methods = methods
        self.error = error
        self.response = response
        self.batching = batching
        self._adapters: dict[tuple[str, Part], TypeAdapter[Any]] = {}
        self._results: dict[str, Callable[[Any], Any]] = {}  # each request's result validation
        self._members: dict[str, Deciding] = {}  # each request's result models deciding alone
        # Wire name → (message model, is a request) for the methods parse_object accepts.
        self._accepted = {
            name: (spec.message, spec.kind == "request")
            for name, spec in methods.items()
            if not spec.embedded
        }
        self._params_alone: dict[str, Any] = {}  # each request's `parse_params` (None: not its way)
        self._one_pass = onepass.Reader(self._accepted, self._parse_full)
        self.parse_message = self._one_pass.read

    def adapter(self, method: str, part: Part) -> TypeAdapter[Any]:
        """A TypeAdapter for `method`'s whole message, its params, or its result (union where it has one)."""
        key = (method, part)
        found = self._adapters.get(key)
        if found is None:
            spec = self.methods[method]
            shape = {"message": spec.message, "params": spec.params, "result": spec.result_type}
            found = self._adapters[key] = TypeAdapter(shape[part])
        return found

    def message_adapter(self, method: str) -> TypeAdapter[Any]:
        """A TypeAdapter validating whole messages of `method` (its request or notification model)."""
        return self.adapter(method, "message")

    def params_adapter(self, method: str) -> TypeAdapter[Any]:
        """A TypeAdapter validating the params of `method` (a model, or a union of models)."""
        return self.adapter(method, "params")

    def result_adapter(self, method: str) -> TypeAdapter[Any]:
        """A TypeAdapter validating results of the request `method` (its result union where it has one)."""
        return self.adapter(method, "result")

    def parse_object(self, obj: Any) -> BaseModel:
        """The typed model of one decoded JSON-RPC message; raises ProtocolError when invalid."""
        if type(obj) is dict and obj.get("jsonrpc") == "2.0":
            # The common case, decided with fewer checks; anything unusual takes the full path below.
            method = obj.get("method")
            accepted = self._accepted.get(method) if type(method) is str else None
            if accepted is not None:
                model, request = accepted
                if (type(obj.get("id")) in _ID_TYPES) if request else ("id" not in obj):
                    try:
                        found: BaseModel = model.__pydantic_validator__.validate_python(obj)
                    except ValidationError as exc:
                        raise ProtocolError(
                            INVALID_PARAMS, f"Invalid params for {method}", error_details(exc)
                        ) from None
                    except RecursionError:
                        raise ProtocolError(
                            INVALID_PARAMS, f"Invalid params for {method}: nested too deeply"
                        ) from None
                    return found
        return self._parse_any(obj)

    def parse_params(self, obj: Any) -> Any:
        """The params of a request validated alone, where its message model is a bare envelope around them
        (`envelope_params`): what `parse_object(obj).params` would be. None wherever that cannot be told
        so (an envelope of another shape, params that do not validate): `parse_object` then decides.
        """
        if (
            type(obj) is not dict
            or obj.get("jsonrpc") != "2.0"
            or type(obj.get("id")) not in _ID_TYPES
        ):
            return None
        method = obj.get("method")
        if type(method) is not str:
            return None
        validate = self._params_alone.get(method, _UNKNOWN)
        if validate is _UNKNOWN:
            spec = self.methods.get(method)
            if spec is None:  # not kept: the table holds the revision's methods, no more
                return None
            model = None if spec.embedded else envelope_params(spec)
            validate = self._params_alone[method] = (
                None if model is None else self.params_adapter(method).validator.validate_python
            )
        if validate is None:
            return None
        try:
            return validate(obj.get("params"))
        except (ValidationError, RecursionError):
            return None

    def _parse_any(self, obj: Any) -> BaseModel:
        if not isinstance(obj, Mapping):
            raise ProtocolError(INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        if obj.get("jsonrpc") != "2.0":
            raise ProtocolError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
        method = obj.get("method")
        if method is None:
            if "error" in obj:
                return _validate(self.error, obj, INVALID_REQUEST, "Invalid error response")
            if "result" in obj and valid_id(obj.get("id")):
                return _validate(self.response, obj, INVALID_REQUEST, "Invalid response")
            raise ProtocolError(
                INVALID_REQUEST, 'Invalid Request: no "method", "result" or "error"'
            )
        if not isinstance(method, str):
            raise ProtocolError(INVALID_REQUEST, 'Invalid Request: "method" must be a string')
        if "id" in obj and not valid_id(obj["id"]):
            raise ProtocolError(
                INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer'
            )
        spec = self.methods.get(method)
        if spec is None or spec.embedded:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method[:200]}")
        if spec.kind == "request" and "id" not in obj:
            raise ProtocolError(INVALID_REQUEST, f'Invalid Request: request {method} has no "id"')
        if spec.kind == "notification" and "id" in obj:
            raise ProtocolError(
                INVALID_REQUEST, f'Invalid Request: notification {method} has an "id"'
            )
        return _validate(spec.message, obj, INVALID_PARAMS, f"Invalid params for {method}")

    def _parse_full(
        self, data: str | bytes | bytearray | Mapping[str, Any] | list[Any], decoded: Any
    ) -> BaseModel | list[BaseModel]:
        """`parse_message` for what one pass did not read: `data` decoded (unless one pass `decoded`
        it), checked and validated; bytes teach one pass the model they were read as."""
        obj = load(data) if decoded is None else decoded
        if type(obj) is dict:
            found = self.parse_object(obj)
            if type(data) is bytes:
                self._one_pass.learn(type(found))
            return found
        if isinstance(obj, list):
            if not self.batching:
                raise ProtocolError(INVALID_REQUEST, "Invalid Request: batches are not allowed")
            if not obj:
                raise ProtocolError(INVALID_REQUEST, "Invalid Request: empty batch")
            return [self.parse_object(item) for item in obj]
        return self.parse_object(obj)

    def parse_result(self, method: str, result: Any) -> Any:
        """The typed result of a response to `method`; raises ProtocolError when invalid."""
        validate = self._results.get(method)
        if validate is None:
            spec = self.methods.get(method)
            if spec is None or spec.result is None:
                raise ProtocolError(
                    METHOD_NOT_FOUND, f"Method not found or not a request: {method[:200]}"
                )
            validate = self._results[method] = self.adapter(
                method, "result"
            ).validator.validate_python
        try:
            return validate(result)
        except ValidationError as exc:
            raise ProtocolError(
                INVALID_PARAMS, f"Invalid result for {method}", error_details(exc)
            ) from None
        except RecursionError:
            raise ProtocolError(
                INVALID_PARAMS, f"Invalid result for {method}: nested too deeply"
            ) from None

    def check_result(self, method: str, result: Any, built: type[BaseModel]) -> None:
        """Raise ProtocolError unless `result` (wire data dumped from a model of type `built`) is a valid
        result of `method`, exactly as `parse_result` decides. Where `built` is a member of the method's
        result union that decides alone (`Deciding`), it is tried alone first, with its own
        validator (the one that built the result): only a refusal takes the union's path (and gives its
        error)."""
        deciding = self._members.get(method)
        if deciding is None:
            deciding = self._members[method] = _deciding(self.methods[method].result_type)
        members, other = deciding
        if built in members and (other is None or (type(result) is dict and other not in result)):
            try:
                built.__pydantic_validator__.validate_python(result)
                return
            except (ValidationError, RecursionError):
                pass
        self.parse_result(method, result)


_UNKNOWN = object()


def envelope_params(spec: Method) -> type[BaseModel] | None:
    """The params model of a request whose message model is a bare JSON-RPC envelope around it (required),
    none else. Its message is then valid exactly when `parse_object`'s own checks of `jsonrpc`, `id` (a
    string or an integer) and `method` pass and its params are: the envelope adds no constraint, key or
    validator of its own (its `jsonrpc` and `id`, where it has them, are what those checks hold)."""
    message, params = spec.message, spec.params
    if spec.kind != "request" or not (isinstance(params, type) and issubclass(params, BaseModel)):
        return None
    if not message.__pydantic_complete__:
        message.model_rebuild()
    fields = message.model_fields
    decorators = message.__pydantic_decorators__
    jsonrpc, request_id = fields.get("jsonrpc"), fields.get("id")
    if (
        not {"method", "params"} <= set(fields) <= {"jsonrpc", "id", "method", "params"}
        or any(f.metadata or f.alias not in (None, name) for name, f in fields.items())
        or not all(f.is_required() for f in fields.values())
        or _literal(fields["method"].annotation) != (spec.name,)
        or fields["params"].annotation is not params
        or (jsonrpc is not None and _literal(jsonrpc.annotation) != ("2.0",))
        or (request_id is not None and set(get_args(request_id.annotation)) != {str, int})
        or message.model_config.get("extra") == "forbid"
        or any(getattr(decorators, f.name) for f in dataclasses.fields(decorators))
    ):
        return None
    return cast("type[BaseModel]", params)


def _literal(annotation: Any) -> tuple[Any, ...] | None:
    """The values of a `Literal` annotation; None for any other."""
    return get_args(annotation) if get_origin(annotation) is Literal else None


class Deciding(NamedTuple):
    """The members of a result union whose own acceptance is the union's, and where that holds.

    Every member of a plain union (it accepts what any member accepts). Of a union tagged by a field,
    each member whose tag field is a required literal of strings: it accepts only a result carrying one
    of its own tags, which the union hands to that member alone, unless the result also holds the tag
    under its `other` name (the Python name beside the wire name), which the union and the member may
    read in different orders.
    """

    members: frozenset[Any]
    other: str | None


def _deciding(shape: Any) -> Deciding:
    """The `Deciding` of a result type: no member for one model, or a union tagged in any other way."""
    if get_origin(shape) in (Union, types.UnionType):
        return Deciding(frozenset(get_args(shape)), None)
    none = Deciding(frozenset(), None)
    if get_origin(shape) is not Annotated:
        return none
    inner, *metadata = get_args(shape)
    tag = next((m.discriminator for m in metadata if isinstance(m, FieldInfo)), None)
    if not isinstance(tag, str) or get_origin(inner) not in (Union, types.UnionType):
        return none
    deciding: set[Any] = set()
    wire: set[Any] = set()
    for member in get_args(inner):
        field = (
            member.model_fields.get(tag)
            if isinstance(member, type) and issubclass(member, BaseModel)
            else None
        )
        if field is None or not field.is_required():
            continue
        values = _literal(field.annotation)
        if values and all(type(v) is str for v in values):
            deciding.add(member)
            wire.add(field.validation_alias or field.alias or tag)
    if len(wire) != 1 or not isinstance(next(iter(wire)), str):
        return none  # pydantic asks one wire name of a tag; any other is not for us to read
    (name,) = wire
    return Deciding(frozenset(deciding), None if name == tag else tag)


def _validate(model: type[BaseModel], obj: Any, code: int, what: str) -> BaseModel:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise ProtocolError(code, what, error_details(exc)) from None
    except RecursionError:
        raise ProtocolError(code, what + ": nested too deeply") from None
