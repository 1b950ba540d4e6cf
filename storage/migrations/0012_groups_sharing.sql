-- Forum topics and shared questions.
-- A round started in a forum topic posts there, also after a restart (NULL: no topic).
ALTER TABLE rounds ADD COLUMN thread_id INTEGER;

-- A question shared with inline mode (`@bot` in any chat): Telegram names such a message only
-- by its inline_message_id. What it last showed is kept so edits are throttled and never
-- repeat identical content; the tally itself is counted from shared_answers.
CREATE TABLE shared_questions (
    inline_message_id  TEXT PRIMARY KEY,
    question_id        TEXT NOT NULL,
    language           TEXT NOT NULL,
    options_order      TEXT NOT NULL,  -- the option keys as shown (domain.grading.shown_order)
    created_at         INTEGER NOT NULL,
    shown_answered     INTEGER NOT NULL DEFAULT 0,
    shown_right        INTEGER NOT NULL DEFAULT 0,
    edited_at          INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- Everyone's first tap on a shared question; the key makes every later tap a no-op. Anyone in
-- the chat may answer, also people who never started the bot, so there is no reference to
-- users: /deleteme removes a member's rows by user_id. Answers of the bot's users are also
-- in `answers` (source 'shared') for their /stats.
CREATE TABLE shared_answers (
    inline_message_id  TEXT NOT NULL REFERENCES shared_questions(inline_message_id)
                       ON DELETE CASCADE,
    user_id            INTEGER NOT NULL,
    chosen             TEXT NOT NULL,
    is_correct         INTEGER NOT NULL,
    answered_at        INTEGER NOT NULL,
    PRIMARY KEY (inline_message_id, user_id)
) WITHOUT ROWID;
CREATE INDEX shared_answers_user ON shared_answers (user_id);

-- A question someone opened the bot on (a deep link from a shared question) before they had
-- chosen a field and level: it is asked as soon as they have.
ALTER TABLE users ADD COLUMN pending_question TEXT;

-- When the user first wrote to the bot in private: only then may the bot write to them first
-- (a personal command sent in a group is answered there). NULL: known from groups only.
ALTER TABLE users ADD COLUMN private_since INTEGER;
