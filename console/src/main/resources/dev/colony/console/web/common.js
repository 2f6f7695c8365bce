// Colony console: shared helpers for every page. Everything an ant or a human wrote goes into the
// DOM through text nodes only (el() / clean()); never innerHTML.

const ANSI = /\u001b\[[0-9;?]*[ -\/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]/g;
// C0 controls except tab/newline, DEL, C1, bidi embeddings/overrides/isolates, zero-width marks.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Text made safe to show: terminal escapes and control characters removed, bounded length. */
export function clean(value, max = 4000, keepNewlines = false) {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'string' ? value : String(value);
  if (s.length > max * 4) s = s.slice(0, max * 4);
  s = s.replace(ANSI, '').replace(CONTROLS, '');
  if (!keepNewlines) s = s.replace(/[\r\n\t]+/g, ' ');
  if (s.length > max) s = s.slice(0, max) + '…';
  return s;
}

/** Multi-line text (session output, details): keeps newlines. */
export function cleanBlock(value, max = 20000) {
  return clean(value, max, true);
}

/**
 * Builds an element. props: class, title, href (a path built here), text, and any attribute;
 * on: {event: fn}; dataset: {...}. Children: nodes, strings (made text), arrays, null (skipped).
 */
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = clean(v);
      else if (k === 'title') e.title = clean(v, 4000, true);
      else if (k === 'on') for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
      else if (k === 'dataset') Object.assign(e.dataset, v);
      else if (k === 'href') e.setAttribute('href', safeHref(v));
      else if (k === 'disabled' || k === 'checked' || k === 'open') e[k] = !!v;
      else if (k === 'value') e.value = v;
      else e.setAttribute(k, String(v));
    }
  }
  append(e, children);
  return e;
}

function append(parent, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else if (c instanceof Node) parent.appendChild(c);
    else parent.appendChild(document.createTextNode(clean(c, 200000, true)));
  }
}

/** Only same-origin paths and http(s) URLs; anything else (javascript:, data:) becomes "#". */
export function safeHref(v) {
  const s = String(v);
  if (s.startsWith('/') && !s.startsWith('//')) return s;
  try {
    const u = new URL(s);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
  } catch (e) { /* not a URL */ }
  return '#';
}

export function clear(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export const antHref = (name) => '/ants/' + encodeURIComponent(name);
export const antApi = (name, rest = '') => '/api/ants/' + encodeURIComponent(name) + rest;

/** Text with an ellipsis when too long; the whole (cleaned) text on hover. */
export function ell(text, cls = '', max = 300) {
  const full = clean(text, 4000);
  return el('span', { class: ('ellipsis data ' + cls).trim(), title: full.length > 0 ? full : null }, clean(text, max));
}

// ---------------------------------------------------------------- HTTP

export class HttpError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function toLogin() {
  const here = location.pathname + location.search;
  location.href = '/login?next=' + encodeURIComponent(here);
}

async function handle(res) {
  let body = null;
  const type = res.headers.get('Content-Type') || '';
  if (type.includes('json')) {
    try { body = await res.json(); } catch (e) { body = null; }
  }
  if (res.status === 401) {
    toLogin();
    throw new HttpError(401, 'Not signed in');
  }
  if (!res.ok) {
    const msg = body && typeof body.error === 'string' ? body.error : `${res.status} ${res.statusText || 'error'}`;
    throw new HttpError(res.status, msg);
  }
  return body;
}

export async function getJson(path) {
  let res;
  try {
    res = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  } catch (e) {
    throw new HttpError(0, 'The console did not answer (network error)');
  }
  return handle(res);
}

export async function postJson(path, body) {
  let res;
  try {
    res = await fetch(path, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body || {}),
    });
  } catch (e) {
    throw new HttpError(0, 'The console did not answer (network error)');
  }
  return handle(res);
}

/**
 * Wires a button to a POST: disables it (and `group` buttons) while in flight, shows the answer's
 * message or error in `msgEl`. `body` may be a function called at click time. Returns the button.
 */
