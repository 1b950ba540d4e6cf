"""Admins bring questions in: an uploaded .csv / .json / .yaml file is imported into QUESTIONS_DIR,
and /reload re-reads that folder; either way the new bank is swapped in for every handler at once.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
from pathlib import PurePath

from telegram import Message, Update
from telegram.error import TelegramError
from telegram.ext import Application, CommandHandler, MessageHandler, filters

from bot.context import CoachContext
from bot.services import Services
from handlers.common import NEW_MESSAGES, reply
from questions import importer
from questions.loader import Bank, check_bank
from questions.model import LEVELS

log = logging.getLogger(__name__)
COMMANDS: tuple[str, ...] = ()  # nothing for everyone's menu
ADMIN_COMMANDS = ("reload",)  # listed in /help for admins only
EXTENSIONS = (".csv", ".json", ".yaml", ".yml")
# Telegram lets bots download files up to 20 MB; anything larger is refused before downloading.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
SHOWN_PROBLEMS = 12
SHOWN_TOPICS = 20


class AdminUpload(filters.MessageFilter):
    """A question file from an admin; anything else is left to other handlers."""

    def __init__(self, app: Application) -> None:
        super().__init__(name="AdminUpload")
        self.app = app

    def filter(self, message: Message) -> bool:
        services = self.app.bot_data.get("services")
        document = message.document
        return bool(
            services and document and message.from_user
            and services.is_admin(message.from_user.id)
            and PurePath((document.file_name or "").lower()).suffix in EXTENSIONS)


def parse_caption(caption: str | None) -> tuple[importer.Options, bool] | None:
    """The upload's caption as import flags (`--field KEY --level mid --dry-run`); None if bad."""
    try:
        words = shlex.split(caption or "")
    except ValueError:
        return None
    values: dict[str, str] = {}
    dry_run = False
    while words:
        word = words.pop(0).lower()
        name, _, value = word.partition("=")
        if name == "--dry-run" and not value:
            dry_run = True
        elif name in ("--field", "--level", "--format"):
            if not value and not words:
                return None
            values[name[2:]] = value or words.pop(0).lower()
        else:
            return None
    if values.get("level", LEVELS[0]) not in LEVELS:
        return None
    if values.get("format", importer.FORMATS[0]) not in importer.FORMATS:
        return None
    return importer.Options(**values), dry_run


def _problem_lines(problems: list[str]) -> str:
    shown = [p if len(p) <= 240 else p[:239] + "…" for p in problems[:SHOWN_PROBLEMS]]
    more = len(problems) - len(shown)
    return "\n".join(f"• {p}" for p in shown) + (f"\n… +{more}" if more > 0 else "")


def _topic_lines(result: importer.ImportResult) -> str:
    changed = [t for t in result.topics if t.changed]
    lines = [f"• {t.field}/{t.topic}: +{len(t.added)} ~{len(t.updated)} ={len(t.unchanged)}"
             for t in changed[:SHOWN_TOPICS]]
    if len(changed) > SHOWN_TOPICS:
        lines.append(f"… +{len(changed) - SHOWN_TOPICS}")
    return "\n".join(lines)


async def _reload(services: Services) -> tuple[Bank | None, list[str]]:
    """Re-read QUESTIONS_DIR off the event loop; swap it in only if it is valid."""
    bank, problems = await asyncio.to_thread(check_bank, services.settings.questions_dir)
    if bank is not None:
        services.replace_bank(bank)
    return bank, problems


async def reload(update: Update, context: CoachContext) -> None:
    """/reload (admins): re-read the question folder; an invalid bank is refused."""
    user, lang = context.user, context.lang
    services, texts = context.services, context.services.texts
    if not services.is_admin(user.user_id):
        await reply(update, context.t("unknown-command"))
        return
    async with services.bank_lock:
        old = services.bank
        bank, problems = await _reload(services)
    if bank is None:
        log.warning("reload refused: %d problem(s) in the bank", len(problems))
        await reply(update, context.t("reload-refused", count=len(problems),
                                    questions=len(old), problems=_problem_lines(problems)))
        return
    log.info("bank reloaded: %d questions (was %d)", len(bank), len(old))
    await reply(update, texts.t(
        lang, "reload-done", questions=len(bank), fields=len(bank.fields),
        added=len(bank.questions.keys() - old.questions.keys()),
        removed=len(old.questions.keys() - bank.questions.keys())))


async def _download(message: Message) -> bytes | None:
    """The document's bytes, or None when it is over the limit (checked before downloading)."""
    document = message.document
    if document.file_size and document.file_size > MAX_UPLOAD_BYTES:
        return None
    file = await document.get_file()
    if file.file_size and file.file_size > MAX_UPLOAD_BYTES:
        return None
    data = bytes(await file.download_as_bytearray())
    return data if len(data) <= MAX_UPLOAD_BYTES else None


async def receive_upload(update: Update, context: CoachContext) -> None:
    """A question file from an admin: validate, import into the question folder, go live."""
    services = context.services
    message = update.effective_message
    assert message is not None  # the handler's filter: a document in a private chat
    name = message.document.file_name or "upload"
    parsed = parse_caption(message.caption)
    if parsed is None:
        await reply(update, context.t("upload-bad-caption", levels=", ".join(LEVELS)))
        return
    options, dry_run = parsed
    try:
        data = await _download(message)
    except TelegramError as exc:
        log.warning("upload download failed: %s", exc.message)
        await reply(update, context.t("upload-download-failed", name=name))
        return
    if data is None:
        await reply(update, context.t("upload-too-big", name=name,
                                    limit=MAX_UPLOAD_BYTES // (1024 * 1024)))
        return
    async with services.bank_lock:
        try:
            result = await asyncio.to_thread(importer.import_bytes, name, data,
                                             services.settings.questions_dir, options,
                                             dry_run=dry_run)
        except OSError as exc:  # the folder is read-only, the disk is full...
            log.error("import of an upload failed to write: %s", exc)
            await reply(update, context.t("import-write-failed", name=name,
                                        error=exc.strerror or type(exc).__name__))
            return
        bank: Bank | None = services.bank
        problems: list[str] = []
        if result.ok and result.files and not dry_run:
            bank, problems = await _reload(services)
    if result.holds_no_questions:
        await reply(update, context.t("import-empty", name=name))
        return
    if not result.ok:
        await reply(update, context.t("import-refused", name=name, count=len(result.problems),
                                    problems=_problem_lines(result.problems)))
        return
    log.info("imported %s: %d added, %d updated", name, result.count("added"),
             result.count("updated"))
    key = "import-dry-run" if dry_run else "import-done"
    text = context.t(key, name=name, added=result.count("added"),
                   updated=result.count("updated"), unchanged=result.count("unchanged"),
                   topics=_topic_lines(result) or "—", questions=len(services.bank))
    if bank is None:  # written, but the folder as a whole no longer loads (edited meanwhile?)
        text += "\n\n" + context.t("reload-refused", count=len(problems),
                                 questions=len(services.bank), problems=_problem_lines(problems))
    await reply(update, text)


def register(app: Application) -> None:
    private = NEW_MESSAGES & filters.ChatType.PRIVATE
    app.add_handler(CommandHandler("reload", reload, filters=private))
    app.add_handler(MessageHandler(private & filters.Document.ALL & AdminUpload(app),
                                   receive_upload))
