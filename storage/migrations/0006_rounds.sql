-- Group quiz rounds: each group's choices, its rounds, their questions and every member's first
-- tap. Times are unix seconds, or milliseconds where the column name ends in _ms (speed bonus).
CREATE TABLE group_settings (
    chat_id     INTEGER PRIMARY KEY,
    language    TEXT,
    field       TEXT,
    level       TEXT,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE rounds (
    id              INTEGER PRIMARY KEY,
    chat_id         INTEGER NOT NULL,
    started_by      INTEGER NOT NULL,
    language        TEXT NOT NULL,
    seconds         INTEGER NOT NULL,
    status          TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'finished', 'stopped')),
    started_at      INTEGER NOT NULL,
    ended_at        INTEGER
);
-- One running round per group, enforced by the database rather than by a check-then-insert.
CREATE UNIQUE INDEX rounds_one_running ON rounds (chat_id) WHERE status = 'running';
CREATE INDEX rounds_chat ON rounds (chat_id, started_at);

CREATE TABLE round_questions (
    round_id        INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    question_id     TEXT NOT NULL,
    message_id      INTEGER,
    opened_at_ms    INTEGER,
    deadline_ms     INTEGER,
    closed_at_ms    INTEGER,
    reported_at_ms  INTEGER,
    PRIMARY KEY (round_id, position)
) WITHOUT ROWID;

-- A member's first tap on a question; the key makes every later tap a no-op. The same answer
-- is also in `answers` (source 'group') for the member's personal /stats.
CREATE TABLE round_answers (
    round_id     INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    chosen       TEXT NOT NULL,
    is_correct   INTEGER NOT NULL,
    elapsed_ms   INTEGER NOT NULL,
    points       INTEGER NOT NULL,  -- hundredths of a point
    answered_at  INTEGER NOT NULL,
    PRIMARY KEY (round_id, position, user_id),
    FOREIGN KEY (round_id, position) REFERENCES round_questions (round_id, position)
        ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX round_answers_user ON round_answers (user_id);
