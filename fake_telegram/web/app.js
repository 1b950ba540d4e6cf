// The playground's web chat: a small Telegram-like client for the emulator's /play/api.
// It acts as one pretend user per tab (the #user=ID part of the address) and long-polls
// /play/api/events for new, edited and deleted messages, tap answers and refused calls.
"use strict";

const TAP_TIMEOUT_MS = 15000; // Telegram gives up on an unanswered button after about 15 s
const TYPING_MS = 5000;       // a chat action lasts 5 s or until the next message
const NAME_COLORS = ["#e17076", "#7bc862", "#65aadd", "#a695e7", "#ee7aae", "#6ec9cb", "#faa774"];

const state = {
  bot: null,
  users: [],
  userId: null,
  chats: [],
  chatId: null,
  cursor: 0,
  generation: 0,
  poll: null,                 // AbortController of the running long poll
  messages: new Map(),        // chat id -> Map(message id -> Message)
  notes: new Map(),           // chat id -> [{after, text}] (refused calls, unanswered taps)
  problems: [],               // every refused call, for the sidebar
  unread: new Map(),          // chat id -> count
  pending: new Map(),         // query id -> {chatId, messageId, data, timer}
  typing: new Map(),          // chat id -> time the action ends
  replyTo: null,              // message the next send replies to
  keyboards: new Map(),       // chat id -> reply keyboard rows
  suggestion: -1,
  topics: new Map(),          // forum chat id -> the open topic's thread id (null: General)
  inline: false,              // inline mode is on (@BotFather /setinline)
  botUsername: "",
  inlineResults: null,        // {query_id, results} for the text in the box, or null
  inlineTimer: null,
};

const $ = (id) => document.getElementById(id);

// Rendered nodes are kept and reused while what they show is unchanged, so hover, selection,
// images and a button being clicked survive the updates that arrive every few seconds.
const nodes = new Map(); // key -> {signature, node}

function keyed(key, signature, build) {
  const cached = nodes.get(key);
  if (cached && cached.signature === signature) return cached.node;
  const node = build();
  nodes.set(key, { signature, node });
  return node;
}