export function actionButton(label, { path, body, cls = '', msgEl, group, before, after, title }) {
  const b = el('button', { type: 'button', class: cls, title });
  b.textContent = label;
  b.addEventListener('click', async () => {
    if (before && before() === false) return;
    const buttons = group ? group() : [b];
    buttons.forEach((x) => { x.disabled = true; });
    b.classList.add('busy');
    if (msgEl) { msgEl.className = 'msg muted'; msgEl.textContent = label + '…'; }
    try {
      const ans = await postJson(typeof path === 'function' ? path() : path, typeof body === 'function' ? body() : body);
      if (msgEl) {
        msgEl.className = 'msg ok';
        msgEl.textContent = clean(ans && ans.message ? ans.message : 'Done', 600);
      }
      if (after) after(ans);
    } catch (e) {
      if (msgEl) { msgEl.className = 'msg err'; msgEl.textContent = clean(e.message, 600); }
    } finally {
      b.classList.remove('busy');
      buttons.forEach((x) => { if (x.isConnected || x === b) x.disabled = !canAct(); });
    }
  });
  if (!canAct()) b.disabled = true;
  return b;
}

// ---------------------------------------------------------------- time

const exact = new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short',
});

export function exactTime(ms) {
  return exact.format(new Date(ms));
}

/** "12 min ago" / "in 3 min" / "just now". */
export function relative(ms, now = Date.now()) {
  const d = ms - now;
  const a = Math.abs(d);
  let s;
  if (a < 45e3) return d > 0 ? 'in a few s' : 'just now';
  if (a < 90 * 60e3) s = Math.round(a / 60e3) + ' min';
  else if (a < 36 * 3600e3) s = Math.round(a / 3600e3) + ' h';
  else if (a < 60 * 86400e3) s = Math.round(a / 86400e3) + ' d';
  else s = Math.round(a / (30 * 86400e3)) + ' mo';
  return d > 0 ? 'in ' + s : s + ' ago';
}

/** Compact duration: "4 min", "2 h 5 min", "35 s". */
export function duration(ms) {
  if (!(ms >= 0)) return '–';
  const s = Math.round(ms / 1000);
  if (s < 60) return s + ' s';
  const m = Math.floor(s / 60);
  if (m < 60) return m + ' min' + (s % 60 && m < 3 ? ' ' + (s % 60) + ' s' : '');
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h' + (m % 60 ? ' ' + (m % 60) + ' min' : '');
  return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
}

/** Epoch millis from a number or an ISO string (PendingConfirmation.deadline is ISO); NaN when neither. */
export function toMillis(v) {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return typeof v === 'string' ? Date.parse(v) : NaN;
}

/** A time element kept fresh: relative text, exact local time on hover. mode: 'rel' | 'for' (time since, no "ago"). */
export function timeEl(ms, mode = 'rel') {
  if (ms === null || ms === undefined || !Number.isFinite(Number(ms))) return el('span', { class: 'muted' }, '–');
  const t = el('time', { class: 'reltime nowrap', datetime: new Date(Number(ms)).toISOString(), dataset: { t: String(ms), mode } });
  refreshTime(t);
  return t;
}

function refreshTime(t) {
  const ms = Number(t.dataset.t);
  t.textContent = t.dataset.mode === 'for' ? duration(Date.now() - ms) : relative(ms);
  t.title = exactTime(ms);
}

setInterval(() => document.querySelectorAll('time.reltime').forEach(refreshTime), 5000);

// ---------------------------------------------------------------- money

export function usd(v, digits) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return '–';
  const n = Number(v);
  const d = digits ?? (Math.abs(n) >= 100 ? 0 : 2);
  return '$' + n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** "$1.20 of $5.00" with a small bar; just the amount when there is no budget. */
export function budgetBar(spent, budget, label = '') {
  const wrap = el('div', { class: 'budget' });
  const b = Number(budget);
  if (budget === null || budget === undefined || !(b > 0)) {
    wrap.append(el('div', { class: 'barline' }, usd(spent), el('span', { class: 'muted' }, label ? ` ${label} · no cap` : ' · no cap')));
    return wrap;
  }
  const frac = Number(spent || 0) / b;
  const pct = Math.round(frac * 100);
  wrap.append(el('div', { class: 'barline', title: `${usd(spent)} of ${usd(b)} ${label} (${pct}%)` },
    usd(spent), el('span', { class: 'muted' }, ` of ${usd(b)}${label ? ' ' + label : ''}`)));
  const fill = el('span');
  fill.style.width = Math.min(100, Math.max(0, frac * 100)).toFixed(1) + '%';
  wrap.append(el('div', { class: 'bar' + (frac >= 1 ? ' over' : frac >= 0.8 ? ' warn' : ''), role: 'img', 'aria-label': `${pct}% of budget` }, fill));
  return wrap;
}

// ---------------------------------------------------------------- states

const WORKING = new Set(['building_prompt', 'spawning', 'running', 'interrupting', 'session_complete']);
const WAITING = new Set(['initializing', 'cooling_down', 'waiting']);

