"""What a group round looks like in the chat: question, countdown, reveal, results, scoreboards.

Every text is in the round's language and fits one message, however many members play.
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardMarkup

from bot import callbacks
from bot.texts import Html, Texts
from domain.grading import seeded_order
from domain.rounds import Standing, ranked
from handlers.common import fit, keyboard
from questions import render
from questions.loader import Bank
from questions.markup import escape
from questions.model import Question
from storage.rounds import Result, Round

MESSAGE_LIMIT = render.MESSAGE_LIMIT
MEDALS = {1: "🥇 ", 2: "🥈 ", 3: "🥉 "}


def format_points(hundredths: int, lang: str) -> str:
    text = f"{hundredths / 100:.2f}"
    return text.replace(".", ",") if lang == "tr" else text


def format_seconds(ms: int, lang: str) -> str:
    text = f"{ms / 1000:.1f}"
    return text.replace(".", ",") if lang == "tr" else text


def shown_order(rnd: Round, position: int, question: Question) -> str:
    """The order a round question's options are shown in: the same for every member, every
    countdown edit, the reveal and a restart; new for each round."""
    return seeded_order(question, f"g{rnd.id}.{position}")


class RoundMessages:
    """Renders one round's messages; built per use from the services' texts and bank."""

    def __init__(self, texts: Texts, bank: Bank, lang: str) -> None:
        self.texts, self.bank, self.lang = texts, bank, lang

    def t(self, key: str, /, **args: object) -> str:
        return self.texts.t(self.lang, key, **args)

    def more(self, count: int) -> str:
        return self.t("round-and-more", count=count)

    def header(self, rnd: Round, position: int, question: Question) -> str:
        lang = self.lang
        return "\n".join([
            self.t("round-question-header", position=position, total=rnd.question_count),
            render.header_html(self.bank.field_name(question.field, lang),
                               self.bank.topic_name(question.field, question.topic, lang),
                               self.t(f"level-{question.seniority}")),
        ])

    @staticmethod
    def order(rnd: Round, position: int, question: Question) -> str:
        return shown_order(rnd, position, question)

    def announcement(self, rnd: Round, starter: str, scope: str, requested: int) -> str:
        text = self.t("round-started", name=starter, count=rnd.question_count,
                      seconds=rnd.seconds, scope=scope)
        if rnd.question_count < requested:
            text += "\n" + self.t("round-fewer-questions", count=rnd.question_count,
                                  requested=requested)
        return text

    def question(self, rnd: Round, position: int, question: Question, *,
                 seconds_left: int | None = None, answered: int | None = None) -> str:
        status = (self.t("round-time-open", seconds=rnd.seconds) if seconds_left is None
                  else self.t("round-time-left", seconds=seconds_left, answered=answered))
        body = render.question_html(question, self.lang,
                                    header=self.header(rnd, position, question),
                                    order=shown_order(rnd, position, question))
        return f"{body}\n\n{status}"

    @staticmethod
    def answer_keyboard(rnd: Round, position: int, question: Question) -> InlineKeyboardMarkup:
        order = shown_order(rnd, position, question)
        return keyboard([[(render.option_label(key, order),
                           callbacks.RoundAnswer(rnd.id, position, key).encode())
                          for key in order]])

    def revealed(self, rnd: Round, position: int, question: Question,
                 results: Sequence[Result], *, everyone: bool = False) -> str:
        right = sum(1 for r in results if r.is_correct)
        order = shown_order(rnd, position, question)
        line = self.t("round-revealed", right=render.option_label(question.correct, order),
                      answered=len(results), correct=right)
        if everyone:
            line += "\n" + self.t("round-everyone-answered")
        return render.graded_html(question, self.lang,
                                  header=self.header(rnd, position, question), chosen=None,
                                  result_line=line, order=order)

    def results(self, question: Question, results: Sequence[Result],
                order: str | None = None) -> str:
        head = "\n".join([
            self.t("round-explanation", right=render.option_label(question.correct, order)),
            render.explanation_html(question, self.lang), ""])
        winners = [r for r in results if r.is_correct]
        if not winners:
            return head + "\n" + self.t("round-nobody-right")
        lines = [self.t("round-winner-line", rank=index, name=r.name,
                        seconds=format_seconds(r.elapsed_ms, self.lang),
                        points=format_points(r.points, self.lang))
                 for index, r in enumerate(winners, 1)]
        return fit(head + "\n" + self.t("round-winners"), lines, self.more)

    def standings_lines(self, standings: Sequence[Standing], *, rounds: bool) -> list[str]:
        key = "round-leader-line" if rounds else "round-score-line"
        # No medal for nothing: a member on 0 points ranks, but wins no medal.
        return [self.t(key, medal=MEDALS.get(rank, "") if s.points > 0 else "", rank=rank, name=s.name, right=s.right,
                       points=format_points(s.points, self.lang), count=s.rounds)
                for rank, s in ranked(standings)]

    def scoreboard(self, heading: str, standings: Sequence[Standing]) -> str:
        if not standings:
            return heading + "\n\n" + self.t("round-no-players")
        return fit(heading, self.standings_lines(standings, rounds=False),
                   self.more)

    def leaderboard(self, title: str, week: Sequence[Standing],
                    all_time: Sequence[Standing], limit: int) -> str:
        if not all_time:
            return self.t("leaderboard-empty")
        parts = [self.t("leaderboard-title", title=title), "", self.t("leaderboard-week")]
        parts += self.standings_lines(week, rounds=True)[:limit] or [self.t("leaderboard-none")]
        parts += ["", self.t("leaderboard-all-time")]
        parts += self.standings_lines(all_time, rounds=True)[:limit]
        return "\n".join(parts)

    def scope(self, field: str | None, level: str, topic: str | None) -> str:
        """`Backend · Mid`, `All fields · Mid`, or with the topic: `Backend · HTTP caching`."""
        field_name = (self.bank.field_name(field, self.lang) if field
                      else self.t("group-all-fields"))
        parts = [field_name]
        if topic and field:
            parts.append(self.bank.topic_name(field, topic, self.lang))
        elif topic:
            parts.append(topic)
        parts.append(self.t(f"level-{level}"))
        return Html(" · ".join(escape(p) for p in parts))
