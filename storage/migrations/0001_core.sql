-- Users, their choices, every answer, and the per-question / per-topic aggregates that keep
-- selection and /stats cheap however long a user's history grows. Times are unix seconds, UTC.
CREATE TABLE users (
    user_id          INTEGER PRIMARY KEY,
    first_name       TEXT NOT NULL DEFAULT '',
    language         TEXT,
    field            TEXT,
    level            TEXT,
    timezone         TEXT,
    created_at       INTEGER NOT NULL,
    answered         INTEGER NOT NULL DEFAULT 0,
    correct          INTEGER NOT NULL DEFAULT 0,
    group_answered   INTEGER NOT NULL DEFAULT 0,
    streak_current   INTEGER NOT NULL DEFAULT 0,
    streak_best      INTEGER NOT NULL DEFAULT 0,
    last_active_day  TEXT
);

-- One row per graded tap. The unique key makes a double tap or a redelivered update a no-op.
CREATE TABLE answers (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    question_id  TEXT NOT NULL,
    field        TEXT NOT NULL,
    topic        TEXT NOT NULL,
    level        TEXT NOT NULL,
    chosen       TEXT NOT NULL,
    is_correct   INTEGER NOT NULL,
    answered_at  INTEGER NOT NULL,
    source       TEXT NOT NULL DEFAULT 'practice',
    chat_id      INTEGER NOT NULL,
    message_id   INTEGER NOT NULL,
    elapsed_ms   INTEGER,
    UNIQUE (user_id, chat_id, message_id)
);
CREATE INDEX answers_user_time ON answers (user_id, answered_at);

CREATE TABLE progress (
    user_id           INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    question_id       TEXT NOT NULL,
    attempts          INTEGER NOT NULL,
    correct           INTEGER NOT NULL,
    last_is_correct   INTEGER NOT NULL,
    last_answered_at  INTEGER NOT NULL,
    PRIMARY KEY (user_id, question_id)
) WITHOUT ROWID;

CREATE TABLE topic_stats (
    user_id   INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    field     TEXT NOT NULL,
    topic     TEXT NOT NULL,
    answered  INTEGER NOT NULL,
    correct   INTEGER NOT NULL,
    PRIMARY KEY (user_id, field, topic)
) WITHOUT ROWID;
