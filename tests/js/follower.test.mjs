// The reply follower under Node's test runner (`node --test tests/js/`): a fake EventSource
// and fake timers stand in for the browser, so each path is played step by step.
import assert from "node:assert/strict";
import { test } from "node:test";

import { followReply } from "../../chat/static/chat/app/follower.js";

class FakeSource {
  static opened = [];

  constructor(url) {
    this.url = url;
    this.readyState = 1;
    this.listeners = new Map();
    FakeSource.opened.push(this);
  }

  addEventListener(type, handler) {
    this.listeners.set(type, [...(this.listeners.get(type) || []), handler]);
  }

  close() {
    this.readyState = 2;
  }

  emit(type, data, id = "") {
    const event = { data: data === undefined ? undefined : JSON.stringify(data), lastEventId: id };
    for (const handler of this.listeners.get(type) || []) handler(event);
  }

  dropped() { // the browser gave up on the connection
    this.readyState = 2;
    this.emit("error", undefined);
  }
}

function fakeTimers() {
  const due = [];
  return {
    setTimeout: (fn, ms) => { due.push({ fn, ms }); return due.length; },
    clearTimeout: (id) => { if (due[id - 1]) due[id - 1].fn = null; },
    async runNext() {
      const next = due.find((t) => t.fn);
      assert.ok(next, "a timer is due");
      const { fn } = next;
      next.fn = null;
      await fn();
    },
    pending: () => due.filter((t) => t.fn).length,
  };
}

function follow(overrides = {}) {
  FakeSource.opened = [];
  const seen = { texts: [], progress: [], statuses: [], ends: [], gone: 0 };
  const timers = fakeTimers();
  const handle = followReply({
    eventsUrl: "/api/v1/messages/7/events/",
    getMessage: async () => ({ id: 7, status: "running", content: "" }),
    cancel: async () => ({ id: 7, status: "cancelled", content: "" }),
    EventSource: FakeSource,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    onText: (text) => seen.texts.push(text),
    onProgress: (progress) => seen.progress.push(progress),
    onStatus: (status) => seen.statuses.push(status),
    onEnd: (message, { late }) => seen.ends.push({ status: message.status, content: message.content, late }),
    onGone: () => { seen.gone += 1; },
    ...overrides,
  });
  return { handle, seen, timers, source: () => FakeSource.opened.at(-1) };
}

test("deltas build the reply's text and its final event ends it once", () => {
  const { seen, source } = follow();
  source().emit("status", { status: "running" }, "1");
  source().emit("delta", { text: "Olá" }, "2");
  source().emit("delta", { text: ", Ana" }, "3");
  source().emit("done", { status: "done", content: "Olá, Ana" }, "4");
  source().emit("done", { status: "done", content: "Olá, Ana" }, "4");

  assert.deepEqual(seen.texts, ["Olá", "Olá, Ana"]);
  assert.deepEqual(seen.ends, [{ status: "done", content: "Olá, Ana", late: false }]);
  assert.equal(source().readyState, 2);
});

test("a tool shows the label the server sent, then thinking again", () => {
  const { seen, source } = follow();
  source().emit("tool_started", { name: "create_expense", status: "running", label: "Registrando a despesa…" });
  source().emit("tool_finished", { name: "create_expense", status: "ok" });

  assert.deepEqual(seen.progress, [
    { kind: "tool", name: "create_expense", label: "Registrando a despesa…" },
    { kind: "thinking" },
  ]);
});

test("a reply that starts over clears its text", () => {
  const { seen, source } = follow();
  source().emit("delta", { text: "primeira tentativa" });
  source().emit("status", { status: "running", restarted: true });
  source().emit("delta", { text: "segunda" });

  assert.deepEqual(seen.texts, ["primeira tentativa", "", "segunda"]);
});

test("while the browser reconnects by itself the follower waits", () => {
  const { seen, source, timers } = follow();
  source().readyState = 0; // CONNECTING: the browser resends Last-Event-ID itself
  source().emit("error", undefined);

  assert.equal(FakeSource.opened.length, 1);
  assert.equal(timers.pending(), 0);
  assert.equal(seen.ends.length, 0);
});

