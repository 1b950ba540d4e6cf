"""Round messages render in both languages, escape names, and fit one message for any crowd."""

import pytest

from bot.texts import Texts
from domain.rounds import Standing
from handlers.round_messages import RoundMessages, format_points
from questions.markup import plain_length
from storage.rounds import Result, Round

ROUND = Round(id=7, chat_id=-100, started_by=1, language="en", seconds=30, status="running",
              started_at=0, question_count=5)


@pytest.fixture
def question(test_bank):
    return test_bank.questions["test-cache-002"]


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_every_round_message_renders(test_bank, question, lang):
    view = RoundMessages(Texts.load(), test_bank, lang)
    results = [Result(1, "Ada", "c", True, 1200, 146), Result(2, "Bob", "a", False, 900, 0)]
    standings = [Standing(1, "Ada", 146, 1), Standing(2, "Bob", 0, 0)]
    texts = [
        view.announcement(ROUND, "Ada", view.scope("backend", "mid", "http-caching"), 8),
        view.question(ROUND, 2, question),
        view.question(ROUND, 2, question, seconds_left=20, answered=3),
        view.revealed(ROUND, 2, question, results),
        view.results(question, results),
        view.results(question, results[1:]),
        view.scoreboard(view.t("round-over"), standings),
        view.scoreboard(view.t("round-over"), []),
        view.leaderboard("Group", [], [Standing(1, "Ada", 300, 2, 2)], 10),
        view.leaderboard("Group", [], [], 10),
    ]
    for text in texts:
        assert "{" not in text and plain_length(text) <= 4096
    assert "5" in texts[0] and "8" in texts[0]  # fewer questions than asked for is said
    buttons = view.answer_keyboard(ROUND, 2, question).inline_keyboard[0]
    assert [b.text for b in buttons] == ["A", "B", "C", "D"]
    assert buttons[2].callback_data == "v1:g:7:2:c"


def test_names_are_escaped_and_crowds_are_cut_to_one_message(test_bank, question):
    view = RoundMessages(Texts.load(), test_bank, "en")
    crowd = [Result(i, f"<b>Member {i:03d} with a long name</b>" + "x" * 30, "c", True, i, 150)
             for i in range(300)]
    text = view.results(question, crowd)
    assert "&lt;b&gt;Member 000" in text and "<b>Member" not in text
    assert plain_length(text) <= 4096 and "…and " in text
    board = view.scoreboard(view.t("round-over"),
                            [Standing(i, f"Player {i} " + "y" * 50, 100, 1) for i in range(300)])
    assert plain_length(board) <= 4096 and board.rstrip().endswith("more")
    shown = board.splitlines()[1:-1]
    assert shown and all(line.startswith("🥇 1. ") for line in shown)  # a 300-way tie


def test_points_use_the_languages_decimal_mark():
    assert format_points(146, "en") == "1.46"
    assert format_points(146, "tr") == "1,46"
    assert format_points(0, "en") == "0.00"


def test_a_right_to_left_override_in_a_name_stays_inside_the_name(test_bank, question):
    view = RoundMessages(Texts.load(), test_bank, "en")
    evil = "\u202eAda"
    board = view.scoreboard(view.t("round-over"), [Standing(1, evil, 146, 1)])
    assert "1. \u2068\u202eAda\u2069 · 1 right · 1.46 pts" in board
    results = view.results(question, [Result(1, evil, "c", True, 1200, 146)])
    assert "1. \u2068\u202eAda\u2069 · 1.2 s" in results
    leaders = view.leaderboard("Group", [], [Standing(1, evil, 300, 2, 2)], 10)
    assert "\u2068\u202eAda\u2069 · 3.00 pts" in leaders
    assert "started by \u2068\u202eAda\u2069:" in view.announcement(ROUND, evil, "x", 5)
