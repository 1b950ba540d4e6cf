"""FakeTelegram: a strict local Bot API server (aiohttp) for end-to-end tests and the playground.
Calls are checked against the spec and Telegram's limits; refusals are recorded in `violations`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from fake_telegram.flood_limits import FloodLimits
from fake_telegram.methods import EDITS, HANDLERS, SENDS, Described, chat_id_of
from fake_telegram.models import JSON, ApiError, Call, UploadedFile
from fake_telegram.spec import Spec, SpecError, find_spec
from fake_telegram.state import TelegramState
from fake_telegram.webchat import WebChat

log = logging.getLogger(__name__)

DEFAULT_TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstu"
TOKEN_RE = re.compile(r"[0-9]+:[A-Za-z0-9_-]{20,}")
# Telegram takes uploads up to 50 MB; a little more so the 413 comes from our own check.
MAX_REQUEST_BYTES = 60 * 1024 * 1024
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
_IMPLEMENTED = {name.lower(): name for name in HANDLERS}
_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden: bot was blocked by the user",
    404: "Not Found",
    409: "Conflict",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


@dataclass
class _Fault:
    method: str
    error: ApiError
    chat_id: int | str | None
    times: int


@dataclass
class _Drop:
    method: str
    times: int
    after: bool


class FakeTelegram(TelegramState):
    """A fake Bot API server on 127.0.0.1 plus the users who talk to the bot."""

    def __init__(
        self,
        spec_path: Path | str | None = None,
        bot_username: str = "coach_test_bot",
        rate_limits: bool = False,
        *,
        token: str | None = None,
        bot_name: str = "Coach Test Bot",
        privacy_mode: bool = True,
        strict_ampersand: bool = True,
        use_spec: bool = True,
        check_results: bool = False,
        latency: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        if token is not None and not TOKEN_RE.fullmatch(token):
            raise ValueError("token must look like <digits>:<20+ of [A-Za-z0-9_-]>")
        self.token = token or DEFAULT_TOKEN
        # None: any well-formed token is accepted (the playground takes whatever it is given).
        self.pinned_token = token
        super().__init__(
            bot_id=int(self.token.split(":", 1)[0]),
            bot_username=bot_username,
            bot_name=bot_name,
            privacy_mode=privacy_mode,
        )
        self.strict_ampersand = strict_ampersand
        self.spec = _load_spec(spec_path) if use_spec else None
        self.rate_limits = rate_limits
        self.flood_limits = FloodLimits()
        self.latency = latency
        # Also check our own answers against the spec (for the emulator's tests).
        self.check_results = check_results
        self.emulator_errors: list[str] = []
        # "method.param" of unknown parameters PTB's Defaults add, which Telegram ignores.
        self.ignored_params: Counter[str] = Counter()
        self.calls: list[Call] = []
        self.webhook_deliveries: list[JSON] = []
        self.webhook_errors: list[str] = []
        self.webhook_timeout = 10.0
        self.host = host
        self.port = port
        self.app = web.Application(client_max_size=MAX_REQUEST_BYTES)
        self.app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        self.app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)
        # The playground's web chat and its JSON API, under /play/.
        self.webchat = WebChat(self, self.app.router)
        self.app.router.add_route("*", "/{tail:.*}", self._handle_unknown_path)
        self._faults: list[_Fault] = []
        self._drops: list[_Drop] = []
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._webhook_task: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> FakeTelegram:
        self.closing = False
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        self.webhook_changed()
        return self

    async def stop(self) -> None:
        self.closing = True
        self.touch()  # releases pending long polls
        if self._webhook_task is not None:
            self._webhook_task.cancel()
            try:
                await self._webhook_task
            except asyncio.CancelledError:
                pass
            self._webhook_task = None
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://{self.host}:{self.port}/file/bot"

    def api_url(self, method: str, token: str | None = None) -> str:
        return f"{self.base_url}{token or self.token}/{method}"

    # -- fault injection -----------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        error_code: int,
        description: str | None = None,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: int | str | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        """Answer the next `times` calls of `method` (to `chat_id`, if given) with this error
        (`migrate_to_chat_id`: the group became this supergroup, as Telegram says it)."""
        if error_code == 429 and retry_after is None:
            retry_after = 1  # Telegram always says how long to wait
        if description is None:
            description = (
                f"Too Many Requests: retry after {retry_after}"
                if error_code == 429
                else _DEFAULT_DESCRIPTIONS.get(error_code, "Internal Server Error")
            )
        error = ApiError(error_code, description, retry_after=retry_after,
                         migrate_to_chat_id=migrate_to_chat_id, injected=True)
        self._faults.append(_Fault(method.lower(), error, chat_id, times))

    def drop_next(self, method: str, times: int = 1, *, after: bool = False) -> None:
        """Close the connection of the next `times` calls without answering.

        after=True runs the call first, like a reply lost on the way back.
        """
        self._drops.append(_Drop(method.lower(), times, after))

    def _take_fault(self, method: str, chat_id: Any) -> ApiError | None:
        for fault in self._faults:
            if fault.method == method.lower() and (
                fault.chat_id is None or str(fault.chat_id) == str(chat_id)
            ):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault.error
        return None

    def _take_drop(self, method: str) -> _Drop | None:
        for drop in self._drops:
            if drop.method == method.lower():
                drop.times -= 1
                if drop.times <= 0:
                    self._drops.remove(drop)
                return drop
        return None

    # -- HTTP ------------------------------------------------------------------------------------

    async def _handle_api(self, request: web.Request) -> web.StreamResponse:
        token, name = request.match_info["token"], request.match_info["method"]
        refusal = self._token_refusal(token)
        if refusal is not None:
            self._violation(name, None, refusal)
            return _json_response(refusal.error_code, refusal.payload())
        try:
            raw = await _read_params(request)
        except ApiError as err:
            self._violation(name, None, err)
            return _json_response(err.error_code, err.payload())
        except ConnectionResetError:  # the bot hung up mid-request (it is stopping): no call
            return web.Response(status=499)
        drop = self._take_drop(self._canonical(name) or name)
        if drop is not None and not drop.after:
            self._record(name, raw, ok=False, error="dropped by drop_next")
            return _drop_connection(request)
        status, body = await self.call_api(name, raw, request=request)
        if drop is not None:
            return _drop_connection(request)
        return _json_response(status, body)

    async def _handle_file(self, request: web.Request) -> web.StreamResponse:
        refusal = self._token_refusal(request.match_info["token"])
        if refusal is not None:
            return _json_response(refusal.error_code, refusal.payload())
        stored = self.files_by_path.get(request.match_info["path"])
        if stored is None:
            return _json_response(
                404, {"ok": False, "error_code": 404, "description": "Not Found"}
            )
        return web.Response(
            body=stored.data, content_type=stored.mime_type or "application/octet-stream"
        )

    async def _handle_unknown_path(self, request: web.Request) -> web.StreamResponse:
        return _json_response(404, {"ok": False, "error_code": 404, "description": "Not Found"})

    def _token_refusal(self, token: str) -> ApiError | None:
        if not TOKEN_RE.fullmatch(token):
            # Telegram answers 404 to paths that hold no token at all, 401 to wrong tokens.
            return ApiError(401, "Unauthorized") if ":" in token else ApiError(404, "Not Found")
        if self.pinned_token is not None and token != self.pinned_token:
            return ApiError(401, "Unauthorized")
        return None

    def _canonical(self, name: str) -> str | None:
        if self.spec is not None:
            method = self.spec.method(name)
            return method.name if method else None
        return _IMPLEMENTED.get(name.lower(), name)

    async def call(self, method: str, **params: Any) -> JSON:
        """Call a Bot API method in-process (the playground, quick checks); returns the body."""
        _, body = await self.call_api(method, params)
        return body

    async def call_api(
        self, name: str, raw: Mapping[str, Any], *, request: web.Request | None = None
    ) -> tuple[int, JSON]:
        """Run one Bot API call: validate, inject faults, rate-limit, execute, record."""
        if self.latency:
            await asyncio.sleep(self.latency)
        method = self._canonical(name)
        self.stats.calls[method or name] += 1
        if method is None:
            err = ApiError(404, "Not Found")
            self._record(name, raw, ok=False, error=err)
            return err.error_code, err.payload()
        params: JSON = dict(raw)
        try:
            params = self._parse(method, raw)
            fault = self._take_fault(method, params.get("chat_id"))
            if fault is not None:
                raise fault
            counted = method in SENDS or method in EDITS
            chat_key = chat_id_of(self, params.get("chat_id")) if counted else None
            if counted and self.rate_limits:
                wait = self.flood_limits.check(chat_key, time.monotonic())
                if wait is not None:
                    self.stats.too_many_requests += 1
                    raise ApiError(429, f"Too Many Requests: retry after {wait}", retry_after=wait)
            handler = HANDLERS.get(method)
            if handler is None:
                self.unimplemented[method] += 1
                result: Any = True
            else:
                result = await handler(self, params)
            if counted:
                now = time.monotonic()
                self.flood_limits.record(chat_key, now)
                self.stats.sends[chat_key if chat_key is not None else "?"].append(now)
        except ApiError as err:
            superseded = False
            if err.error_code == 409 and "terminated by other" in err.description:
                # PTB cancels its long poll and polls again on shutdown; the old connection may
                # take a moment to close, and a poll nobody waits for is no violation.
                await asyncio.sleep(0.05)
                superseded = _client_gone(request)
            self._record(method, params, ok=False, error=err, quiet=superseded)
            self.touch()
            return err.error_code, err.payload()
        body: JSON = {"ok": True}
        if isinstance(result, Described):
            body.update(result=result.result, description=result.description)
        else:
            body["result"] = result
        self._check_result(method, body["result"])
        self._record(method, params, ok=True)
        self.touch()
        return 200, body

    def _parse(self, method: str, raw: Mapping[str, Any]) -> JSON:
        if self.spec is None:
            return _parse_without_spec(raw)
        spec_method = self.spec.method(method)
        assert spec_method is not None
        ignored: list[str] = []
        try:
            params = self.spec.parse_params(spec_method, raw, ignored=ignored)
        except SpecError as err:
            raise ApiError(400, err.message) from None
        for name in ignored:
            self.ignored_params[f"{method}.{name}"] += 1
        return params

    def _check_result(self, method: str, result: Any) -> None:
        if not self.check_results or self.spec is None:
            return
        spec_method = self.spec.method(method)
        returns = spec_method.returns if spec_method else ()
        if not returns or returns[0] in ("True", "Boolean") or method not in HANDLERS:
            return
        try:
            self.spec.check_value(returns, json.loads(json.dumps(result)), method)
        except SpecError as err:
            self.emulator_errors.append(f"{method} result: {err.message} (at {err.path})")

    def _record(
        self,
        method: str,
        params: Mapping[str, Any],
        *,
        ok: bool,
        error: ApiError | str | None = None,
        quiet: bool = False,
    ) -> None:
        chat_id = params.get("chat_id")
        if isinstance(error, ApiError):
            self.stats.errors[error.error_code] += 1
            if not error.injected and not quiet:
                self._violation(method, chat_id, error)
        self.calls.append(
            Call(
                method=method,
                params=dict(params),
                time=time.monotonic(),
                chat_id=chat_id,
                ok=ok,
                error=error.description if isinstance(error, ApiError) else error,
                error_code=error.error_code if isinstance(error, ApiError) else None,
            )
        )

    def _violation(self, method: str, chat_id: Any, error: ApiError) -> None:
        where = f" chat {chat_id}" if chat_id is not None else ""
        message = f"{method}{where}: {error.error_code} {error.description}"
        self.violations.append(message)
        log.debug("refused %s", message)
        self.touch("violation", {"text": message, "chat_id": chat_id_of(self, chat_id)})

    def calls_to(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method.lower() == method.lower()]

    async def wait_for_call(
        self,
        method: str,
        count: int = 1,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> list[Call]:
        """Wait until `method` was called at least `count` times; returns those calls."""
        return await self.wait_until(
            lambda: len(calls := self.calls_to(method)) >= count and calls, timeout
        )

    def _debug_tail(self) -> str:
        recent = ", ".join(
            f"{c.method}{'' if c.ok else ' -> ' + str(c.error)}" for c in self.calls[-8:]
        )
        tail = f"; last calls: {recent or 'none'}"
        if self.violations:
            tail += f"; violations: {self.violations[-3:]}"
        return tail

    # -- webhook delivery --------------------------------------------------------------------

    def webhook_changed(self) -> None:
        running = self._webhook_task is not None and not self._webhook_task.done()
        if self.webhook is not None and self._runner is not None and not running:
            self._webhook_task = asyncio.create_task(self._deliver_webhooks())

    async def _deliver_webhooks(self) -> None:
        """Post queued updates to the webhook one by one, retrying with backoff like Telegram."""
        failures = 0
        while self.webhook is not None and not self.closing:
            if not self.updates:
                await self.wait_changed(1.0)
                continue
            hook, update = self.webhook, self.updates[0]
            error = await self._post_update(hook.url, hook.secret_token, update)
            if error is None:
                failures = 0
                if self.updates and self.updates[0] is update:
                    self.updates.pop(0)
                self.webhook_deliveries.append(update)
                self.touch("webhook_delivered", update)
                continue
            failures += 1
            hook.last_error_date = int(time.time())
            hook.last_error_message = error
            self.webhook_errors.append(error)
            await asyncio.sleep(min(0.05 * 2**failures, 2.0))

    async def _post_update(self, url: str, secret: str | None, update: JSON) -> str | None:
        if self._session is None:
            self._session = aiohttp.ClientSession()
        headers = {"Content-Type": "application/json"}
        if secret:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        try:
            async with self._session.post(
                url,
                data=json.dumps(update, ensure_ascii=False).encode(),
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=self.webhook_timeout),
            ) as response:
                await response.read()
                if 200 <= response.status < 300:
                    return None
                return f"Wrong response from the webhook: {response.status} {response.reason}"
        except TimeoutError:
            return "Read timeout expired"
        except aiohttp.ClientConnectorError:
            return "Connection refused"
        except aiohttp.ClientError as exc:
            return f"Connection error: {exc.__class__.__name__}"


def _load_spec(spec_path: Path | str | None) -> Spec | None:
    """The given spec, else $TELEGRAM_API_SPEC's; None (no checks) when neither is there."""
    path = Path(spec_path) if spec_path is not None else find_spec()
    return None if path is None else _cached_spec(path.resolve())


