// Following one reply until it ends: Server-Sent Events first (the browser resumes a dropped
// stream by itself with Last-Event-ID; a stream it gave up on is reopened once from the last
// event seen, ``?after=``), polling the message when there is no live log. Free of the page:
// what it learns goes to the callbacks, so it runs (and is tested) under Node as well.
//
// One way to end following: stop() asks the server to stop the reply; close() only stops
// listening (another conversation was opened).

export const FINAL = new Set(["done", "failed", "cancelled"]);

export function isSettled(message) {
  return Boolean(message) && FINAL.has(message.status);
}

const DEFAULTS = {
  pollFirstMs: 500,
  pollMaxMs: 2000,
  // After Stop, how long the stream may still bring the reply's final text.
  stoppedStreamMs: 5000,
  // A stream the browser gave up on (not a reconnect it does by itself) is reopened this often.
  resumes: 1,
};

// ``options``:
//   eventsUrl            the reply's /events/ address
//   getMessage()         the message as GET /messages/{id}/ returns it (rejects with .status)
//   cancel()             POST /messages/{id}/cancel/: the message as it is afterwards
//   EventSource          the constructor, or null to poll only
//   setTimeout, clearTimeout
//   onText(text)         the reply's whole text so far
//   onProgress(progress) null (text is showing), {kind: "thinking" | "waiting"} or {kind: "tool", label, name}
//   onStatus(status)     the reply's status while it runs
//   onEnd(message)       the reply ended (once); with {late: true}, its final text after stop()
//   onGone()             the message no longer exists
export function followReply(options) {
  // The timers called as functions, not as methods of ``o`` (a browser refuses that).
  const timers = { setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms), clearTimeout: (id) => globalThis.clearTimeout(id) };
  const o = { ...DEFAULTS, ...timers, ...options };
  let closed = false;
  let ended = false;
  let source = null;
  let lateSource = null; // after stop(): the stream that may still bring the final text
  let timer = null;
  let text = "";
  let lastEventId = "";
  let resumesLeft = o.resumes;

  const end = (message) => {
    if (ended) return;
    ended = true;
    stopListening();
    o.onEnd(message, { late: false });
  };

  function stopListening() {
    if (timer !== null) o.clearTimeout(timer);
    timer = null;
    if (source) source.close();
    source = null;
  }

  function close() {
    closed = true;
    stopListening();
    if (lateSource) lateSource.close();
    lateSource = null;
  }

  function parse(event) {
    try {
      return JSON.parse(event.data);
    } catch (err) {
      return {};
    }
  }

  function listen() {
    const url = lastEventId ? `${o.eventsUrl}${o.eventsUrl.includes("?") ? "&" : "?"}after=${encodeURIComponent(lastEventId)}` : o.eventsUrl;
    const stream = new o.EventSource(url);
    source = stream;
    const live = (handler) => (event) => {
      if (closed || ended || source !== stream) return;
      if (event.lastEventId) lastEventId = event.lastEventId;
      handler(parse(event), event);
    };
    stream.addEventListener("delta", live((data) => {
      text += data.text || "";
      o.onText(text);
      o.onProgress(null);
    }));
    stream.addEventListener("status", live((data) => {
      if (data.restarted) { // the reply started over
        text = "";
        o.onText(text);
      }
      if (data.status) o.onStatus(data.status);
      if (data.status === "running" && !text) o.onProgress({ kind: "thinking" });
    }));
    stream.addEventListener("tool_started", live((data) => {
      o.onProgress({ kind: "tool", name: data.name || "", label: data.label || "" });
    }));
    stream.addEventListener("tool_finished", live(() => o.onProgress({ kind: "thinking" })));
    for (const type of FINAL) {
      stream.addEventListener(type, (event) => {
        stream.close();
        if (closed) return;
        if (stream === lateSource) {
          lateSource = null;
          o.onEnd(parse(event), { late: true }); // stop() already ended it: only the final text is new
        } else if (stream === source && !ended) {
          end(parse(event));
        }
      });
    }
    stream.addEventListener("error", live((data, event) => {
      // A server "error" event (the live log is down): poll. A connection the browser gave up
      // on: resume from the last event, then poll. While it reconnects by itself, wait.
      const closedByBrowser = stream.readyState === 2; // EventSource.CLOSED
      if (event.data === undefined && !closedByBrowser) return;
      stream.close();
      source = null;
      if (event.data === undefined && resumesLeft > 0) {
        resumesLeft -= 1;
        listen();
      } else {
        poll();
      }
    }));
  }

  function poll() {
    let delay = o.pollFirstMs;
    const tick = async () => {
      timer = null;
      if (closed || ended) return;
      try {
        const message = await o.getMessage();
        if (closed || ended) return;
        if (isSettled(message)) {
          end(message);
          return;
        }
        // What a stream's status and delta events would have shown.
        text = message.content || "";
        o.onStatus(message.status);
        o.onText(text);
        o.onProgress(text ? null : { kind: message.status === "running" ? "thinking" : "waiting" });
      } catch (err) {
        if (err && err.status === 404) {
          close();
          o.onGone();
          return;
        }
      }
      if (closed || ended) return;
      delay = Math.min(delay * 1.6, o.pollMaxMs);
      timer = o.setTimeout(tick, delay);
    };
    timer = o.setTimeout(tick, delay);
  }

  // Stop the reply. Ended at once when the server says it is settled, even when no writer is
  // left to publish the end (its process died); a stream stays open a moment for the final
  // text, which the writer may still publish after this.
  async function stop() {
    if (closed || ended) return null;
    const message = await o.cancel();
    if (closed || ended || !isSettled(message)) return message;
    const stream = source;
    source = null; // left open by end(): its final event, if it comes, is the late text
    end(message);
    if (stream) {
      lateSource = stream;
      timer = o.setTimeout(() => { timer = null; stream.close(); lateSource = null; }, o.stoppedStreamMs);
    }
    return message;
  }

  if (o.EventSource) listen();
  else poll();
  return {
    close,
    stop,
    get ended() { return ended; },
  };
}
