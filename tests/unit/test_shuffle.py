"""Shuffled options: orders are permutations, stable per seed, the pack's for `shuffle: false`,
and every text labels the options by the shown order."""

import random

from bot.texts import Texts
from domain.grading import checked_order, label, seeded_order, shown_order
from handlers.round_messages import RoundMessages
from questions import render
from storage.rounds import Round

ROUND = Round(id=7, chat_id=-100, started_by=1, language="en", seconds=30, status="running",
              started_at=0, question_count=5)


def test_orders_are_permutations_and_vary(test_bank):
    question = test_bank.questions["test-cache-002"]
    keys = "".join(question.option_keys)
    rng = random.Random(1)
    orders = {shown_order(question, rng) for _ in range(40)}
    assert len(orders) > 5 and all(sorted(o) == sorted(keys) for o in orders)
    fixed = question.model_copy(update={"shuffle": False})
    assert {shown_order(fixed, rng) for _ in range(10)} == {keys}


def test_a_seed_gives_the_same_order_every_time(test_bank):
    question = test_bank.questions["test-cache-002"]
    assert seeded_order(question, "g7.2") == seeded_order(question, "g7.2")
    assert len({seeded_order(question, f"i{n}.0") for n in range(30)}) > 5


def test_only_an_order_of_the_questions_own_options_is_accepted(test_bank):
    question = test_bank.questions["test-cache-002"]
    keys = "".join(question.option_keys)
    assert checked_order(question, None) == keys  # a button from before shuffling
    assert checked_order(question, keys[::-1]) == keys[::-1]
    for forged in ("aabc", keys + "e", keys[:-1], "zyxw"):
        assert checked_order(question, forged) is None, forged
    assert label("cadb", "a") == "B" and render.option_label("d", "cadb") == "C"


def test_question_and_graded_texts_follow_the_shown_order(test_bank):
    question = test_bank.questions["test-cache-002"]
    order = "".join(reversed(question.option_keys))
    options = question.text("en").options
    text = render.question_html(question, "en", order=order)
    assert text.index(options[order[0]]) < text.index(options[order[-1]])
    graded = render.graded_html(question, "en", header="", chosen=None, result_line="",
                                order=order)
    right = render.option_label(question.correct, order)
    assert f"<b>{right}.</b>" in graded.split("✅")[0].splitlines()[-1]


def test_a_round_labels_its_buttons_and_reveal_by_its_order(test_bank):
    question = test_bank.questions["test-cache-002"]
    view = RoundMessages(Texts.load(), test_bank, "en")
    order = view.order(ROUND, 2, question)
    buttons = view.answer_keyboard(ROUND, 2, question).inline_keyboard[0]
    assert [b.text for b in buttons] == list("ABCDEF"[: len(order)])
    assert [b.callback_data.split(":")[-1] for b in buttons] == list(order)
    right = render.option_label(question.correct, order)
    assert f"Answer: <b>{right}</b>" in view.revealed(ROUND, 2, question, []) or \
        f"<b>{right}</b>" in view.results(question, [], order)