_SPECS: dict[Path, Spec] = {}


def _cached_spec(path: Path) -> Spec:
    # Parsing the 2 MB file takes a while; tests start many servers.
    if path not in _SPECS:
        _SPECS[path] = Spec.load(path)
    return _SPECS[path]


async def _read_params(request: web.Request) -> dict[str, Any]:
    """Query string plus form, multipart or JSON body, as Telegram accepts them."""
    params: dict[str, Any] = dict(request.query)
    if not request.body_exists:
        return params
    try:
        if request.content_type == "application/json":
            body = await request.json()
            if not isinstance(body, dict):
                raise ApiError(400, "Bad Request: JSON object expected in the request body")
            params.update(body)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    data = value.file.read()
                    if len(data) > MAX_UPLOAD_BYTES:
                        raise ApiError(413, "Request Entity Too Large")
                    params[key] = UploadedFile(value.filename, value.content_type, data)
                else:
                    params[key] = value
    except web.HTTPRequestEntityTooLarge:
        raise ApiError(413, "Request Entity Too Large") from None
    except ValueError:
        raise ApiError(400, "Bad Request: can't parse the request body") from None
    return params


_JSON_PARAMS = frozenset(
    {
        "reply_markup", "entities", "caption_entities", "link_preview_options",
        "reply_parameters", "allowed_updates", "commands", "scope", "media", "message_ids",
    }
)  # fmt: skip


