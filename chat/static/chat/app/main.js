// The web chat: a thin client of the REST API (/api/v1/), the same one the mobile app uses.
// Native ES modules, one per concern, no build step:
//   page.js           elements, the shared state, alerts, scrolling
//   conversations.js  the list, the home page's new conversation, open / rename / delete
//   messages.js       the thread: messages, streaming and final replies, edit, regenerate
//   actions.js        pending action cards
//   replies.js        the replies being written: progress, Stop, Retry
//   follower.js       following one reply (SSE, resume, polling, stop); no DOM, tested under Node
//   markdown.js       a streaming reply's markdown, rendered and sanitized as the server does
//   composer.js       the message box: drafts, sending, slash commands
//   drafts.js         drafts in localStorage, cleared at sign-out
//   files.js          what attachments.js (attach button, drag and drop) uses of the chat
// This file wires them to the page and starts the chat.

import { endRename, deleteConversation, loadConversations, loadOlderMessages, newConversation, onSearchInput, routeFromLocation, startRename, submitRename } from "./conversations.js";
import { loadCommands, wireComposer } from "./composer.js";
import { clearDrafts, NEW } from "./drafts.js";
import { wireFiles } from "./files.js";
import { $, els, root, scrollToBottom, setSidebarOpen, showAlert, SIDE_BY_SIDE, state, TOUCH, updateJump } from "./page.js";
import { activeReply, stopReply } from "./replies.js";

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
  $("new-conversation").addEventListener("click", newConversation);
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
  els.stop.addEventListener("click", stopReply);
  wireComposer();
  wireFiles();
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
  // Signing out: no draft stays for the next person at this browser. (After the page's own
  // pagehide save, which the form's submit comes before: the box is emptied first.)
  for (const form of document.querySelectorAll(".logout-form")) {
    form.addEventListener("submit", () => {
      els.input.value = "";
      state.draftId = null;
      clearDrafts();
    });
  }
  if (TOUCH) followKeyboard();
}

async function start() {
  wire();
  routeFromLocation();
  // Type at once: on the home page the message box is ready (not on touch screens, where
  // focus would open the keyboard over the welcome).
  if (state.draftId === NEW && !TOUCH) els.input.focus();
  loadCommands();
  try {
    await loadConversations();
  } catch (err) {
    showAlert(err.message);
  }
  root.dataset.ready = "true";
}

if (root) start();