function reconcile(parent, children) {
  children.forEach((child, index) => {
    if (parent.children[index] !== child) parent.insertBefore(child, parent.children[index] || null);
  });
  while (parent.children.length > children.length) parent.lastElementChild.remove();
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// -- the API ----------------------------------------------------------------------------------

async function api(path, { method = "GET", body, signal } = {}) {
  const init = { method, signal, headers: {} };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  let data;
  try {
    data = await response.json();
  } catch {
    throw new Error(`HTTP ${response.status}`);
  }
  if (!data.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// -- start-up and switching users ---------------------------------------------------------------

async function boot() {
  bindComposer();
  bindIdentity();
  window.addEventListener("hashchange", () => {
    const id = userFromHash();
    if (id && id !== state.userId) switchUser(id);
  });
  setInterval(renderTyping, 1000);
  for (;;) {
    try {
      await loadDirectory();
      break;
    } catch {
      setOffline(true);
      await sleep(1000);
    }
  }
  setOffline(false);
  const wanted = userFromHash();
  const first = state.users.find((u) => u.id === wanted) || state.users[0];
  if (!first) {
    $("chat-title").textContent = "No pretend users yet: add one with +";
    return;
  }
  await switchUser(first.id);
}

function userFromHash() {
  const match = /user=(\d+)/.exec(location.hash);
  return match ? Number(match[1]) : null;
}

async function loadDirectory() {
  const data = await api("/play/api/users");
  state.bot = data.bot;
  state.users = data.users;
  renderIdentity();
  if (state.userId) await loadChats();
}

async function loadChats() {
  const data = await api(`/play/api/chats?user=${state.userId}`);
  state.chats = data.chats;
  state.inline = Boolean(data.inline);
  state.botUsername = data.bot || "";
  if (!state.chats.some((c) => c.id === state.chatId)) state.chatId = state.chats[0]?.id ?? null;
  renderChatList();
  renderChat();
}

async function switchUser(userId) {
  state.generation += 1;
  if (state.poll) state.poll.abort();
  for (const pending of state.pending.values()) clearTimeout(pending.timer);
  Object.assign(state, {
    userId, chatId: userId, cursor: 0, chats: [], replyTo: null,
    messages: new Map(), notes: new Map(), problems: [], unread: new Map(),
    pending: new Map(), typing: new Map(), keyboards: new Map(), topics: new Map(),
    inlineResults: null,
  });
  nodes.clear();
  $("toast").hidden = true;
  history.replaceState(null, "", `#user=${userId}`);
  renderIdentity();
  renderReplyBar();
  await loadChats();
  pollLoop(state.generation);
}

async function pollLoop(generation) {
  while (generation === state.generation) {
    const controller = new AbortController();
    state.poll = controller;
    try {
      const wait = state.cursor ? 20 : 0;
      const data = await api(
        `/play/api/events?user=${state.userId}&since=${state.cursor}&wait=${wait}`,
        { signal: controller.signal });
      if (generation !== state.generation) return;
      setOffline(false);
      await applyEvents(data);
    } catch (error) {
      if (generation !== state.generation) return;
      if (error.status === 404) { // this user is gone: the playground restarted
        await loadDirectory().catch(() => {});
        if (state.users[0]) switchUser(state.users[0].id);
        return;
      }
      setOffline(true);
      await sleep(1000);
    }
  }
}

async function applyEvents(data) {
  if (data.reset) {
    state.messages = new Map();
    state.notes = new Map();
    state.problems = [];
  }
  // A reset (the playground restarted under the page) starts over like a first load.
  const initial = state.cursor === 0 || data.reset;
  state.cursor = data.cursor;
  if (data.reset) {
    nodes.clear();
    await loadDirectory();
  }
  for (const message of data.messages) {
    const chat = chatMessages(message.chat_id);
    const known = chat.has(message.message_id);
    if (message.deleted) {
      chat.delete(message.message_id);
      continue;
    }
    chat.set(message.message_id, message);
    if (message.from.id === state.bot?.id) {
      state.typing.delete(message.chat_id);
      if (message.reply_keyboard) state.keyboards.set(message.chat_id, message.reply_keyboard);
      if (message.remove_keyboard) state.keyboards.delete(message.chat_id);
      if (!initial && !known && message.force_reply && message.chat_id === state.chatId) {
        state.replyTo = message;
        renderReplyBar();
      }
    }
    if (!initial && !known && message.chat_id !== state.chatId && message.from.id !== state.userId) {
      state.unread.set(message.chat_id, (state.unread.get(message.chat_id) || 0) + 1);
    }
  }
  for (const answer of data.answers) settleTap(answer);
  for (const action of data.actions) {
    state.typing.set(action.chat_id, { until: Date.now() + TYPING_MS, action: action.action });
  }
  for (const violation of data.violations) {
    state.problems.push(violation);
    if (state.chats.some((c) => c.id === violation.chat_id)) {
      addNote(violation.chat_id, violation.after_message_id, violation.text, "refused");
    }
  }
  if (data.directory && !initial) await loadDirectory();
  renderChatList();
  renderChat();
  renderProblems();
}

function chatMessages(chatId) {
  if (!state.messages.has(chatId)) state.messages.set(chatId, new Map());
  return state.messages.get(chatId);
}

function addNote(chatId, after, text, kind) {
  if (!state.notes.has(chatId)) state.notes.set(chatId, []);
  state.notes.get(chatId).push({ after, text, kind });
}

function setOffline(offline) {
  $("offline").hidden = !offline;
}

// -- identity (who am I) -------------------------------------------------------------------------

function bindIdentity() {
  $("user-select").addEventListener("change", (event) => switchUser(Number(event.target.value)));
  for (const button of $("language-switch").querySelectorAll("button")) {
    button.addEventListener("click", async () => {
      await api(`/play/api/users/${state.userId}`,
        { method: "POST", body: { language: button.dataset.lang } });
      await loadDirectory();
    });
  }
  $("add-user").addEventListener("click", () => {
    $("new-user-name").value = "";
    $("add-user-dialog").showModal();
  });
  $("add-user-dialog").addEventListener("close", async () => {
    if ($("add-user-dialog").returnValue !== "add") return;
    const name = $("new-user-name").value.trim();
    if (!name) return;
    try {
      const data = await api("/play/api/users", {
        method: "POST", body: { name, language: $("new-user-language").value } });
      await loadDirectory();
      await switchUser(data.user.id);
    } catch (error) {
      showToast(error.message);
    }
  });
}

function me() {
  return state.users.find((u) => u.id === state.userId);
}

function renderIdentity() {
  const select = $("user-select");
  select.replaceChildren(...state.users.map((u) =>
    el("option", { value: u.id, selected: u.id === state.userId },
      `${u.name} · ${(u.language || "—").toUpperCase()}`)));
  const user = me();
  paintAvatar($("me-avatar"), user?.name || "?", user?.id || 0);
  for (const button of $("language-switch").querySelectorAll("button")) {
    button.classList.toggle("active", button.dataset.lang === user?.language);
  }
  document.title = user ? `${user.name} · Playground` : "Playground";
}

function paintAvatar(node, name, id) {
  node.textContent = initials(name);
  node.style.background = NAME_COLORS[Math.abs(id) % NAME_COLORS.length];
}

function initials(name) {
  return [...name.trim()].slice(0, 1).join("").toUpperCase() || "?";
}

// -- chat list ------------------------------------------------------------------------------------

function renderChatList() {
  reconcile($("chat-list"), state.chats.map((chat) => {
    const last = lastMessage(chat.id);
    const unread = state.unread.get(chat.id) || 0;
    const text = last ? preview(chat, last) : chatSubtitle(chat);
    const time = last ? clock(last.date) : "";
    const active = chat.id === state.chatId;
    const signature = JSON.stringify([chat.title, chat.type, text, time, unread, active]);
    return keyed(`chat:${state.userId}:${chat.id}`, signature, () => chatItem(chat, text, time, unread, active));
  }));
}

function chatItem(chat, text, time, unread, active) {
  const avatar = el("div", { class: "avatar" });
  paintAvatar(avatar, chat.title, chat.id);
  return el("li", {
    class: `chat-item${active ? " active" : ""}`,
    dataset: { chatId: chat.id, type: chat.type },
    onclick: () => openChat(chat.id),
  },
  avatar,
  el("div", { class: "chat-item-text" },
    el("div", { class: "chat-item-top" },
      el("span", { class: "chat-item-title" }, (chat.type === "private" ? "" : "👥 ") + chat.title),
      el("span", { class: "chat-item-time" }, time)),
    el("div", { class: "chat-item-bottom" },
      el("span", { class: "chat-item-preview" }, text),
      unread ? el("span", { class: "badge" }, String(unread)) : null)));
}

function lastMessage(chatId) {
  const messages = [...(state.messages.get(chatId)?.values() || [])];
  return messages[messages.length - 1];
}

function preview(chat, message) {
  const body = message.text ?? message.caption ?? (message.photo ? "🖼 Photo" : message.document ? `📄 ${message.document.file_name || "File"}` : "…");
  if (message.from.id === state.userId) return `You: ${body}`;
  if (chat.type !== "private") return `${message.from.first_name}: ${body}`;
  return body;
}

function openChat(chatId) {
  if (chatId !== state.chatId) {
    state.chatId = chatId;
    state.replyTo = null;
    renderReplyBar();
    $("text").value = "";
  }
  state.unread.delete(chatId);
  renderChatList();
  renderChat(true);
  $("text").focus();
}

// -- the open chat -------------------------------------------------------------------------------

function currentChat() {
  return state.chats.find((c) => c.id === state.chatId);
}

function chatSubtitle(chat) {
  if (chat.type === "private") return chat.username ? `@${chat.username} · bot` : "bot";
  if (chat.forum) {
    const topic = chat.topics.find((t) => t.id === currentTopic(chat));
    return `${chat.members.length} members · # ${topic ? topic.name : "General"}`;
  }
  return `${chat.members.length} members`;
}

// -- forum topics: a forum shows one topic at a time, and what is sent goes to that topic ------

function currentTopic(chat) {
  if (!chat?.forum) return null;
  const open = state.topics.get(chat.id) ?? null;
  return chat.topics.some((t) => t.id === open) ? open : null;
}

function inTopic(chat, message) {
  if (!chat.forum) return true;
  if (message.forum_topic_created) return false; // the service message that opened a topic
  return (message.message_thread_id ?? null) === currentTopic(chat);
}

function renderTopics(chat) {
  const bar = $("topics");
  bar.hidden = !chat?.forum;
  if (!chat?.forum) return;
  const open = currentTopic(chat);
  const tabs = [{ id: null, name: "General", closed: false }, ...chat.topics];
  bar.replaceChildren(...tabs.map((topic) => el("button", {
    type: "button",
    class: `topic${topic.id === open ? " selected" : ""}`,
    dataset: { topic: topic.id ?? "general" },
    onclick: () => {
      state.topics.set(chat.id, topic.id);
      state.replyTo = null;
      renderReplyBar();
      renderChat(true);
    },
  }, `# ${topic.name}${topic.closed ? " 🔒" : ""}`)));
}

function renderChat(forceBottom = false) {
  const chat = currentChat();
  const box = $("messages");
  if (!chat) {
    box.replaceChildren();
    return;
  }
  $("chat-title").textContent = chat.title;
  paintAvatar($("chat-avatar"), chat.title, chat.id);
  renderTyping();
  const nearBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  const items = [];
  renderTopics(chat);
  const messages = [...(state.messages.get(chat.id)?.values() || [])]
    .filter((m) => inTopic(chat, m))
    .sort((a, b) => a.message_id - b.message_id);
  const notes = state.notes.get(chat.id) || [];
  let noteIndex = 0;
  const sortedNotes = [...notes].sort((a, b) => a.after - b.after);
  for (const message of messages) {
    while (noteIndex < sortedNotes.length && sortedNotes[noteIndex].after < message.message_id) {
      items.push(noteNode(sortedNotes[noteIndex++]));
    }
    items.push(messageNode(chat, message));
  }
  while (noteIndex < sortedNotes.length) items.push(noteNode(sortedNotes[noteIndex++]));
  if (!messages.length && chat.type === "private") {
    // Like Telegram, an unopened bot chat shows the bot's description (setMyDescription).
    const about = chat.description || "Press START to talk to the bot.";
    items.push(keyed(`empty:${chat.title}`, about, () => el("div", { class: "empty" },
      el("div", { class: "empty-title" }, chat.description ? "What can this bot do?" : chat.title),
      el("div", { class: "empty-text" }, about))));
  }
  reconcile(box, items);
  if (forceBottom || nearBottom) box.scrollTop = box.scrollHeight;
  const unstarted = chat.type === "private" && !messages.length && !me()?.started;
  $("start-bar").hidden = !unstarted;
  $("composer").hidden = unstarted;
  renderReplyKeyboard();
}

function renderTyping() {
  const chat = currentChat();
  if (!chat) return;
  const typing = state.typing.get(chat.id);
  const active = typing && typing.until > Date.now();
  const subtitle = $("chat-subtitle");
  subtitle.textContent = active ? `${state.bot?.first_name || "bot"} is ${actionName(typing.action)}…` : chatSubtitle(chat);
  subtitle.classList.toggle("typing", Boolean(active));
}

function actionName(action) {
  if (action === "typing") return "typing";
  if (action === "upload_photo") return "sending a photo";
  if (action === "upload_document") return "sending a file";
  return action.replaceAll("_", " ");
}

function messageNode(chat, message) {
  // A message object is replaced when it changes, so identity tells whether to redraw.
  const waiting = [...state.pending.values()]
    .filter((p) => p.chatId === chat.id && p.messageId === message.message_id)
    .map((p) => p.data).join("\n");
  const key = `msg:${state.userId}:${chat.id}:${message.message_id}`;
  const cached = nodes.get(key);
  if (cached && cached.message === message && cached.signature === waiting) return cached.node;
  const node = renderMessage(chat, message);
  nodes.set(key, { message, signature: waiting, node });
  return node;
}

function noteNode(note) {
  if (!note.node) note.node = renderNote(note);
  return note.node;
}

function renderNote(note) {
  return el("div", { class: `note ${note.kind}` },
    note.kind === "too-long" ? "" :
      el("strong", {}, note.kind === "refused" ? "Telegram would refuse: " : "Not answered: "),
    note.text);
}

function renderMessage(chat, message) {
  const own = message.from.id === state.userId;
  const fromBot = message.from.id === state.bot?.id;
  const bubble = el("div", { class: "bubble" });
  if (chat.type !== "private" && !own) {
    bubble.append(el("div", { class: "sender", style: `color:${NAME_COLORS[message.from.id % NAME_COLORS.length]}` },
      message.from.first_name + (fromBot ? " (bot)" : "")));
  }
  if (message.reply_to_message) bubble.append(renderQuote(message.reply_to_message));
  if (message.photo) {
    const biggest = message.photo[message.photo.length - 1];
    bubble.classList.add("has-photo");
    bubble.append(el("a", { href: fileUrl(biggest.file_id), target: "_blank", rel: "noopener" },
      el("img", { class: "photo", src: fileUrl(biggest.file_id), alt: "photo",
        width: biggest.width, height: biggest.height, onload: keepBottom })));
  }
  if (message.document) {
    const doc = message.document;
    bubble.append(el("a", { class: "document", href: fileUrl(doc.file_id), download: doc.file_name || "file" },
      el("span", { class: "document-icon" }, "📄"),
      el("span", {}, el("div", { class: "document-name" }, doc.file_name || "file"),
        el("div", { class: "document-size" }, size(doc.file_size)))));
  }
  if (message.via_bot) {
    bubble.append(el("div", { class: "via" }, `via @${message.via_bot.username}`));
  }
  const text = message.text ?? message.caption;
  if (text) {
    const entities = message.entities ?? message.caption_entities ?? [];
    bubble.append(el("div", { class: "text" }, renderEntities(text, entities)));
  }
  bubble.append(el("span", { class: "meta" },
    message.edited ? el("span", { class: "edited" }, "edited ") : null, clock(message.date)));
  const row = el("div", {
    class: `msg ${own ? "out" : "in"}${fromBot ? " from-bot" : ""}`,
    dataset: { messageId: message.message_id },
  }, el("div", { class: "msg-body" }, bubble, renderKeyboard(chat, message)),
  el("button", { type: "button", class: "reply-action", title: "Reply", onclick: () => startReply(message) }, "↩"));
  return row;
}

function keepBottom() {
  const box = $("messages");
  if (box.scrollHeight - box.scrollTop - box.clientHeight < 400) box.scrollTop = box.scrollHeight;
}

function renderQuote(quoted) {
  const text = quoted.text ?? quoted.caption ?? (quoted.photo ? "Photo" : "Message");
  return el("div", { class: "quote" },
    el("div", { class: "quote-name" }, quoted.from?.first_name || ""),
    el("div", { class: "quote-text" }, text.slice(0, 120)));
}

function renderKeyboard(chat, message) {
  const rows = message.reply_markup?.inline_keyboard;
  if (!rows || !rows.length) return null;
  return el("div", { class: "keyboard" }, ...rows.map((row) =>
    el("div", { class: "keyboard-row" }, ...row.map((button) => renderButton(chat, message, button)))));
}

function renderButton(chat, message, button) {
  if (button.url) {
    return el("a", { class: "kb-button", href: button.url, target: "_blank", rel: "noopener noreferrer" },
      button.text, el("span", { class: "kb-corner" }, "↗"));
  }
  if (button.copy_text) {
    return el("button", { type: "button", class: "kb-button", onclick: () => {
      navigator.clipboard?.writeText(button.copy_text.text);
      showToast("Copied to clipboard");
    } }, button.text);
  }
  if (button.callback_data === undefined) {
    return el("button", { type: "button", class: "kb-button", disabled: true,
      title: "This kind of button does nothing in the playground" }, button.text);
  }
  const waiting = [...state.pending.values()].some((p) =>
    p.messageId === message.message_id && p.chatId === chat.id && p.data === button.callback_data);
  return el("button", {
    type: "button",
    class: `kb-button${waiting ? " loading" : ""}`,
    dataset: { callbackData: button.callback_data },
    onclick: () => tap(chat.id, message.message_id, button.callback_data),
  }, button.text);
}

async function tap(chatId, messageId, data) {
  try {
    const result = await api("/play/api/tap", {
      method: "POST", body: { user: state.userId, chat: chatId, message_id: messageId, data } });
    const timer = setTimeout(() => {
      if (!state.pending.delete(result.query_id)) return;
      addNote(chatId, messageId, `the bot did not answer this button (answerCallbackQuery) within ${TAP_TIMEOUT_MS / 1000} s; Telegram shows a spinner, then gives up`, "unanswered");
      renderChat();
    }, TAP_TIMEOUT_MS);
    state.pending.set(result.query_id, { chatId, messageId, data, timer });
    renderChat();
  } catch (error) {
    showToast(error.status === 400 ? "This button is gone: the message has changed." : error.message);
  }
}

function settleTap(answer) {
  const pending = state.pending.get(answer.query_id);
  if (pending) {
    clearTimeout(pending.timer);
    state.pending.delete(answer.query_id);
  }
  if (answer.url) showToast(`The bot would open ${answer.url}`);
  if (!answer.text) return;
  if (answer.show_alert) showAlert(answer.text);
  else showToast(answer.text);
}

// -- formatting: Telegram's entities as DOM nodes (never innerHTML) ------------------------------

function renderEntities(text, entities) {
  // JavaScript strings are UTF-16, the unit of Telegram's offsets, so slices line up.
  const fragment = document.createDocumentFragment();
  const sorted = [...entities].sort((a, b) => a.offset - b.offset || b.length - a.length);
  build(text, 0, text.length, sorted, fragment);
  return fragment;
}

const BLOCKS = new Set(["pre", "blockquote", "expandable_blockquote"]);
const LITERAL = new Set(["code", "pre", "url", "text_link", "email", "bot_command", "mention"]);

function build(text, start, end, entities, parent, linkify = true) {
  let position = start;
  let index = 0;
  while (index < entities.length) {
    const entity = entities[index];
    const entityEnd = Math.min(entity.offset + entity.length, end);
    if (entity.offset > position) {
      let before = text.slice(position, entity.offset);
      // A block starts on its own line already: the newline before it would add an empty one.
      if (BLOCKS.has(entity.type)) before = before.replace(/\n$/, "");
      appendPlain(parent, before, linkify);
    }
    const inner = [];
    let next = index + 1;
    while (next < entities.length && entities[next].offset < entityEnd) {
      const child = entities[next];
      inner.push({ ...child, length: Math.min(child.length, entityEnd - child.offset) });
      next += 1;
    }
    const node = entityNode(entity, text.slice(entity.offset, entityEnd));
    if (entity.type === "pre") {
      node.querySelector("code").append(text.slice(entity.offset, entityEnd));
    } else {
      build(text, Math.max(entity.offset, position), entityEnd, inner, node,
        linkify && !LITERAL.has(entity.type));
    }
    parent.append(node);
    position = Math.max(position, entityEnd);
    if (BLOCKS.has(entity.type) && text[position] === "\n" && position < end) position += 1;
    index = next;
  }
  if (position < end) appendPlain(parent, text.slice(position, end), linkify);
}

function appendPlain(parent, text, linkify) {
  if (!linkify) {
    parent.append(text);
    return;
  }
  // Telegram's apps make /commands in plain text tappable: they send the command.
  const pattern = /(^|[\s(])(\/[A-Za-z0-9_]{1,32})(?=$|[\s,.;:!?)])/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index + match[1].length;
    parent.append(text.slice(last, at));
    const link = entityNode({ type: "bot_command" }, match[2]);
    link.append(match[2]);
    parent.append(link);
    last = at + match[2].length;
  }
  parent.append(text.slice(last));
}

function entityNode(entity, content) {
  switch (entity.type) {
    case "bold": return el("strong");
    case "italic": return el("em");
    case "underline": return el("u");
    case "strikethrough": return el("s");
    case "code": return el("code");
    case "pre": return el("pre", { "data-language": entity.language || null }, el("code"));
    case "spoiler": return el("span", { class: "spoiler", onclick: (e) => e.currentTarget.classList.add("revealed") });
    case "blockquote": return el("blockquote");
    case "expandable_blockquote": return el("blockquote", { class: "expandable" });
    case "text_link": return safeLink(entity.url);
    case "url": return safeLink(/^[a-z][a-z0-9+.-]*:/i.test(content) ? content : `http://${content}`);
    case "email": return el("a", { href: `mailto:${content}` });
    case "bot_command":
      return el("a", { class: "command", href: "#", onclick: (event) => {
        event.preventDefault();
        send(content);
      } });
    case "mention": case "text_mention": case "hashtag": case "cashtag": case "phone_number":
      return el("span", { class: "mention" });
    default: return el("span");
  }
}

function safeLink(url) {
  if (!/^(https?|tg):/i.test(url || "")) return el("span", { class: "mention" });
  return el("a", { href: url, target: "_blank", rel: "noopener noreferrer" });
}

// -- composer: text, the command menu, files, replies ---------------------------------------------

function bindComposer() {
  const text = $("text");
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    sendFromBox();
  });
  text.addEventListener("keydown", (event) => {
    const list = visibleSuggestions();
    if (list.length && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      state.suggestion = (state.suggestion + step + list.length) % list.length;
      renderSuggestions();
    } else if (list.length && event.key === "Tab") {
      event.preventDefault();
      text.value = `/${list[Math.max(state.suggestion, 0)].command} `;
      renderSuggestions();
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      if (list.length && state.suggestion >= 0) send(`/${list[state.suggestion].command}`);
      else sendFromBox();
    } else if (event.key === "Escape") {
      $("suggestions").hidden = true;
    }
  });
  text.addEventListener("input", () => {
    state.suggestion = -1;
    renderSuggestions();
    autosize();
    askInline();
  });
  $("menu-button").addEventListener("click", () => {
    const open = !$("suggestions").hidden && !$("text").value.startsWith("/");
    $("suggestions").hidden = open;
    if (!open) renderSuggestions(true);
  });
  $("start-button").addEventListener("click", () => send("/start"));
  $("reply-cancel").addEventListener("click", () => {
    state.replyTo = null;
    renderReplyBar();
  });
  $("attach-button").addEventListener("click", () => $("file-input").click());
  $("file-input").addEventListener("change", sendFile);
}

