// The message box: whose draft it holds, sending (the home page's first message creates
// its conversation), the slash-command list and the keyboard.

import { startConversation, touchConversation } from "./conversations.js";
import { NEW, storeDraft, storedDraft } from "./drafts.js";
import { acceptSubmission, editing } from "./messages.js";
import { api, clearAlert, el, els, gettext, resultsOf, showAlert, state, TOUCH, $ } from "./page.js";

// The composer belongs to the conversation being opened from the moment it is clicked
// (state.draftId), not once it has loaded: text typed meanwhile is that conversation's
// draft, and the load never overwrites it.
function saveDraft() {
  if (state.draftId !== null) storeDraft(state.draftId, els.input.value);
}

// Hand the composer to conversation ``id`` (drafts.NEW: the home page's). ``carry``: the
// text in the box goes with it (the home page's first message, whose conversation now exists).
export function switchComposer(id, { carry = false } = {}) {
  if (carry) {
    storeDraft(state.draftId, "");
    state.draftId = id;
    saveDraft();
  } else {
    saveDraft();
    if (state.queuedSend !== id) cancelQueuedSend();
    state.draftId = id;
    els.input.value = storedDraft(id);
  }
  updateComposer();
}

// Send pressed while the conversation is still opening: sent once it has loaded (the button
// says "Sending…" meanwhile), not dropped. Opening another, or a failed load, cancels it and
// the text stays in that conversation's box.
function queueSend() {
  state.queuedSend = state.draftId;
  setSending(true);
}

export function cancelQueuedSend() {
  if (state.queuedSend === null) return;
  state.queuedSend = null;
  setSending(false);
}

export function sendIfQueued(id) {
  if (state.queuedSend !== id) return;
  state.queuedSend = null;
  state.sending = false;
  sendMessage();
}

// Keeps what is typed, then: whether the session-ended notice may say so.
window.LA.onSignIn(() => {
  saveDraft();
  // An edit in progress is not kept: then the notice promises nothing, even with a draft.
  if (editing()) return false;
  return Boolean(els.input.value.trim());
});

function setSending(sending) {
  state.sending = sending;
  // Its name only: on a phone the button shows its symbol, the name is for screen readers.
  els.send.querySelector(".wide-label").textContent = sending ? gettext("Sending…") : gettext("Send");
  updateComposer();
}

// Send is off while there is nothing to send (an empty box, or only spaces), and the box
// grows with its text up to the height the stylesheet allows, then scrolls.
export function updateComposer() {
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
  // While another conversation opens, the box is already that one's: not sent to this one.
  const home = state.current === null && state.draftId === NEW;
  const ready = home || (state.current && state.current.id === state.draftId);
  const text = els.input.value;
  if (!text.trim() || state.sending) return;
  if (!ready) {
    if (state.draftId !== null && state.draftId !== NEW) queueSend();
    return;
  }
  clearAlert();
  setSending(true);
  try {
    const conversation = home ? await startConversation() : state.current;
    if (!conversation) return; // the person opened another conversation meanwhile
    const key = idempotencyKeyFor(conversation.id, text);
    state.lastSend = { conversation: conversation.id, text, key };
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
      } else {
        touchConversation(conversation.id);
      }
    } catch (err) {
      saveDraft();
      showAlert(err.network ? `${err.message} ${gettext("Send again when you are ready: the message will not be duplicated.")}` : err.message);
    }
  } catch (err) { // the conversation could not be created: the text stays, as the home page's draft
    saveDraft();
    showAlert(err.message);
  } finally {
    setSending(false);
    if (!TOUCH) els.input.focus();
  }
}

// ---------------------------------------------------------------- slash commands

export async function loadCommands() {
  try {
    state.commands = resultsOf(await api("commands/")).filter((c) => c && c.name);
  } catch (err) {
    state.commands = []; // no command catalogue: typing "/" simply lists nothing
  }
  // The home page's box takes typing from the start: a "/" typed before the list came shows it now.
  if (document.activeElement === els.input) updateCommandList();
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

export function wireComposer() {
  els.composer.addEventListener("submit", (event) => { event.preventDefault(); sendMessage(); });
  els.input.addEventListener("keydown", handleComposerKeys);
  els.input.addEventListener("input", () => {
    updateCommandList();
    saveDraft();
    updateComposer();
  });
  els.input.addEventListener("blur", () => { state.commandMatches = []; renderCommandList(); });
  if (TOUCH) els.hint.textContent = gettext("Enter breaks the line; the Send button sends.");
  window.addEventListener("pagehide", saveDraft);
}
