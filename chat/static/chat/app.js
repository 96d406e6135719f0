// The web chat: a thin client of the REST API (/api/v1/), the same one the mobile app uses.
// Replies stream over Server-Sent Events (/api/v1/messages/{id}/events/); polling is the
// fallback when the live log is unavailable.
// Safety rule for this file: text from users or the model goes into the page only through
// textContent or attribute setters; the one exception is content_html, which the server
// renders from markdown and sanitizes (no raw HTML, no script URLs, no images).
"use strict";

(() => {
  const root = document.getElementById("app");
  if (!root) return;
  const { api, resultsOf, el, button, formatSize, formatTime, copyText, skillLabel, documentTitle } = window.LA;
  const gettext = window.gettext;

  const API = root.dataset.apiRoot;
  const APP = root.dataset.appRoot;
  const POLL_FIRST_MS = 500;
  const POLL_MAX_MS = 2000;
  // After Stop, how long the stream may still bring the reply's final text.
  const STOPPED_STREAM_MS = 5000;
  const TOUCH = window.matchMedia("(pointer: coarse)").matches;
  const FINAL = new Set(["done", "failed", "cancelled"]);
  const $ = (id) => document.getElementById(id);
  const els = {
    sidebar: $("sidebar"),
    sidebarToggle: $("sidebar-toggle"),
    list: $("conversation-list"),
    search: $("conversation-search"),
    moreConversations: $("more-conversations"),
    main: $("main"),
    alert: $("alert"),
    empty: $("empty-state"),
    opening: $("opening-state"),
    view: $("conversation-view"),
    title: $("conversation-title"),
    conversationActions: document.querySelector(".conversation-actions"),
    renameForm: $("rename-form"),
    renameInput: $("rename-input"),
    scroller: $("messages-scroller"),
    messages: $("messages"),
    older: $("older-messages"),
    jump: $("jump-latest"),
    composer: $("composer"),
    input: $("composer-input"),
    send: $("send-button"),
    stop: $("stop-button"),
    hint: $("composer-hint"),
    commandList: $("command-list"),
    announcer: $("announcer"),
    dialog: $("document-dialog"),
  };
  const state = {
    conversations: [],
    conversationsNext: null,
    searching: "",
    current: null, // the open conversation
    olderNext: null, // cursor URL of older messages
    polls: new Map(), // assistant message id -> timeout id
    streams: new Map(), // assistant message id -> {source, text}
    messages: new Map(), // message id -> the message's JSON as last received
    actions: new Map(), // action id -> action (the open conversation's, refreshed after each reply)
    generation: 0, // bumped on every conversation switch; stale responses are dropped
    commands: [],
    commandMatches: [],
    commandIndex: -1,
    lastSend: null, // {conversation, text, key}: reused when the same text is sent again
    draftId: null, // the conversation the composer's text belongs to (see switchComposer)
    typedWithoutDraft: false,
    sending: false,
  };

  // Tool progress in plain words; a tool not listed here gets the generic phrase.
  const TOOL_PHRASES = {
    create_expense: gettext("Recording the expense…"),
    get_finance_summary: gettext("Adding up your finances…"),
    get_pending_bills: gettext("Checking your bills…"),
    mark_bill_paid: gettext("Marking the bill as paid…"),
    get_debt_progress: gettext("Checking your debts…"),
    add_knowledge: gettext("Saving a note…"),
    search_knowledge: gettext("Searching your notes…"),
    get_person: gettext("Looking up the person…"),
    update_person: gettext("Updating the person's details…"),
    record_metric: gettext("Recording the measurement…"),
    update_metric: gettext("Updating the measurement…"),
    delete_metric: gettext("Deleting the measurement…"),
    get_tracking_history: gettext("Reading your history…"),
    analyze_context: gettext("Analysing your data…"),
    conversation_context: gettext("Recalling the conversation…"),
  };

  function toolPhrase(name) {
    return TOOL_PHRASES[name] || gettext("Working on it…");
  }

  // ---------------------------------------------------------------- drafts

  // The unsent text of each conversation survives a reload and an expired session.
  function draftKey(id) {
    return `draft:${id}`;
  }

  // The composer belongs to the conversation being opened from the moment it is clicked
  // (state.draftId), not once it has loaded: text typed meanwhile is that conversation's
  // draft, and the load never overwrites it. null: no conversation, or a new one being made.
  function saveDraft() {
    if (state.draftId === null) return;
    try {
      if (els.input.value) localStorage.setItem(draftKey(state.draftId), els.input.value);
      else localStorage.removeItem(draftKey(state.draftId));
    } catch (err) {
      // Storage full or disabled: the draft lives only in the page.
    }
  }

  function storedDraft(id) {
    try {
      return localStorage.getItem(draftKey(id)) || "";
    } catch (err) {
      return "";
    }
  }

  // Hand the composer to conversation ``id`` (null: none yet). Text typed since the last
  // hand-over with no conversation to hold it (while a new one was being created) goes
  // with it; otherwise the box shows ``id``'s own draft.
  function switchComposer(id) {
    const carried = state.draftId === null && state.typedWithoutDraft ? els.input.value : null;
    saveDraft();
    state.draftId = id;
    state.typedWithoutDraft = false;
    if (carried !== null && id !== null) saveDraft();
    else els.input.value = id === null ? "" : storedDraft(id);
    updateComposer();
  }

  window.LA.onSignIn(() => {
    saveDraft();
    // An edit in progress is not kept: then the notice promises nothing, even with a draft.
    if (els.messages.querySelector(".edit-form")) return false;
    return state.draftId !== null && Boolean(els.input.value.trim());
  });

  // ---------------------------------------------------------------- small helpers

  function showAlert(text) {
    els.alert.replaceChildren(
      el("span", { text }),
      button(gettext("Dismiss"), clearAlert, "button ghost small"),
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

  function isNearBottom() {
    const s = els.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 120;
  }

  function scrollToBottom() {
    els.scroller.scrollTop = els.scroller.scrollHeight;
  }

  // "Latest messages" shows while the newest are out of sight: scrolled up, or a reply
  // growing below the fold (the thread's resizes are watched, not only scrolling).
  // Below this height (a phone with its keyboard open) the button would cover most of
  // what is left of the conversation: it stays hidden, and scrolling does its job.
  const JUMP_MIN_VIEW_PX = 160;

  function updateJump() {
    els.jump.hidden = isNearBottom() || els.scroller.clientHeight < JUMP_MIN_VIEW_PX;
  }

  // ---------------------------------------------------------------- conversation list

  function conversationUrl(id) {
    return `${APP}c/${id}/`;
  }

  function conversationIdFromPath() {
    const match = window.location.pathname.slice(APP.length - 1).match(/^\/c\/(\d+)\/?$/);
    return match ? Number(match[1]) : null;
  }

  function untitled() {
    return gettext("New conversation");
  }

  function renderConversationList() {
    els.list.replaceChildren(...state.conversations.map(renderConversationItem));
    if (!state.conversations.length && state.searching) {
      els.list.append(el("li", { className: "muted small", text: gettext("No conversation matches.") }));
    }
    els.moreConversations.hidden = !state.conversationsNext;
  }

  function renderConversationItem(conversation) {
    const link = el("a", {
      className: "conversation-link",
      text: conversation.title || untitled(),
      attrs: { href: conversationUrl(conversation.id), "data-testid": "conversation" },
    });
    if (state.current && state.current.id === conversation.id) link.setAttribute("aria-current", "page");
    link.addEventListener("click", (event) => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      openConversation(conversation.id, { push: true });
    });
    return el("li", { attrs: { "data-id": conversation.id } }, [link]);
  }

  async function loadConversations(url) {
    const first = !url;
    const query = state.searching;
    const page = await api(url || (query ? `conversations/?search=${encodeURIComponent(query)}` : "conversations/"));
    if (query !== state.searching) return; // a newer search is under way
    if (first) state.conversations = [];
    const known = new Set(state.conversations.map((c) => c.id));
    state.conversations.push(...resultsOf(page).filter((c) => !known.has(c.id)));
    state.conversationsNext = page && page.next;
    renderConversationList();
  }

  let searchTimer = null;
  function onSearchInput() {
    window.clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => {
      state.searching = els.search.value.trim();
      loadConversations().catch((err) => showAlert(err.message));
    }, 250);
  }

  function rememberConversation(conversation) {
    const index = state.conversations.findIndex((c) => c.id === conversation.id);
    if (index >= 0) state.conversations[index] = conversation;
    else if (!state.searching) state.conversations.unshift(conversation);
    if (state.current && state.current.id === conversation.id) {
      state.current = conversation;
      renderConversationHeader();
    }
    sortConversations();
    renderConversationList();
  }

  // The list runs most recently active first, as the API lists it (a message or a rename
  // moves a conversation up).
  function sortConversations() {
    const when = (conversation) => Date.parse(conversation.updated_at || conversation.created_at) || 0;
    state.conversations.sort((a, b) => when(b) - when(a) || b.id - a.id);
  }

  function touchConversation(id) {
    const conversation = state.conversations.find((c) => c.id === id);
    if (!conversation) return;
    conversation.updated_at = new Date().toISOString();
    sortConversations();
    renderConversationList();
  }

  async function createConversation() {
    clearAlert();
    // The open conversation is still empty: it is the new one (no pile of empty "New
    // conversation" entries in the list).
    if (state.current && !state.current.title && state.messages.size === 0 && !els.view.hidden) {
      setSidebarOpen(false);
      els.input.focus();
      return;
    }
    const previous = state.current;
    switchComposer(null); // a new conversation starts empty; what is typed now goes into it
    if (!TOUCH && !els.view.hidden) els.input.focus();
    try {
      const conversation = await api("conversations/", { method: "POST", body: { title: "" } });
      rememberConversation(conversation);
      await openConversation(conversation.id, { push: true });
      els.input.focus();
    } catch (err) {
      if (previous && state.current === previous) switchComposer(previous.id); // what was typed stays, as its draft
      showAlert(err.message);
    }
  }

  function startRename() {
    els.renameInput.value = state.current.title || "";
    els.renameForm.hidden = false;
    els.title.hidden = true;
    els.conversationActions.hidden = true;
    els.renameInput.focus();
    els.renameInput.select();
  }

  function endRename() {
    const hadFocus = els.renameForm.contains(document.activeElement);
    els.renameForm.hidden = true;
    els.title.hidden = false;
    els.conversationActions.hidden = false;
    if (hadFocus) $("rename-conversation").focus(); // not lost to the page's top with the hidden form
  }

  async function submitRename(event) {
    event.preventDefault();
    const title = els.renameInput.value.trim();
    if (!title) {
      els.renameInput.value = ""; // only spaces: the browser says the field is required
      els.renameInput.reportValidity();
      return;
    }
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
    const question = interpolate(gettext("Delete “%s”? This cannot be undone."), [conversation.title || untitled()]);
    if (!window.confirm(question)) return;
    try {
      await api(`conversations/${conversation.id}/`, { method: "DELETE" });
      state.conversations = state.conversations.filter((c) => c.id !== conversation.id);
      renderConversationList();
      closeConversation({ push: true });
      // The button that had focus is gone with the conversation. On a phone the list is in
      // the closed drawer: the welcome's button is the one in sight.
      (SIDE_BY_SIDE.matches ? $("new-conversation") : $("start-conversation")).focus();
      announce(gettext("Conversation deleted."));
    } catch (err) {
      showAlert(err.message);
    }
  }

  // ---------------------------------------------------------------- opening a conversation

  function stopWatching() {
    for (const timer of state.polls.values()) window.clearTimeout(timer);
    state.polls.clear();
    for (const live of state.streams.values()) live.source.close();
    state.streams.clear();
    updateStop();
  }

  function closeConversation({ push }) {
    switchComposer(null);
    state.generation += 1;
    stopWatching();
    state.current = null;
    state.messages.clear();
    state.actions.clear();
    els.view.hidden = true;
    els.opening.hidden = true;
    els.messages.removeAttribute("aria-busy");
    els.empty.hidden = false;
    document.title = "Life Assistant";
    if (push) window.history.pushState({}, "", APP);
    renderConversationList();
  }

  function renderConversationHeader() {
    els.title.textContent = state.current.title || untitled();
    document.title = `${state.current.title || untitled()} · Life Assistant`;
  }

  async function openConversation(id, { push }) {
    switchComposer(id);
    // Typing may start before the conversation has loaded: the box takes it from the click on.
    if (push && !TOUCH && !els.view.hidden) els.input.focus();
    const generation = ++state.generation;
    stopWatching();
    clearAlert();
    endRename();
    setSidebarOpen(false);
    if (push) window.history.pushState({ id }, "", conversationUrl(id));
    let slow = null;
    if (els.view.hidden) { // from the welcome (or a link): say what is happening meanwhile
      els.empty.hidden = true;
      els.opening.hidden = false;
    } else { // from another conversation: past a moment, its messages must not pass for these
      slow = setTimeout(() => showOpening(id, generation), SLOW_OPEN_MS);
    }
    try {
      const [conversation, page, actions] = await Promise.all([
        api(`conversations/${id}/`),
        api(`conversations/${id}/messages/?page_size=50`),
        api(`conversations/${id}/actions/`).catch(() => []),
      ]);
      if (generation !== state.generation) return;
      state.current = conversation;
      state.olderNext = page.next;
      rememberActions(actions);
      renderConversationHeader();
      state.messages.clear();
      els.messages.replaceChildren();
      els.messages.removeAttribute("aria-busy");
      resultsOf(page).reverse().forEach((message) => upsertMessage(message, { batch: true }));
      els.older.hidden = !state.olderNext;
      els.empty.hidden = true;
      els.opening.hidden = true;
      els.view.hidden = false;
      renderConversationList();
      finishBatch();
      scrollToBottom();
      resultsOf(page).forEach(watchIfUnsettled);
      if (push && !TOUCH) els.input.focus();
    } catch (err) {
      if (generation !== state.generation) return;
      closeConversation({ push: false });
      showAlert(err.status === 404 ? gettext("That conversation does not exist (or was deleted).") : err.message);
    } finally {
      clearTimeout(slow);
    }
  }

  // Switching on a slow connection: the title it is known by, and "Opening…" in place of
  // the previous conversation's messages (the message box keeps its place and its text).
  const SLOW_OPEN_MS = 300;

  function showOpening(id, generation) {
    if (generation !== state.generation) return;
    const listed = state.conversations.find((c) => c.id === id);
    els.title.textContent = (listed && listed.title) || untitled();
    els.messages.replaceChildren();
    els.messages.setAttribute("aria-busy", "true");
    els.older.hidden = true;
  }

  async function loadOlderMessages() {
    const generation = state.generation;
    const previousHeight = els.scroller.scrollHeight;
    try {
      const page = await api(state.olderNext);
      if (generation !== state.generation) return;
      state.olderNext = page.next;
      resultsOf(page).forEach((message) => upsertMessage(message, { prepend: true, batch: true }));
      finishBatch();
      const hadFocus = document.activeElement === els.older;
      els.older.hidden = !state.olderNext;
      els.scroller.scrollTop += els.scroller.scrollHeight - previousHeight;
      // The button hid itself (no more pages): the keyboard goes on from a loaded message.
      const loaded = resultsOf(page);
      if (hadFocus && els.older.hidden && loaded.length) focusMessage(loaded[loaded.length - 1].id);
      resultsOf(page).forEach(watchIfUnsettled);
    } catch (err) {
      showAlert(err.message);
    }
  }

  // ---------------------------------------------------------------- messages

  // Focus on a message itself, for the keyboard to go on from there when the control that
  // had focus went away with a redraw.
  function focusMessage(id) {
    const node = messageNode(id);
    if (!node) return;
    node.tabIndex = -1;
    node.focus({ preventScroll: true });
  }

  function isSettled(message) {
    return FINAL.has(message.status);
  }

  function messageNode(id) {
    return els.messages.querySelector(`li[data-id="${Number(id)}"]`);
  }

  // ``batch``: one of many at once; the caller then measures and marks them all in finishBatch().
  function upsertMessage(message, { prepend = false, batch = false } = {}) {
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

  function finishBatch() {
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

  // "R$ 1.234,56" must not break between the symbol and the number (the server's markdown
  // does the same for replies).
  function wholeAmounts(text) {
    return text.replace(/(^|[^\w$])((?:R|US)?\$|€|£) (?=\d)/g, "$1$2\u00a0");
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

  function renderAttachment(doc) {
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

  // A failed reply says what happened in words, never the internal error text.
  // By the reply's error_code, in the page's language (the API's own sentence follows the
  // language the reply was written in, which may differ from the page's).
  function failureText(message) {
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
      const text = el("div", { className: "message-body content streaming", attrs: { "data-testid": "message-body" } });
      if (message.content) text.textContent = message.content;
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
      // Sanitized on the server (markdown-it-py + nh3); see the safety rule at the top.
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
  function acceptSubmission(result, { replace } = {}) {
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

  // ---------------------------------------------------------------- pending action cards

  function rememberActions(actions) {
    state.actions.clear();
    for (const action of resultsOf(actions)) state.actions.set(action.id, action);
  }

  // A reply's actions: those in its JSON, updated by the conversation's action list, which
  // also knows about decisions made by typing "sim" / "não" in a later message.
  function actionsOf(message) {
    const byId = new Map((message.pending_actions || []).map((a) => [a.id, a]));
    for (const action of state.actions.values()) if (action.message === message.id) byId.set(action.id, action);
    return [...byId.values()].map((a) => state.actions.get(a.id) || a).sort((a, b) => a.id - b.id);
  }

  async function refreshActions() {
    if (!state.current) return;
    const generation = state.generation;
    try {
      const actions = await api(`conversations/${state.current.id}/actions/`);
      if (generation !== state.generation) return;
      rememberActions(actions);
      const touched = new Set(resultsOf(actions).map((a) => a.message));
      for (const card of els.messages.querySelectorAll("[data-testid=action-card]")) touched.add(Number(card.dataset.messageId));
      for (const id of touched) {
        const message = state.messages.get(id);
        if (message && isSettled(message)) upsertMessage(message);
      }
    } catch (err) {
      // Cards keep their last state; the next reply refreshes them again.
    }
  }

  function renderPendingActions(message, actions) {
    const list = el("ul", { className: "pending-actions", attrs: { "aria-label": gettext("Actions awaiting your decision") } });
    for (const action of actions) list.append(renderActionCard(message.id, action));
    return list;
  }

  function cardStatus(action) {
    // "executed" is what the API calls an accepted action that ran.
    return action.status === "executed" ? "accepted" : action.status;
  }

  function renderActionCard(messageId, action) {
    const item = el("li", {
      className: `pending-action action-${action.status}`,
      attrs: {
        "data-action-id": action.id, "data-message-id": messageId, "data-testid": "action-card", "data-status": cardStatus(action),
      },
    }, [
      el("p", { className: "action-summary", text: wholeAmounts(action.summary || action.tool) }),
      el("p", { className: "muted small", text: actionStatusText(action) }),
    ]);
    if (action.status === "pending") {
      item.append(el("div", { className: "action-buttons" }, [
        button(gettext("Confirm"), () => decideAction(messageId, action.id, "accept"), "button small primary", {
          "data-testid": "action-accept",
        }),
        button(gettext("Reject"), () => decideAction(messageId, action.id, "reject"), "button small", {
          "data-testid": "action-reject",
        }),
      ]));
    }
    return item;
  }

  function actionStatusText(action) {
    const labels = {
      pending: gettext("Awaiting your confirmation"),
      executed: gettext("Done"),
      accepted: gettext("Done"),
      failed: gettext("Failed"),
      rejected: gettext("Rejected"),
      expired: gettext("Expired"),
    };
    const text = labels[action.status] || action.status;
    return action.status === "pending" && action.expires_at
      ? interpolate(gettext("%(status)s · expires %(time)s"), { status: text, time: formatTime(action.expires_at) }, true)
      : text;
  }

  async function decideAction(messageId, actionId, verb) {
    clearAlert();
    try {
      const decided = await api(`actions/${actionId}/${verb}/`, { method: "POST" });
      if (decided && decided.id === actionId) state.actions.set(actionId, { ...state.actions.get(actionId), ...decided });
      announce(verb === "accept" ? gettext("Action confirmed.") : gettext("Action rejected."));
    } catch (err) {
      showAlert(err.message);
    }
    try {
      upsertMessage(await api(`messages/${messageId}/`));
    } catch (err) {
      // The message view refreshes on the next load; the alert above already says what failed.
    }
    refreshActions();
    // The card was rebuilt: focus its new state, not the page's top.
    const card = document.querySelector(`[data-action-id="${actionId}"]`);
    if (card) {
      card.tabIndex = -1;
      card.focus();
    }
  }

  // ---------------------------------------------------------------- following replies

  function watchIfUnsettled(message) {
    if (message.role === "assistant" && !isSettled(message)) watchReply(message.id);
  }

  function watchReply(id) {
    if (state.streams.has(id) || state.polls.has(id)) return;
    if (!window.EventSource) {
      pollReply(id);
      return;
    }
    const generation = state.generation;
    const source = new EventSource(`${API}messages/${id}/events/`);
    const live = { source, text: "" };
    state.streams.set(id, live);
    updateStop();
    const current = () => generation === state.generation && state.streams.get(id) === live;
    const data = (event) => {
      try {
        return JSON.parse(event.data);
      } catch (err) {
        return {};
      }
    };
    source.addEventListener("delta", (event) => {
      if (!current()) return;
      live.text += data(event).text || "";
      showStreamingText(id, live.text);
      setProgress(id, null);
    });
    source.addEventListener("status", (event) => {
      if (!current()) return;
      const payload = data(event);
      if (payload.restarted) live.text = ""; // the reply started over
      const node = messageNode(id);
      if (node && payload.status) node.dataset.status = payload.status;
      if (payload.status === "running" && !live.text) setProgress(id, gettext("Thinking…"));
    });
    source.addEventListener("tool_started", (event) => {
      if (current()) setProgress(id, toolPhrase(data(event).name));
    });
    source.addEventListener("tool_finished", () => {
      if (current()) setProgress(id, gettext("Thinking…"));
    });
    for (const type of FINAL) {
      source.addEventListener(type, (event) => {
        source.close();
        if (live.stopped && generation === state.generation) {
          upsertMessage(data(event)); // Stop already ended it: only the final text is new
          return;
        }
        if (!current()) return;
        state.streams.delete(id);
        replyEnded(data(event));
      });
    }
    source.addEventListener("error", (event) => {
      if (!current()) return;
      // A server "error" event (the live log is down) or a connection the browser gave up on:
      // poll instead. While the browser is reconnecting by itself (with Last-Event-ID), wait.
      if (event.data !== undefined || source.readyState === EventSource.CLOSED) {
        source.close();
        state.streams.delete(id);
        pollReply(id);
      }
    });
  }

  function showStreamingText(id, text) {
    const node = messageNode(id);
    const body = node && node.querySelector(".streaming");
    if (!body) return;
    const follow = isNearBottom();
    body.textContent = text;
    if (follow) scrollToBottom();
  }

  function setProgress(id, text) {
    const node = messageNode(id);
    const progress = node && node.querySelector("[data-testid=tool-progress]");
    if (!progress) return;
    progress.hidden = !text;
    if (text) progress.textContent = text;
  }

  function pollReply(id) {
    if (state.polls.has(id)) return;
    const generation = state.generation;
    let delay = POLL_FIRST_MS;
    const tick = async () => {
      if (generation !== state.generation) return;
      try {
        const message = await api(`messages/${id}/`);
        if (generation !== state.generation) return;
        if (isSettled(message)) {
          state.polls.delete(id);
          replyEnded(message);
          return;
        }
        // What a stream's status and delta events would have shown.
        const node = messageNode(id);
        if (node) node.dataset.status = message.status;
        showStreamingText(id, message.content || "");
        setProgress(id, message.content ? null : message.status === "running" ? gettext("Thinking…") : gettext("Waiting for the assistant…"));
      } catch (err) {
        if (err.status === 404) {
          state.polls.delete(id);
          updateStop();
          return;
        }
      }
      delay = Math.min(delay * 1.6, POLL_MAX_MS);
      state.polls.set(id, window.setTimeout(tick, delay));
    };
    state.polls.set(id, window.setTimeout(tick, delay));
    updateStop(); // once the reply counts as followed: Stop acts on it
  }

  function replyEnded(message) {
    const follow = isNearBottom();
    upsertMessage(message);
    if (follow) scrollToBottom();
    updateStop();
    announceReply(message);
    refreshActions();
    const conversation = state.current;
    // The first message names the conversation, whether its reply was done, stopped or
    // failed: show the new title in the header and the list.
    if (conversation && !conversation.title) refreshConversation(conversation.id);
  }

  function announceReply(message) {
    if (message.status === "failed") announce(`${failureText(message)} ${gettext("A Retry button is available.")}`);
    else if (message.status === "cancelled") announce(gettext("The reply was stopped."));
    else announce(interpolate(gettext("Assistant replied: %s"), [shorten(message.content, 300)]));
  }

  // The reply being written, if any: Stop and Esc act on it.
  function activeReply() {
    const ids = [...state.streams.keys(), ...state.polls.keys()];
    return ids.length ? ids[ids.length - 1] : null;
  }

  function updateStop() {
    const hidden = activeReply() === null;
    if (els.stop.hidden === hidden) return;
    els.stop.hidden = hidden;
    updateComposer(); // Stop takes width from the message box: its height follows the text
  }

  async function stopReply() {
    const id = activeReply();
    if (id === null) return;
    // Stop hides itself as the reply ends: the keyboard carries on from the message box.
    if (document.activeElement === els.stop) els.input.focus();
    try {
      const message = await api(`messages/${id}/cancel/`, { method: "POST" });
      if (message && isSettled(message)) {
        const live = state.streams.get(id);
        if (live) {
          // Stopped at once, even when no writer is left to publish the end (its process
          // died: the server's own check comes only at the next heartbeat). The stream
          // stays open a moment for the end's text: the writer's last words land after this.
          live.stopped = true;
          state.streams.delete(id);
          window.setTimeout(() => live.source.close(), STOPPED_STREAM_MS);
        } else {
          window.clearTimeout(state.polls.get(id));
          state.polls.delete(id);
        }
        replyEnded(message);
      }
      announce(gettext("Stopping the reply."));
    } catch (err) {
      showAlert(err.message);
    }
  }

  async function retryReply(id) {
    clearAlert();
    try {
      upsertMessage(await api(`messages/${id}/retry/`, { method: "POST" }));
      focusMessage(id); // its Retry button was redrawn away
      watchReply(id);
      announce(gettext("Retrying the reply."));
    } catch (err) {
      showAlert(err.message);
    }
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

  // ---------------------------------------------------------------- sending

  function setSending(sending) {
    state.sending = sending;
    // Its name only: on a phone the button shows its symbol, the name is for screen readers.
    els.send.querySelector(".wide-label").textContent = sending ? gettext("Sending…") : gettext("Send");
    updateComposer();
  }

  // Send is off while there is nothing to send (an empty box, or only spaces), and the box
  // grows with its text up to the height the stylesheet allows, then scrolls.
  function updateComposer() {
    els.send.disabled = state.sending || !els.input.value.trim();
    els.input.style.height = ""; // its two rows
    const border = els.input.offsetHeight - els.input.clientHeight;
    // Empty, it keeps its two rows: a placeholder wrapped on a narrow phone is no reason to grow.
    if (els.input.value && els.input.scrollHeight > els.input.clientHeight) {
      els.input.style.height = `${els.input.scrollHeight + border}px`;
    }
  }

  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID(); // secure contexts only
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  function idempotencyKeyFor(conversationId, text) {
    const last = state.lastSend;
    if (last && last.conversation === conversationId && last.text === text) return last.key;
    return uuid();
  }

  async function sendMessage() {
    const text = els.input.value;
    // While another conversation opens, the box is already that one's: not sent to this one.
    if (!text.trim() || state.sending || !state.current || state.current.id !== state.draftId) return;
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
        // Only what was sent leaves the box: text typed while it was sending stays.
        const now = els.input.value;
        els.input.value = now.startsWith(text) ? now.slice(text.length).trimStart() : now;
        saveDraft();
        updateComposer();
        acceptSubmission(result);
      }
    } catch (err) {
      saveDraft();
      showAlert(err.network ? `${err.message} ${gettext("Send again when you are ready: the message will not be duplicated.")}` : err.message);
    } finally {
      setSending(false);
      if (!TOUCH) els.input.focus();
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
    if (open) {
      els.input.setAttribute("aria-activedescendant", `command-${state.commandIndex}`);
      // The arrow keys move the choice past the list's visible part on a phone.
      $(`command-${state.commandIndex}`)?.scrollIntoView({ block: "nearest" });
    } else {
      els.input.removeAttribute("aria-activedescendant");
    }
  }

  function chooseCommand(index) {
    const command = state.commandMatches[index];
    if (!command) return;
    els.input.value = `${commandName(command)} `;
    updateComposer();
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
    // On touch keyboards Enter is the only way to break a line: there the Send button sends.
    if (event.key === "Enter" && !event.shiftKey && !TOUCH) {
      event.preventDefault();
      sendMessage();
    }
  }


  // ---------------------------------------------------------------- layout and wiring

  const SIDE_BY_SIDE = window.matchMedia("(min-width: 768px)");

  function setSidebarOpen(open) {
    els.sidebar.classList.toggle("open", open);
    els.sidebarToggle.setAttribute("aria-expanded", String(open));
    // On a phone the drawer covers the conversation: Tab must not reach what it hides.
    $("main").inert = open && !SIDE_BY_SIDE.matches;
  }

  function routeFromLocation() {
    const id = conversationIdFromPath();
    if (id) openConversation(id, { push: false });
    else closeConversation({ push: false });
  }

  // Phones: the on-screen keyboard shrinks the visual viewport; keep the composer above it
  // where the browser does not resize the layout itself (interactive-widget=resizes-content).
  function followKeyboard() {
    const viewport = window.visualViewport;
    if (!viewport) return;
    const fit = () => { root.style.height = `${viewport.height}px`; };
    viewport.addEventListener("resize", fit);
    fit();
  }

  function wire() {
    $("new-conversation").addEventListener("click", createConversation);
    $("start-conversation").addEventListener("click", createConversation);
    $("rename-conversation").addEventListener("click", startRename);
    $("rename-cancel").addEventListener("click", endRename);
    $("delete-conversation").addEventListener("click", deleteConversation);
    els.renameForm.addEventListener("submit", submitRename);
    // Esc in these fields is theirs (cancel the rename, clear the search): it must not
    // also reach the page's Esc, which stops the reply being written.
    els.renameForm.addEventListener("keydown", (event) => { // its field and its buttons alike
      if (event.key === "Escape") { event.preventDefault(); endRename(); }
    });
    els.search.addEventListener("input", onSearchInput);
    els.search.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !els.search.value) return;
      event.preventDefault();
      els.search.value = "";
      onSearchInput();
    });
    els.moreConversations.addEventListener("click", () => loadConversations(state.conversationsNext).catch((err) => showAlert(err.message)));
    els.older.addEventListener("click", loadOlderMessages);
    els.scroller.addEventListener("scroll", updateJump, { passive: true });
    const sizes = new ResizeObserver(updateJump);
    sizes.observe(els.messages);
    sizes.observe(els.scroller);
    els.jump.addEventListener("click", (event) => {
      scrollToBottom();
      // The button hides itself: focus goes to the composer rather than to the page, except
      // after a tap (detail > 0), where it would open the on-screen keyboard unasked.
      if (!TOUCH || event.detail === 0) els.input.focus();
    });
    els.composer.addEventListener("submit", (event) => { event.preventDefault(); sendMessage(); });
    els.stop.addEventListener("click", stopReply);
    els.input.addEventListener("keydown", handleComposerKeys);
    els.input.addEventListener("input", () => {
      if (state.draftId === null) state.typedWithoutDraft = true;
      updateCommandList();
      saveDraft();
      updateComposer();
    });
    els.input.addEventListener("blur", () => { state.commandMatches = []; renderCommandList(); });
    if (TOUCH) els.hint.textContent = gettext("Enter breaks the line; the Send button sends.");
    SIDE_BY_SIDE.addEventListener("change", () => setSidebarOpen(els.sidebar.classList.contains("open")));
    els.sidebarToggle.addEventListener("click", () => {
      const open = !els.sidebar.classList.contains("open");
      setSidebarOpen(open);
      if (open) (els.list.querySelector("[aria-current=page]") || $("new-conversation")).focus();
    });
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      // Another field's Esc (a select closing its list, a text field) does not stop the
      // reply; the message box's does, as Stop's shortcut.
      const field = event.target instanceof Element && event.target !== els.input
        && event.target.closest("input, select, textarea, [contenteditable]");
      if (els.sidebar.classList.contains("open")) {
        setSidebarOpen(false);
        els.sidebarToggle.focus();
      } else if (!field && !els.dialog.open && activeReply() !== null) {
        stopReply();
      }
    });
    document.addEventListener("click", (event) => {
      const outside = !els.sidebar.contains(event.target) && !els.sidebarToggle.contains(event.target);
      if (outside && els.sidebar.classList.contains("open")) setSidebarOpen(false);
    });
    window.addEventListener("popstate", routeFromLocation);
    window.addEventListener("pagehide", saveDraft);
    if (TOUCH) followKeyboard();
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
