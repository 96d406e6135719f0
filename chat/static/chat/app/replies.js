// The replies being written in the open conversation: each followed by follower.js, its
// progress shown in the thread, Stop / Esc and Retry.

import { refreshActions } from "./actions.js";
import { refreshConversation } from "./conversations.js";
import { updateComposer } from "./composer.js";
import { followReply, isSettled } from "./follower.js";
import { failureText, setProgress, setStatus, showStreamingText, upsertMessage } from "./messages.js";
import {
  announce, api, API, clearAlert, els, focusMessage, gettext, interpolate, isNearBottom, scrollToBottom, shorten, showAlert, state,
} from "./page.js";

function progressText(progress) {
  if (!progress) return null;
  if (progress.kind === "tool") return progress.label || gettext("Working on it…"); // the server's words, in the reply's language
  return progress.kind === "waiting" ? gettext("Waiting for the assistant…") : gettext("Thinking…");
}

export function watchIfUnsettled(message) {
  if (message.role === "assistant" && !isSettled(message)) watchReply(message.id);
}

export function watchReply(id) {
  if (state.followers.has(id)) return;
  const follower = followReply({
    eventsUrl: `${API}messages/${id}/events/`,
    getMessage: () => api(`messages/${id}/`),
    cancel: () => api(`messages/${id}/cancel/`, { method: "POST" }),
    EventSource: window.EventSource || null,
    onText: (text) => showStreamingText(id, text),
    onProgress: (progress) => setProgress(id, progressText(progress)),
    onStatus: (status) => setStatus(id, status),
    onEnd: (message, { late }) => {
      if (late) {
        upsertMessage(message); // Stop already ended it: only the final text is new
        return;
      }
      state.followers.delete(id);
      replyEnded(message);
    },
    onGone: () => {
      state.followers.delete(id);
      updateStop();
    },
  });
  state.followers.set(id, follower);
  updateStop(); // once the reply counts as followed: Stop acts on it
}

// Another conversation opens: its replies are no longer this page's to show.
export function stopWatching() {
  for (const follower of state.followers.values()) follower.close();
  state.followers.clear();
  updateStop();
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
export function activeReply() {
  const ids = [...state.followers.keys()];
  return ids.length ? ids[ids.length - 1] : null;
}

function updateStop() {
  const hidden = activeReply() === null;
  if (els.stop.hidden === hidden) return;
  els.stop.hidden = hidden;
  updateComposer(); // Stop takes width from the message box: its height follows the text
}

export async function stopReply() {
  const id = activeReply();
  if (id === null) return;
  // Stop hides itself as the reply ends: the keyboard carries on from the message box.
  if (document.activeElement === els.stop) els.input.focus();
  try {
    await state.followers.get(id).stop();
    announce(gettext("Stopping the reply."));
  } catch (err) {
    showAlert(err.message);
  }
}

export async function retryReply(id) {
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