/** The filter bucket of a row: needYou | working | waiting | paused | parked | stopped. */
export function bucket(row) {
  if (!row) return 'waiting';
  if (row.needsHuman) return 'needYou';
  const st = String(row.state || (row.card && row.card.state) || '').toLowerCase();
  if (st === 'parked') return 'parked';
  if (st === 'paused' || row.paused) return 'paused';
  if (WORKING.has(st)) return 'working';
  if (st === 'stopped') return 'stopped';
  return 'waiting';
}

export const BUCKET_CLASS = { needYou: 'c-need', working: 'c-work', waiting: 'c-wait', paused: 'c-pause', parked: 'c-park', stopped: 'c-stop' };

/** A state badge: colour and text ("running", "paused · billing"). */
export function stateBadge(row) {
  const st = String(row.state || (row.card && row.card.state) || 'unknown').toLowerCase();
  let label = st.replace(/_/g, ' ');
  if ((st === 'paused' || row.paused) && row.pauseReason) label = (st === 'paused' ? 'paused' : label + ', paused') + ' · ' + row.pauseReason;
  const b = bucket({ ...row, needsHuman: false });
  return el('span', { class: 'badge ' + BUCKET_CLASS[b], title: 'state: ' + label }, clean(label, 60));
}

const OUTCOME_CLASS = { success: 'c-ok', transient: 'c-pause', rate_limit: 'c-pause', aborted: 'c-wait', interrupted: 'c-wait' };
export function outcomeBadge(outcome) {
  if (!outcome) return el('span', { class: 'muted' }, '–');
  const o = String(outcome).toLowerCase();
  return el('span', { class: 'badge ' + (OUTCOME_CLASS[o] || 'c-need') }, clean(o.replace(/_/g, ' '), 40));
}

export const NEED_SHORT = {
  confirmation: 'confirmation', billing: 'billing', auth: 'auth', budget: 'budget cap', parked: 'parked', escalated: 'escalated',
  sandbox: 'no sandbox',
};

export const NEED_LABEL = {
  confirmation: 'confirmation waiting', billing: 'billing problem', auth: 'auth problem',
  budget: 'budget cap reached', parked: 'parked by errors', escalated: 'escalated by overseer',
  sandbox: 'its sandbox could not be made',
};

// An ant whose sessions run without walls (sandbox: off), or with the host's network: shown wherever the ant is.
export function sandboxBadge(card) {
  const s = card && card.sandbox;
  if (s === 'off') {
    return el('span', { class: 'badge c-need sandbox-off', title: 'sandbox: off: its sessions run with the worker\'s powers (secrets, Temporal, every file)' }, 'no sandbox');
  }
  if (s === 'on, network open') {
    return el('span', { class: 'badge c-park sandbox-open', title: 'sandbox on, network: open: its sessions reach any host' }, 'network open');
  }
  return null;
}

// ---------------------------------------------------------------- top bar, colony, live

let colony = null;
const colonyListeners = [];

export function canAct() {
  return !colony || colony.role !== 'read';
}

export function onColony(fn) {
  colonyListeners.push(fn);
  if (colony) fn(colony);
}

const PILLS = [
  ['needYou', 'need you', 'c-need'], ['working', 'working', 'c-work'], ['waiting', 'waiting', 'c-wait'],
  ['paused', 'paused', 'c-pause'], ['parked', 'parked', 'c-park'],
];

const topEls = {};

/** Draws the top bar into <header id="top">; `active` is one of overview|inbox|board|merge|costs|supervision. */
export function topbar(active) {
  const header = document.getElementById('top');
  header.className = 'topbar';
  topEls.name = el('span', { class: 'colony-name data' }, 'Colony');
  topEls.pills = el('div', { class: 'pills', 'aria-label': 'ant counts' });
  topEls.inboxCount = el('span', { class: 'navcount hidden' }, '0');
  topEls.live = el('span', { class: 'live', role: 'status', title: 'Live updates' }, 'connecting…');
  topEls.who = el('span', { class: 'data' });
  const link = (href, key, ...label) => el('a', { href, class: active === key ? 'active' : null, 'aria-current': active === key ? 'page' : null }, ...label);
  header.replaceChildren(el('div', { class: 'topbar-inner' },
    el('a', { class: 'brand', href: '/' }, el('span', { class: 'logo', 'aria-hidden': 'true' }, '⬢'), topEls.name),
    el('nav', { 'aria-label': 'Console' },
      link('/', 'overview', 'Overview'), link('/inbox', 'inbox', 'Inbox', topEls.inboxCount), link('/board', 'board', 'Board'), link('/merge', 'merge', 'Merge'),
      link('/costs', 'costs', 'Costs'), link('/supervision', 'supervision', 'Supervision')),
    topEls.pills, el('span', { class: 'spacer' }),
    el('span', { class: 'who' }, topEls.who, topEls.live)));
  getJson('/api/colony').then(setColony).catch((e) => {
    topEls.name.textContent = 'Colony';
    topEls.live.textContent = clean(e.message, 80);
  });
}

