"""The compose recipe in docs/deploy sets only settings the bot has, and points the balancer's
health checks at /readyz on the instances' webhook port (tests/e2e/test_webhook.py checks
what /readyz answers)."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.settings import Settings

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy"


def test_compose_sets_only_known_settings_on_two_instances():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    bots = [name for name, service in compose["services"].items()
            if service.get("build") == "../.."]
    assert len(bots) == 2
    known = {name.upper() for name in Settings.model_fields}
    for name in bots:
        env = compose["services"][name]["environment"]
        assert set(env) <= known, set(env) - known
        assert env["DATABASE_URL"].startswith("postgresql://")
        assert env["WEBHOOK_LISTEN"] == "0.0.0.0"


def test_the_balancer_asks_readyz_on_the_webhook_port():
    caddy = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    port = compose["services"]["bot1"]["environment"]["WEBHOOK_PORT"]
    assert "health_uri /readyz" in caddy and f"health_port {port}" in caddy
    assert "bot1:" + port in caddy and "bot2:" + port in caddy
