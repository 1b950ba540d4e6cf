-- What several instances on one database share; the same tables as SQLite's 0013_instances.sql
-- (read its comments). Times are unix milliseconds.
CREATE TABLE timers (
    name              TEXT PRIMARY KEY,
    due_at_ms         BIGINT NOT NULL,
    payload           TEXT NOT NULL DEFAULT '',
    generation        BIGINT NOT NULL DEFAULT 1,
    claimed_until_ms  BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX timers_due ON timers (due_at_ms);

CREATE TABLE leases (
    name      TEXT PRIMARY KEY,
    holder    TEXT NOT NULL,
    until_ms  BIGINT NOT NULL
);

CREATE TABLE handled_buttons (
    chat_id     BIGINT NOT NULL,
    message_id  BIGINT NOT NULL,
    data        TEXT NOT NULL,
    handled_at  BIGINT NOT NULL,
    PRIMARY KEY (chat_id, message_id, data)
);
CREATE INDEX handled_buttons_time ON handled_buttons (handled_at);

CREATE TABLE send_budget (
    scope       TEXT PRIMARY KEY,
    tokens      DOUBLE PRECISION NOT NULL,
    per_second  DOUBLE PRECISION NOT NULL,
    burst       DOUBLE PRECISION NOT NULL,
    updated_ms  BIGINT NOT NULL
);

-- SQLite's json_array_length over a TEXT column (interviews.question_ids), which storage's
-- portable SQL calls; PostgreSQL's own takes json.
CREATE FUNCTION json_array_length(text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT AS 'SELECT json_array_length($1::json)';
