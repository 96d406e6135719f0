// The thread: each message drawn from its JSON, replies as they stream (markdown.js) and
// once settled (the server's HTML), the per-message buttons (copy, regenerate, edit) and
// the 202 of a post, edit or regenerate taking its place in the thread.

import { actionsOf, renderPendingActions } from "./actions.js";
import { isSettled, FINAL } from "./follower.js";
import { renderInto } from "./markdown.js";
import {
  api, button, copyText, documentTitle, el, els, focusMessage, formatSize, formatTime, gettext, isNearBottom,
  messageNode, scrollToBottom, showAlert, skillLabel, state, TOUCH, $, clearAlert,
} from "./page.js";
import { retryReply, watchReply } from "./replies.js";
import { touchConversation } from "./conversations.js";

// ``batch``: one of many at once; the caller then measures and marks them all in finishBatch().
export function upsertMessage(message, { prepend = false, batch = false } = {}) {
  state.messages.set(message.id, message);
  const node = renderMessage(message);
  const existing = messageNode(message.id);
  if (existing) {
    // A reply redrawn as it ends takes the keyboard's place with it (Retry, Regenerate
    // and "Show the whole message" leave focus on the message): not back to the page.
    const hadFocus = existing.contains(document.activeElement);
    existing.replaceWith(node);
    if (hadFocus) {
      node.tabIndex = -1;
      node.focus({ preventScroll: true });
    }
  } else if (prepend) els.messages.prepend(node);
  else els.messages.append(node);
  if (batch) return;
  clampTall(node);
  markLastTurn();
}

export function showMessages(messages, { prepend = false } = {}) {
  messages.forEach((message) => upsertMessage(message, { prepend, batch: true }));
  for (const item of els.messages.children) clampTall(item);
  markLastTurn();
}

function renderMessage(message) {
  const mine = message.role === "user";
  const item = el("li", {
    className: `message ${mine ? "from-user" : "from-assistant"} status-${message.status}`,
    attrs: {
      "data-id": message.id, "data-status": message.status, "data-role": message.role, "data-testid": "message",
    },
  });
  const meta = el("div", { className: "message-meta" }, [
    el("span", { className: "author", text: mine ? gettext("You") : gettext("Assistant") }),
    el("time", { text: formatTime(message.created_at), attrs: { datetime: message.created_at || "" } }),
  ]);
  item.append(meta);
  if (!mine) meta.append(renderSkillBadges(message.active_skills));
  item.append(mine ? renderUserBody(message) : renderAssistantBody(message));
  // Requests for consent to sensitive data (consent.js).
  const consent = !mine && window.LA.consentCards ? window.LA.consentCards(message) : null;
  if (consent) item.append(consent);
  item.append(el("div", { className: "message-tools" }));
  if (!isSettled(message)) item.setAttribute("aria-busy", "true");
  return item;
}

function renderSkillBadges(skills) {
  const list = el("ul", { className: "badges", attrs: { "aria-label": gettext("Active skills") } });
  for (const name of skills || []) list.append(el("li", { className: "badge", text: skillLabel(name) }));
  return list;
}

function renderUserBody(message) {
  const documents = message.documents || [];
  // Bulky pasted data became documents: the bubble shows the short intent, the data is attached.
  const short = documents.length && message.intent;
  // Where a block was, its marker leaves blank lines: one blank line is a paragraph break.
  const shown = short
    ? message.intent.replace(/\[see [^\]\n]+\]/g, "").replace(/\n\s*\n(\s*\n)+/g, "\n\n").trim()
    : message.content;
  const text = el("p", { className: "content", text: shown });
  const body = el("div", { className: "bubble" }, [text]);
  if (message.content_truncated && !short) {
    // Lists carry a preview of a long message; the whole text is one request away.
    const more = button(gettext("Show the whole message"), async () => {
      try {
        text.textContent = (await api(`messages/${message.id}/`)).content;
        more.remove();
        // Asked for in full: not folded again (that showed less than the preview did),
        // and read from its start rather than left scrolled away above the screen.
        const item = body.closest("li");
        item.dataset.whole = "true";
        item.scrollIntoView({ block: "start" });
        focusMessage(message.id); // the button had focus, and is gone
      } catch (err) {
        showAlert(err.message);
      }
    }, "button small show-whole");
    body.append(more);
  }
  if (documents.length) {
    const list = el("ul", { className: "attachments", attrs: { "aria-label": gettext("Attachments") } });
    for (const doc of documents) list.append(renderAttachment(doc));
    body.append(list);
  }
  return body;
}

