// The web chat: a thin client of the REST API (/api/v1/), the same one the mobile app uses.
// Safety rule for this file: text from users or the model goes into the page only through
// textContent or attribute setters, never through innerHTML.
"use strict";

(() => {
  const root = document.getElementById("app");
  if (!root) return;

  const API = root.dataset.apiRoot;
  const APP = root.dataset.appRoot;
  const POLL_FIRST_MS = 500;
  const POLL_MAX_MS = 2000;
  const $ = (id) => document.getElementById(id);
  const els = {
    sidebar: $("sidebar"),
    sidebarToggle: $("sidebar-toggle"),
    list: $("conversation-list"),
    moreConversations: $("more-conversations"),
    main: $("main"),
    alert: $("alert"),
    empty: $("empty-state"),
    view: $("conversation-view"),
    title: $("conversation-title"),
    renameForm: $("rename-form"),
    renameInput: $("rename-input"),
    scroller: $("messages-scroller"),
    messages: $("messages"),
    older: $("older-messages"),
    composer: $("composer"),
    input: $("composer-input"),
    send: $("send-button"),
    commandList: $("command-list"),
    announcer: $("announcer"),
    dialog: $("document-dialog"),
  };
  const state = {
    conversations: [],
    conversationsNext: null,
    current: null, // the open conversation
    olderNext: null, // cursor URL of older messages
    polls: new Map(), // assistant message id -> timeout id
    generation: 0, // bumped on every conversation switch; stale responses are dropped
    commands: [],
    commandMatches: [],
    commandIndex: -1,
    lastSend: null, // {conversation, text, key}: reused when the same text is sent again
    sending: false,
  };

  // ---------------------------------------------------------------- HTTP

  class ApiError extends Error {
    constructor(message, status, network = false) {
      super(message);
      this.status = status;
      this.network = network;
    }
  }

  function csrfToken() {
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID(); // secure contexts only
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  async function api(path, { method = "GET", body, headers = {} } = {}) {
    const url = /^(https?:)?\//.test(path) ? path : API + path;
    const init = { method, credentials: "same-origin", headers: { Accept: "application/json", ...headers } };
    if (method !== "GET") init.headers["X-CSRFToken"] = csrfToken();
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      throw new ApiError("Network error: check your connection and try again.", 0, true);
    }
    if (response.status === 401) {
      window.location.assign(`${root.dataset.loginUrl}?next=${encodeURIComponent(window.location.pathname)}`);
      throw new ApiError("Your session has ended. Please sign in again.", 401);
    }
    if (response.status === 204) return null;
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new ApiError(errorText(response, data), response.status);
    return data;
  }

  function errorText(response, data) {
    if (response.status === 429) {
      const wait = Number.parseInt(response.headers.get("Retry-After") || "", 10);
      return Number.isFinite(wait) ? `Too many messages, retry in ${wait} s.` : "Too many messages, retry shortly.";
    }
    if (data && typeof data.detail === "string" && data.detail) return data.detail;
    return `The server could not do that (HTTP ${response.status}).`;
  }

  function resultsOf(page) {
    return Array.isArray(page) ? page : (page && page.results) || [];
  }

  // ---------------------------------------------------------------- small DOM helpers

  function el(tag, { className, text, attrs } = {}, children = []) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function button(label, onClick, className = "button small") {
    const node = el("button", { className, text: label, attrs: { type: "button" } });
    node.addEventListener("click", onClick);
    return node;
  }

  function showAlert(text) {
    els.alert.replaceChildren(
      el("span", { text }),
      button("Dismiss", clearAlert, "button ghost small"),
    );
    els.alert.hidden = false;
  }

  function clearAlert() {
    els.alert.hidden = true;
    els.alert.replaceChildren();
  }

  function announce(text) {
    els.announcer.textContent = "";
    window.setTimeout(() => { els.announcer.textContent = text; }, 50);
  }

  function shorten(text, limit) {
    const flat = String(text || "").replace(/\s+/g, " ").trim();
    return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
  }

  function formatTime(iso) {
    if (!iso) return "";
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? "" : date.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
  }

  function formatSize(bytes) {
    if (!Number.isFinite(bytes)) return "";
    if (bytes < 1024) return `${bytes} B`;
    return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;
  }

  function isNearBottom() {
    const s = els.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 120;
  }

  function scrollToBottom() {
    els.scroller.scrollTop = els.scroller.scrollHeight;
  }

  // ---------------------------------------------------------------- conversation list

  function conversationUrl(id) {
    return `${APP}c/${id}/`;
  }

  function conversationIdFromPath() {
    const match = window.location.pathname.slice(APP.length - 1).match(/^\/c\/(\d+)\/?$/);
    return match ? Number(match[1]) : null;
  }

  function renderConversationList() {
    els.list.replaceChildren(...state.conversations.map(renderConversationItem));
    els.moreConversations.hidden = !state.conversationsNext;
  }

  function renderConversationItem(conversation) {
    const link = el("a", {
      className: "conversation-link",
      text: conversation.title || "New conversation",
      attrs: { href: conversationUrl(conversation.id) },
    });
    if (state.current && state.current.id === conversation.id) link.setAttribute("aria-current", "page");
    link.addEventListener("click", (event) => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      openConversation(conversation.id, { push: true });
    });
    return el("li", { attrs: { "data-id": conversation.id } }, [link]);
  }

  async function loadConversations(url = "conversations/") {
    const page = await api(url);
    const known = new Set(state.conversations.map((c) => c.id));
    state.conversations.push(...resultsOf(page).filter((c) => !known.has(c.id)));
    state.conversationsNext = page && page.next;
    renderConversationList();
  }

  function rememberConversation(conversation) {
    const index = state.conversations.findIndex((c) => c.id === conversation.id);
    if (index >= 0) state.conversations[index] = conversation;
    else state.conversations.unshift(conversation);
    if (state.current && state.current.id === conversation.id) {
      state.current = conversation;
      renderConversationHeader();
    }
    renderConversationList();
  }

  async function createConversation() {
    clearAlert();
    try {
      const conversation = await api("conversations/", { method: "POST", body: { title: "" } });
      rememberConversation(conversation);
      await openConversation(conversation.id, { push: true });
      els.input.focus();
    } catch (err) {
      showAlert(err.message);
    }
  }

  function startRename() {
    els.renameInput.value = state.current.title || "";
    els.renameForm.hidden = false;
    els.title.hidden = true;
    els.renameInput.focus();
    els.renameInput.select();
  }

  function endRename() {
    els.renameForm.hidden = true;
    els.title.hidden = false;
  }

  async function submitRename(event) {
    event.preventDefault();
    const title = els.renameInput.value.trim();
    if (!title) return;
    try {
      rememberConversation(await api(`conversations/${state.current.id}/`, { method: "PATCH", body: { title } }));
      endRename();
      $("rename-conversation").focus();
    } catch (err) {
      showAlert(err.message);
    }
  }

  async function deleteConversation() {
    const conversation = state.current;
    if (!window.confirm(`Delete “${conversation.title || "New conversation"}”? This cannot be undone.`)) return;
    try {
      await api(`conversations/${conversation.id}/`, { method: "DELETE" });
      state.conversations = state.conversations.filter((c) => c.id !== conversation.id);
      renderConversationList();
      closeConversation({ push: true });
      announce("Conversation deleted.");
    } catch (err) {
      showAlert(err.message);
    }
  }

  // ---------------------------------------------------------------- opening a conversation

  function stopPolling() {
    for (const timer of state.polls.values()) window.clearTimeout(timer);
    state.polls.clear();
  }

  function closeConversation({ push }) {
    state.generation += 1;
    stopPolling();
    state.current = null;
    els.view.hidden = true;
    els.empty.hidden = false;
    document.title = "Life Assistant";
    if (push) window.history.pushState({}, "", APP);
    renderConversationList();
  }

  function renderConversationHeader() {
    els.title.textContent = state.current.title || "New conversation";
    document.title = `${state.current.title || "New conversation"} · Life Assistant`;
  }

  async function openConversation(id, { push }) {
    const generation = ++state.generation;
    stopPolling();
    clearAlert();
    endRename();
    setSidebarOpen(false);
    if (push) window.history.pushState({ id }, "", conversationUrl(id));
    try {
      const conversation = await api(`conversations/${id}/`);
      const page = await api(`conversations/${id}/messages/?page_size=50`);
      if (generation !== state.generation) return;
      state.current = conversation;
      state.olderNext = page.next;
      renderConversationHeader();
      els.messages.replaceChildren();
      resultsOf(page).reverse().forEach((message) => upsertMessage(message));
      els.older.hidden = !state.olderNext;
      els.empty.hidden = true;
      els.view.hidden = false;
      renderConversationList();
      scrollToBottom();
      resultsOf(page).forEach(watchIfUnsettled);
      if (push) els.input.focus();
    } catch (err) {
      if (generation !== state.generation) return;
      closeConversation({ push: false });
      showAlert(err.status === 404 ? "That conversation does not exist (or was deleted)." : err.message);
    }
  }

  async function loadOlderMessages() {
    const generation = state.generation;
    const previousHeight = els.scroller.scrollHeight;
    try {
      const page = await api(state.olderNext);
      if (generation !== state.generation) return;
      state.olderNext = page.next;
      resultsOf(page).forEach((message) => upsertMessage(message, { prepend: true }));
      els.older.hidden = !state.olderNext;
      els.scroller.scrollTop += els.scroller.scrollHeight - previousHeight;
      resultsOf(page).forEach(watchIfUnsettled);
    } catch (err) {
      showAlert(err.message);
    }
  }

  // ---------------------------------------------------------------- messages

  function isSettled(message) {
    return message.status === "done" || message.status === "failed";
  }

  function upsertMessage(message, { prepend = false } = {}) {
    const node = renderMessage(message);
    const existing = els.messages.querySelector(`li[data-id="${Number(message.id)}"]`);
    if (existing) existing.replaceWith(node);
    else if (prepend) els.messages.prepend(node);
    else els.messages.append(node);
  }

  function renderMessage(message) {
    const mine = message.role === "user";
    const item = el("li", {
      className: `message ${mine ? "from-user" : "from-assistant"} status-${message.status}`,
      attrs: { "data-id": message.id, "data-status": message.status, "data-role": message.role },
    });
    const meta = el("div", { className: "message-meta" }, [
      el("span", { className: "author", text: mine ? "You" : "Assistant" }),
      el("time", { text: formatTime(message.created_at), attrs: { datetime: message.created_at || "" } }),
    ]);
    item.append(meta);
    if (!mine) meta.append(renderSkillBadges(message.active_skills));
    item.append(mine ? renderUserBody(message) : renderAssistantBody(message));
    if (!isSettled(message)) item.setAttribute("aria-busy", "true");
    return item;
  }

  function renderSkillBadges(skills) {
    const list = el("ul", { className: "badges", attrs: { "aria-label": "Active skills" } });
    for (const name of skills || []) list.append(el("li", { className: "badge", text: name }));
    return list;
  }

  function renderUserBody(message) {
    const text = el("p", { className: "content", text: message.content });
    const body = el("div", { className: "bubble" }, [text]);
    if (message.content_truncated) {
      // Lists carry a preview of a long message; the whole text is one request away.
      const more = button("Show the whole message", async () => {
        try {
          text.textContent = (await api(`messages/${message.id}/`)).content;
          more.remove();
        } catch (err) {
          showAlert(err.message);
        }
      }, "button small show-whole");
      body.append(more);
    }
    const documents = message.documents || [];
    if (documents.length) {
      const list = el("ul", { className: "attachments", attrs: { "aria-label": "Attachments" } });
      for (const doc of documents) {
        const label = `${doc.title || doc.file_name || "Document"}${doc.size_bytes ? ` (${formatSize(doc.size_bytes)})` : ""}`;
        list.append(el("li", {}, [button(label, () => openDocument(doc), "attachment")]));
      }
      body.append(list);
    }
    return body;
  }

  function renderAssistantBody(message) {
    const body = el("div", { className: "bubble" });
    if (message.status === "pending" || message.status === "running") {
      body.append(el("p", { className: "pending", text: message.status === "running" ? "Thinking…" : "Waiting for the assistant…" }));
      return body;
    }
    if (message.status === "failed") {
      body.append(
        el("p", { className: "error", text: message.error || "The assistant could not answer." }),
        button("Retry", () => retryReply(message.id), "button small retry"),
      );
      return body;
    }
    body.append(el("p", { className: "content", text: message.content }));
    const actions = message.pending_actions || [];
    if (actions.length) body.append(renderPendingActions(message, actions));
    return body;
  }

  function renderPendingActions(message, actions) {
    const list = el("ul", { className: "pending-actions", attrs: { "aria-label": "Actions awaiting your decision" } });
    for (const action of actions) {
      const item = el("li", { className: `pending-action action-${action.status}`, attrs: { "data-action-id": action.id } }, [
        el("p", { className: "action-summary", text: action.summary || action.tool }),
        el("p", { className: "muted small", text: actionStatusText(action) }),
      ]);
      if (action.status === "pending") {
        item.append(el("div", { className: "action-buttons" }, [
          button("Confirm", () => decideAction(message.id, action.id, "accept"), "button small primary"),
          button("Reject", () => decideAction(message.id, action.id, "reject"), "button small"),
        ]));
      }
      list.append(item);
    }
    return list;
  }

  function actionStatusText(action) {
    const labels = { pending: "Awaiting your confirmation", executed: "Done", failed: "Failed", rejected: "Rejected", expired: "Expired" };
    const text = labels[action.status] || action.status;
    return action.status === "pending" && action.expires_at ? `${text} · expires ${formatTime(action.expires_at)}` : text;
  }

  // ---------------------------------------------------------------- waiting for replies

  function watchIfUnsettled(message) {
    if (message.role === "assistant" && !isSettled(message)) watchReply(message.id);
  }

  function watchReply(id) {
    if (state.polls.has(id)) return;
    const generation = state.generation;
    let delay = POLL_FIRST_MS;
    const tick = async () => {
      if (generation !== state.generation) return;
      try {
        const message = await api(`messages/${id}/`);
        if (generation !== state.generation) return;
        const follow = isNearBottom();
        upsertMessage(message);
        if (follow) scrollToBottom();
        if (isSettled(message)) {
          state.polls.delete(id);
          announceReply(message);
          return;
        }
      } catch (err) {
        if (err.status === 404) {
          state.polls.delete(id);
          return;
        }
      }
      delay = Math.min(delay * 1.6, POLL_MAX_MS);
      state.polls.set(id, window.setTimeout(tick, delay));
    };
    state.polls.set(id, window.setTimeout(tick, delay));
  }

  function announceReply(message) {
    if (message.status === "failed") announce(`The reply failed: ${message.error || "unknown error"}. A Retry button is available.`);
    else announce(`Assistant replied: ${shorten(message.content, 300)}`);
  }

  async function retryReply(id) {
    clearAlert();
    try {
      upsertMessage(await api(`messages/${id}/retry/`, { method: "POST" }));
      watchReply(id);
      announce("Retrying the reply.");
    } catch (err) {
      showAlert(err.message);
    }
  }

  async function decideAction(messageId, actionId, verb) {
    clearAlert();
    try {
      await api(`actions/${actionId}/${verb}/`, { method: "POST" });
      announce(verb === "accept" ? "Action confirmed." : "Action rejected.");
    } catch (err) {
      showAlert(err.message);
    }
    try {
      upsertMessage(await api(`messages/${messageId}/`));
    } catch (err) {
      // The message view refreshes on the next load; the alert above already says what failed.
    }
  }

  async function openDocument(doc) {
    clearAlert();
    try {
      const full = await api(`documents/${doc.id}/`);
      $("document-title").textContent = full.title || full.file_name || doc.file_name || "Document";
      $("document-meta").textContent = [full.mime_type, formatSize(full.size_bytes), full.summary].filter(Boolean).join(" · ");
      $("document-content").textContent = full.content || "";
      els.dialog.showModal();
    } catch (err) {
      showAlert(err.message);
    }
  }

  // ---------------------------------------------------------------- sending

  function setSending(sending) {
    state.sending = sending;
    els.send.disabled = sending;
    els.send.textContent = sending ? "Sending…" : "Send";
  }

  function idempotencyKeyFor(conversationId, text) {
    const last = state.lastSend;
    if (last && last.conversation === conversationId && last.text === text) return last.key;
    return uuid();
  }

  async function sendMessage() {
    const text = els.input.value;
    if (!text.trim() || state.sending || !state.current) return;
    clearAlert();
    const conversation = state.current;
    const key = idempotencyKeyFor(conversation.id, text);
    state.lastSend = { conversation: conversation.id, text, key };
    setSending(true);
    try {
      const result = await api(`conversations/${conversation.id}/messages/`, {
        method: "POST",
        body: { content: text },
        headers: { "Idempotency-Key": key },
      });
      state.lastSend = null;
      if (state.current && state.current.id === conversation.id) {
        els.input.value = "";
        upsertMessage(result.user_message);
        if (result.assistant_message) {
          upsertMessage(result.assistant_message);
          watchReply(result.assistant_message.id);
        }
        scrollToBottom();
      }
      if (!conversation.title) refreshConversation(conversation.id);
    } catch (err) {
      showAlert(err.network ? `${err.message} Press Send to try again; the message will not be duplicated.` : err.message);
    } finally {
      setSending(false);
      els.input.focus();
    }
  }

  async function refreshConversation(id) {
    try {
      rememberConversation(await api(`conversations/${id}/`));
    } catch (err) {
      // A missing title refresh is cosmetic; the next page load shows it.
    }
  }

  // ---------------------------------------------------------------- slash commands

  async function loadCommands() {
    try {
      state.commands = resultsOf(await api("commands/")).filter((c) => c && c.name);
    } catch (err) {
      state.commands = []; // no command catalogue: typing "/" simply lists nothing
    }
  }

  function commandName(command) {
    return command.name.startsWith("/") ? command.name : `/${command.name}`;
  }

  function updateCommandList() {
    const value = els.input.value;
    const typing = value.startsWith("/") && !/\s/.test(value);
    state.commandMatches = typing
      ? state.commands.filter((c) => commandName(c).toLowerCase().startsWith(value.toLowerCase()))
      : [];
    state.commandIndex = state.commandMatches.length ? 0 : -1;
    renderCommandList();
  }

  function renderCommandList() {
    const open = state.commandMatches.length > 0;
    els.commandList.hidden = !open;
    els.input.setAttribute("aria-expanded", String(open));
    els.commandList.replaceChildren(...state.commandMatches.map((command, index) => {
      const option = el("li", {
        className: "command-option",
        attrs: { id: `command-${index}`, role: "option", "aria-selected": String(index === state.commandIndex) },
      }, [
        el("span", { className: "command-name", text: command.usage || commandName(command) }),
        el("span", { className: "command-description muted", text: command.description || "" }),
      ]);
      option.addEventListener("mousedown", (event) => {
        event.preventDefault(); // keep focus in the textarea
        chooseCommand(index);
      });
      return option;
    }));
    if (open) els.input.setAttribute("aria-activedescendant", `command-${state.commandIndex}`);
    else els.input.removeAttribute("aria-activedescendant");
  }

  function chooseCommand(index) {
    const command = state.commandMatches[index];
    if (!command) return;
    els.input.value = `${commandName(command)} `;
    state.commandMatches = [];
    renderCommandList();
    els.input.focus();
  }

  function handleCommandKeys(event) {
    const count = state.commandMatches.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      state.commandIndex = (state.commandIndex + (event.key === "ArrowDown" ? 1 : count - 1)) % count;
      renderCommandList();
    } else if (event.key === "Enter" || event.key === "Tab") {
      chooseCommand(state.commandIndex);
    } else if (event.key === "Escape") {
      state.commandMatches = [];
      renderCommandList();
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  }

  function handleComposerKeys(event) {
    if (event.isComposing) return;
    if (state.commandMatches.length && handleCommandKeys(event)) return;
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      sendMessage();
    }
  }

  // ---------------------------------------------------------------- layout and wiring

  function setSidebarOpen(open) {
    els.sidebar.classList.toggle("open", open);
    els.sidebarToggle.setAttribute("aria-expanded", String(open));
  }

  function routeFromLocation() {
    const id = conversationIdFromPath();
    if (id) openConversation(id, { push: false });
    else closeConversation({ push: false });
  }

  function wire() {
    $("new-conversation").addEventListener("click", createConversation);
    $("start-conversation").addEventListener("click", createConversation);
    $("rename-conversation").addEventListener("click", startRename);
    $("rename-cancel").addEventListener("click", endRename);
    $("delete-conversation").addEventListener("click", deleteConversation);
    els.renameForm.addEventListener("submit", submitRename);
    els.renameInput.addEventListener("keydown", (event) => { if (event.key === "Escape") endRename(); });
    els.moreConversations.addEventListener("click", () => loadConversations(state.conversationsNext).catch((err) => showAlert(err.message)));
    els.older.addEventListener("click", loadOlderMessages);
    els.composer.addEventListener("submit", (event) => { event.preventDefault(); sendMessage(); });
    els.input.addEventListener("keydown", handleComposerKeys);
    els.input.addEventListener("input", updateCommandList);
    els.input.addEventListener("blur", () => { state.commandMatches = []; renderCommandList(); });
    els.sidebarToggle.addEventListener("click", () => {
      const open = !els.sidebar.classList.contains("open");
      setSidebarOpen(open);
      if (open) (els.list.querySelector("[aria-current=page]") || $("new-conversation")).focus();
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && els.sidebar.classList.contains("open")) {
        setSidebarOpen(false);
        els.sidebarToggle.focus();
      }
    });
    document.addEventListener("click", (event) => {
      const outside = !els.sidebar.contains(event.target) && !els.sidebarToggle.contains(event.target);
      if (outside && els.sidebar.classList.contains("open")) setSidebarOpen(false);
    });
    window.addEventListener("popstate", routeFromLocation);
  }

  async function start() {
    wire();
    routeFromLocation();
    loadCommands();
    try {
      await loadConversations();
    } catch (err) {
      showAlert(err.message);
    }
    root.dataset.ready = "true";
  }

  start();
})();
