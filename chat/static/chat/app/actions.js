// Pending action cards: what a reply proposes to do (record an expense, a metric…), shown
// under it with Confirm / Reject until decided here or by typing "sim" / "não".

import { isSettled } from "./follower.js";
import { upsertMessage } from "./messages.js";
import { announce, api, button, clearAlert, el, els, formatTime, gettext, interpolate, resultsOf, showAlert, state } from "./page.js";

export function rememberActions(actions) {
  state.actions.clear();
  for (const action of resultsOf(actions)) state.actions.set(action.id, action);
}

// A reply's actions: those in its JSON, updated by the conversation's action list, which
// also knows about decisions made by typing "sim" / "não" in a later message.
export function actionsOf(message) {
  const byId = new Map((message.pending_actions || []).map((a) => [a.id, a]));
  for (const action of state.actions.values()) if (action.message === message.id) byId.set(action.id, action);
  return [...byId.values()].map((a) => state.actions.get(a.id) || a).sort((a, b) => a.id - b.id);
}

export async function refreshActions() {
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

export function renderPendingActions(message, actions) {
  const list = el("ul", { className: "pending-actions", attrs: { "aria-label": gettext("Actions awaiting your decision") } });
  for (const action of actions) list.append(renderActionCard(message.id, action));
  return list;
}

// "R$ 1.234,56" must not break between the symbol and the number (the server's markdown
// does the same for replies).
function wholeAmounts(text) {
  return text.replace(/(^|[^\w$])((?:R|US)?\$|€|£) (?=\d)/g, "$1$2\u00a0");
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
