// The unsent text of each conversation (and of the home page's new one) survives a reload
// and an expired session, in localStorage; signing out clears it all, so a shared computer
// never shows the last person's half-written text. Storage full or disabled: the text
// lives only in the page.

export const NEW = "new"; // the home page's composer: the conversation its first message makes
const PREFIX = "draft:";

function storage() {
  try {
    return globalThis.localStorage || null;
  } catch (err) {
    return null; // access refused (storage disabled)
  }
}

export function storeDraft(id, text, store = storage()) {
  try {
    if (text) store.setItem(PREFIX + id, text);
    else store.removeItem(PREFIX + id);
  } catch (err) {
    // Full, disabled or missing: the draft lives only in the page.
  }
}

export function storedDraft(id, store = storage()) {
  try {
    return store.getItem(PREFIX + id) || "";
  } catch (err) {
    return "";
  }
}

// Every draft of this browser: at sign-out.
export function clearDrafts(store = storage()) {
  try {
    const keys = [];
    for (let index = 0; index < store.length; index += 1) {
      const key = store.key(index);
      if (key && key.startsWith(PREFIX)) keys.push(key);
    }
    for (const key of keys) store.removeItem(key);
  } catch (err) {
    // Nothing could be stored either.
  }
}
