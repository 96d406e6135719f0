// What every part of the web chat shares: the page's elements, the one state object, and
// small helpers (alerts, announcements, scrolling). Modules import these; nothing here
// calls into them.
// Safety rule for the chat's modules: text from users or the model goes into the page only
// through textContent or attribute setters; the exceptions are content_html, which the
// server renders from markdown and sanitizes, and markdown.js's rendering of a streaming
// reply, sanitized the same way in the page.

export const root = document.getElementById("app");
export const { api, resultsOf, el, button, formatSize, formatTime, copyText, skillLabel, documentTitle } = window.LA;
export const { gettext, interpolate } = window;

export const API = root ? root.dataset.apiRoot : "/api/v1/";
export const APP = root ? root.dataset.appRoot : "/";
export const TOUCH = window.matchMedia("(pointer: coarse)").matches;
export const SIDE_BY_SIDE = window.matchMedia("(min-width: 768px)");
export const $ = (id) => document.getElementById(id);

export const els = {
  sidebar: $("sidebar"),
  sidebarToggle: $("sidebar-toggle"),
  list: $("conversation-list"),
  search: $("conversation-search"),
  moreConversations: $("more-conversations"),
  main: $("main"),
  alert: $("alert"),
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

export const state = {
  conversations: [],
  conversationsNext: null,
  searching: "",
  current: null, // the open conversation; null on the home page (a new one, made by its first message)
  olderNext: null, // cursor URL of older messages
  followers: new Map(), // assistant message id -> its follower (follower.js)
  messages: new Map(), // message id -> the message's JSON as last received
  actions: new Map(), // action id -> action (the open conversation's, refreshed after each reply)
  generation: 0, // bumped on every conversation switch; stale responses are dropped
  commands: [],
  commandMatches: [],
  commandIndex: -1,
  lastSend: null, // {conversation, text, key}: reused when the same text is sent again
  draftId: null, // whose text the composer holds: a conversation's id, or drafts.NEW (see switchComposer)
  sending: false,
  queuedSend: null, // the conversation whose Send was pressed while it opened (see composer.js)
};

export function showAlert(text) {
  els.alert.replaceChildren(
    el("span", { text }),
    button(gettext("Dismiss"), clearAlert, "button ghost small"),
  );
  els.alert.hidden = false;
}

export function clearAlert() {
  els.alert.hidden = true;
  els.alert.replaceChildren();
}

export function announce(text) {
  els.announcer.textContent = "";
  window.setTimeout(() => { els.announcer.textContent = text; }, 50);
}

export function shorten(text, limit) {
  const flat = String(text || "").replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

export function isNearBottom() {
  const s = els.scroller;
  return s.scrollHeight - s.scrollTop - s.clientHeight < 120;
}

export function scrollToBottom() {
  els.scroller.scrollTop = els.scroller.scrollHeight;
}

// "Latest messages" shows while the newest are out of sight: scrolled up, or a reply
// growing below the fold (the thread's resizes are watched, not only scrolling).
// Below this height (a phone with its keyboard open) the button would cover most of
// what is left of the conversation: it stays hidden, and scrolling does its job.
const JUMP_MIN_VIEW_PX = 160;

export function updateJump() {
  els.jump.hidden = isNearBottom() || els.scroller.clientHeight < JUMP_MIN_VIEW_PX;
}

export function messageNode(id) {
  return els.messages.querySelector(`li[data-id="${Number(id)}"]`);
}

// Focus on a message itself, for the keyboard to go on from there when the control that
// had focus went away with a redraw.
export function focusMessage(id) {
  const node = messageNode(id);
  if (!node) return;
  node.tabIndex = -1;
  node.focus({ preventScroll: true });
}

export function untitled() {
  return gettext("New conversation");
}

export function setSidebarOpen(open) {
  els.sidebar.classList.toggle("open", open);
  els.sidebarToggle.setAttribute("aria-expanded", String(open));
  // On a phone the drawer covers the conversation: Tab must not reach what it hides.
  els.main.inert = open && !SIDE_BY_SIDE.matches;
}
