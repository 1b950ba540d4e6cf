"""Loads the machine-readable Bot API spec (api.json) and checks method calls and objects against it.
Form values arrive as strings (objects JSON-encoded, as PTB sends them), JSON bodies as values.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_telegram.models import UploadedFile

log = logging.getLogger(__name__)

# Where a clone keeps the spec: the team's shared/ folder beside the checkout.
SPEC_BESIDE_CHECKOUT = (
    Path(__file__).resolve().parents[2] / "shared" / "telegram-bot-api" / "api.json")
_INT_RE = re.compile(r"-?[0-9]{1,20}")
_FLOAT_RE = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
_DISCRIMINATOR_RE = re.compile(r'(?:must be|always) "?([a-z][a-z0-9_]*)"?\.?$')
_SCALARS = frozenset({"Integer", "Float", "Boolean", "String", "InputFile"})
# PTB's `Defaults` adds these to every method that takes them in *some* form (parse_mode even
# reaches editMessageReplyMarkup). Telegram ignores unknown parameters, so they are not errors.
PTB_DEFAULT_PARAMS = frozenset(
    {
        "allow_sending_without_reply", "disable_notification", "explanation_parse_mode",
        "link_preview_options", "parse_mode", "protect_content", "question_parse_mode",
        "text_parse_mode",
    }
)  # fmt: skip


class SpecError(ValueError):
    """A value does not match the spec; `path` locates it inside the parameter."""

    def __init__(self, message: str, path: str, depth: int, type_name: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        # How far into the value the check got: among union alternatives, the deepest error
        # belongs to the alternative the caller most likely meant.
        self.depth = depth
        self.type_name = type_name


@dataclass(frozen=True)
class Field:
    name: str
    types: tuple[str, ...]
    required: bool


@dataclass(frozen=True)
class MethodSpec:
    name: str
    fields: dict[str, Field]
    returns: tuple[str, ...]


@dataclass(frozen=True)
class TypeSpec:
    name: str
    fields: dict[str, Field] | None
    subtypes: tuple[str, ...]
    # Field -> the only value it may take in this subtype ("type" must be "chat", ...).
    discriminators: dict[str, str]


def find_spec(default: Path | None = None) -> Path | None:
    """api.json from $TELEGRAM_API_SPEC, else `default`; None when that is not a file.
    Nothing is searched for: a spec found by accident in some parent folder checks calls
    against a Bot API version nobody chose."""
    env = os.environ.get("TELEGRAM_API_SPEC")
    path = Path(env).expanduser() if env else default
    if path is None or not path.is_file():
        return None
    return path.resolve()


def _field(raw: Mapping[str, Any]) -> Field:
    return Field(raw["name"], tuple(raw["types"]), bool(raw["required"]))


def _type_label(types: Iterable[str]) -> str:
    return " or ".join(types)


class Spec:
    """The Bot API as described by api.json: method lookup and value checking."""

    def __init__(self, data: Mapping[str, Any]):
        self.version: str = data.get("version", "?")
        self.methods: dict[str, MethodSpec] = {}
        for name, raw in data["methods"].items():
            method_fields = {f["name"]: _field(f) for f in raw.get("fields", [])}
            # Telegram matches method names case-insensitively.
            self.methods[name.lower()] = MethodSpec(name, method_fields, tuple(raw.get("returns", [])))
        self.types: dict[str, TypeSpec] = {}
        for name, raw in data["types"].items():
            fields = {f["name"]: _field(f) for f in raw["fields"]} if "fields" in raw else None
            discriminators = {}
            for f in raw.get("fields", []):
                match = _DISCRIMINATOR_RE.search(f.get("description", ""))
                if raw.get("subtype_of") and f["required"] and f["types"] == ["String"] and match:
                    discriminators[f["name"]] = match.group(1)
            self.types[name] = TypeSpec(
                name, fields, tuple(raw.get("subtypes", [])), discriminators
            )

    @classmethod
    def load(cls, path: Path) -> Spec:
        with path.open(encoding="utf-8") as fh:
            return cls(json.load(fh))

    def method(self, name: str) -> MethodSpec | None:
        return self.methods.get(name.lower())

    # -- method parameters -------------------------------------------------------------------

    def parse_params(
        self,
        method: MethodSpec,
        raw: Mapping[str, Any],
        *,
        tolerated: Iterable[str] = PTB_DEFAULT_PARAMS,
        ignored: list[str] | None = None,
    ) -> dict[str, Any]:
        """Check a call's raw parameters and return them parsed; raises SpecError.

        Unknown parameters named in `tolerated` are dropped (and listed in `ignored`) instead.
        SpecError.message is a full Telegram-style description ("Bad Request: ...").
        """
        attached = {
            value[len("attach://") :]
            for value in _strings(raw.values())
            if value.startswith("attach://")
        }
        tolerated = frozenset(tolerated)
        kept: dict[str, Any] = {}
        for name, value in raw.items():
            if name in method.fields or (isinstance(value, UploadedFile) and name in attached):
                kept[name] = value
            elif name in tolerated:
                if ignored is not None:
                    ignored.append(name)
            else:
                raise SpecError(f'Bad Request: unknown parameter "{name}"', name, 0)
        raw = kept
        for field in method.fields.values():
            if field.required and field.name not in raw:
                raise SpecError(_missing_description(method.name, field.name), field.name, 0)
        parsed: dict[str, Any] = {}
        for name, value in raw.items():
            known = method.fields.get(name)
            parsed[name] = value if known is None else self._parse_param(known, value)
        return parsed

    def _parse_param(self, field: Field, value: Any) -> Any:
        if isinstance(value, UploadedFile):
            if "InputFile" in field.types:
                return value
            raise SpecError(
                f'Bad Request: parameter "{field.name}" can\'t be a file upload', field.name, 0
            )
        if not isinstance(value, str):
            # A JSON body: native values.
            try:
                return self.check_value(field.types, value, field.name)
            except SpecError as err:
                raise self._param_error(field, err) from None
        for type_name in field.types:
            scalar = _parse_scalar(type_name, value)
            if scalar is not _NO:
                return scalar
        object_types = [t for t in field.types if t not in _SCALARS]
        if object_types:
            try:
                decoded = json.loads(value)
            except ValueError:
                raise SpecError(
                    f"Bad Request: can't parse {_what(field.name)}", field.name, 0
                ) from None
            try:
                return self.check_value(object_types, decoded, field.name)
            except SpecError as err:
                raise self._param_error(field, err) from None
        if field.types == ("InputFile",):
            raise SpecError(
                f'Bad Request: parameter "{field.name}" must be a file upload', field.name, 0
            )
        raise SpecError(
            f'Bad Request: parameter "{field.name}" must be of type {_type_label(field.types)}',
            field.name,
            0,
        )

    def _param_error(self, field: Field, err: SpecError) -> SpecError:
        if err.depth == 0:
            message = f'Bad Request: parameter "{field.name}" {err.message.split(" ", 2)[-1]}'
        elif err.type_name == "InlineKeyboardButton":
            message = f"Bad Request: can't parse inline keyboard button: {err.message}"
        else:
            message = f"Bad Request: can't parse {_what(field.name)}: {err.message}"
        if err.depth > 1:
            message += f" (at {err.path})"
        return SpecError(message, err.path, err.depth, err.type_name)

    # -- values ------------------------------------------------------------------------------

    def check_value(self, types: Iterable[str], value: Any, path: str, depth: int = 0) -> Any:
        """Check a decoded JSON value against alternatives like ("Integer", "String")."""
        errors: list[SpecError] = []
        for type_name in types:
            try:
                return self._check_one(type_name, value, path, depth)
            except SpecError as err:
                errors.append(err)
        raise max(errors, key=lambda e: e.depth)

    def _check_one(self, type_name: str, value: Any, path: str, depth: int) -> Any:
        label = path.rsplit(".", 1)[-1]
        if type_name.startswith("Array of "):
            if not isinstance(value, list):
                raise SpecError(f'Field "{label}" must be of type Array', path, depth)
            inner = type_name[len("Array of ") :]
            return [
                self.check_value((inner,), item, f"{path}[{i}]", depth + 1)
                for i, item in enumerate(value)
            ]
        if type_name in _SCALARS:
            if _is_scalar(type_name, value):
                return value
            raise SpecError(f'Field "{label}" must be of type {type_name}', path, depth)
        spec = self.types.get(type_name)
        if spec is None:
            log.debug("type %s missing from the spec; not checked", type_name)
            return value
        if spec.subtypes:
            return self._check_union(spec, value, path, depth)
        if not isinstance(value, dict):
            raise SpecError(f'Field "{label}" must be of type Object', path, depth, type_name)
        if spec.fields is None:  # e.g. CallbackGame: a placeholder object
            return value
        for name in value:
            if name not in spec.fields:
                raise SpecError(
                    f'Unknown field "{name}" in {type_name}',
                    f"{path}.{name}",
                    depth + 1,
                    type_name,
                )
        for field in spec.fields.values():
            if field.required and field.name not in value:
                raise SpecError(
                    f'Can\'t find field "{field.name}"',
                    f"{path}.{field.name}",
                    depth + 1,
                    type_name,
                )
        for name, expected in spec.discriminators.items():
            if value.get(name) != expected:
                raise SpecError(
                    f'Field "{name}" must be "{expected}" in {type_name}',
                    f"{path}.{name}",
                    depth + 1,
                    type_name,
                )
        checked = dict(value)
        for name, item in value.items():
            field = spec.fields[name]
            try:
                checked[name] = self.check_value(field.types, item, f"{path}.{name}", depth + 1)
            except SpecError as err:
                if err.type_name is None:
                    err.type_name = type_name
                raise
        return checked

    def _check_union(self, spec: TypeSpec, value: Any, path: str, depth: int) -> Any:
        alternatives = list(spec.subtypes)
        if isinstance(value, dict):
            # Pick the subtype the discriminator names ("type": "chat"), so errors make sense.
            named = [
                s
                for s in alternatives
                if (sub := self.types.get(s))
                and sub.discriminators
                and all(value.get(k) == v for k, v in sub.discriminators.items())
            ]
            alternatives = named or alternatives
        return self.check_value(alternatives, value, path, depth)

    def object_errors(self, type_name: str, value: Any) -> list[str]:
        """Problems of an object against the spec (used to self-check the emulator's answers)."""
        try:
            self.check_value((type_name,), value, type_name)
        except SpecError as err:
            return [f"{err.path}: {err.message}"]
        return []


class _Missing:
    pass


_NO: Any = _Missing()


def _parse_scalar(type_name: str, value: str) -> Any:
    """A form-encoded string as the scalar type, or _NO if it isn't one."""
    if type_name == "Integer" and _INT_RE.fullmatch(value):
        return int(value)
    if type_name == "Float" and _FLOAT_RE.fullmatch(value):
        return float(value)
    if type_name == "Boolean" and value in ("true", "false"):
        return value == "true"
    if type_name == "String":
        return value
    return _NO


def _is_scalar(type_name: str, value: Any) -> bool:
    if type_name == "Integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "Float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_name == "Boolean":
        return isinstance(value, bool)
    if type_name == "String":
        return isinstance(value, str)
    return isinstance(value, UploadedFile)  # InputFile


def _strings(values: Iterable[Any]) -> Iterable[str]:
    """Every string inside the values, JSON-encoded ones included (for attach:// references)."""
    for value in values:
        if isinstance(value, str):
            yield value
            if value[:1] in ("{", "["):
                try:
                    yield from _strings([json.loads(value)])
                except ValueError:
                    pass
        elif isinstance(value, dict):
            yield from _strings(value.values())
        elif isinstance(value, list):
            yield from _strings(value)


def _what(param: str) -> str:
    if param == "reply_markup":
        return "reply keyboard markup JSON object"
    return f"{param} JSON object"


def _missing_description(method: str, param: str) -> str:
    # Telegram's wording for the parameters it names specially; a generic one otherwise.
    if param == "chat_id":
        return "Bad Request: chat_id is empty"
    if param == "text":
        return "Bad Request: message text is empty"
    if param == "callback_query_id":
        return "Bad Request: query is too old and response timeout expired or query ID is invalid"
    if param == "message_id":
        return "Bad Request: message identifier is not specified"
    if param == "file_id":
        return "Bad Request: file_id not specified"
    return f'Bad Request: parameter "{param}" is required'
