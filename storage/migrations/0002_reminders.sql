-- Daily practice reminders: one row per user who ever set one. The next reminder is stored as a
-- UTC instant (indexed), so finding the due ones is one index range scan however many users
-- have reminders, and nothing is scheduled only in memory.
CREATE TABLE reminders (
    user_id        INTEGER PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE,
    minute         INTEGER NOT NULL CHECK (minute BETWEEN 0 AND 1439),  -- local time of day
    weekdays       INTEGER NOT NULL DEFAULT 127 CHECK (weekdays BETWEEN 1 AND 127),  -- bit 0 = Mon
    always         INTEGER NOT NULL DEFAULT 0,  -- 1: remind even after practising that day
    due_at         INTEGER,  -- the next reminder, unix seconds UTC; NULL while reminders are off
    due_day        TEXT,     -- the user's local day (YYYY-MM-DD) that reminder belongs to
    sent_day       TEXT,     -- the last local day a reminder was claimed for sending
    updated_at     INTEGER NOT NULL
);
CREATE INDEX reminders_due ON reminders (due_at) WHERE due_at IS NOT NULL;
