"""The layout holds: no import cycles, and the bot's runtime never imports fake_telegram (only
`python -m bot play` does, in bot/cli.py, when asked to)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "fake_telegram", "handlers", "storage", "domain", "questions")
RUNTIME = ("bot", "handlers", "storage", "domain", "questions")


def _modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _imports(path: Path) -> list[tuple[str, bool]]:
    """Every absolute import in the file (lazy ones too), with whether it is at the top."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, id(node) in top))
            found += [(f"{node.module}.{alias.name}", id(node) in top) for alias in node.names]
    return found


def test_no_import_cycles():
    modules = _modules()
    graph = {name: {imported for imported, _ in _imports(path)
                    if imported in modules and imported != name}
             for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycle = [*trail[trail.index(name):], name]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_only_the_play_command_imports_fake_telegram():
    users = {(name, top) for name, path in _modules().items() if name.split(".")[0] in RUNTIME
             for imported, top in _imports(path) if imported.split(".")[0] == "fake_telegram"}
    assert users == {("bot.cli", False)}


def test_fake_telegram_server_imports_nothing_of_the_bot():
    for name, path in _modules().items():
        if name.startswith("fake_telegram") and name != "fake_telegram.playground":
            bot_imports = [imported for imported, _ in _imports(path)
                           if imported.split(".")[0] in RUNTIME]
            assert bot_imports == [], name