function autosize() {
  const text = $("text");
  text.style.height = "auto";
  if (!text.value || !text.offsetParent) return; // empty, or hidden (its height reads 0)
  text.style.height = `${Math.min(text.scrollHeight, 160)}px`;
}

function menu() {
  return currentChat()?.menu || [];
}

function visibleSuggestions() {
  if ($("suggestions").hidden) return [];
  return suggestionsFor($("text").value);
}

function suggestionsFor(value) {
  if (!value.startsWith("/")) return menu();
  if (/\s/.test(value)) return [];
  const prefix = value.slice(1).toLowerCase();
  return menu().filter((c) => c.command.startsWith(prefix));
}

function renderSuggestions(fromMenuButton = false) {
  const value = $("text").value;
  const box = $("suggestions");
  const list = fromMenuButton ? menu() : value.startsWith("/") ? suggestionsFor(value) : [];
  box.hidden = !list.length;
  box.replaceChildren(...list.map((command, index) =>
    el("div", {
      class: `suggestion${index === state.suggestion ? " selected" : ""}`,
      role: "option",
      onmousedown: (event) => {
        event.preventDefault();
        send(`/${command.command}`);
      },
    }, el("span", { class: "suggestion-command" }, `/${command.command}`),
    el("span", { class: "suggestion-description" }, command.description))));
}

