// The connection to the solrace server: one WebSocket at /ws speaking
// MessagePack maps (docs/protocol.md). It says hello with the session token
// kept in localStorage, reconnects by itself with backoff after a drop, keeps
// an estimate of the server clock, and matches replies to requests by `rid`.
import { encode, decode } from "./msgpack.js";

const TOKEN_KEY = "solrace.token";
const NAME_KEY = "solrace.name";
// The close reason of a connection whose account token was revoked (logout_all, password:
// docs/protocol.md §9).
const REVOKED_REASON = "session revoked: log in again";
// The close reasons of a connection over the server's limits of open connections (docs/protocol.md
// §7 MAX_CONN_PER_PLAYER, MAX_CONN_PER_ADDR: server/net/dispatch.py, gateway.py). Connecting again
// at once is refused again until another tab closes: the page waits much longer (HELD_MS), or
// for the player's Retry.
const TOO_MANY_REASONS = {
  "too many connections for this player": "too-many-tabs",
  "too many connections from this address": "too-many-from-address",
};
// The first wait after such a refusal, ms; doubled at each refusal in a row, up to HELD_MAX_MS.
const HELD_MS = 30000;
const HELD_MAX_MS = 300000;
// How long a request waits for its reply, ms, unless it says otherwise. (A test may set
// `globalThis.SOLRACE_REQUEST_TIMEOUT_MS` to make it shorter; nothing else does.)
const REQUEST_TIMEOUT_MS = 10000;
// How long after its timeout a request given `onLate` still takes its reply, ms. A request that
// creates a race or seats the player may well have done so when the reply is slow: its late reply
// still tells the page so (matchmaking.js: the race opens, or a note offers it). Past this, or once
// the connection that carried the request is gone (the reply can only come on it), the reply is
// dropped like any reply to nobody (the race then shows among the lobby's "Your races" once the
// page says hello again: a reload, a reconnection).
export const LATE_REPLY_MS = 60000;

/** An account's token (PLAYER.SECRET: the only tokens with a dot), not a guest's. */
export function isAccountToken(token) {
  return typeof token === "string" && token.includes(".");
}

export function storedName() {
  return localStorage.getItem(NAME_KEY) || "";
}

export class Connection {
  constructor(url) {
    this.url = url || Connection.defaultUrl();
    this.ws = null;
    this.nextRid = 1;
    this.pending = new Map(); // rid -> {resolve, reject, timer}
    this.late = new Map(); // rid -> {onLate, timer}: timed out, its reply still awaited (LATE_REPLY_MS)
    this.listeners = new Map(); // type -> Set(fn); "*" gets everything
    this.status = "offline"; // offline | connecting | online
    this.welcome = null;
    this.offset = 0; // server time - local time, ms
    this.retry = 0;
    this.closedByUs = false;
    this.pingTimer = null;
    this.reconnectTimer = null;
    this.helloToken = null; // the token the last hello carried
    this.lostToken = null; // the last token whose loss was announced (`_session_lost`)
    this.held = 0; // refusals in a row that made the page wait (`hold`), for its backoff
  }