export function setColony(c) {
  if (!c || typeof c !== 'object') return;
  colony = c;
  if (topEls.name) {
    topEls.name.textContent = clean(c.colony || 'Colony', 80);
    topEls.name.title = clean(c.colony, 400);
    document.title = document.title.replace(/ — .*$/, '') + ' — ' + clean(c.colony || 'Colony', 60);
    const counts = c.counts || {};
    topEls.pills.replaceChildren(...PILLS.map(([k, label, cls]) => el('a', {
      class: 'pill ' + cls + (Number(counts[k] || 0) === 0 ? ' zero' : ''), href: '/?filter=' + k,
      title: `${counts[k] ?? 0} ${label} — show them`,
    }, el('b', null, String(counts[k] ?? 0)), ' ' + label)));
    const n = Number(counts.needYou || 0);
    topEls.inboxCount.textContent = String(n);
    topEls.inboxCount.classList.toggle('hidden', n === 0);
    topEls.inboxCount.classList.toggle('hot', n > 0);
    topEls.who.textContent = (c.role === 'read' ? 'read-only' : 'operator') + (c.operator ? ' · ' + clean(c.operator, 40) : '');
  }
  document.body.classList.toggle('role-read', c.role === 'read');
  colonyListeners.forEach((fn) => fn(c));
}

export function setInboxCount(n) {
  if (!topEls.inboxCount) return;
  topEls.inboxCount.textContent = String(n);
  topEls.inboxCount.classList.toggle('hidden', n === 0);
  topEls.inboxCount.classList.toggle('hot', n > 0);
}

/**
 * One EventSource per page: the console's one live stream. handlers: {ant(row) (a burst of changed ants comes as
 * `ants` events of many rows, each given to ant), turns(t), inbox(i), task(card) and tasks({changed}) (with ?tasks=1:
 * one task changed; many did, read them again), merge(queues) (with ?merge=1: GET /api/merge's answer, when a
 * queue's card changed), colony(c) (the top bar is updated anyway),
 * open(reconnected)}: open(true) after a lost connection came back, so the page can reload what it missed.
 * EventSource retries by itself after a network error, but gives up for good on an HTTP error (401, 502):
 * then this opens a new one after a pause (and a 401 sends the user to the login page).
 */
export function live(url, handlers = {}) {
  let es = null;
  let opened = false;
  let lost = false;
  let delay = 2000;
  let timer = 0;
  const setLive = (on) => {
    if (!topEls.live) return;
    topEls.live.className = 'live ' + (on ? 'on' : 'off');
    topEls.live.textContent = on ? 'live' : 'reconnecting…';
    topEls.live.title = on ? 'Live updates: connected' : 'Live updates: connection lost, retrying';
  };
  const parse = (ev) => { try { return JSON.parse(ev.data); } catch (e) { return null; } };
  const connect = () => {
    timer = 0;
    es = new EventSource(url);
    es.addEventListener('open', () => {
      setLive(true);
      delay = 2000;
      const again = opened && lost;
      opened = true;
      lost = false;
      if (handlers.open) handlers.open(again);
    });
    es.addEventListener('error', () => {
      setLive(false);
      lost = true;
      if (es.readyState === EventSource.CLOSED && !timer) {
        es.close();
        getJson('/api/colony').then(setColony).catch(() => {}); // a 401 goes to the login page
        timer = setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      }
    });
    es.addEventListener('colony', (ev) => { const d = parse(ev); if (d) { setColony(d); if (handlers.colony) handlers.colony(d); } });
    es.addEventListener('ants', (ev) => {
      const d = parse(ev);
      if (d && Array.isArray(d.rows) && handlers.ant) {
        for (const row of d.rows) {
          try { handlers.ant(row); } catch (e) { console.error('live ant', e); }
        }
      }
    });
    for (const kind of ['ant', 'turns', 'inbox', 'task', 'tasks', 'merge']) {
      es.addEventListener(kind, (ev) => {
        const d = parse(ev);
        if (d && handlers[kind]) {
          try { handlers[kind](d); } catch (e) { console.error('live ' + kind, e); }
        }
      });
    }
  };
  connect();
  window.addEventListener('pagehide', () => { if (es) es.close(); clearTimeout(timer); });
  return { close: () => { if (es) es.close(); clearTimeout(timer); } };
}