function sendFromBox() {
  const value = $("text").value;
  if (!value.trim()) return;
  send(value);
}

// -- inline mode: `@bot words` in the box asks the bot for results to post via it --------------

function inlineQuery(value) {
  if (!state.inline || !state.botUsername) return null;
  const match = new RegExp(`^@${state.botUsername}(?:\\s+([\\s\\S]*))?$`, "i").exec(value);
  return match ? (match[1] || "").trim() : null;
}

function askInline() {
  clearTimeout(state.inlineTimer);
  const query = inlineQuery($("text").value);
  if (query === null) {
    state.inlineResults = null;
    $("inline-results").hidden = true;
    return;
  }
  // Like Telegram's apps: ask once the user pauses typing.
  state.inlineTimer = setTimeout(async () => {
    try {
      const data = await api("/play/api/inline", { method: "POST",
        body: { user: state.userId, chat: state.chatId, query } });
      if (inlineQuery($("text").value) !== query) return;
      state.inlineResults = data;
      renderInlineResults();
    } catch (error) {
      showToast(error.message);
    }
  }, 300);
}

function renderInlineResults() {
  const box = $("inline-results");
  const data = state.inlineResults;
  box.hidden = !data;
  if (!data) return;
  if (!data.results.length) {
    box.replaceChildren(el("div", { class: "inline-empty" }, "No results"));
    return;
  }
  box.replaceChildren(...data.results.map((result) => el("div", {
    class: "inline-result",
    role: "option",
    onmousedown: (event) => {
      event.preventDefault();
      chooseInline(data.query_id, result.id);
    },
  }, el("div", { class: "inline-title" }, result.title),
  el("div", { class: "inline-description" }, result.description))));
}

