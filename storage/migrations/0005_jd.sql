-- Job-ad matching (/jd) and the practice plan it starts (/plan). The ad's text is never stored:
-- only who is waiting to paste one, the ranked result (fields, topics, level) until the user
-- chooses, and the plan the user chose. Times are unix seconds, UTC.
CREATE TABLE jd_waiting (
    user_id  INTEGER PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE,
    until    INTEGER NOT NULL
);

-- At most one ranked ad per user; a newer /jd replaces it, choosing or cancelling removes it.
CREATE TABLE jd_matches (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: old buttons stay dead
    user_id     INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    level       TEXT NOT NULL,
    ranking     TEXT NOT NULL,  -- JSON [[field, confidence, [topic, ...]], ...], best first
    created_at  INTEGER NOT NULL
);
CREATE INDEX jd_matches_user ON jd_matches (user_id);

CREATE TABLE jd_plans (
    user_id     INTEGER PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE,
    field       TEXT NOT NULL,
    level       TEXT NOT NULL,
    topics      TEXT NOT NULL,  -- JSON [topic, ...], best match first
    started_at  INTEGER NOT NULL
);
