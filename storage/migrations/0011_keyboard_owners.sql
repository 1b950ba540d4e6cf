-- Who a keyboard in a group belongs to: the member it was shown to. Callback data is written by
-- the client, so ownership is looked up here rather than trusted from the button.
CREATE TABLE keyboard_owners (
    chat_id     INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (chat_id, message_id)
) WITHOUT ROWID;
CREATE INDEX keyboard_owners_user ON keyboard_owners (user_id);