test("a stream the browser gave up on resumes after the last event seen, then polling takes over", async () => {
  const { seen, source, timers } = follow({
    getMessage: async () => ({ id: 7, status: "done", content: "Tudo certo" }),
  });
  source().emit("delta", { text: "Tudo" }, "1700000000000-3");
  source().dropped();

  assert.equal(FakeSource.opened.length, 2);
  assert.equal(source().url, "/api/v1/messages/7/events/?after=1700000000000-3");
  source().emit("delta", { text: " certo" }, "1700000000000-4");
  assert.deepEqual(seen.texts, ["Tudo", "Tudo certo"]);

  source().dropped();
  assert.equal(FakeSource.opened.length, 2, "one resume, then the message is polled");
  await timers.runNext();
  assert.deepEqual(seen.ends, [{ status: "done", content: "Tudo certo", late: false }]);
});

test("the server's error event (no live log) switches to polling at once", async () => {
  let calls = 0;
  const { seen, source, timers } = follow({
    getMessage: async () => (++calls < 2 ? { id: 7, status: "running", content: "Meio" } : { id: 7, status: "done", content: "Meio e fim" }),
  });
  source().emit("error", { detail: "unavailable" });

  await timers.runNext();
  assert.deepEqual(seen.texts, ["Meio"]);
  assert.deepEqual(seen.statuses, ["running"]);
  await timers.runNext();
  assert.deepEqual(seen.ends, [{ status: "done", content: "Meio e fim", late: false }]);
  assert.equal(timers.pending(), 0);
});

test("without EventSource the reply is polled, waiting then thinking", async () => {
  const answers = [
    { id: 7, status: "pending", content: "" },
    { id: 7, status: "running", content: "" },
    { id: 7, status: "failed", content: "" },
  ];
  const { seen, timers } = follow({ EventSource: null, getMessage: async () => answers.shift() });

  await timers.runNext();
  await timers.runNext();
  await timers.runNext();
  assert.deepEqual(seen.progress, [{ kind: "waiting" }, { kind: "thinking" }]);
  assert.deepEqual(seen.ends.map((e) => e.status), ["failed"]);
});

test("a reply deleted while polled is given up", async () => {
  const { seen, timers } = follow({
    EventSource: null,
    getMessage: async () => { throw Object.assign(new Error("gone"), { status: 404 }); },
  });

  await timers.runNext();
  assert.equal(seen.gone, 1);
  assert.equal(timers.pending(), 0);
});

test("stop ends the reply at once, and the final text arriving afterwards is still shown", async () => {
  const { handle, seen, source, timers } = follow({
    cancel: async () => ({ id: 7, status: "cancelled", content: "Parcial" }),
  });
  source().emit("delta", { text: "Parcial" });

  await handle.stop();
  assert.deepEqual(seen.ends, [{ status: "cancelled", content: "Parcial", late: false }]);
  source().emit("cancelled", { status: "cancelled", content: "Parcial, fim" });
  assert.deepEqual(seen.ends.at(-1), { status: "cancelled", content: "Parcial, fim", late: true });
  assert.equal(source().readyState, 2);
  assert.ok(handle.ended);
  assert.equal(timers.pending(), 1); // the grace period's timer, harmless now
});

test("stop closes the stream after the grace period when no final text comes", async () => {
  const { handle, source, timers } = follow();

  await handle.stop();
  assert.equal(source().readyState, 1);
  await timers.runNext();
  assert.equal(source().readyState, 2);
});

test("stop of a polled reply cancels the next poll", async () => {
  const { handle, seen, timers } = follow({ EventSource: null });

  await handle.stop();
  assert.equal(timers.pending(), 0);
  assert.deepEqual(seen.ends.map((e) => e.status), ["cancelled"]);
});

test("a stop the server has not settled yet keeps following", async () => {
  const { handle, seen, source } = follow({ cancel: async () => ({ id: 7, status: "running", content: "" }) });

  await handle.stop();
  assert.equal(seen.ends.length, 0);
  source().emit("cancelled", { status: "cancelled", content: "" });
  assert.deepEqual(seen.ends.map((e) => e.status), ["cancelled"]);
});

test("after close nothing more reaches the page", async () => {
  const { handle, seen, source } = follow();
  handle.close();
  source().emit("delta", { text: "tarde demais" });
  source().emit("done", { status: "done", content: "tarde demais" });

  assert.deepEqual(seen.texts, []);
  assert.deepEqual(seen.ends, []);
  assert.equal(await handle.stop(), null);
});
