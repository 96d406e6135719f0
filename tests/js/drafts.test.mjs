// Drafts under Node's test runner, on a stand-in for localStorage.
import assert from "node:assert/strict";
import { test } from "node:test";

import { NEW, clearDrafts, storeDraft, storedDraft } from "../../chat/static/chat/app/drafts.js";

class MemoryStorage {
  constructor(entries = {}) { this.map = new Map(Object.entries(entries)); }
  get length() { return this.map.size; }
  key(index) { return [...this.map.keys()][index] ?? null; }
  getItem(key) { return this.map.has(key) ? this.map.get(key) : null; }
  setItem(key, value) { this.map.set(key, String(value)); }
  removeItem(key) { this.map.delete(key); }
}

test("a draft is kept per conversation and an emptied box forgets it", () => {
  const store = new MemoryStorage();
  storeDraft(12, "meio escrito", store);
  storeDraft(NEW, "primeira mensagem", store);
  assert.equal(storedDraft(12, store), "meio escrito");
  assert.equal(storedDraft(NEW, store), "primeira mensagem");
  storeDraft(12, "", store);
  assert.equal(storedDraft(12, store), "");
  assert.equal(store.getItem("draft:12"), null);
});

test("signing out clears every draft and nothing else", () => {
  const store = new MemoryStorage({ "draft:3": "a", "draft:4": "b", "draft:new": "c", theme: "dark" });
  clearDrafts(store);
  assert.deepEqual([...store.map.keys()], ["theme"]);
});

test("a browser without storage loses drafts quietly", () => {
  const refusing = { getItem() { throw new Error("denied"); }, setItem() { throw new Error("denied"); } };
  storeDraft(1, "texto", refusing);
  assert.equal(storedDraft(1, refusing), "");
  clearDrafts(refusing);
});
