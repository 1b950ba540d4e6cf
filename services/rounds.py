"""Group rounds outside the handlers: the engine that runs each round from its state in the
database, and recording a member's tap with its score. The rules are in domain/rounds.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol, cast

from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError
from telegram.ext import CallbackContext, JobQueue

from domain import rounds as domain
from questions.model import Question
from services import answers
from storage import coordination
from storage import rounds as store
from storage.answers import NewAnswer
from storage.chats import migrate_chat
from storage.db import Database

if TYPE_CHECKING:
    from bot.services import Services

log = logging.getLogger(__name__)
# After a send fails for a passing reason (network, a long 429), the round tries again.
RETRY_SECONDS = 5.0
# A step that comes due while the bot is busy or starting still runs, however late.
LATE_OK = {"misfire_grace_time": None}
# How long a group's member count is trusted before Telegram is asked again: a round asks
# after taps, and a busy group must not cost one getChatMemberCount per tap.
MEMBER_COUNT_SECONDS = 60.0
# Above this many members a question is not revealed early: all of them answering is unlikely,
# and counting answers after every tap would cost a query per tap in the busiest groups.
EARLY_REVEAL_MEMBERS = 50
# Several instances: how often a group's lease is tried again while another instance holds it,
# and how late a timer must be before another instance takes it over from the one that set it.
LEASE_RETRY_SECONDS = 0.05
TAKE_OVER_AFTER_MS = 2000


async def record_tap(db: Database, *, round_id: int, position: int, answer: NewAnswer,
                     points: int) -> store.Tap:
    """Store a member's first tap and its personal answer in one transaction, unless the
    question has closed meanwhile."""
    async with db.transaction() as conn:
        if await store.insert_tap(conn, round_id=round_id, position=position, answer=answer,
                                  points=points):
            await answers.record_in(conn, answer)
            return store.Tap("recorded", answer.chosen)
        chosen = await store.earlier_tap(conn, round_id=round_id, position=position,
                                         user_id=answer.user_id)
    return store.Tap("already", chosen) if chosen else store.Tap("closed")


# -- the engine --------------------------------------------------------------------------------

class RoundView(Protocol):
    """How a round looks in one language (handlers/round_messages.RoundMessages)."""

    def t(self, key: str, /, **args: object) -> str: ...
    def question(self, rnd: store.Round, position: int, question: Question, *,
                 seconds_left: int | None = None, answered: int | None = None) -> str: ...
    def answer_keyboard(self, rnd: store.Round, position: int, question: Question) -> Any: ...
    def revealed(self, rnd: store.Round, position: int, question: Question,
                 results: Sequence[store.Result], *, everyone: bool = False) -> str: ...
    def order(self, rnd: store.Round, position: int, question: Question) -> str: ...
    def results(self, question: Question, results: Sequence[store.Result],
                order: str | None = None) -> str: ...
    def scoreboard(self, heading: str, standings: Sequence[domain.Standing]) -> str: ...


class RoundEngine:
    """Runs every group's round step by step from the state in the database: opens each
    question (within the group's send budget), edits the countdown in, reveals, posts results
    and the scoreboard, and sets the next timer.

    Per process it holds only what may be lost: one lock per group (a step, a countdown edit and
    /stop never interleave) and each group's send budget (`domain.rounds.SendBudget`, the rounds'
    share of Telegram's 20 messages a minute per group).
    """

    def __init__(self, services: Services, bot: Bot, jobs: JobQueue,
                 view: Callable[[str], RoundView]) -> None:
        self.services = services
        self.bot = bot
        self.jobs = jobs
        self.view = view
        self.per_minute = services.settings.round_sends_per_minute
        self._locks: dict[int, asyncio.Lock] = {}
        self._budgets: dict[int, domain.SendBudget] = {}
        self._member_counts: dict[int, tuple[int, float]] = {}
        self._member_asks: dict[int, asyncio.Future[int | None]] = {}
        # Several instances on one database: timers are rows any of them can fire, and each
        # group's lock is a lease in the database.
        self.shared = services.db.shared
        self.lease_ms = int(services.settings.instance_lease_seconds * 1000)

    @asynccontextmanager
    async def lock(self, chat_id: int) -> AsyncIterator[None]:
        """One step, countdown edit or /stop at a time in a group: in this process, and with
        several instances on one database, across all of them (a lease in the database)."""
        async with self._locks.setdefault(chat_id, asyncio.Lock()):
            if not self.shared:
                yield
                return
            name, holder = step_name(chat_id), self.services.instance_id
            db = self.services.db
            # Another instance holds it: nothing here could signal its release, so poll.
            while not await coordination.take_lease(  # noqa: ASYNC110
                    db, name=name, holder=holder, now_ms=wall_ms(), lease_ms=self.lease_ms):
                await asyncio.sleep(LEASE_RETRY_SECONDS)
            async with self._renewed(lambda: coordination.renew_lease(
                    db, name=name, holder=holder, now_ms=wall_ms(), lease_ms=self.lease_ms)):
                try:
                    yield
                finally:
                    await coordination.release_lease(db, name=name, holder=holder)

    @asynccontextmanager
    async def _renewed(self, renew: Callable[[], Awaitable[object]]) -> AsyncIterator[None]:
        """Renew a lease or claim every third of its length while the body runs: a step that
        waits on Telegram's limits keeps it, and only a dead instance lets it run out."""
        async def keep() -> None:
            while True:
                await asyncio.sleep(self.lease_ms / 3000)
                try:
                    await renew()
                except Exception as exc:  # noqa: BLE001 - tried again a third of a lease later
                    log.warning("could not renew a lease: %s", type(exc).__name__)

        keeper = asyncio.create_task(keep())
        try:
            yield
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper

    def budget(self, chat_id: int) -> domain.SendBudget:
        if chat_id not in self._budgets:
            self._budgets[chat_id] = domain.SendBudget(self.per_minute, time.monotonic)
        return self._budgets[chat_id]

    def now_ms(self) -> int:
        return int(self.services.now().timestamp() * 1000)

    async def member_count(self, chat_id: int, *, fresh: bool = False) -> int | None:
        """How many are in the group, the bot included (None if Telegram would not say)."""
        known = self._member_counts.get(chat_id)
        if not fresh and known is not None and time.monotonic() - known[1] < MEMBER_COUNT_SECONDS:
            return known[0]
        # A burst of taps asks at once: one request to Telegram, the others wait for its answer.
        asking = self._member_asks.get(chat_id)
        if asking is None:
            asking = self._member_asks[chat_id] = asyncio.ensure_future(
                self._ask_member_count(chat_id))
            asking.add_done_callback(lambda _: self._member_asks.pop(chat_id, None))
        return await asyncio.shield(asking)

    async def _ask_member_count(self, chat_id: int) -> int | None:
        try:
            count = await self.bot.get_chat_member_count(chat_id)
        except TelegramError as exc:
            log.info("member count of chat %s unknown: %s", chat_id, exc)
            return None
        self._member_counts[chat_id] = (count, time.monotonic())
        return count

    async def everyone_answered(self, rnd: store.Round, position: int,
                                answered: int | None = None) -> bool:
        """True when every member but the bot has answered the question (in a large group
        this simply never happens)."""
        members = await self.member_count(rnd.chat_id)
        if members is None or members - 1 > EARLY_REVEAL_MEMBERS:
            return False  # a large group: everyone answering is not worth a query per tap
        if answered is None:
            answered = await store.answer_count(self.services.db, round_id=rnd.id,
                                                position=position)
        if answered == 0 or answered < members - 1:
            return False
        # Someone may have joined since the count was taken: make sure before saying so.
        members = await self.member_count(rnd.chat_id, fresh=True)
        return members is not None and answered >= members - 1

    async def reveal_if_all_answered(self, rnd: store.Round, position: int) -> None:
        """After a tap: if that was the last member, reveal now instead of waiting out the
        timer (the step job reveals a question that is closed)."""
        if not await self.everyone_answered(rnd, position):
            return
        async with self.lock(rnd.chat_id):
            if await store.close_question(self.services.db, round_id=rnd.id, position=position,
                                          now_ms=self.now_ms()):
                await self.schedule_step(rnd.chat_id, 0.0)

    # -- timers --------------------------------------------------------------------------------

    async def schedule_step(self, chat_id: int, delay: float,
                            fired: tuple[str, int] | None = None) -> None:
        """Run the round's next step after `delay` seconds; `fired` names the timer, whose
        firing means its time has come even if the bot's clock disagrees (tests freeze it).

        With several instances the timer is also a row: this process fires it on time, and if
        it dies first, another instance claims the row once it is overdue (`take_over`)."""
        remove_jobs(self.jobs, step_name(chat_id))
        delay = max(delay, 0.0)
        generation = 0
        if self.shared:
            generation = await coordination.set_timer(
                self.services.db, name=step_name(chat_id),
                due_at_ms=self.now_ms() + int(delay * 1000), payload=json.dumps(fired))
        self.jobs.run_once(self._step_job, delay, data=(chat_id, fired, generation),
                           name=step_name(chat_id), job_kwargs=LATE_OK)

    async def schedule_ticks(self, rnd: store.Round, state: domain.QuestionState) -> None:
        """Set the countdown's refreshes in this process. With several instances the next one
        is also a row that whichever instance comes first claims, and that another takes over
        if this one dies (`take_over`); each refresh moves the row on to the one after it."""
        remove_jobs(self.jobs, tick_name(rnd.chat_id))
        assert state.opened_at_ms is not None and state.deadline_ms is not None
        now = self.now_ms()
        for at in self._tick_times(state, after=now):
            self.jobs.run_once(
                self._tick_job, (at - now) / 1000, name=tick_name(rnd.chat_id),
                data=(rnd.chat_id, rnd.id, state.position, (state.deadline_ms - at) // 1000))
        await self._next_tick_row(rnd, state)

    def _tick_times(self, state: domain.QuestionState, *, after: int) -> list[int]:
        assert state.opened_at_ms is not None and state.deadline_ms is not None
        every = self.services.settings.round_tick_seconds
        return [at for at in domain.tick_times(state.opened_at_ms, state.deadline_ms, every)
                if at > after]

    async def _next_tick_row(self, rnd: store.Round, state: domain.QuestionState) -> None:
        if not self.shared:
            return
        upcoming = self._tick_times(state, after=self.now_ms())
        if not upcoming:
            await coordination.cancel_timer(self.services.db, name=tick_name(rnd.chat_id))
            return
        await coordination.set_timer(self.services.db, name=tick_name(rnd.chat_id),
                                     due_at_ms=upcoming[0],
                                     payload=json.dumps([rnd.id, state.position]))

    def adopt(self, chat_id: int, timer: coordination.Timer) -> None:
        """At start-up, with several instances: take the round's next step now unless another
        instance is running it (this claims the timer's current generation), so a restart or a
        rolling deploy resumes its rounds at once instead of waiting for `take_over`."""
        self.jobs.run_once(self._step_job, 0.0, data=(chat_id, None, timer.generation),
                           name=step_name(chat_id), job_kwargs=LATE_OK)

    async def cancel_timers(self, chat_id: int) -> None:
        remove_jobs(self.jobs, step_name(chat_id))
        await self.cancel_ticks(chat_id)
        if self.shared:
            await coordination.cancel_timer(self.services.db, name=step_name(chat_id))

    async def cancel_ticks(self, chat_id: int) -> None:
        remove_jobs(self.jobs, tick_name(chat_id))
        if self.shared:
            await coordination.cancel_timer(self.services.db, name=tick_name(chat_id))

    async def _step_job(self, context: CallbackContext) -> None:
        assert context.job is not None
        chat_id, fired, generation = cast(tuple[int, tuple[str, int] | None, int],
                                          context.job.data)
        if not self.shared:
            await self.advance(chat_id, fired)
            return
        name = step_name(chat_id)
        if await coordination.claim_timer(self.services.db, name=name, generation=generation,
                                          now_ms=wall_ms(), lease_ms=self.lease_ms):
            await self._run_claimed(chat_id, fired, name, generation)

    async def _run_claimed(self, chat_id: int, fired: tuple[str, int] | None, name: str,
                           generation: int) -> None:
        db = self.services.db
        try:
            async with self._renewed(lambda: coordination.renew_claim(
                    db, name=name, generation=generation, now_ms=wall_ms(),
                    lease_ms=self.lease_ms)):
                await self.advance(chat_id, fired)
        finally:
            await coordination.finish_timer(db, name=name, generation=generation)

    async def take_over(self, context: CallbackContext | None = None) -> None:
        """Run round timers that are overdue and unclaimed: their instance died (or is too
        busy). Every instance polls; each timer is claimed by one."""
        now = wall_ms()
        claimed = await coordination.claim_due_timers(
            self.services.db, due_by_ms=self.now_ms() - TAKE_OVER_AFTER_MS, now_ms=now,
            lease_ms=self.lease_ms)
        for timer in claimed:
            if (chat_id := chat_of(timer.name, tick_name)) is not None:
                # A countdown refresh its instance did not live to make: the time left now.
                round_id, position = json.loads(timer.payload)
                await self._tick_claimed(chat_id, round_id, position, None, timer.generation,
                                         taken_over=True)
                continue
            if (chat_id := chat_of(timer.name, step_name)) is None:
                continue
            fired = json.loads(timer.payload) if timer.payload else None
            log.info("taking over the round timer of chat %s", chat_id)
            await self._run_claimed(chat_id, tuple(fired) if fired else None, timer.name,
                                    timer.generation)

    async def _tick_job(self, context: CallbackContext) -> None:
        assert context.job is not None
        chat_id, round_id, position, seconds_left = cast(tuple[int, int, int, int],
                                                         context.job.data)
        if not self.shared:
            await self._tick(chat_id, round_id, position, seconds_left)
            return
        generation = await coordination.claim_due_timer(
            self.services.db, name=tick_name(chat_id), due_by_ms=self.now_ms(),
            now_ms=wall_ms(), lease_ms=self.lease_ms)
        if generation is not None:  # else another instance made this refresh
            await self._tick_claimed(chat_id, round_id, position, seconds_left, generation,
                                     taken_over=False)

    async def _tick_claimed(self, chat_id: int, round_id: int, position: int,
                            seconds_left: int | None, generation: int, *,
                            taken_over: bool) -> None:
        """A claimed countdown refresh (several instances). The row first moves on to the
        next refresh, so that one is claimable however long this edit takes; an instance taking
        over also sets the refreshes after it for itself."""
        db = self.services.db
        try:
            rnd = await store.get_round(db, round_id=round_id)
            state = await store.get_question(db, round_id=round_id, position=position)
            if rnd is None or not rnd.is_running or state is None \
                    or state.closed_at_ms is not None or state.deadline_ms is None:
                return
            if taken_over:
                await self.schedule_ticks(rnd, state)
            else:
                await self._next_tick_row(rnd, state)
            await self._tick(chat_id, round_id, position, seconds_left)
        finally:
            await coordination.finish_timer(db, name=tick_name(chat_id), generation=generation)

    async def _tick(self, chat_id: int, round_id: int, position: int,
                    seconds_left: int | None) -> None:
        async with self.lock(chat_id):
            try:
                await self.refresh_countdown(round_id, position, seconds_left)
            except ChatMigrated as exc:
                await self._follow(chat_id, exc.new_chat_id)
            except Forbidden as exc:
                log.warning("round in chat %s ended: %s", chat_id, exc.message)
                await self.end_running(chat_id)
            except TelegramError as exc:  # a countdown edit is not worth more than a line
                log.info("countdown edit in chat %s skipped: %s", chat_id, exc)

    # -- the round, step by step ---------------------------------------------------------------

    async def advance(self, chat_id: int, fired: tuple[str, int] | None = None) -> None:
        """Take the group's running round as far as it can go now, then set its next timer."""
        async with self.lock(chat_id):
            try:
                await self._run_steps(chat_id, fired)
            except ChatMigrated as exc:
                # The group became a supergroup before its service message reached us: the
                # error carries the new id, so the round goes on there.
                await self._follow(chat_id, exc.new_chat_id)
            except (Forbidden, BadRequest) as exc:
                # Removed from the group, or no right to write: the round cannot go on here.
                log.warning("round in chat %s abandoned: %s", chat_id, exc.message)
                await self.end_running(chat_id)
            except TelegramError as exc:
                log.warning("round in chat %s will retry: %s", chat_id, exc)
                await self.schedule_step(chat_id, RETRY_SECONDS)

    async def _follow(self, old_chat_id: int, new_chat_id: int) -> None:
        """Move the group's rows to its supergroup id and ask the live question again there."""
        log.info("round in chat %s follows the group to %s", old_chat_id, new_chat_id)
        await self.cancel_timers(old_chat_id)
        await migrate_chat(self.services.db, old_chat_id=old_chat_id, new_chat_id=new_chat_id)
        rnd = await store.running_round(self.services.db, chat_id=new_chat_id)
        if rnd is not None:
            await store.forget_messages(self.services.db, round_id=rnd.id)
            await self.schedule_step(new_chat_id, 0.0)

    async def end_running(self, chat_id: int) -> None:
        """End the group's running round where it stands (the bot cannot write there)."""
        rnd = await store.running_round(self.services.db, chat_id=chat_id)
        if rnd is not None:
            await store.end_round(self.services.db, round_id=rnd.id, status=store.STOPPED,
                                  now=int(self.services.now().timestamp()))
        await self.cancel_timers(chat_id)

    async def _run_steps(self, chat_id: int, fired: tuple[str, int] | None) -> None:
        services = self.services
        budget = self.budget(chat_id)
        pause_ms = int(services.settings.round_pause_seconds * 1000)
        while True:
            rnd = await store.running_round(services.db, chat_id=chat_id)
            if rnd is None:
                await self.cancel_timers(chat_id)
                return
            questions = await store.round_questions(services.db, round_id=rnd.id)
            now = self.now_ms()
            step = domain.next_step(questions, now_ms=now, pause_ms=pause_ms)
            if isinstance(step, domain.AwaitDeadline):
                if fired == ("deadline", step.position):
                    await store.close_question(services.db, round_id=rnd.id,
                                               position=step.position, now_ms=now)
                    continue
                await self.schedule_step(chat_id, (step.deadline_ms - now) / 1000,
                                         ("deadline", step.position))
                await self.schedule_ticks(rnd, questions[step.position - 1])
                return
            if isinstance(step, domain.Open):
                due_in = 0.0 if fired == ("open", step.position) else (step.due_ms - now) / 1000
                wait = max(due_in, budget.wait_for(domain.QUESTION_COST))
                if wait > 0:
                    await self.schedule_step(chat_id, wait, ("open", step.position))
                    return
                await self.open_question(rnd, questions[step.position - 1])
            elif isinstance(step, domain.Reveal):
                await self.reveal(rnd, step.position)
            else:
                wait = budget.wait_for(1)
                if wait > 0:
                    await self.schedule_step(chat_id, wait)
                    return
                await self.finish(rnd)
                return
            fired = None

    async def open_question(self, rnd: store.Round, state: domain.QuestionState) -> None:
        """Start the question's clock, then send it with one button per option."""
        db, now = self.services.db, self.now_ms()
        question = self.services.bank.questions.get(state.question_id)
        await store.open_question(db, round_id=rnd.id, position=state.position,
                                  opened_at_ms=now, deadline_ms=now + rnd.seconds * 1000)
        if question is None:
            # Gone from the bank since the round began: skip it rather than stall the round.
            await store.close_question(db, round_id=rnd.id, position=state.position, now_ms=now)
            await store.mark_reported(db, round_id=rnd.id, position=state.position, now_ms=now)
            return
        view = self.view(rnd.language)
        sent = await self.bot.send_message(
            rnd.chat_id, view.question(rnd, state.position, question),
            message_thread_id=rnd.thread_id,
            reply_markup=view.answer_keyboard(rnd, state.position, question))
        self.budget(rnd.chat_id).spend()
        await store.set_message(db, round_id=rnd.id, position=state.position,
                                message_id=sent.message_id)

    async def refresh_countdown(self, round_id: int, position: int,
                                seconds_left: int | None) -> None:
        """Edit the time left (None: as the clock says now) and how many have answered into the
        question, budget permitting."""
        db = self.services.db
        rnd = await store.get_round(db, round_id=round_id)
        state = await store.get_question(db, round_id=round_id, position=position)
        if rnd is None or not rnd.is_running or state is None or state.message_id is None \
                or state.closed_at_ms is not None:
            return
        budget = self.budget(rnd.chat_id)
        if budget.room() < 1 + 2:  # this edit, and still room for the reveal edit and results
            return
        question = self.services.bank.questions.get(state.question_id)
        if question is None:
            return
        if seconds_left is None:
            assert state.deadline_ms is not None
            seconds_left = domain.seconds_left(state.deadline_ms, self.now_ms())
        answered = await store.answer_count(db, round_id=round_id, position=position)
        view = self.view(rnd.language)
        text = view.question(rnd, position, question, seconds_left=seconds_left,
                             answered=answered)
        if await self.edit_text(rnd.chat_id, state.message_id, text,
                                view.answer_keyboard(rnd, position, question)):
            budget.spend()

    async def reveal(self, rnd: store.Round, position: int) -> None:
        """Close the question, edit the right answer into it, post the explanation and who got
        it right, fastest first."""
        db = self.services.db
        await self.cancel_ticks(rnd.chat_id)
        await store.close_question(db, round_id=rnd.id, position=position, now_ms=self.now_ms())
        state = await store.get_question(db, round_id=rnd.id, position=position)
        question = self.services.bank.questions.get(state.question_id) if state else None
        if state is not None and question is not None:
            results = await store.question_results(db, round_id=rnd.id, position=position)
            view = self.view(rnd.language)
            budget = self.budget(rnd.chat_id)
            everyone = await self.everyone_answered(rnd, position, len(results))
            if state.message_id is not None and await self.edit_text(
                    rnd.chat_id, state.message_id,
                    view.revealed(rnd, position, question, results, everyone=everyone)):
                budget.spend()
            await self.bot.send_message(
                rnd.chat_id, view.results(question, results,
                                          view.order(rnd, position, question)),
                message_thread_id=rnd.thread_id)
            budget.spend()
        await store.mark_reported(db, round_id=rnd.id, position=position, now_ms=self.now_ms())

    async def reveal_closed(self, rnd: store.Round, state: domain.QuestionState) -> None:
        """On /stop: the live question shows its answer and loses its buttons; no results."""
        db = self.services.db
        await store.close_question(db, round_id=rnd.id, position=state.position,
                                   now_ms=self.now_ms())
        question = self.services.bank.questions.get(state.question_id)
        if question is not None and state.message_id is not None:
            results = await store.question_results(db, round_id=rnd.id, position=state.position)
            view = self.view(rnd.language)
            if await self.edit_text(rnd.chat_id, state.message_id,
                                    view.revealed(rnd, state.position, question, results)):
                self.budget(rnd.chat_id).spend()
        await store.mark_reported(db, round_id=rnd.id, position=state.position,
                                  now_ms=self.now_ms())

    async def finish(self, rnd: store.Round) -> None:
        view = self.view(rnd.language)
        standings = await store.round_standings(self.services.db, round_id=rnd.id)
        await self.bot.send_message(rnd.chat_id, view.scoreboard(view.t("round-over"), standings),
                                    message_thread_id=rnd.thread_id)
        self.budget(rnd.chat_id).spend()
        await store.end_round(self.services.db, round_id=rnd.id, status=store.FINISHED,
                              now=int(self.services.now().timestamp()))
        await self.cancel_timers(rnd.chat_id)

    async def edit_text(self, chat_id: int, message_id: int, text: str, markup=None) -> bool:
        """Edit a round message; a deleted or unchanged message is not worth stopping for."""
        try:
            await self.bot.edit_message_text(text, chat_id=chat_id, message_id=message_id,
                                             reply_markup=markup)
            return True
        except BadRequest as exc:
            # Deleted or unchanged: not worth stopping for. (A 403 is: it goes to the caller,
            # which ends the round, as for a send.)
            log.info("round edit skipped: %s", exc.message)
            return False


def step_name(chat_id: int) -> str:
    return f"round-{chat_id}"


def chat_of(timer_name: str, kind: Callable[[int], str]) -> int | None:
    """The chat in a timer's name of this kind (step_name, tick_name), or None."""
    prefix = kind(0)[:-1]
    rest = timer_name[len(prefix):] if timer_name.startswith(prefix) else ""
    return int(rest) if rest.lstrip("-").isdigit() else None


def wall_ms() -> int:
    """Leases and claims run on the real clock (tests freeze the bot's)."""
    return int(time.time() * 1000)


def tick_name(chat_id: int) -> str:
    return f"round-tick-{chat_id}"


def remove_jobs(job_queue: JobQueue, name: str) -> None:
    for job in job_queue.get_jobs_by_name(name):
        job.schedule_removal()