async function chooseInline(queryId, resultId) {
  const chat = currentChat();
  const body = { user: state.userId, chat: state.chatId, query_id: queryId, result_id: resultId };
  const topic = currentTopic(chat);
  if (topic !== null) body.thread = topic;
  $("text").value = "";
  state.inlineResults = null;
  $("inline-results").hidden = true;
  autosize();
  try {
    const data = await api("/play/api/inline/choose", { method: "POST", body });
    showOwnMessage(data.message);
  } catch (error) {
    showToast(error.message);
  }
}

// Telegram counts a message's length in UTF-16 code units, as JavaScript does.
const MESSAGE_LIMIT = 4096;

async function send(value) {
  const chatId = state.chatId;
  if (value.length > MESSAGE_LIMIT) {
    // Like Telegram's apps: the message stays in the box and the chat says why it was not sent.
    const last = Math.max(0, ...chatMessages(chatId).keys());
    addNote(chatId, last, `Message too long: ${value.length.toLocaleString("en-US")} characters. `
      + `A message holds at most ${MESSAGE_LIMIT.toLocaleString("en-US")}; shorten it or send it in parts.`,
      "too-long");
    renderChat(true);
    return;
  }
  const body = { user: state.userId, chat: chatId, text: value };
  if (state.replyTo && state.replyTo.chat_id === chatId) body.reply_to = state.replyTo.message_id;
  const topic = currentTopic(currentChat());
  if (topic !== null) body.thread = topic;
  if (inlineQuery(value) !== null) {
    showToast("Pick one of the results above to post it via the bot.");
    return;
  }
  $("text").value = "";
  $("suggestions").hidden = true;
  state.suggestion = -1;
  state.replyTo = null;
  renderReplyBar();
  autosize();
  try {
    const data = await api("/play/api/send", { method: "POST", body });
    showOwnMessage(data.message);
  } catch (error) {
    $("text").value = value;
    showToast(error.message);
  }
}

