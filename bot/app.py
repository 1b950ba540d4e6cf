"""Assembles the Application: settings, storage, bank, texts, every feature's handlers."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime
from types import ModuleType

from telegram import LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationBuilder, ContextTypes, Defaults

from bot import telegram_limits
from bot.context import CoachContext
from bot.errors import error_handler
from bot.http import AiohttpRequest
from bot.services import Services, utc_now
from bot.settings import Settings
from bot.texts import Texts
from handlers import (
    bank_admin,
    flags,
    flood_guard,
    group_manners,
    group_migration,
    group_settings,
    interviews,
    jobmatch,
    keyboard_owners,
    mistakes,
    onboarding,
    practice,
    privacy,
    reminders,
    review,
    rounds,
    sharing,
    stats,
    topics,
    user_context,
)
from handlers import help as help_feature
from questions.loader import Bank, load_bank
from storage import coordination
from storage.db import Database

# Feature modules, in the order their handlers are tried. Each has `COMMANDS` (menu order)
# and `register(app)`; some also have `on_startup(app)` / `on_shutdown(app)`, and
# `ADMIN_COMMANDS`, listed in /help for ADMIN_IDS only (the command menu is the same for all).
# group_settings comes before onboarding: in group chats its /start, /language, /field and
# /level take the place of onboarding's per-user ones.
# group_manners comes before the personal commands it keeps out of groups.
FEATURES: list[ModuleType] = [
    flood_guard, user_context, keyboard_owners, group_migration, group_settings, group_manners,
    onboarding, practice, interviews, review, mistakes, topics, stats,
    reminders, bank_admin, flags, jobmatch, privacy, rounds, sharing, help_feature]

# The update types some handler reads; passed to getUpdates and setWebhook on every start, so a
# list left by an earlier deployment cannot starve the bot of taps or membership changes.
# Edited messages are left out on purpose: commands react to new messages only.
ALLOWED_UPDATES: list[str] = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER,
                              Update.INLINE_QUERY]


# Several instances: how often handled buttons older than a day and run-out leases are removed.
PRUNE_EVERY_SECONDS = 3600


async def prune_shared_state(context: CoachContext) -> None:
    services = context.services
    now = services.now()
    await coordination.prune(services.db, handled_before=int(now.timestamp()) - 86_400,
                             leases_before_ms=int(time.time() * 1000) - 3_600_000)


def build_application(settings: Settings, *, bank: Bank | None = None,
                      clock: Callable[[], datetime] = utc_now, rng: random.Random | None = None,
                      rate_limiter: telegram_limits.CoachRateLimiter | None = None,
                      polling_timeout: float = 10.0) -> Application:
    """The whole bot, ready for `run_polling`, bot/webhook.serve, or `async with app:` in tests."""

    async def post_init(app: Application) -> None:
        db = await Database.open(settings.database_target)
        await db.start_background_checkpoints()
        app.bot_data["services"] = Services(
            settings=settings, db=db, bank=bank or load_bank(settings.questions_dir),
            texts=Texts.load(), rng=rng or random.Random(), clock=clock)
        await help_feature.set_command_menu(app)
        if db.shared:
            limiter = app.bot.rate_limiter
            if isinstance(limiter, telegram_limits.CoachRateLimiter) \
                    and limiter.wants_shared_budget:
                limiter.share_budget(db)
            assert app.job_queue is not None
            app.job_queue.run_repeating(prune_shared_state, interval=PRUNE_EVERY_SECONDS,
                                        first=60, name="prune-shared-state")
        for feature in FEATURES:
            if hasattr(feature, "on_startup"):
                await feature.on_startup(app)

    async def post_stop(app: Application) -> None:
        for feature in reversed(FEATURES):
            if hasattr(feature, "on_shutdown"):
                await feature.on_shutdown(app)

    async def post_shutdown(app: Application) -> None:
        services = app.bot_data.get("services")
        if services is not None:
            await services.db.close()

    app = (
        ApplicationBuilder()
        .token(settings.bot_token.get_secret_value())
        .base_url(settings.bot_api_base_url)
        .base_file_url(settings.file_base_url)
        .defaults(Defaults(parse_mode=ParseMode.HTML,
                           link_preview_options=LinkPreviewOptions(is_disabled=True)))
        .context_types(ContextTypes(context=CoachContext))
        .rate_limiter(rate_limiter or (telegram_limits.shared_limiter() if settings.database_url
                                       else telegram_limits.limiter()))
        .concurrent_updates(telegram_limits.PerUserUpdateProcessor())
        # aiohttp rather than PTB's default httpx: a third of the bot's CPU (bot/http.py).
        .request(AiohttpRequest())
        .get_updates_request(AiohttpRequest(connection_pool_size=1,
                                            read_timeout=polling_timeout + 5))
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
        .build()
    )
    app.bot_data["commands"] = [name for feature in FEATURES for name in feature.COMMANDS]
    app.bot_data["admin_commands"] = [name for feature in FEATURES
                                      for name in getattr(feature, "ADMIN_COMMANDS", ())]
    for feature in FEATURES:
        feature.register(app)
    help_feature.register_fallbacks(app)
    app.add_error_handler(error_handler)
    return app


async def start_polling_app(app: Application, *, poll_seconds: int = 10) -> None:
    """What run_polling does, but on the caller's event loop (the playground and the tests
    run the emulator on the same loop)."""
    await app.initialize()
    if app.post_init:
        await app.post_init(app)
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0, timeout=poll_seconds,
                                    allowed_updates=ALLOWED_UPDATES)
    await app.start()


async def stop_app(app: Application) -> None:
    """The reverse of start_polling_app, as run_polling does it on exit."""
    if app.updater is not None and app.updater.running:
        await app.updater.stop()
    if app.running:
        await app.stop()
    if app.post_stop:
        await app.post_stop(app)
    await app.shutdown()
    if app.post_shutdown:
        await app.post_shutdown(app)
