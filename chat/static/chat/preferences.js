// The preferences page: language and skills (/api/v1/me/, /api/v1/skills/) and what the
// assistant remembers (/api/v1/memory/). Text goes into the page through textContent only.
"use strict";

(() => {
  const root = document.getElementById("preferences");
  if (!root) return;
  const { api, resultsOf, el, button, formatTime, skillLabel: nameOf } = window.LA;
  const gettext = window.gettext;
  const $ = (id) => document.getElementById(id);
  const state = { profile: null, skills: [], memoryNext: null };

  // A skill behind a preference flag is offered under the preference's name.
  const PREFERENCE_LABELS = {
    christian_perspective: gettext("Christian perspective (enables the spiritual skill)"),
  };

  const SAVED_KEY = "preferences-saved";

  function showAlert(text) {
    $("alert").textContent = text;
    $("alert").hidden = false;
  }

  function notify(text) {
    $("alert").hidden = true;
    $("saved").textContent = text;
  }

  function skillLabel(skill) {
    return PREFERENCE_LABELS[skill.requires_preference] || nameOf(skill.name);
  }

  function skillWanted(skill) {
    if (skill.disabled) return false;
    return !skill.requires_preference || Boolean(state.profile.preferences[skill.requires_preference]);
  }

  function renderSkills() {
    $("skill-list").replaceChildren(...state.skills.map((skill) => {
      const id = `skill-${skill.name}`;
      const box = el("input", { attrs: { type: "checkbox", id, "data-testid": "pref-skill", "data-skill": skill.name } });
      box.checked = skillWanted(skill);
      // The general skill answers whatever no other skill covers: it cannot be turned off.
      if (skill.name === "general") box.disabled = true;
      return el("li", { className: "skill" }, [
        box,
        el("label", { attrs: { for: id } }, [
          el("span", { className: "skill-name", text: skillLabel(skill) }),
          el("span", { className: "muted small skill-description", text: skill.description }),
        ]),
      ]);
    }));
  }

  async function loadProfile() {
    const [profile, skills] = await Promise.all([api("me/"), api("skills/")]);
    state.profile = profile;
    state.skills = resultsOf(skills);
    $("pref-language").value = profile.language || ""; // "": not chosen, pages follow the browser
    renderSkills();
    document.querySelector("[data-testid=pref-save]").disabled = false;
  }

  // Unchecking a preference-gated skill turns its preference off; unchecking any other
  // skill lists it in disabled_skills. Checking undoes both.
  function changesFromForm() {
    const preferences = {};
    const disabled = new Set(state.profile.disabled_skills);
    for (const box of document.querySelectorAll("[data-testid=pref-skill]")) {
      const skill = state.skills.find((s) => s.name === box.dataset.skill);
      if (!skill || box.disabled) continue;
      if (box.checked) disabled.delete(skill.name);
      if (skill.requires_preference) preferences[skill.requires_preference] = box.checked;
      else if (!box.checked) disabled.add(skill.name);
    }
    const changes = { preferences, disabled_skills: [...disabled] };
    // Sent only when changed: saving the skills must not pin the language the page guessed.
    const language = $("pref-language").value || null;
    if (language !== (state.profile.language || null)) changes.language = language;
    return changes;
  }

  async function save(event) {
    event.preventDefault();
    if (state.profile === null) return; // not loaded yet (Save is disabled until then)
    const changes = changesFromForm();
    const languageChanged = "language" in changes;
    try {
      state.profile = await api("me/", { method: "PATCH", body: changes });
      if (languageChanged) {
        // The page's own words follow the new language; the notice comes after the reload.
        try { sessionStorage.setItem(SAVED_KEY, "1"); } catch (err) { /* no notice then */ }
        window.location.reload();
        return;
      }
      state.skills = resultsOf(await api("skills/"));
      renderSkills();
      notify(gettext("Preferences saved."));
    } catch (err) {
      showAlert(err.message);
    }
  }

  // ---- memory

  function renderMemoryItem(item) {
    const text = el("p", { className: "memory-content", text: item.content });
    const when = el("p", { className: "muted small", text: formatTime(item.updated_at || item.created_at) });
    const node = el("li", { className: "memory-item", attrs: { "data-testid": "memory-item", "data-id": item.id } }, [text, when]);
    const edit = button(gettext("Edit"), () => startEdit(node, item), "button ghost small", { "data-testid": "memory-edit" });
    const remove = button(gettext("Delete"), () => removeItem(node, item), "button ghost small danger", {
      "data-testid": "memory-delete",
    });
    node.append(el("div", { className: "memory-buttons" }, [edit, remove]));
    return node;
  }

  function startEdit(node, item) {
    const area = el("textarea", { attrs: { rows: "3", maxlength: "1000", "aria-label": gettext("What the assistant remembers") } });
    area.value = item.content;
    const form = el("form", { className: "memory-edit-form" }, [
      area,
      el("div", { className: "memory-buttons" }, [
        el("button", { className: "button small primary", text: gettext("Save"), attrs: { type: "submit" } }),
        button(gettext("Cancel"), () => showItem(item), "button ghost small"),
      ]),
    ]);
    // The item again, with focus on its Edit button: the form that had it is gone.
    const showItem = (shown) => {
      const fresh = renderMemoryItem(shown);
      form.closest("li").replaceWith(fresh);
      fresh.querySelector("[data-testid=memory-edit]").focus();
    };
    area.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        showItem(item);
      }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        showItem(await api(`memory/${item.id}/`, { method: "PATCH", body: { content: area.value } }));
        notify(gettext("Memory updated."));
      } catch (err) {
        showAlert(err.message);
      }
    });
    node.replaceChildren(form);
    area.focus();
  }

  async function removeItem(node, item) {
    if (!window.confirm(gettext("Delete this memory? The assistant will forget it."))) return;
    try {
      await api(`memory/${item.id}/`, { method: "DELETE" });
      // Focus goes to the next memory's Delete, else the previous one's, else the heading.
      const neighbour = node.nextElementSibling || node.previousElementSibling;
      node.remove();
      const target = neighbour?.querySelector("[data-testid=memory-delete]") || $("memory-heading");
      if (target === $("memory-heading")) target.setAttribute("tabindex", "-1");
      target.focus();
      notify(gettext("Memory deleted."));
    } catch (err) {
      showAlert(err.message);
    }
  }

  async function addMemory(event) {
    event.preventDefault();
    const area = $("memory-new");
    const content = area.value.trim();
    if (!content) {
      $("saved").textContent = ""; // not the last save's "Remembered.": nothing was saved
      showAlert(gettext("Write what the assistant should remember."));
      area.focus();
      return;
    }
    try {
      const item = await api("memory/", { method: "POST", body: { content } });
      $("memory-list").prepend(renderMemoryItem(item)); // newest first, as listed
      area.value = "";
      notify(gettext("Remembered."));
    } catch (err) {
      showAlert(err.message); // the text stays, to try again
    }
    area.focus();
  }

  async function loadMemory(url = "memory/") {
    const page = await api(url);
    $("memory-list").append(...resultsOf(page).map(renderMemoryItem));
    state.memoryNext = page && page.next;
    $("more-memory").hidden = !state.memoryNext;
  }

  async function start() {
    $("preferences-form").addEventListener("submit", save);
    $("memory-add-form").addEventListener("submit", addMemory);
    $("more-memory").addEventListener("click", () => loadMemory(state.memoryNext).catch((err) => showAlert(err.message)));
    try {
      await Promise.all([loadProfile(), loadMemory()]);
    } catch (err) {
      showAlert(err.message);
    }
    try {
      if (sessionStorage.getItem(SAVED_KEY)) {
        sessionStorage.removeItem(SAVED_KEY);
        notify(gettext("Preferences saved."));
      }
    } catch (err) {
      // Storage disabled: the language shown is the confirmation.
    }
    root.dataset.ready = "true";
  }

  start();
})();
