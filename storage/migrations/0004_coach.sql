-- Coaching: FSRS review cards and their review log, each user's recent answer times, progress
-- per level (for the level-up suggestion) and mock interviews. Times are unix seconds, UTC.

-- One FSRS card per user and question (the fields of fsrs Card.to_dict). due_at mirrors
-- card.due so "what is due, most overdue first" is one index range scan.
CREATE TABLE review_cards (
    user_id         INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    question_id     TEXT NOT NULL,
    card_id         INTEGER NOT NULL,  -- the id of the answer that created the card
    state           INTEGER NOT NULL,  -- fsrs State: 1 learning, 2 review, 3 relearning
    step            INTEGER,
    stability       REAL,
    difficulty      REAL,
    due_at          INTEGER NOT NULL,
    last_review_at  INTEGER,
    PRIMARY KEY (user_id, question_id)
) WITHOUT ROWID;
CREATE INDEX review_cards_due ON review_cards (user_id, due_at);

-- One row per review, that is per stored answer (the fields of fsrs ReviewLog.to_dict).
-- Keyed by the answer, so an answer can never be reviewed twice.
CREATE TABLE review_logs (
    answer_id    INTEGER PRIMARY KEY REFERENCES answers(id) ON DELETE CASCADE,
    card_id      INTEGER NOT NULL,
    rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
    reviewed_at  INTEGER NOT NULL,
    duration_ms  INTEGER
);

-- The user's last answer times (a JSON list of milliseconds, newest last): their median rates a
-- right answer Easy, Good or Hard without scanning the answer history.
CREATE TABLE answer_pace (
    user_id    INTEGER PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE,
    recent_ms  TEXT NOT NULL
);

-- Answers per field and level; `suggested` makes the "try the next level" hint appear once.
CREATE TABLE level_stats (
    user_id    INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    field      TEXT NOT NULL,
    level      TEXT NOT NULL,
    answered   INTEGER NOT NULL,
    correct    INTEGER NOT NULL,
    suggested  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, field, level)
) WITHOUT ROWID;

-- Mock interviews: the questions chosen at the start (a JSON list of ids, in order) and how far
-- the user got, so an interview survives a restart. At most one active interview per user.
CREATE TABLE interviews (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    field         TEXT NOT NULL,
    level         TEXT NOT NULL,
    question_ids  TEXT NOT NULL,
    position      INTEGER NOT NULL DEFAULT 0,  -- index of the question being asked
    answered      INTEGER NOT NULL DEFAULT 0,
    correct       INTEGER NOT NULL DEFAULT 0,
    status        TEXT NOT NULL DEFAULT 'active'
                  CHECK (status IN ('active', 'finished', 'stopped', 'expired')),
    chat_id       INTEGER NOT NULL,
    message_id    INTEGER,  -- the message showing the current question
    asked_at_ms   INTEGER,  -- when it was sent, in milliseconds, to time the answer
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER
);
CREATE UNIQUE INDEX interviews_one_active ON interviews (user_id) WHERE status = 'active';
CREATE INDEX interviews_user ON interviews (user_id, id);

CREATE TABLE interview_answers (
    interview_id  INTEGER NOT NULL REFERENCES interviews(id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    question_id   TEXT NOT NULL,
    topic         TEXT NOT NULL,
    chosen        TEXT NOT NULL,
    is_correct    INTEGER NOT NULL,
    elapsed_ms    INTEGER,
    PRIMARY KEY (interview_id, position)
) WITHOUT ROWID;
