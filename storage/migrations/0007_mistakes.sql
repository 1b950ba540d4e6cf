-- Right answers the user marked "I guessed": such a question stays on their /mistakes list
-- (beside the ones whose last answer was wrong) until they answer it right again.
CREATE TABLE guessed (
    user_id      INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    question_id  TEXT NOT NULL,
    answer_id    INTEGER NOT NULL,
    marked_at    INTEGER NOT NULL,
    PRIMARY KEY (user_id, question_id)
) WITHOUT ROWID;
