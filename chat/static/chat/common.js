// Shared by the chat and the preferences page: translation fallbacks, the API client,
// DOM helpers and the theme toggle. Exposed as window.LA for the page scripts.
// Safety rule: text from users or the model goes into the page through textContent or
// attribute setters; the only HTML inserted is sanitized markdown (the server's content_html,
// or a streaming reply rendered by chat/app/markdown.js with the server's allowlist).
"use strict";

// Django's /jsi18n/ catalog defines these; without it the English source strings show.
window.gettext = window.gettext || ((text) => text);
window.ngettext = window.ngettext || ((one, many, count) => (count === 1 ? one : many));
window.interpolate = window.interpolate || ((format, values, named) => (named
  ? format.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]))
  : format.replace(/%s/g, () => String(values.shift()))));

window.LA = (() => {
  const gettext = window.gettext;
  const lang = document.documentElement.lang || "pt-BR";
  const app = document.querySelector("[data-api-root]");
  const API = app ? app.dataset.apiRoot : "/api/v1/";
  const LOGIN = app ? app.dataset.loginUrl : "/login/";

  class ApiError extends Error {
    constructor(message, status, network = false) {
      super(message);
      this.status = status;
      this.network = network;
    }
  }

  function csrfToken() {
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) return input.value;
    const cookie = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
    return cookie ? decodeURIComponent(cookie.slice("csrftoken=".length)) : "";
  }

  // Called when the session has ended, before leaving for the sign-in page: true when it
  // kept what the user was writing (the chat saves its message box's draft).
  let beforeSignIn = () => false;

  function signInAgain(next) {
    const kept = beforeSignIn() === true;
    // "expired": the sign-in page says why the user is there, and ("kept") that the text
    // being written is waiting; it never says so of text it could not keep.
    const expired = kept ? "kept" : "1";
    window.location.assign(`${LOGIN}?next=${encodeURIComponent(next || window.location.pathname)}&expired=${expired}`);
  }

  async function sessionEnded() {
    // A 403 is either "not signed in" (session auth answers 403, not 401) or a real refusal.
    try {
      const response = await fetch(`${API}me/`, { credentials: "same-origin", headers: { Accept: "application/json" } });
      return response.status === 401 || response.status === 403;
    } catch (err) {
      return false;
    }
  }

  async function api(path, { method = "GET", body, headers = {} } = {}) {
    const url = /^(https?:)?\//.test(path) ? path : API + path;
    const init = { method, credentials: "same-origin", headers: { Accept: "application/json", ...headers } };
    if (method !== "GET") init.headers["X-CSRFToken"] = csrfToken();
    if (body instanceof FormData) {
      init.body = body; // a file: the browser writes the multipart type and boundary
    } else if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      // Offline is the device's; online, it is our server that did not answer.
      const text = navigator.onLine === false
        ? gettext("No connection. Check your internet.")
        : gettext("The service could not be reached.");
      throw new ApiError(text, 0, true);
    }
    if (response.status === 401 || (response.status === 403 && await sessionEnded())) {
      signInAgain();
      throw new ApiError(gettext("Your session has ended. Please sign in again."), response.status);
    }
    if (response.status === 204) return null;
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new ApiError(errorText(response, data), response.status);
    return data;
  }

  function errorText(response, data) {
    if (response.status === 429) {
      const wait = Number.parseInt(response.headers.get("Retry-After") || "", 10);
      return Number.isFinite(wait)
        ? interpolate(gettext("Too many messages, retry in %s s."), [wait])
        : gettext("Too many messages, retry shortly.");
    }
    if (response.status >= 500) return gettext("Something went wrong on our side. Please try again in a moment.");
    // 4xx details are written for people (and translated by the API). One field's error is
    // shown as that field's message: "content: …" names a field the reader never saw.
    const fields = data && data.errors && typeof data.errors === "object" ? Object.values(data.errors) : [];
    if (fields.length === 1 && Array.isArray(fields[0]) && typeof fields[0][0] === "string") return fields[0][0];
    if (data && typeof data.detail === "string" && data.detail) return data.detail;
    if (data && typeof data === "object") {
      const first = Object.values(data).flat().find((v) => typeof v === "string");
      if (first) return first;
    }
    return gettext("That could not be done. Please try again.");
  }

  function resultsOf(page) {
    return Array.isArray(page) ? page : (page && page.results) || [];
  }

  function el(tag, { className, text, attrs } = {}, children = []) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function button(label, onClick, className = "button small", attrs = {}) {
    const node = el("button", { className, text: label, attrs: { type: "button", ...attrs } });
    node.addEventListener("click", onClick);
    return node;
  }

  function formatSize(bytes) {
    if (!Number.isFinite(bytes)) return "";
    const number = (value, digits) => new Intl.NumberFormat(lang, { maximumFractionDigits: digits }).format(value);
    if (bytes < 1024) return `${number(bytes, 0)} B`;
    return bytes < 1048576 ? `${number(bytes / 1024, 1)} KB` : `${number(bytes / 1048576, 1)} MB`;
  }

  function formatTime(iso) {
    if (!iso) return "";
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? "" : new Intl.DateTimeFormat(lang, { dateStyle: "short", timeStyle: "short" }).format(date);
  }

  async function copyText(text, node) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (err) {
      // No clipboard API (plain http): copy through a selected, off-screen textarea.
      const area = el("textarea", { className: "visually-hidden", attrs: { "aria-hidden": "true" } });
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    if (node) {
      const label = node.textContent;
      node.textContent = gettext("Copied");
      window.setTimeout(() => { node.textContent = label; }, 1500);
    }
  }

  // ---- theme: the stored choice wins, else the system's (the head script applied it before paint)

  function applyTheme(theme) {
    document.documentElement.dataset.theme = theme;
    for (const toggle of document.querySelectorAll("[data-testid=theme-toggle]")) {
      toggle.setAttribute("aria-pressed", String(theme === "dark"));
    }
  }

  function wireTheme() {
    const system = window.matchMedia("(prefers-color-scheme: dark)");
    const stored = () => { try { return localStorage.getItem("theme"); } catch (err) { return null; } };
    applyTheme(stored() || (system.matches ? "dark" : "light"));
    system.addEventListener("change", () => { if (!stored()) applyTheme(system.matches ? "dark" : "light"); });
    for (const toggle of document.querySelectorAll("[data-testid=theme-toggle]")) {
      toggle.addEventListener("click", () => {
        const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
        try { localStorage.setItem("theme", next); } catch (err) { /* private mode: this page only */ }
        applyTheme(next);
      });
    }
  }

  // ---- language switch: the profile's language, then a reload so the pages follow it

  // The signed-in switch saves the language in the profile. The sign-in page's own switch
  // posts its form to /i18n/setlang/ instead: nobody is signed in to PATCH.
  function wireLanguage() {
    const select = document.getElementById("language-switch");
    if (!select) return;
    select.addEventListener("change", async () => {
      try {
        await api("me/", { method: "PATCH", body: { language: select.value } });
        window.location.reload();
      } catch (err) {
        window.alert(err.message);
      }
    });
  }

  wireTheme();
  wireLanguage();

  // The shipped skills' names for people; a skill staff add later shows its own name.
  const SKILL_LABELS = {
    finance: gettext("Finance"),
    health: gettext("Health"),
    relationships: gettext("Relationships"),
    professional: gettext("Work and career"),
    counselor: gettext("Counselor"),
    spiritual: gettext("Spiritual life"),
    general: gettext("General conversation"),
  };

  function skillLabel(name) {
    return Object.hasOwn(SKILL_LABELS, name) ? SKILL_LABELS[name] : name;
  }

  // The titles the extractor gives pasted blocks (documents/extraction.py), stored in
  // English for the model; shown in the reader's language, numbered as stored ("Table 2").
  const DOCUMENT_KINDS = {
    "CSV data": gettext("CSV data"),
    Table: gettext("Table"),
    List: gettext("List"),
    "JSON block": gettext("JSON block"),
    "Quoted transcript": gettext("Quoted transcript"),
    Code: gettext("Code"),
  };

  const DOCUMENT_TITLE = new RegExp(`^(${Object.keys(DOCUMENT_KINDS).join("|")})(?: \\(([\\w+#.-]+)\\))?( \\d+)?$`);

  function documentTitle(title) {
    const match = DOCUMENT_TITLE.exec(title || "");
    if (!match) return title;
    const [, kind, language, number] = match;
    return `${DOCUMENT_KINDS[kind]}${language ? ` (${language})` : ""}${number || ""}`;
  }

  return {
    API, lang, ApiError, api, resultsOf, el, button, formatSize, formatTime, copyText, signInAgain, skillLabel, documentTitle,
    onSignIn: (callback) => { beforeSignIn = callback; },
  };
})();
