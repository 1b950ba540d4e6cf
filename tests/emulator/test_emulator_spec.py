"""Checking calls against api.json: scalars, nested objects, unions, JSON bodies, no spec at all."""

from __future__ import annotations

import json

import pytest

from fake_telegram import FakeTelegram
from fake_telegram.spec import Spec, SpecError, find_spec
from tests.shared_files import API_SPEC

pytestmark = pytest.mark.needs_spec


@pytest.fixture(scope="module")
def spec() -> Spec:
    if API_SPEC is None:
        pytest.skip("Bot API spec not found: put it at ../shared/telegram-bot-api/api.json")
    return Spec.load(API_SPEC)


def test_form_values_are_parsed_by_type(spec):
    method = spec.method("sendmessage")
    assert method is not None and method.name == "sendMessage"
    parsed = spec.parse_params(
        method,
        {
            "chat_id": "-100123",
            "text": "007",
            "disable_notification": "true",
            "reply_markup": json.dumps(
                {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
            ),
        },
    )
    assert parsed["chat_id"] == -100123 and parsed["text"] == "007"
    assert parsed["disable_notification"] is True
    assert parsed["reply_markup"]["inline_keyboard"][0][0]["text"] == "A"
    assert spec.parse_params(method, {"chat_id": "@study", "text": "x"})["chat_id"] == "@study"


def test_union_errors_come_from_the_alternative_meant(spec):
    method = spec.method("sendMessage")
    bad_row = {"inline_keyboard": [{"text": "A", "callback_data": "a"}]}
    with pytest.raises(SpecError) as caught:
        spec.parse_params(
            method, {"chat_id": "1", "text": "x", "reply_markup": json.dumps(bad_row)}
        )
    assert caught.value.message == (
        "Bad Request: can't parse reply keyboard markup JSON object: "
        'Field "inline_keyboard[0]" must be of type Array (at reply_markup.inline_keyboard[0])'
    )


def test_subtypes_are_chosen_by_their_discriminator(spec):
    method = spec.method("setMyCommands")
    commands = json.dumps([{"command": "start", "description": "Start"}])
    scope = json.dumps({"type": "chat"})
    with pytest.raises(SpecError, match='Can\'t find field "chat_id"'):
        spec.parse_params(method, {"commands": commands, "scope": scope})
    good = json.dumps({"type": "chat", "chat_id": -100123})
    assert (
        spec.parse_params(method, {"commands": commands, "scope": good})["scope"]["chat_id"]
        == -100123
    )


def test_input_file_only_fields_need_an_upload(spec):
    with pytest.raises(SpecError, match="must be a file upload"):
        spec.parse_params(
            spec.method("setWebhook"), {"url": "https://x.org/", "certificate": "pem"}
        )


def test_our_own_objects_match_the_spec(spec):
    assert spec.object_errors("User", {"id": 1, "is_bot": False, "first_name": "A"}) == []
    assert spec.object_errors("User", {"id": 1, "is_bot": False}) == [
        'User.first_name: Can\'t find field "first_name"'
    ]


def test_find_spec_honours_the_environment(monkeypatch, tmp_path, spec):
    fake_spec = tmp_path / "api.json"
    fake_spec.write_text('{"methods": {}, "types": {}}')
    monkeypatch.setenv("TELEGRAM_API_SPEC", str(fake_spec))
    assert find_spec() == fake_spec.resolve()
    assert find_spec(default=API_SPEC) == fake_spec.resolve()


def test_find_spec_takes_the_default_and_never_searches(monkeypatch, tmp_path, spec):
    monkeypatch.delenv("TELEGRAM_API_SPEC", raising=False)
    nested = tmp_path / "clone" / "deeper"
    nested.mkdir(parents=True)
    shared = tmp_path / "shared" / "telegram-bot-api"
    shared.mkdir(parents=True)
    (shared / "api.json").write_text('{"methods": {}, "types": {}}')
    monkeypatch.chdir(nested)  # a spec in a parent folder is not picked up by accident
    assert find_spec() is None
    assert find_spec(default=tmp_path / "missing.json") is None
    assert find_spec(default=shared / "api.json") == (shared / "api.json").resolve()
    assert FakeTelegram().spec is None


async def test_json_bodies_are_accepted(fake, http):
    fake.send_message(fake.user(1001, "Ada"), "/start")
    response = await http.post(
        fake.api_url("sendMessage"),
        json={
            "chat_id": 1001,
            "text": "<b>hi</b>",
            "parse_mode": "HTML",
            "reply_markup": {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]},
        },
    )
    assert response.json()["result"]["entities"] == [{"type": "bold", "offset": 0, "length": 2}]
    refused = await http.post(fake.api_url("sendMessage"), json={"chat_id": 1001, "text": 5})
    assert refused.json()["description"] == 'Bad Request: parameter "text" must be of type String'


async def test_without_a_spec_calls_still_work(http):
    async with FakeTelegram(use_spec=False) as fake:
        fake.send_message(fake.user(1001, "Ada"), "/start")
        form = {"chat_id": "1001", "text": "hi", "reply_markup": '{"inline_keyboard": []}'}
        body = (await http.post(fake.api_url("sendMessage"), data=form)).json()
        assert body["ok"] is True and body["result"]["chat"]["id"] == 1001
        # Limits still apply; only the spec's shape checks are gone.
        form["text"] = "<b>oops"
        form["parse_mode"] = "HTML"
        body = (await http.post(fake.api_url("sendMessage"), data=form)).json()
        assert body["description"].startswith("Bad Request: can't parse entities")