/** A red banner at the top of main, for a failed load. */
export function banner(container, message) {
  const b = el('div', { class: 'error-banner', role: 'alert' }, clean(message, 600));
  container.prepend(b);
  return b;
}

/** A short message at the bottom of the screen (e.g. "approve sent" after its item vanished). */
export function toast(text, isError = false) {
  let box = document.getElementById('toasts');
  if (!box) {
    box = el('div', { id: 'toasts', class: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(box);
  }
  const t = el('div', { class: 'toast' + (isError ? ' err' : '') }, clean(text, 300));
  box.append(t);
  setTimeout(() => t.remove(), 5000);
}

// ---------------------------------------------------------------- merge queue items

/** What a human may do with a merge queue's item in each state (the queue's validator has the last word). */
export const MERGE_ACTIONS = {
  AWAITING_REVIEW: ['approve', 'cancel'],
  NEEDS_HUMAN: ['retry', 'cancel'],
  REWORK: ['retry', 'cancel'],
  QUEUED: ['cancel'],
};

/** Approve / Retry / Cancel for one item; Cancel asks first, in place. */
export function mergeActions(repo, it, after) {
  const acts = MERGE_ACTIONS[it.state] || [];
  const box = el('div', { class: 'mactions act-only' });
  if (!acts.length) return it.state === 'LANDING' ? el('div', { class: 'mactions muted small' }, 'landing now') : null;
  const msg = el('div', { class: 'msg', role: 'status' });
  const buttons = [];
  const send = async (action, b) => {
    buttons.forEach((x) => { x.disabled = true; });
    b.classList.add('busy');
    msg.className = 'msg muted';
    msg.textContent = action + '…';
    try {
      // Approve covers what the page showed: the item's last named head (a later one waits for its own).
      const heads = (it.parts || []).map((p) => p && p.head).filter((h) => typeof h === 'string' && /^[0-9a-fA-F]{7,64}$/.test(h));
      const body = action === 'approve' && heads.length ? { item: it.id, action, head: heads[heads.length - 1] } : { item: it.id, action };
      const ans = await postJson('/api/merge/' + encodeURIComponent(repo) + '/decide', body);
      msg.className = 'msg ok';
      msg.textContent = clean(ans && ans.message ? ans.message : 'Done', 600);
      toast(ans && ans.message ? ans.message : action + ' sent');
      if (after) after(ans);
    } catch (e) {
      msg.className = 'msg err';
      msg.textContent = clean(e.message, 600);
    } finally {
      b.classList.remove('busy');
      buttons.forEach((x) => { x.disabled = !canAct(); });
    }
  };
  const button = (label, action, cls) => {
    const b = el('button', { type: 'button', class: cls, 'aria-label': label + ' ' + clean(it.id, 80), disabled: !canAct() }, label);
    b.addEventListener('click', () => send(action, b));
    buttons.push(b);
    return b;
  };
  const row = el('div', { class: 'row' });
  if (acts.includes('approve')) row.append(button('Approve', 'approve', 'good'));
  if (acts.includes('retry')) row.append(button('Retry', 'retry', 'primary'));
  if (acts.includes('cancel')) {
    const ask = el('div', { class: 'confirm hidden', role: 'group', 'aria-label': 'Confirm the cancel' });
    const cancel = el('button', { type: 'button', class: 'danger', 'aria-label': 'Cancel ' + clean(it.id, 80), disabled: !canAct() }, 'Cancel');
    const yes = button('Yes, cancel it', 'cancel', 'danger');
    const keep = el('button', { type: 'button' }, 'Keep it');
    cancel.addEventListener('click', () => { ask.classList.remove('hidden'); cancel.classList.add('hidden'); keep.focus(); });
    keep.addEventListener('click', () => { ask.classList.add('hidden'); cancel.classList.remove('hidden'); cancel.focus(); });
    clear(ask, el('span', { class: 'small' }, 'Take ', el('b', { class: 'data' }, clean(it.id, 80)), ' out of the queue? Its commits stay on its branch.'), yes, keep);
    buttons.push(cancel);
    row.append(cancel);
    box.append(row, ask, msg);
    return box;
  }
  box.append(row, msg);
  return box;
}