  static defaultUrl() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws`;
  }

  now() {
    return Date.now() + this.offset;
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }

  emit(type, msg) {
    for (const key of [type, "*"]) {
      const set = this.listeners.get(key);
      if (!set) continue;
      for (const fn of [...set]) {
        try {
          fn(msg);
        } catch (e) {
          console.error("listener failed", type, e);
        }
      }
    }
  }

  setStatus(s) {
    if (this.status === s) return;
    this.status = s;
    this.emit("_status", { status: s, retry: this.retry });
  }

  connect() {
    this.closedByUs = false;
    clearTimeout(this.reconnectTimer);
    if (this.ws && this.ws.readyState <= 1) return;
    this.setStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => this.sayHello(true);
    ws.onmessage = (ev) => this.onFrame(ev.data);
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      this.failPending("disconnected");
      this.setStatus("offline");
      this.emit("_closed", { code: ev.code, reason: ev.reason });
      if (ev.code === 1008 && ev.reason === REVOKED_REASON) this.sessionLost(this.helloToken, "revoked");
      const tooMany = ev.code === 1008 ? TOO_MANY_REASONS[ev.reason] : undefined;
      if (tooMany && !this.closedByUs) this.hold(tooMany, Math.min(HELD_MAX_MS, HELD_MS * 2 ** this.held));
      else if (!this.closedByUs) this.scheduleReconnect();
    };
    ws.onerror = () => {};
  }

  /** Close the socket on purpose (tests use it to simulate a drop). */
  drop(reconnect = true) {
    if (!this.ws) return;
    this.closedByUs = !reconnect;
    const ws = this.ws;
    ws.close();
    if (reconnect) {
      // onclose schedules the reconnect
    }
  }

  /** Reconnect at once with a fresh hello (e.g. after a name change). */
  reconnect() {
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      clearInterval(this.pingTimer);
      this.failPending("disconnected");
      try {
        ws.close();
      } catch (e) {}
    }
    this.retry = 0;
    this.connect();
  }

  /**
   * The server is there but refuses this page for now (`why`: "too-many-tabs",
   * "too-many-from-address", "rate-limited", "bad-version"): no quick reconnection loop, which
   * would only be refused again. Emits `_held` {why, delay} for the page to say why; connects
   * again after `delay` ms (null: never by itself; `reconnect()`, the page's Retry, does).
   */
  hold(why, delay) {
    clearTimeout(this.reconnectTimer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null; // its onclose does nothing more
      clearInterval(this.pingTimer);
      this.failPending("disconnected");
      try {
        ws.close();
      } catch (e) {}
    }
    this.setStatus("offline");
    this.held += 1;
    this.emit("_held", { why, delay });
    if (delay !== null) this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  scheduleReconnect() {
    clearTimeout(this.reconnectTimer);
    const delay = Math.min(5000, 300 * 2 ** this.retry) * (0.75 + Math.random() * 0.5);
    this.retry += 1;
    this.emit("_status", { status: "offline", retry: this.retry, delay });
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  sayHello(withToken) {
    const hello = { t: "hello", v: 1 };
    const token = localStorage.getItem(TOKEN_KEY);
    if (withToken && token) hello.token = token;
    this.helloToken = hello.token || null;
    const name = storedName().trim();
    if (name) hello.name = name;
    this.helloSentAt = Date.now();
    this.sendRaw(hello);
  }

  sendRaw(msg) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    if (globalThis.SOLRACE_DEBUG) console.log('OUT', performance.now().toFixed(0), JSON.stringify(msg).slice(0, 200));
    this.ws.send(encode(msg));
    return true;
  }

  onFrame(data) {
    let msg;
    try {
      msg = decode(new Uint8Array(data));
    } catch (e) {
      console.warn("undecodable frame", e);
      return;
    }
    if (!msg || typeof msg !== "object") return;
    const t = msg.t;
    if (globalThis.SOLRACE_DEBUG) console.log('IN', performance.now().toFixed(0), JSON.stringify(msg).slice(0, 200));
    if (this.status !== "online") {
      if (t === "welcome") {
        localStorage.setItem(TOKEN_KEY, msg.token);
        if (msg.name) localStorage.setItem(NAME_KEY, msg.name);
        const rtt = Date.now() - (this.helloSentAt || Date.now());
        if (typeof msg.time === "number") this.offset = msg.time + rtt / 2 - Date.now();
        this.welcome = msg;
        this.retry = 0;
        this.held = 0;
        this.setStatus("online");
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.ping(), 15000);
        this.emit("welcome", msg);
        return;
      }
      if (t === "error" && msg.code === "bad-token") {
        this.sessionLost(this.helloToken, "bad-token");
        this.sayHello(true); // without the refused token: a new guest (or another tab's token)
        return;
      }
      if (t === "error" && msg.code === "bad-message" && msg.field === "name") {
        // A name the server cannot take (invisible or control characters, too long): the player
        // keeps the name they had (a new one gets the server's default), and is told why.
        const refused = storedName().trim();
        localStorage.removeItem(NAME_KEY);
        this.emit("_name_refused", { name: refused, code: msg.code, message: msg.message || "" });
        this.sayHello(true);
        return;
      }
      if (t === "error" && msg.code === "name-taken" && msg.field === "name") {
        // An account's, a bot's or the server's name (docs/protocol.md §2): back to the guest's
        // name before it (never the refused one again: no loop), else the server's default.
        const refused = storedName().trim();
        const kept = this.welcome && !isAccountToken(this.welcome.token) ? this.welcome.name : "";
        if (kept && kept !== refused) localStorage.setItem(NAME_KEY, kept);
        else localStorage.removeItem(NAME_KEY);
        this.emit("_name_refused", { name: refused, code: msg.code, message: msg.message || "" });
        this.sayHello(true);
        return;
      }
      // Refused before any welcome: the server answers nothing more on this connection (it
      // closes it once its HELLO_TIMEOUT is over). Too many new sessions from this address:
      // again once the server's `retry_ms` is over. Another protocol version: only a reload helps.
      if (t === "error" && msg.code === "rate-limited") {
        this.hold("rate-limited", Math.max(1000, msg.retry_ms || 0));
        return;
      }
      if (t === "error" && msg.code === "bad-version") {
        this.hold("bad-version", null);
        return;
      }
    }
    if (msg.rid !== undefined && this.pending.has(msg.rid)) {
      const p = this.pending.get(msg.rid);
      this.pending.delete(msg.rid);
      clearTimeout(p.timer);
      if (t === "error") p.reject(msg);
      else p.resolve(msg);
    } else if (msg.rid !== undefined && this.late.has(msg.rid)) {
      const l = this.late.get(msg.rid);
      this.late.delete(msg.rid);
      clearTimeout(l.timer);
      try {
        l.onLate(msg);
      } catch (e) {
        console.error("late reply handler failed", t, e);
      }
    }
    this.emit(t, msg);
  }

  /**
   * The server no longer knows `token` (expired, revoked: `why` is "bad-token" or "revoked").
   * It is dropped from localStorage unless another tab stored a newer one meanwhile; an
   * account's name goes with it (the next guest gets a name of its own, not the account's).
   * Emits `_session_lost` {account, why} once per token, so the page can tell the player.
   */
  sessionLost(token, why) {
    if (!token) return;
    const account = isAccountToken(token);
    if (localStorage.getItem(TOKEN_KEY) === token) {
      localStorage.removeItem(TOKEN_KEY);
      if (account) localStorage.removeItem(NAME_KEY);
    }
    if (this.lostToken === token) return;
    this.lostToken = token;
    this.emit("_session_lost", { account, why });
  }

  async ping() {
    const sent = Date.now();
    try {
      const pong = await this.request({ t: "ping" }, 5000);
      const rtt = Date.now() - sent;
      if (typeof pong.time === "number") this.offset = pong.time + rtt / 2 - Date.now();
    } catch (e) {
      if (e && e.code === "timeout" && this.ws) this.ws.close();
    }
  }

  /**
   * Send a request; resolves with the reply, rejects with the error map (code "timeout" after
   * `timeoutMs`). With `onLate`, a reply that comes after the timeout, within LATE_REPLY_MS, is
   * handed to `onLate(reply)` (an error map or not: the caller looks at `t`).
   */
  request(msg, timeoutMs = globalThis.SOLRACE_REQUEST_TIMEOUT_MS || REQUEST_TIMEOUT_MS, { onLate = null } = {}) {
    return new Promise((resolve, reject) => {
      if (this.status !== "online") {
        reject({ t: "error", code: "disconnected", message: "not connected" });
        return;
      }
      const rid = this.nextRid++;
      if (this.nextRid > 2 ** 31 - 1) this.nextRid = 1;
      const timer = setTimeout(() => {
        if (!this.pending.delete(rid)) return;
        if (onLate) this.late.set(rid, { onLate, timer: setTimeout(() => this.late.delete(rid), LATE_REPLY_MS) });
        reject({ t: "error", code: "timeout", message: "no reply" });
      }, timeoutMs);
      this.pending.set(rid, { resolve, reject, timer });
      this.sendRaw({ ...msg, rid });
    });
  }

  /** `request`, sent again after `retry_ms` while the reply is the error `busyCode`, until `totalMs` have passed. */
  async requestWhileBusy(msg, busyCode, totalMs) {
    const end = Date.now() + totalMs;
    for (;;) {
      try {
        return await this.request(msg, Math.max(1000, end - Date.now()));
      } catch (e) {
        const wait = (e && e.retry_ms) || 1000;
        if (!e || e.code !== busyCode || Date.now() + wait >= end) throw e;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  failPending(code) {
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject({ t: "error", code, message: code });
    }
    this.pending.clear();
    for (const [, l] of this.late) clearTimeout(l.timer);
    this.late.clear();
  }
}
