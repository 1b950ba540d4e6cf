"""The practice loop end to end: onboarding, right and wrong answers, stale taps, restarts, Turkish."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import button, option_button, say, tap

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases


async def onboard(fake, user, field="Backend", level="Junior"):
    welcome, lang_msg, field_msg = await say(fake, user, "/start", expect=3)
    _, [level_msg] = await tap(fake, user, field_msg, button(fake, field_msg, field), expect=1)
    _, [ready] = await tap(fake, user, level_msg, button(fake, level_msg, level), expect=1)
    return ready


async def test_onboarding_then_a_right_answer(fake, bot):
    ada = fake.user(1001, "Ada", language_code="en")
    welcome, lang_msg, field_msg = await say(fake, ada, "/start", expect=3)
    assert "Hi \u2068Ada\u2069" in welcome["text"]
    assert fake.buttons(lang_msg)[0][0][0] == "✓ English"
    assert any("Frontend" in t for row in fake.buttons(field_msg) for t, _ in row)
    _, [level_msg] = await tap(fake, ada, field_msg, button(fake, field_msg, "Backend"), expect=1)
    assert "level" in level_msg["text"]
    _, [ready] = await tap(fake, ada, level_msg, button(fake, level_msg, "Junior"), expect=1)
    assert "All set" in ready["text"]
    _, [question] = await tap(fake, ada, ready, button(fake, ready, "Start practice"), expect=1)
    assert [t for t, _ in fake.buttons(question)[0]] == ["A", "B", "C", "D"]
    q = bot.services.bank.questions
    asked = next(x for x in q.values() if x.text("en").body.split("`")[0][:20] in question["text"])
    right, data = option_button(fake, question, asked.correct)
    answer, [explanation] = await tap(fake, ada, question, data, expect=1)
    assert answer["text"].startswith("✅")
    edited = fake.messages(ada.id)
    graded = next(m for m in edited if m["message_id"] == question["message_id"])
    assert not graded.get("reply_markup") and f"Your answer: {right} ✅" in graded["text"]
    assert explanation["text"].startswith("✅ Right!")
    assert fake.buttons(explanation)[0][0][0] == "Next ▶"


async def test_wrong_answer_then_stale_and_double_taps(fake, bot):
    ada = fake.user(1002, "Ada")
    await onboard(fake, ada)
    [question] = await say(fake, ada, "/quiz")
    asked = next(q for q in bot.services.bank.questions.values()
                 if q.key in fake.buttons(question)[0][0][1])
    wrong = next(k for k in asked.option_keys if k != asked.correct)
    right_letter, _ = option_button(fake, question, asked.correct)
    answer, [explanation] = await tap(fake, ada, question, option_button(fake, question, wrong)[1],
                                      expect=1)
    assert answer["text"] == f"❌ Not quite: the answer is {right_letter}."
    assert explanation["text"].startswith(f"❌ The answer is {right_letter}.")
    # A late tap on the graded question (its old button) records nothing and is still answered.
    again, _ = await tap(fake, ada, question, f"v1:a:{asked.key}:{asked.correct}")
    assert again["text"] == "You already answered this question."
    junk, _ = await tap(fake, ada, question, "v0:zz:old-button")
    assert "expired" in junk["text"]
    rows = await bot.services.db.fetchall("SELECT chosen FROM answers WHERE user_id = ?", (ada.id,))
    assert [r["chosen"] for r in rows] == [wrong]  # the option's key in the pack


async def test_next_button_asks_again_once(fake, bot):
    ada = fake.user(1003, "Ada")
    await onboard(fake, ada)
    [question] = await say(fake, ada, "/quiz")
    _, [explanation] = await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
    _, [second] = await tap(fake, ada, explanation, button(fake, explanation, "Next"), expect=1)
    assert fake.buttons(second)[0][0][0] == "A"
    assert second["message_id"] != question["message_id"]


async def test_stats_and_buttons_survive_a_restart(fake, bot):
    ada = fake.user(1004, "Ada")
    await onboard(fake, ada)
    [q1] = await say(fake, ada, "/quiz")
    await tap(fake, ada, q1, fake.buttons(q1)[0][1][1], expect=1)
    [q2] = await say(fake, ada, "/quiz")
    await bot.restart()
    # A button sent before the restart still works: callback data is self-contained.
    answer, _ = await tap(fake, ada, q2, fake.buttons(q2)[0][0][1], expect=1)
    assert answer["text"][0] in "✅❌"
    [stats] = await say(fake, ada, "/stats")
    assert "Answered: 2" in stats["text"]
    assert "Streak: 1" in stats["text"]


async def test_turkish_user_gets_turkish(fake, bot):
    ayse = fake.user(1005, "Ayşe", language_code="tr")
    welcome, lang_msg, field_msg = await say(fake, ayse, "/start", expect=3)
    assert "Merhaba \u2068Ayşe\u2069" in welcome["text"]
    assert fake.buttons(lang_msg)[0][1][0] == "✓ Türkçe"
    assert any("Ön yüz" in t for row in fake.buttons(field_msg) for t, _ in row)
    _, [level_msg] = await tap(fake, ayse, field_msg, button(fake, field_msg, "Backend"), expect=1)
    _, [ready] = await tap(fake, ayse, level_msg, button(fake, level_msg, "Junior"), expect=1)
    assert "Her şey hazır" in ready["text"]
    [question] = await say(fake, ayse, "/quiz")
    assert any(w in question["text"] for w in ("Hangi", "Bu yanıt", "tüketici"))
    answer, [explanation] = await tap(fake, ayse, question, fake.buttons(question)[0][0][1],
                                      expect=1)
    assert answer["text"].startswith(("✅ Doğru", "❌ Yanlış"))
    assert fake.buttons(explanation)[0][0][0] == "Sonraki ▶"
    [stats] = await say(fake, ayse, "/stats")
    assert "Cevaplanan: 1" in stats["text"]


async def test_language_switch_and_bad_arguments(fake, bot):
    ada = fake.user(1006, "Ada")
    [msg] = await say(fake, ada, "/language xx")
    assert "en, tr" in msg["text"]
    [msg] = await say(fake, ada, "/language tr")
    assert msg["text"] == "🌐 Dil Türkçe olarak ayarlandı."
    [msg] = await say(fake, ada, "/level expert")
    assert "junior, mid, senior" in msg["text"] and "expert" in msg["text"]
    [msg] = await say(fake, ada, "/field <script>")
    assert "backend, frontend" in msg["text"] and "&lt;script&gt;" in msg["html"]
    confirm, level_prompt = await say(fake, ada, "/field frontend", expect=2)
    assert "Ön yüz" in confirm["text"] and fake.buttons(level_prompt)
    [msg] = await say(fake, ada, "/level junior")
    [question] = await say(fake, ada, "/quiz")
    assert "flex" in question["text"]
    [msg] = await say(fake, ada, "/quiz nosuchtopic")
    assert "nosuchtopic" in msg["text"] and fake.buttons(msg)[0][0][1].startswith("v1:tp:")
    [msg] = await say(fake, ada, "/nonsense")
    assert "/help" in msg["text"]


async def test_help_and_command_menu_in_both_languages(fake, bot):
    ada = fake.user(1007, "Ada")
    [msg] = await say(fake, ada, "/help")
    assert "/quiz" in msg["text"] and "/stats" in msg["text"]
    en = [c["command"] for c in fake.commands(language_code="")]
    tr = fake.commands(language_code="tr")
    assert {"start", "quiz", "stats", "help"} <= set(en)
    assert [c["command"] for c in tr] == en
    assert tr[0]["description"] != fake.commands(language_code="")[0]["description"]


async def test_code_and_html_characters_are_escaped(fake, bot):
    ada = fake.user(1008, "Ada")
    await onboard(fake, ada)
    await bot.services.db.execute(
        "INSERT INTO progress VALUES (?, 'test-cache-001', 1, 1, 1, 1)", (ada.id,))
    await bot.services.db.execute(
        "INSERT INTO progress VALUES (?, 'test-queue-001', 1, 1, 1, 1)", (ada.id,))
    [question] = await say(fake, ada, "/quiz")
    assert "Cache-Control: no-cache" in question["text"]
    assert any(e["type"] == "pre" and e.get("language") == "http" for e in question["entities"])


async def test_a_failing_handler_apologises_and_the_bot_goes_on(fake, bot, monkeypatch):
    import handlers.practice

    ada = fake.user(1009, "Ada")
    await onboard(fake, ada)

    async def broken(*args, **kwargs):
        raise RuntimeError("storage exploded")

    monkeypatch.setattr(handlers.practice, "seen_questions", broken)
    [msg] = await say(fake, ada, "/quiz")
    assert "Sorry, something went wrong" in msg["text"]
    monkeypatch.undo()
    [question] = await say(fake, ada, "/quiz")
    assert fake.buttons(question)
