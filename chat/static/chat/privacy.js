// The preferences page's privacy sections: consents to sensitive data (/api/v1/me/consents/),
// how long conversations are kept (retention_days of /api/v1/me/) and deleting the account
// (DELETE /api/v1/me/, asked twice). The export is a plain download link.
"use strict";

(() => {
  const root = document.getElementById("privacy");
  if (!root) return;
  const { api, el, button, formatTime } = window.LA;
  const gettext = window.gettext;
  const $ = (id) => document.getElementById(id);

  function showAlert(text) {
    $("alert").textContent = text;
    $("alert").hidden = false;
  }

  function notify(text) {
    $("alert").hidden = true;
    $("saved").textContent = text;
  }

  // ------------------------------------------------------------------------ consents

  function consentState(entry) {
    if (entry.given === null) return gettext("Not asked yet");
    const when = formatTime(entry.answered_at);
    return entry.given
      ? interpolate(gettext("Given on %s"), [when])
      : interpolate(gettext("Not given (answered on %s)"), [when]);
  }

  function renderConsents(entries) {
    $("consent-list").replaceChildren(...entries.map((entry) => {
      const action = entry.given
        ? button(gettext("Revoke"), () => revoke(entry), "button small danger", { "data-testid": "consent-revoke" })
        : button(gettext("Give consent"), () => answer(entry.purpose, true, false), "button small", { "data-testid": "consent-give" });
      return el("li", { className: "consent", attrs: { "data-testid": "consent", "data-purpose": entry.purpose } }, [
        el("h3", { text: entry.title }),
        el("p", { className: "small", text: entry.text }),
        el("p", { className: "muted small", text: consentState(entry) }),
        action,
      ]);
    }));
  }

  async function answer(purpose, given, deleteData) {
    try {
      renderConsents(await api("me/consents/", { method: "POST", body: { purpose, given, delete_data: deleteData } }));
      notify(given ? gettext("Consent given.") : gettext("Consent revoked."));
    } catch (err) {
      showAlert(err.message);
    }
  }

  function revoke(entry) {
    // Revoking offers to delete what was stored under it (health: the metrics).
    const deleteData = entry.purpose === "health"
      && window.confirm(gettext("Also delete the health metrics you stored? Cancel keeps them."));
    answer(entry.purpose, false, deleteData);
  }

  // ----------------------------------------------------------------------- retention

  async function loadRetention() {
    const profile = await api("me/");
    const select = $("retention-days");
    const value = profile.retention_days === null ? "" : String(profile.retention_days);
    if (![...select.options].some((option) => option.value === value)) {
      select.append(el("option", { text: interpolate(gettext("%s days"), [value]), attrs: { value } }));
    }
    select.value = value;
  }

  $("retention-days").addEventListener("change", async (event) => {
    const value = event.target.value;
    try {
      await api("me/", { method: "PATCH", body: { retention_days: value ? Number(value) : null } });
      notify(gettext("Saved."));
    } catch (err) {
      showAlert(err.message);
    }
  });

  // ---------------------------------------------------------------- account deletion

  $("delete-start").addEventListener("click", () => {
    $("delete-form").hidden = false;
    $("delete-start").hidden = true;
    $("delete-password").focus();
  });

  $("delete-cancel").addEventListener("click", () => {
    $("delete-form").hidden = true;
    $("delete-start").hidden = false;
    $("delete-password").value = "";
  });

  $("delete-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    // The second time of asking: the section above said what is lost.
    if (!window.confirm(gettext("Delete your account and all your data for good? This cannot be undone."))) return;
    try {
      await api("me/", { method: "DELETE", body: { password: $("delete-password").value } });
    } catch (err) {
      showAlert(err.message);
      return;
    }
    window.location.assign(`${document.getElementById("preferences").dataset.loginUrl}?deleted=1`);
  });

  Promise.all([api("me/consents/").then(renderConsents), loadRetention()]).catch((err) => showAlert(err.message));
})();
