// The conversation list (search, load more, most recently active first), the home page's
// new conversation, and opening, renaming and deleting one.

import { rememberActions } from "./actions.js";
import { cancelQueuedSend, sendIfQueued, switchComposer } from "./composer.js";
import { NEW } from "./drafts.js";
import { conversationChanged } from "./files.js";
import { showMessages } from "./messages.js";
import {
  $, announce, api, APP, clearAlert, el, els, focusMessage, gettext, interpolate, resultsOf, scrollToBottom, setSidebarOpen,
  showAlert, SIDE_BY_SIDE, state, TOUCH, untitled,
} from "./page.js";
import { stopWatching, watchIfUnsettled } from "./replies.js";

function conversationUrl(id) {
  return `${APP}c/${id}/`;
}

function conversationIdFromPath() {
  const match = window.location.pathname.slice(APP.length - 1).match(/^\/c\/(\d+)\/?$/);
  return match ? Number(match[1]) : null;
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

export async function loadConversations(url) {
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
export function onSearchInput() {
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

export function touchConversation(id) {
  const conversation = state.conversations.find((c) => c.id === id);
  if (!conversation) return;
  conversation.updated_at = new Date().toISOString();
  sortConversations();
  renderConversationList();
}

export async function refreshConversation(id) {
  try {
    rememberConversation(await api(`conversations/${id}/`));
  } catch (err) {
    // A missing title refresh is cosmetic; the next page load shows it.
  }
}

// "New conversation": the home page, its composer ready. Nothing is created until the first
// message is sent (no pile of empty "New conversation" entries in the list).
export function newConversation() {
  clearAlert();
  setSidebarOpen(false);
  if (state.current) closeConversation({ push: true });
  els.input.focus();
}

// The home page's first message makes its conversation: created, then shown as open (it has
// no messages to load), its address in the bar, the composer's text now its draft.
// Null when the person went elsewhere meanwhile.
export async function startConversation() {
  const conversation = await api("conversations/", { method: "POST", body: { title: "" } });
  rememberConversation(conversation);
  if (state.current || state.draftId !== NEW) return null;
  state.generation += 1;
  state.current = conversation;
  conversationChanged(conversation.id);
  state.olderNext = null;
  state.messages.clear();
  state.actions.clear();
  els.messages.replaceChildren();
  delete els.messages.dataset.home;
  els.older.hidden = true;
  els.conversationActions.hidden = false;
  renderConversationHeader();
  renderConversationList();
  window.history.pushState({ id: conversation.id }, "", conversationUrl(conversation.id));
  switchComposer(conversation.id, { carry: true });
  return conversation;
}

export function startRename() {
  els.renameInput.value = state.current.title || "";
  els.renameForm.hidden = false;
  els.title.hidden = true;
  els.conversationActions.hidden = true;
  els.renameInput.focus();
  els.renameInput.select();
}

export function endRename() {
  const hadFocus = els.renameForm.contains(document.activeElement);
  els.renameForm.hidden = true;
  els.title.hidden = false;
  els.conversationActions.hidden = !state.current;
  if (hadFocus) $("rename-conversation").focus(); // not lost to the page's top with the hidden form
}

export async function submitRename(event) {
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

export async function deleteConversation() {
  const conversation = state.current;
  const question = interpolate(gettext("Delete “%s”? This cannot be undone."), [conversation.title || untitled()]);
  if (!window.confirm(question)) return;
  try {
    await api(`conversations/${conversation.id}/`, { method: "DELETE" });
    state.conversations = state.conversations.filter((c) => c.id !== conversation.id);
    renderConversationList();
    closeConversation({ push: true });
    // The button that had focus is gone with the conversation. On a phone the list is in
    // the closed drawer, and the message box would open the keyboard unasked: the page.
    (SIDE_BY_SIDE.matches ? $("new-conversation") : els.main).focus();
    announce(gettext("Conversation deleted."));
  } catch (err) {
    showAlert(err.message);
  }
}

// The home page: no conversation open, the composer writing a new one.
function closeConversation({ push }) {
  switchComposer(NEW);
  state.generation += 1;
  stopWatching();
  state.current = null;
  conversationChanged(null);
  state.messages.clear();
  state.actions.clear();
  endRename();
  els.messages.replaceChildren();
  els.messages.removeAttribute("aria-busy");
  els.messages.dataset.home = "true";
  els.older.hidden = true;
  els.opening.hidden = true;
  els.conversationActions.hidden = true;
  els.title.textContent = untitled();
  els.view.hidden = false;
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
  if (els.view.hidden) { // the page opened on this conversation's address
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
    conversationChanged(id);
    state.olderNext = page.next;
    rememberActions(actions);
    renderConversationHeader();
    state.messages.clear();
    els.messages.replaceChildren();
    els.messages.removeAttribute("aria-busy");
    delete els.messages.dataset.home;
    els.conversationActions.hidden = false;
    els.opening.hidden = true;
    els.view.hidden = false; // before the messages: tall ones are measured to fold them
    showMessages(resultsOf(page).reverse());
    els.older.hidden = !state.olderNext;
    renderConversationList();
    scrollToBottom();
    resultsOf(page).forEach(watchIfUnsettled);
    if (push && !TOUCH) els.input.focus();
    sendIfQueued(id);
  } catch (err) {
    if (generation !== state.generation) return;
    cancelQueuedSend();
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
  delete els.messages.dataset.home;
  els.older.hidden = true;
}

export async function loadOlderMessages() {
  const generation = state.generation;
  const previousHeight = els.scroller.scrollHeight;
  try {
    const page = await api(state.olderNext);
    if (generation !== state.generation) return;
    state.olderNext = page.next;
    showMessages(resultsOf(page), { prepend: true });
    const hadFocus = document.activeElement === els.older;
    els.older.hidden = !state.olderNext;
    els.scroller.scrollTop += els.scroller.scrollHeight - previousHeight;
    // The button hid itself (no more pages): the keyboard goes on from a loaded message.
    const loaded = resultsOf(page);
    if (hadFocus && els.older.hidden && loaded.length) focusMessage(loaded[loaded.length - 1].id);
    loaded.forEach(watchIfUnsettled);
  } catch (err) {
    showAlert(err.message);
  }
}

export function routeFromLocation() {
  const id = conversationIdFromPath();
  if (id) openConversation(id, { push: false });
  else closeConversation({ push: false });
}
