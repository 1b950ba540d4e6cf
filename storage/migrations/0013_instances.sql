-- What several instances on one database share (PostgreSQL); one process on SQLite creates the
-- same tables so both dialects keep one schema. Times are unix milliseconds.

-- Delayed work as rows with a due time (a group round's next step): whichever instance claims
-- a due timer runs it, for `claimed_until_ms`; if that instance dies, the claim runs out and
-- another takes it over. `generation` grows with each reschedule, so finishing an old run never
-- deletes the new time.
CREATE TABLE timers (
    name              TEXT PRIMARY KEY,  -- what to do, e.g. 'round:<chat_id>'
    due_at_ms         INTEGER NOT NULL,
    payload           TEXT NOT NULL DEFAULT '',
    generation        INTEGER NOT NULL DEFAULT 1,
    claimed_until_ms  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX timers_due ON timers (due_at_ms);

-- One holder at a time across instances (a group's round steps, countdown edits and /stop),
-- until `until_ms` or release: a holder that died lets go when its time runs out.
CREATE TABLE leases (
    name      TEXT PRIMARY KEY,
    holder    TEXT NOT NULL,
    until_ms  INTEGER NOT NULL
);

-- A button handled once, whichever instance gets each tap of a double tap.
CREATE TABLE handled_buttons (
    chat_id     INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    data        TEXT NOT NULL,
    handled_at  INTEGER NOT NULL,  -- unix seconds, for pruning
    PRIMARY KEY (chat_id, message_id, data)
);
CREATE INDEX handled_buttons_time ON handled_buttons (handled_at);

-- Telegram's send limits are per bot, not per process: instances take sends from shared token
-- buckets ('all', and 'chat:<id>' per group). Tokens may go below zero: a sender that took one
-- on credit waits until the bucket has refilled that far, so senders queue in arrival order.
CREATE TABLE send_budget (
    scope       TEXT PRIMARY KEY,
    tokens      REAL NOT NULL,
    per_second  REAL NOT NULL,
    burst       REAL NOT NULL,
    updated_ms  INTEGER NOT NULL
);