export function renderAttachment(doc) {
  const name = documentTitle(doc.title) || doc.file_name || gettext("Document");
  const summary = el("summary", {}, [
    el("span", { className: "attachment-name", text: name }),
    el("span", { className: "attachment-size", text: doc.size_bytes ? formatSize(doc.size_bytes) : "" }),
  ]);
  const details = el("details", { className: "attachment", attrs: { "data-testid": "attachment" } }, [summary]);
  const preview = doc.preview || doc.summary; // summary: the API before previews existed
  if (preview) details.append(el("pre", { className: "attachment-preview", text: preview }));
  details.append(button(gettext("Show all"), () => openDocument(doc), "button small", { "data-testid": "show-all" }));
  return el("li", {}, [details]);
}

async function openDocument(doc) {
  clearAlert();
  try {
    const full = await api(`documents/${doc.id}/`);
    $("document-title").textContent = documentTitle(full.title) || full.file_name || doc.file_name || gettext("Document");
    // Its name and size: the first lines are right below, and a MIME type means little to a reader.
    $("document-meta").textContent = [full.file_name, formatSize(full.size_bytes)].filter(Boolean).join(" · ");
    $("document-content").textContent = full.content || "";
    els.dialog.showModal();
  } catch (err) {
    showAlert(err.message);
  }
}

// A failed reply says what happened in words, never the internal error text.
// By the reply's error_code, in the page's language (the API's own sentence follows the
// language the reply was written in, which may differ from the page's).
export function failureText(message) {
  switch (message.error_code) {
    case "timeout":
      return gettext("The assistant did not answer in time.");
    case "model_unavailable":
    case "not_queued":
      return gettext("The assistant is unavailable right now.");
    default:
      return gettext("The assistant could not answer this time.");
  }
}

function renderAssistantBody(message) {
  const body = el("div", { className: "bubble" });
  if (message.status === "pending" || message.status === "running") {
    const text = el("div", { className: "message-body markdown streaming", attrs: { "data-testid": "message-body" } });
    if (message.content) renderInto(text, message.content);
    const progress = el("p", {
      className: "pending", text: message.status === "running" ? gettext("Thinking…") : gettext("Waiting for the assistant…"),
      attrs: { "data-testid": "tool-progress", role: "status" },
    });
    body.append(text, progress);
    return body;
  }
  if (message.status === "failed") {
    body.append(
      el("p", { className: "error", text: failureText(message) }),
      button(gettext("Retry"), () => retryReply(message.id), "button small retry", { "data-testid": "retry" }),
    );
    return body;
  }
  body.append(renderReplyText(message));
  if (message.status === "cancelled") body.append(el("p", { className: "muted small stopped", text: gettext("Stopped.") }));
  const actions = actionsOf(message);
  if (actions.length) body.append(renderPendingActions(message, actions));
  return body;
}

