"""What the reminder job retries, and what a reminder says, without a network."""

import httpx
from telegram.error import NetworkError, TelegramError, TimedOut

from bot import callbacks
from bot.telegram_limits import surely_not_sent
from bot.texts import Texts
from handlers.reminders import days_text, reminder_message


def caused_by(error, cause):
    try:
        raise error from cause
    except type(error) as exc:
        return exc


def test_a_reminder_is_retried_only_when_it_surely_did_not_arrive():
    assert surely_not_sent(NetworkError("Internal Server Error (500)"))  # Telegram said no
    assert surely_not_sent(caused_by(NetworkError("Bad Gateway (502)"),
                                     TelegramError("Invalid server response")))
    assert surely_not_sent(caused_by(NetworkError("x"), httpx.ConnectError("refused")))
    assert surely_not_sent(caused_by(TimedOut(), httpx.ConnectTimeout("slow")))
    assert surely_not_sent(caused_by(TimedOut("Pool timeout"), httpx.PoolTimeout("full")))
    # Sent, but the answer got lost: it may have arrived, so it is not sent again.
    assert not surely_not_sent(caused_by(TimedOut(), httpx.ReadTimeout("late")))
    assert not surely_not_sent(caused_by(NetworkError("x"), httpx.RemoteProtocolError("cut")))


def test_the_reminder_message_in_both_languages():
    texts = Texts.load()
    text, markup = reminder_message(texts, "en", streak=4, reviews=2)
    assert text.startswith("⏰ <b>Time to practise!</b>")
    assert "Streak: <b>4</b>" in text and "review: <b>2</b>" in text
    assert "keeps your 4-day streak alive" in text
    [[start]] = markup.inline_keyboard
    assert start.text == "Start practice ▶" and callbacks.decode(start.callback_data).kind == "n"
    text, markup = reminder_message(texts, "tr", streak=0, reviews=0)
    assert "Serine bugün başla!" in text and "Seri: <b>0</b> gün" in text
    text, _ = reminder_message(texts, "en", streak=1, reviews=0)
    assert "Streak: <b>1</b> day ·" in text
    # An `always` reminder to someone who practised today: the streak is safe already.
    text, _ = reminder_message(texts, "en", streak=4, reviews=0, practised_today=True)
    assert "keeps your" not in text and "streak is safe" in text
    assert markup.inline_keyboard[0][0].text == "Pratiğe başla ▶"


def test_weekday_sets_read_naturally():
    texts = Texts.load()
    assert days_text(texts, "en", 0b1111111) == "every day"
    assert days_text(texts, "en", 0b0011111) == "weekdays"
    assert days_text(texts, "tr", 0b0011111) == "hafta içi"
    assert days_text(texts, "tr", 0b1100000) == "hafta sonu"
    assert days_text(texts, "en", 0b0001111) == "Mon–Thu"
    assert days_text(texts, "tr", 0b1010101) == "Pzt, Çar, Cum, Paz"


def test_every_zone_fits_in_a_button():
    from domain import timezones

    for name in timezones._names().values():
        assert "." not in name
        data = callbacks.TimezoneChoice.of(name).encode()
        assert callbacks.TimezoneChoice.parse(data).name == name
