"""Starts `python -m bot play` as a real process and hands out its address (tests and browser tests)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.shared_files import API_SPEC

ROOT = Path(__file__).resolve().parents[1]
_URL = re.compile(r"Playground: (http://\S+)")


class PlaygroundProcess:
    """`python -m bot play --port 0` in a clean folder; `url` once it listens, `stop()` to end."""

    def __init__(self, folder: Path, *args: str, **env: str) -> None:
        environment = {k: v for k, v in os.environ.items()
                       if not k.startswith(("BOT_", "DATABASE_", "QUESTIONS_", "WEBHOOK_"))}
        environment.update({"PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"})
        if API_SPEC is not None:
            environment.setdefault("TELEGRAM_API_SPEC", str(API_SPEC))
        environment.update(env)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "play", "--port", "0", "--no-browser", *args],
            cwd=folder, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self.stdout), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, self.stderr), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.url = ""

    @staticmethod
    def _read(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)

    def wait_url(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.stdout:
                if match := _URL.search(line):
                    self.url = match.group(1)
                    return self.url
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"the playground did not start: {self.output()[-3000:]}")

    def output(self) -> str:
        return "".join(self.stdout) + "".join(self.stderr)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for reader in self._readers:
            reader.join(timeout=5)
        return self.process.returncode
