"""`python -m bench.driver_choice`: why storage talks to PostgreSQL through asyncpg with a thin
adapter (storage/db.py) rather than SQLAlchemy Core over asyncpg (#22 asked to choose by
measuring). Both run the same transaction, the answer path's upsert and a read, on a throwaway
PostgreSQL; the figure is the CPU time of this process per transaction. It needs SQLAlchemy,
which the bot does not: `.venv/bin/pip install "sqlalchemy[asyncio]"` first. A one-time design
measurement, so it is not a `make bench` part; its result is quoted in docs/scaling.md."""

from __future__ import annotations

import asyncio
import time

from storage.db import Database
from tests.postgres import PostgresServer, missing

N = 3000
UPSERT = ("INSERT INTO topic_stats (user_id, field, topic, answered, correct)"
          " VALUES (?, ?, ?, 1, ?)"
          " ON CONFLICT (user_id, field, topic) DO UPDATE SET"
          " answered = topic_stats.answered + 1, correct = topic_stats.correct + excluded.correct")
READ = "SELECT question_id, last_is_correct, last_answered_at FROM progress WHERE user_id = ?"

async def ours(url: str) -> float:
    db = await Database.open(url)
    await db.execute("INSERT INTO users (user_id, created_at) VALUES (1, 0)"
                     " ON CONFLICT DO NOTHING")
    t = time.process_time()
    for i in range(N):
        async with db.transaction() as conn:
            await conn.execute(UPSERT, (1, "backend", f"t{i % 10}", 1))
            await conn.execute_fetchall(READ, (1,))
    cpu = time.process_time() - t
    await db.close()
    return cpu

async def sqla(url: str) -> float:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine
    engine = create_async_engine(url.replace("postgresql://", "postgresql+asyncpg://"),
                                 pool_size=10)
    up = text(UPSERT.replace("(?, ?, ?, 1, ?)", "(:u, :f, :t, 1, :c)"))
    rd = text(READ.replace("?", ":u"))
    t = time.process_time()
    for i in range(N):
        async with engine.begin() as conn:
            await conn.execute(up, {"u": 1, "f": "backend", "t": f"t{i % 10}", "c": 1})
            (await conn.execute(rd, {"u": 1})).fetchall()
    cpu = time.process_time() - t
    await engine.dispose()
    return cpu

async def main() -> None:
    if reason := missing():
        print(f"skipped: {reason}")
        return
    server = PostgresServer.start()
    try:
        url = await server.create_database()
        await ours(url)  # warm-up: connections, prepared statements
        await sqla(url)
        adapter, core = [], []
        for _ in range(3):  # alternating, so both meet the same machine
            adapter.append(await ours(url))
            core.append(await sqla(url))
        a, b = sorted(adapter)[1], sorted(core)[1]
        print(f"per transaction (upsert + read), CPU of this process, median of 3 x {N}: "
              f"asyncpg adapter {a / N * 1e6:.0f} us, SQLAlchemy Core {b / N * 1e6:.0f} us, "
              f"ratio {b / a:.2f}x")
    finally:
        server.stop()
if __name__ == "__main__":
    asyncio.run(main())
