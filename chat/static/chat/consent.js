// Consent cards in the chat: a reply that went without a skill or tool because the user has
// not consented to the sensitive data it stores lists the requests (consent_requests); the
// answer goes to /api/v1/me/consents/. app.js appends what window.LA.consentCards returns.
"use strict";

(() => {
  const { api, el, button } = window.LA;
  const gettext = window.gettext;
  // Purposes answered on this page: a reply rendered again does not ask again.
  const answered = new Set();

  function consentCards(message) {
    const requests = (message.consent_requests || []).filter((request) => !answered.has(request.purpose));
    if (!requests.length) return null;
    const list = el("ul", { className: "consent-requests", attrs: { "aria-label": gettext("Requests for your consent") } });
    for (const request of requests) list.append(card(request));
    return list;
  }

  function card(request) {
    const status = el("p", { className: "muted small", attrs: { role: "status" } });
    const buttons = el("div", { className: "action-buttons" });
    const item = el("li", {
      className: "pending-action consent-card",
      attrs: { "data-testid": "consent-card", "data-purpose": request.purpose },
    }, [
      el("p", { className: "action-summary", text: request.title }),
      el("p", { className: "consent-text", text: request.text }),
      buttons,
      status,
    ]);

    async function answer(given) {
      for (const node of buttons.querySelectorAll("button")) node.disabled = true;
      try {
        await api("me/consents/", { method: "POST", body: { purpose: request.purpose, given, version: request.version } });
      } catch (err) {
        status.textContent = err.message;
        for (const node of buttons.querySelectorAll("button")) node.disabled = false;
        return;
      }
      answered.add(request.purpose);
      buttons.remove();
      status.textContent = given
        ? gettext("Thank you. Send your message again and the assistant can use it.")
        : gettext("Understood: nothing of this kind will be stored. You can change this in Preferences.");
      for (const other of document.querySelectorAll("[data-testid=consent-card]")) {
        if (other !== item && other.dataset.purpose === request.purpose) other.remove();
      }
    }

    buttons.append(
      button(gettext("I agree"), () => answer(true), "button small primary", { "data-testid": "consent-give" }),
      button(gettext("No, thanks"), () => answer(false), "button small", { "data-testid": "consent-refuse" }),
    );
    return item;
  }

  window.LA.consentCards = consentCards;
})();