async function sendFile(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  const form = new FormData();
  form.append("user", state.userId);
  form.append("chat", state.chatId);
  form.append("text", $("text").value);
  form.append("file", file, file.name);
  $("text").value = "";
  try {
    const data = await api("/play/api/send", { method: "POST", body: form });
    showOwnMessage(data.message);
  } catch (error) {
    showToast(error.message);
  }
}

function showOwnMessage(message) {
  // The long poll brings it too; showing it now makes the send feel instant.
  chatMessages(message.chat_id).set(message.message_id, message);
  const user = me();
  if (user) user.started = true;
  renderChatList();
  renderChat(true);
}

function startReply(message) {
  state.replyTo = message;
  renderReplyBar();
  $("text").focus();
}

function renderReplyBar() {
  const target = state.replyTo;
  $("reply-bar").hidden = !target;
  if (!target) return;
  $("reply-bar-name").textContent = `Reply to ${target.from.first_name}`;
  $("reply-bar-snippet").textContent = (target.text ?? target.caption ?? "").slice(0, 80);
}

function renderReplyKeyboard() {
  const rows = state.keyboards.get(state.chatId);
  const box = $("reply-keyboard");
  box.hidden = !rows;
  if (!rows) return;
  box.replaceChildren(...rows.map((row) => el("div", { class: "keyboard-row" },
    ...row.map((label) => el("button", { type: "button", class: "rk-button", onclick: () => send(label) }, label)))));
}

