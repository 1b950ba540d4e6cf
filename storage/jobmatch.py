"""Job-ad matching state: who is waiting to paste an ad, ranked results, and practice plans.

None of it holds the ad's text: a result is the fields, topics and level it was ranked to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from storage.db import Database, fetch_row


@dataclass(frozen=True)
class RankedField:
    field: str
    confidence: float
    topics: tuple[str, ...]


@dataclass(frozen=True)
class StoredMatch:
    id: int
    user_id: int
    level: str
    ranking: tuple[RankedField, ...]  # every field, best first

    def at(self, rank: int) -> RankedField | None:
        return self.ranking[rank] if 0 <= rank < len(self.ranking) else None


@dataclass(frozen=True)
class Plan:
    user_id: int
    field: str
    level: str
    topics: tuple[str, ...]
    started_at: int


@dataclass(frozen=True)
class TopicProgress:
    answered: int
    correct: int
    question_ids: frozenset[str]


async def start_waiting(db: Database, *, user_id: int, until: int) -> None:
    await db.execute(
        "INSERT INTO jd_waiting (user_id, until) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET until = excluded.until", (user_id, until))


async def is_waiting(db: Database, *, user_id: int, now: int) -> bool:
    row = await db.fetchone("SELECT until FROM jd_waiting WHERE user_id = ?", (user_id,))
    return row is not None and row["until"] > now


async def stop_waiting(db: Database, *, user_id: int) -> None:
    await db.execute("DELETE FROM jd_waiting WHERE user_id = ?", (user_id,))


async def save_match(db: Database, *, user_id: int, level: str,
                     ranking: list[RankedField], now: int) -> int:
    """Store a ranked ad (replacing the user's previous one) and end the wait; returns its id."""
    data = json.dumps([[r.field, round(r.confidence, 4), list(r.topics)] for r in ranking])
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM jd_matches WHERE user_id = ?", (user_id,))
        await conn.execute("DELETE FROM jd_waiting WHERE user_id = ?", (user_id,))
        row = await fetch_row(
            conn, "INSERT INTO jd_matches (user_id, level, ranking, created_at)"
            " VALUES (?, ?, ?, ?) RETURNING id", (user_id, level, data, now))
        return int(row[0])


async def get_match(db: Database, *, match_id: int, user_id: int) -> StoredMatch | None:
    row = await db.fetchone("SELECT * FROM jd_matches WHERE id = ? AND user_id = ?",
                            (match_id, user_id))
    if row is None:
        return None
    ranking = tuple(RankedField(field, float(confidence), tuple(topics))
                    for field, confidence, topics in json.loads(row["ranking"]))
    return StoredMatch(row["id"], row["user_id"], row["level"], ranking)


async def discard_match(db: Database, *, match_id: int, user_id: int) -> bool:
    return await db.execute("DELETE FROM jd_matches WHERE id = ? AND user_id = ?",
                            (match_id, user_id)) > 0


async def adopt_match(db: Database, *, match_id: int, user_id: int, field: str, level: str,
                      topics: list[str], now: int) -> bool:
    """`Use this`: set the user's field and level and start the plan (none without topics),
    all at once; False when the match is gone (used, cancelled or replaced)."""
    async with db.transaction() as conn:
        cur = await conn.execute("DELETE FROM jd_matches WHERE id = ? AND user_id = ?",
                                 (match_id, user_id))
        if cur.rowcount == 0:
            return False
        await conn.execute("UPDATE users SET field = ?, level = ? WHERE user_id = ?",
                           (field, level, user_id))
        if topics:
            await conn.execute(
                "INSERT INTO jd_plans (user_id, field, level, topics, started_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
                " field = excluded.field, level = excluded.level, topics = excluded.topics,"
                " started_at = excluded.started_at",
                (user_id, field, level, json.dumps(topics), now))
        else:
            await conn.execute("DELETE FROM jd_plans WHERE user_id = ?", (user_id,))
    return True


async def get_plan(db: Database, *, user_id: int) -> Plan | None:
    row = await db.fetchone("SELECT * FROM jd_plans WHERE user_id = ?", (user_id,))
    if row is None:
        return None
    return Plan(row["user_id"], row["field"], row["level"], tuple(json.loads(row["topics"])),
                row["started_at"])


async def end_plan(db: Database, *, user_id: int) -> bool:
    return await db.execute("DELETE FROM jd_plans WHERE user_id = ?", (user_id,)) > 0


async def plan_topics(db: Database, *, user_id: int, field: str | None) -> tuple[str, ...]:
    """The topics of the user's plan when it is for `field`, else none."""
    plan = await get_plan(db, user_id=user_id)
    return plan.topics if plan is not None and plan.field == field else ()


async def plan_progress(db: Database, *, plan: Plan) -> dict[str, TopicProgress]:
    """Per plan topic: answers since the plan started, right ones, and the questions seen."""
    marks = ",".join("?" for _ in plan.topics)
    rows = await db.fetchall(
        "SELECT topic, question_id, COUNT(*) AS answered, SUM(is_correct) AS correct"
        f" FROM answers WHERE user_id = ? AND field = ? AND answered_at >= ? AND topic IN ({marks})"
        " GROUP BY topic, question_id",
        (plan.user_id, plan.field, plan.started_at, *plan.topics))
    totals: dict[str, list] = {}
    for row in rows:
        entry = totals.setdefault(row["topic"], [0, 0, set()])
        entry[0] += row["answered"]
        entry[1] += row["correct"]
        entry[2].add(row["question_id"])
    return {topic: TopicProgress(a, c, frozenset(ids)) for topic, (a, c, ids) in totals.items()}