function renderReplyText(message) {
  const text = el("div", { className: "message-body", attrs: { "data-testid": "message-body" } });
  if (typeof message.content_html === "string" && message.content_html) {
    text.classList.add("markdown");
    // Sanitized on the server (markdown-it-py + nh3); see the safety rule in page.js.
    text.innerHTML = message.content_html;
    for (const pre of text.querySelectorAll("pre")) {
      pre.tabIndex = 0; // a long line scrolls sideways: the keyboard must be able to scroll it
      const copy = button(gettext("Copy code"), () => copyText(pre.textContent, copy), "button small copy-code", {
        "data-testid": "copy-code",
      });
      pre.before(el("div", { className: "code-tools" }, [copy]));
    }
    for (const table of text.querySelectorAll("table")) {
      const wrap = el("div", { className: "table-scroll", attrs: { tabindex: "0" } });
      table.replaceWith(wrap);
      wrap.append(table);
    }
  } else {
    text.classList.add("content");
    text.textContent = message.content || "";
  }
  return text;
}

// A streaming reply's text so far, rendered as its final HTML will be: once per frame at
// most, with the latest text (a resumed stream replays its deltas all at once).
const streamingTexts = new Map(); // message id -> its text, not drawn yet
let streamingFrame = null;

export function showStreamingText(id, text) {
  streamingTexts.set(id, text);
  if (streamingFrame === null) streamingFrame = window.requestAnimationFrame(drawStreamingTexts);
}

function drawStreamingTexts() {
  streamingFrame = null;
  const follow = isNearBottom();
  for (const [id, text] of streamingTexts) {
    const body = messageNode(id)?.querySelector(".streaming"); // none once the reply has ended
    if (body) renderInto(body, text);
  }
  streamingTexts.clear();
  if (follow) scrollToBottom();
}

export function setProgress(id, text) {
  const node = messageNode(id);
  const progress = node && node.querySelector("[data-testid=tool-progress]");
  if (!progress) return;
  progress.hidden = !text;
  if (text) progress.textContent = text;
}

export function setStatus(id, status) {
  const node = messageNode(id);
  if (node && status) node.dataset.status = status;
}

// Bubbles taller than the screen fold, with a button to unfold them.
function clampTall(item) {
  if (!item || item.dataset.whole || item.querySelector("[data-testid=show-more]")) return;
  const bubble = item.querySelector(".bubble");
  if (!bubble || bubble.scrollHeight <= window.innerHeight * 0.9) return;
  // A preview keeps its own "Show the whole message" in sight: folding it too put that
  // button under the fade, next to a second "Show more".
  if (bubble.querySelector(".show-whole")) return;
  bubble.classList.add("clamped");
  const more = button(gettext("Show more"), () => {
    const open = bubble.classList.toggle("clamped");
    more.textContent = open ? gettext("Show more") : gettext("Show less");
    more.setAttribute("aria-expanded", String(!open));
  }, "button small show-more", { "data-testid": "show-more", "aria-expanded": "false" });
  bubble.after(more);
}

// Copy / regenerate on the last reply, edit on the last user message, copy on every reply.
function markLastTurn() {
  const items = [...els.messages.children];
  const lastReply = items.filter((n) => n.dataset.role === "assistant").pop();
  const lastUser = items.filter((n) => n.dataset.role === "user").pop();
  const busy = Boolean(lastReply && !FINAL.has(lastReply.dataset.status));
  for (const item of items) {
    if (item !== lastUser && item.closeEdit) item.closeEdit(); // only the last message can be edited
    const tools = item.querySelector(".message-tools");
    if (!tools) continue;
    const id = Number(item.dataset.id);
    const buttons = [];
    if (item.dataset.role === "assistant" && (item.dataset.status === "done" || item.dataset.status === "cancelled")) {
      buttons.push(button(gettext("Copy"), (event) => copyReply(id, event.currentTarget), "button ghost small", {
        "data-testid": "copy-reply",
      }));
    }
    // A failed reply has Retry, which runs it again: a second button doing the same confused.
    if (item === lastReply && FINAL.has(item.dataset.status) && item.dataset.status !== "failed") {
      buttons.push(button(gettext("Regenerate"), () => regenerate(id), "button ghost small", {
        "data-testid": "regenerate",
      }));
    }
    if (item === lastUser && !busy) {
      buttons.push(button(gettext("Edit"), () => startEdit(item), "button ghost small", { "data-testid": "edit-message" }));
    }
    tools.replaceChildren(...buttons);
  }
}