// -- little helpers -------------------------------------------------------------------------------

let toastTimer = null;

function showToast(text) {
  const toast = $("toast");
  toast.textContent = text;
  toast.hidden = false;
  toast.classList.remove("fade");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    toast.classList.add("fade");
    toastTimer = setTimeout(() => { toast.hidden = true; }, 400);
  }, 2600);
}

function showAlert(text) {
  $("alert-text").textContent = text;
  const dialog = $("alert-dialog");
  if (!dialog.open) dialog.showModal();
}

function fileUrl(fileId) {
  return `/play/api/files/${encodeURIComponent(fileId)}`;
}

function clock(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function size(bytes) {
  if (!bytes) return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function renderProblems() {
  const section = $("problems");
  section.hidden = !state.problems.length;
  if (!state.problems.length) return;
  const count = state.problems.length;
  $("problems-toggle").textContent = `⛔ ${count} call${count === 1 ? "" : "s"} Telegram would refuse`;
  $("problems-list").replaceChildren(...state.problems.map((p) =>
    el("li", {}, p.chat_title ? el("span", { class: "problem-chat" }, `${p.chat_title}: `) : null, p.text)));
}

document.addEventListener("DOMContentLoaded", () => {
  $("problems-toggle").addEventListener("click", () => {
    $("problems-list").hidden = !$("problems-list").hidden;
  });
  boot();
});
