-- Reports on questions (/flags) and the ratings behind adaptive difficulty. Times are unix
-- seconds, UTC.

-- One row per user, question and reason (a second report for the same reason is a no-op);
-- the comment is optional and one line. Open until an admin marks it fixed or dismissed.
CREATE TABLE question_flags (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: old buttons stay dead
    question_id  TEXT NOT NULL,
    user_id      INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    reason       TEXT NOT NULL CHECK (reason IN ('key', 'unclear', 'outdated', 'typo')),
    comment      TEXT,
    created_at   INTEGER NOT NULL,
    status       TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'fixed', 'dismissed')),
    resolved_at  INTEGER,
    UNIQUE (question_id, user_id, reason)
);
CREATE INDEX question_flags_open ON question_flags (status, question_id);
CREATE INDEX question_flags_user ON question_flags (user_id);

-- A user who just reported a question: their next text message (until `until`) is its comment.
CREATE TABLE flag_waiting (
    user_id  INTEGER PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE,
    flag_id  INTEGER NOT NULL REFERENCES question_flags(id) ON DELETE CASCADE,
    until    INTEGER NOT NULL
);

-- Elo ratings (domain/ratings.py): a question's, learned from everyone's first answer to it,
-- and a user's per field, learned from their first answer to each question.
CREATE TABLE question_ratings (
    question_id  TEXT PRIMARY KEY,
    field        TEXT NOT NULL,
    level        TEXT NOT NULL,
    rating       REAL NOT NULL,
    answers      INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX question_ratings_field ON question_ratings (field, level);

CREATE TABLE user_ratings (
    user_id  INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    field    TEXT NOT NULL,
    rating   REAL NOT NULL,
    answers  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, field)
) WITHOUT ROWID;