async function copyReply(id, node) {
  try {
    const message = await api(`messages/${id}/`);
    await copyText(message.content, node);
  } catch (err) {
    showAlert(err.message);
  }
}

export function editing() {
  return Boolean(els.messages.querySelector(".edit-form"));
}

function startEdit(item) {
  const body = item.querySelector(".bubble");
  if (!body || item.querySelector(".edit-form")) return;
  const id = Number(item.dataset.id);
  const area = el("textarea", { attrs: { rows: "3", "aria-label": gettext("Edit your message") } });
  const form = el("form", { className: "edit-form" }, [
    area,
    el("div", { className: "edit-buttons" }, [
      el("button", { className: "button small primary", text: gettext("Send"), attrs: { type: "submit" } }),
      button(gettext("Cancel"), () => close(), "button ghost small"),
    ]),
  ]);
  const tools = item.querySelector(".message-tools");
  const close = () => {
    item.closeEdit = null;
    form.remove();
    item.classList.remove("editing");
    body.hidden = false;
    if (tools) tools.hidden = false;
    item.querySelector("[data-testid=edit-message]")?.focus();
  };
  item.closeEdit = close; // markLastTurn closes it once a newer message makes this one uneditable
  body.hidden = true;
  if (tools) tools.hidden = true; // its Edit button, under the form that edits
  item.classList.add("editing"); // the full column's width, and no "Show more" of the hidden text
  body.after(form);
  area.focus();
  area.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation(); // not also a Stop of the reply being written
      close();
    } else if (event.key === "Enter" && !event.shiftKey && !TOUCH && !event.isComposing) {
      event.preventDefault(); // as in the composer: Enter sends, Shift+Enter breaks the line
      form.requestSubmit();
    }
  });
  api(`messages/${id}/`).then((message) => {
    if (area.value) return; // typed into before the whole text came: the typing stays
    area.value = message.content;
    area.rows = Math.min(12, Math.max(3, message.content.split("\n").length + 1));
  }).catch((err) => showAlert(err.message));
  let sending = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const content = area.value;
    if (!content.trim() || sending) return; // a second Enter while the first is on its way
    sending = true;
    try {
      const result = await api(`messages/${id}/edit/`, { method: "POST", body: { content } });
      acceptSubmission(result, { replace: id });
      focusMessage(result.user_message.id); // the form that had focus left with the old message
    } catch (err) {
      showAlert(err.message);
    } finally {
      sending = false;
    }
  });
}

async function regenerate(id) {
  clearAlert();
  try {
    const result = await api(`messages/${id}/regenerate/`, { method: "POST" });
    acceptSubmission(result, { replace: id });
    focusMessage(result.assistant_message.id); // the old reply and its button are gone
  } catch (err) {
    showAlert(err.message);
  }
}

// A 202 from posting, editing or regenerating: the old turn (if any) leaves the thread.
export function acceptSubmission(result, { replace } = {}) {
  if (replace) {
    const old = messageNode(replace);
    if (old) {
      // Editing replaces the user message and its reply; regenerating only the reply.
      const next = old.nextElementSibling;
      if (old.dataset.role === "user" && next && next.dataset.role === "assistant") next.remove();
      if (result.user_message && Number(result.user_message.id) !== replace) old.remove();
      else if (old.dataset.role === "assistant") old.remove();
    }
  }
  if (result.user_message) upsertMessage(result.user_message);
  if (state.current) touchConversation(state.current.id);
  if (result.assistant_message) {
    upsertMessage(result.assistant_message);
    watchReply(result.assistant_message.id);
  }
  scrollToBottom();
}