_INT_PARAMS = frozenset({"offset", "limit", "timeout", "max_connections", "cache_time"})
# Ids that Telegram defines as strings, though they may look like numbers.
_STRING_ID_PARAMS = frozenset({
    "callback_query_id", "inline_query_id", "shipping_query_id", "pre_checkout_query_id",
    "file_id", "business_connection_id", "message_effect_id", "custom_emoji_id",
    "web_app_query_id", "gift_id", "star_transaction_id",
})


def _parse_without_spec(raw: Mapping[str, Any]) -> JSON:
    """Best-effort typing when no spec is available: JSON params, integers and booleans."""
    parsed: JSON = {}
    for name, value in raw.items():
        if isinstance(value, str):
            if name in _JSON_PARAMS:
                try:
                    value = json.loads(value)
                except ValueError:
                    raise ApiError(400, f"Bad Request: can't parse {name} JSON object") from None
            elif re.fullmatch(r"-?[0-9]{1,20}", value) and (
                name in _INT_PARAMS
                or (name.endswith("_id") and name not in _STRING_ID_PARAMS)
            ):
                value = int(value)
            elif value in ("true", "false"):
                value = value == "true"
        parsed[name] = value
    return parsed


def _json_response(status: int, body: JSON) -> web.Response:
    return web.Response(
        status=status,
        body=json.dumps(body, ensure_ascii=False).encode(),
        content_type="application/json",
    )


def _drop_connection(request: web.Request) -> web.StreamResponse:
    if request.transport is not None:
        request.transport.abort()
    # aiohttp needs a response object; it can't be written to the aborted transport.
    return web.Response(status=500)


def _client_gone(request: web.Request | None) -> bool:
    return request is not None and (request.transport is None or request.transport.is_closing())
