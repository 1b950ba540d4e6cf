"""Forum supergroups: where in a chat with topics the bot's answer to a message belongs."""

from __future__ import annotations

from telegram import MaybeInaccessibleMessage, Message


def topic_of(message: MaybeInaccessibleMessage | None) -> int | None:
    """The forum topic a message is in; None in the General topic and in chats without topics
    (a reply thread in an ordinary group also has a thread id, which is no topic to post in)."""
    if isinstance(message, Message) and message.is_topic_message and message.chat.is_forum:
        return message.message_thread_id
    return None
