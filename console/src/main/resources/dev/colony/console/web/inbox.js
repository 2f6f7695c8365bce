import {
  el, clean, cleanBlock, clear, getJson, topbar, live, timeEl, antHref, antApi, actionButton, canAct, onColony,
  NEED_LABEL, banner, toast,
  toMillis, mergeActions,
} from './common.js';

const $ = (id) => document.getElementById(id);
topbar('inbox');
const cards = new Map(); // key -> element

const keyOf = (it) => [it.ant, it.kind, it.confirmation ? it.confirmation.id : ''].join('\u0000');
const KIND_CLASS = { confirmation: 'c-need', billing: 'c-pause', auth: 'c-pause', budget: 'c-pause', parked: 'c-park', escalated: 'c-need' };

function render(it) {
  const msg = el('div', { class: 'msg', role: 'status' });
  const card = el('article', { class: 'panel inbox-item k-' + clean(it.kind, 20) });
  const buttons = [];
  const group = () => buttons;
  const actions = Array.isArray(it.actions) ? it.actions : [];
  const actionBox = el('div', { class: 'actions' });
  const after = (ans) => { card.classList.add('answered'); toast(ans && ans.message ? ans.message : 'Done'); refresh(); };
  const path = (a) => antApi(it.ant, '/' + encodeURIComponent(a));
  if (actions.includes('approve') || actions.includes('deny')) {
    const note = el('input', { type: 'text', placeholder: 'Note (optional)', 'aria-label': 'Note for the decision', maxlength: '2000' });
    const body = () => {
      const b = {};
      if (it.confirmation && it.confirmation.id !== undefined && it.confirmation.id !== null) b.id = it.confirmation.id;
      if (note.value.trim()) b.note = note.value.trim();
      return b;
    };
    const row = el('div', { class: 'row' });
    if (actions.includes('approve')) row.append(actionButton('Approve', { path: path('approve'), body, cls: 'good', msgEl: msg, group, after }));
    if (actions.includes('deny')) row.append(actionButton('Deny', { path: path('deny'), body, cls: 'danger', msgEl: msg, group, after }));
    buttons.push(...row.querySelectorAll('button'));
    actionBox.append(note, row);
  }
  for (const a of actions) {
    if (a === 'approve' || a === 'deny') continue;
    const label = a === 'resume' ? 'Resume' : clean(a, 30);
    const b = actionButton(label, { path: path(a), body: {}, cls: a === 'resume' ? 'primary' : '', msgEl: msg, group, after });
    buttons.push(b);
    actionBox.append(b);
  }
  actionBox.append(el('a', { href: antHref(it.ant), class: 'small' }, 'Open the ant →'), msg);
  actionBox.classList.add('act-only');

  const conf = it.confirmation;
  let confBox = null;
  if (conf) {
    const deadline = toMillis(conf.deadline);
    confBox = el('dl', { class: 'kv' },
      el('dt', null, 'Tool'), el('dd', { class: 'mono data' }, clean(conf.tool, 200)),
      el('dt', null, 'Call'), el('dd', { class: 'mono data' }, cleanBlock(conf.summary, 4000)),
      conf.reason ? [el('dt', null, 'Why asked'), el('dd', { class: 'data' }, clean(conf.reason, 2000))] : null,
      el('dt', null, 'Session'), el('dd', null, String(conf.session ?? '–')),
      Number.isFinite(deadline) ? [el('dt', null, 'Deadline'), el('dd', null, timeEl(deadline), el('span', { class: 'muted' }, ' (denied when it passes)'))] : null);
  }
  const detail = it.detail && !conf ? el('pre', { class: 'detail data' }, cleanBlock(it.detail, 8000)) : null;
  card.append(
    el('div', { class: 'body' },
      el('div', { class: 'head' },
        el('a', { href: antHref(it.ant), class: 'ant ellipsis data', title: clean(it.ant, 400) }, clean(it.ant, 200)),
        el('span', { class: 'badge ' + (KIND_CLASS[it.kind] || 'c-need') }, clean(NEED_LABEL[it.kind] || it.kind, 60)),
        it.sinceMillis ? el('span', { class: 'muted small' }, 'waiting ', timeEl(it.sinceMillis, 'for')) : el('span', { class: 'muted small' }, 'waiting since before this release (no card yet)')),
      confBox, detail),
    actionBox);
  return card;
}

function show(ans) {
  const items = Array.isArray(ans && ans.items) ? ans.items : [];
  const box = $('items');
  const seen = new Set();
  let prev = null;
  for (const it of items) {
    const k = keyOf(it);
    seen.add(k);
    let card = cards.get(k);
    if (!card) {
      card = render(it);
      cards.set(k, card);
    }
    // keep order (oldest first) without recreating cards (a note being typed survives)
    const want = prev ? prev.nextSibling : box.firstChild;
    if (want !== card) box.insertBefore(card, want);
    prev = card;
  }
  for (const [k, card] of cards) {
    if (!seen.has(k)) { card.remove(); cards.delete(k); }
  }
  // the ants that wait for a human: one of them holding paths blocks those who wait for them
  stuckAnts = new Map(items.map((it) => [String(it.ant), String(it.kind || 'a human')]));
  if (lastMerge) showMerge(lastMerge);
  const n = items.length;
  $('summary').textContent = n ? `${n} thing${n === 1 ? '' : 's'} wait${n === 1 ? 's' : ''} for a human, oldest first` : '';
  const empty = $('empty');
  empty.classList.toggle('hidden', n > 0);
  if (!n) clear(empty, el('p', null, el('strong', null, 'No ant waits for you.')), el('p', null, 'Confirmations, paused and parked ants show up here the moment they need a human.'));
}

let refreshing = null;
async function refresh() {
  if (refreshing) return refreshing;
  refreshing = getJson('/api/inbox').then((ans) => {
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    show(ans);
  }).catch((e) => {
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    banner($('main'), 'Could not load the inbox: ' + e.message);
    $('summary').textContent = '';
  }).finally(() => { refreshing = null; });
  return refreshing;
}

onColony((c) => {
  if (c.role === 'read') {
    document.querySelectorAll('.inbox-item button').forEach((b) => { b.disabled = true; b.title = 'Read-only: sign in with the operator token to answer'; });
    if (!document.querySelector('.readonly-note')) $('summary').after(el('div', { class: 'readonly-note' }, 'Read-only: you can see the inbox but not answer.'));
  }
});

// ---------------------------------------------------------------- tasks In Review and Blocked

const TASK_LABEL = { in_review: 'in review', blocked: 'blocked' };
const taskCards = new Map(); // id -> { v, card }
const taskHref = (id) => '/board#task=' + encodeURIComponent(id);
const taskApi = (id, action) => '/api/tasks/' + encodeURIComponent(id) + '/' + action;

function renderTask(t) {
  const msg = el('div', { class: 'msg', role: 'status' });
  const note = el('input', { type: 'text', placeholder: 'Comment (to re-queue)', 'aria-label': 'Comment on ' + clean(t.id, 100), maxlength: '4000' });
  const buttons = [];
  const group = () => buttons;
  const after = (ans) => { toast(ans && ans.message ? ans.message : 'Done'); refreshTasks(); };
  const row = el('div', { class: 'row' });
  if (t.state === 'in_review') {
    row.append(actionButton('Approve', { path: taskApi(t.id, 'approve'), body: () => (note.value.trim() ? { text: note.value.trim() } : {}), cls: 'good', msgEl: msg, group, after }));
  }
  row.append(actionButton('Re-queue', { path: taskApi(t.id, 'requeue'), body: () => ({ text: note.value.trim() }), msgEl: msg, group, after,
    before: () => {
      if (note.value.trim()) return true;
      msg.className = 'msg err';
      msg.textContent = 'Say what to do differently: a re-queue needs a comment.';
      note.focus();
      return false;
    } }));
  buttons.push(...row.querySelectorAll('button'));
  const worker = t.worker ? el('a', { href: antHref(t.worker), class: 'data' }, clean(t.worker, 80)) : null;
  return el('article', { class: 'panel inbox-item k-task-' + (t.state === 'blocked' ? 'blocked' : 'review'), dataset: { task: t.id } },
    el('div', { class: 'body' },
      el('div', { class: 'head' },
        el('a', { href: taskHref(t.id), class: 'tasktitle ellipsis data', title: clean(t.title, 400) }, clean(t.title, 200)),
        el('span', { class: 'badge ' + (t.state === 'blocked' ? 'c-need' : 'c-pause') }, 'task ' + (TASK_LABEL[t.state] || clean(t.state, 20))),
        el('span', { class: 'muted small' }, 'waiting ', timeEl(t.stateSince, 'for'))),
      el('div', { class: 'small muted' }, el('span', { class: 'mono' }, clean(t.id, 100)),
        worker ? [' · by ', worker] : null, t.assignee ? ' · for ' + clean(t.assignee, 80) : null),
      t.reason ? el('pre', { class: 'detail data' }, cleanBlock(t.reason, 2000)) : null),
    el('div', { class: 'actions' }, note, row, el('a', { href: taskHref(t.id), class: 'small' }, 'Open on the board →'), msg));
}

function showTasks(ans) {
  const list = (Array.isArray(ans && ans.tasks) ? ans.tasks : []).slice().sort((a, b) => a.stateSince - b.stateSince);
  const box = $('taskItems');
  const seen = new Set();
  let prev = null;
  for (const t of list) {
    seen.add(t.id);
    const v = String(t.updatedAt);
    let x = taskCards.get(t.id);
    if (!x || x.v !== v) {
      if (x) x.card.remove();
      x = { v, card: renderTask(t) };
      taskCards.set(t.id, x);
    }
    const want = prev ? prev.nextSibling : box.firstChild;
    if (want !== x.card) box.insertBefore(x.card, want);
    prev = x.card;
  }
  for (const [id, x] of taskCards) if (!seen.has(id)) { x.card.remove(); taskCards.delete(id); }
  $('taskSection').classList.remove('hidden');
  $('taskCount').textContent = list.length ? '(' + list.length + ')' : '';
  $('taskEmpty').classList.toggle('hidden', list.length > 0);
}

let taskTimer = 0;
function refreshTasks() {
  clearTimeout(taskTimer);
  taskTimer = setTimeout(() => {
    getJson('/api/tasks?state=in_review,blocked&limit=500').then(showTasks).catch((e) => {
      if (e.status === 404) return; // a console without a task board
      toast('Could not load the tasks: ' + e.message, true);
    });
  }, 150);
}

// ---------------------------------------------------------------- merge queue items for a human

const MERGE_HUMAN = { NEEDS_HUMAN: ['needs a human', 'c-need'], AWAITING_REVIEW: ['awaiting review', 'c-pause'] };
const mergeCards = new Map(); // repo \0 id -> { v, card }

function renderMerge(repo, it) {
  const [label, cls] = MERGE_HUMAN[it.state];
  const task = it.taskId ? el('a', { href: taskHref(it.taskId), class: 'mono data' }, clean(it.taskId, 100)) : null;
  return el('article', { class: 'panel inbox-item k-merge-' + (it.state === 'NEEDS_HUMAN' ? 'human' : 'review'), dataset: { merge: clean(it.id, 100), repo } },
    el('div', { class: 'body' },
      el('div', { class: 'head' },
        el('a', { href: antHref(it.ant), class: 'ant ellipsis data', title: clean(it.ant, 400) }, clean(it.ant, 200)),
        el('span', { class: 'badge ' + cls }, 'merge ' + label),
        el('span', { class: 'muted small' }, 'waiting ', timeEl(it.updatedAt || it.submittedAt, 'for'))),
      el('div', { class: 'small muted' }, el('span', { class: 'mono data' }, clean(it.id, 100)), ' in ', el('b', { class: 'data' }, repo),
        ' · tries ' + (Number(it.tries) || 0), task ? [' · task ', task] : null),
      it.reason ? el('pre', { class: 'detail data' }, cleanBlock(it.reason, 4000)) : null),
    el('div', { class: 'actions' }, mergeActions(repo, it, () => refreshMerge()),
      el('a', { href: '/merge', class: 'small' }, 'Open the merge queue →')));
}

// ---------------------------------------------------------------- paths a stuck ant holds
// An ant whose work is stuck (its item needs a human or is in rework, the ant itself waits for a
// human, or it is paused: by a human, parked after errors, or by a budget cap) still holds its
// paths: the ants waiting for them are named here, with where to act.

const STUCK_ITEM = { NEEDS_HUMAN: 'needs a human', REWORK: 'is in rework' };
let stuckAnts = new Map(); // ant -> what it waits for (from the inbox's own list)
let lastMerge = null;
const blockCards = new Map(); // repo \0 holder -> { v, card }
// What the holders of waited-for paths are doing: read once when an ant becomes such a holder
// (/api/ants/NAME), then kept by the live stream's rows (no timer). Only holders are kept.
const holderRows = new Map(); // ant -> { paused, pauseReason, state } | null while it is read
const STOP_GIVES_BACK = 'or stop it: a stop gives its claim back.';
const PAUSED_WHY = {
  operator: ['it is paused by a human', 'Resume it, ' + STOP_GIVES_BACK],
  parked: ['it is parked (paused after errors)', 'See why it parked and resume it, ' + STOP_GIVES_BACK],
  budget: ['it is paused by its budget cap', 'Raise its cap or resume it, ' + STOP_GIVES_BACK],
  billing: ['it is paused (billing)', 'Fix its billing and resume it, ' + STOP_GIVES_BACK],
  auth: ['it is paused (auth)', 'Fix its login and resume it, ' + STOP_GIVES_BACK],
};

const rowLite = (r) => ({ paused: !!r.paused, pauseReason: r.pauseReason == null ? null : String(r.pauseReason), state: String(r.state || '') });

/** A row from the live stream: kept when it is a holder's (a pause or a resume redraws the blockers). */
function holderRow(r) {
  const name = r && String(r.name);
  if (!name || !holderRows.has(name)) return;
  const before = JSON.stringify(holderRows.get(name));
  holderRows.set(name, rowLite(r));
  if (lastMerge && before !== JSON.stringify(holderRows.get(name))) showMerge(lastMerge);
}

function readHolder(name) {
  holderRows.set(name, null);
  getJson(antApi(name, '')).then((r) => {
    if (!holderRows.has(name)) return; // no longer a holder
    holderRows.set(name, rowLite(r || {}));
    if (lastMerge) showMerge(lastMerge);
  }).catch(() => { holderRows.delete(name); }); // read again at the queue's next change
}

/** Why a holder's paths stay held, and where to act; null when its work goes on. */
function stuckWhy(holder, item) {
  if (item) return [STUCK_ITEM[item.state] ? 'its item ' + clean(item.id, 100) + ' ' + STUCK_ITEM[item.state] : null,
    'Retry or cancel the item (cancelling frees its paths), or let its ant rework it.'];
  const kind = stuckAnts.get(holder);
  if (kind && PAUSED_WHY[kind]) return PAUSED_WHY[kind];
  if (kind) return ['it waits for a human (' + clean(kind, 60) + ')', 'Answer the ant (resume it), ' + STOP_GIVES_BACK];
  const r = holderRows.get(holder);
  if (r && (r.paused || r.state === 'paused' || r.state === 'parked')) {
    const reason = r.state === 'parked' ? 'parked' : r.pauseReason || 'operator';
    return PAUSED_WHY[reason] || ['it is paused (' + clean(reason, 40) + ')', 'Resume it, ' + STOP_GIVES_BACK];
  }
  return [null, null];
}

function blockers(queues) {
  const out = [];
  const holders = new Set();
  for (const q of queues) {
    const repo = clean(q.repo, 100);
    const byHolder = new Map();
    for (const [waiter, text] of Object.entries(q.waiting || {})) {
      const s = String(text || '');
      const colon = s.indexOf(':');
      if (colon <= 0) continue;
      const holder = s.slice(0, colon).trim();
      const paths = s.slice(colon + 1).trim();
      if (!byHolder.has(holder)) byHolder.set(holder, { waiters: [], paths });
      byHolder.get(holder).waiters.push(waiter);
    }
    for (const [holder, w] of byHolder) {
      holders.add(holder);
      const item = (q.items || []).find((i) => i.ant === holder && STUCK_ITEM[i.state]);
      if (!item && !stuckAnts.has(holder) && !holderRows.has(holder)) readHolder(holder);
      const [why, act] = stuckWhy(holder, item);
      if (why) out.push({ repo, holder, waiters: w.waiters.sort(), paths: w.paths, why, act, item: item || null });
    }
  }
  for (const name of [...holderRows.keys()]) if (!holders.has(name)) holderRows.delete(name);
  return out;
}

function renderBlock(b) {
  return el('article', { class: 'panel inbox-item k-merge-blocked', dataset: { blocker: clean(b.holder, 100), repo: b.repo } },
    el('div', { class: 'body' },
      el('div', { class: 'head' },
        el('a', { href: antHref(b.holder), class: 'ant ellipsis data', title: clean(b.holder, 400) }, clean(b.holder, 200)),
        el('span', { class: 'badge c-park' }, 'holds paths'),
        el('span', { class: 'muted small' }, b.why)),
      el('div', { class: 'small' },
        b.waiters.length + (b.waiters.length === 1 ? ' ant waits' : ' ants wait') + ' for its paths in ',
        el('b', { class: 'data' }, b.repo), ': ', el('span', { class: 'data' }, b.waiters.map((a) => clean(a, 100)).join(', ')),
        ' · ', el('span', { class: 'mono data' }, clean(b.paths, 400))),
      el('div', { class: 'small muted' }, b.act)),
    el('div', { class: 'actions' },
      el('a', { href: antHref(b.holder), class: 'small' }, 'Open the ant →'),
      el('a', { href: '/merge', class: 'small' }, 'Open the merge queue →')));
}

function showBlockers(queues) {
  const list = blockers(queues);
  const box = $('mergeItems');
  const seen = new Set();
  for (const b of list) {
    const k = b.repo + '\u0000' + b.holder;
    seen.add(k);
    const v = JSON.stringify(b);
    let x = blockCards.get(k);
    if (!x || x.v !== v) {
      if (x) x.card.remove();
      x = { v, card: renderBlock(b) };
      blockCards.set(k, x);
    }
    if (x.card.parentNode !== box) box.append(x.card);
  }
  for (const [k, x] of blockCards) if (!seen.has(k)) { x.card.remove(); blockCards.delete(k); }
  return list.length;
}

function showMerge(ans) {
  lastMerge = ans;
  const queues = Array.isArray(ans && ans.queues) ? ans.queues : [];
  const list = [];
  for (const q of queues) for (const it of (q.items || [])) if (MERGE_HUMAN[it.state]) list.push([clean(q.repo, 100), it]);
  list.sort((a, b) => (a[1].updatedAt || 0) - (b[1].updatedAt || 0));
  const box = $('mergeItems');
  const seen = new Set();
  let prev = null;
  for (const [repo, it] of list) {
    const k = repo + '\u0000' + it.id;
    seen.add(k);
    const v = JSON.stringify(it);
    let x = mergeCards.get(k);
    if (!x || x.v !== v) {
      if (x) x.card.remove();
      x = { v, card: renderMerge(repo, it) };
      mergeCards.set(k, x);
    }
    const want = prev ? prev.nextSibling : box.firstChild;
    if (want !== x.card) box.insertBefore(x.card, want);
    prev = x.card;
  }
  for (const [k, x] of mergeCards) if (!seen.has(k)) { x.card.remove(); mergeCards.delete(k); }
  const blocked = showBlockers(queues); // after the items: they stay first
  // A colony without a merge queue has no such section.
  $('mergeSection').classList.toggle('hidden', queues.length === 0);
  const n = list.length + blocked;
  $('mergeCount').textContent = n ? '(' + n + ')' : '';
  $('mergeEmpty').classList.toggle('hidden', n > 0);
}

function refreshMerge() {
  return getJson('/api/merge').then(showMerge).catch((e) => {
    if (e.status === 404) return;
    toast('Could not load the merge queues: ' + e.message, true);
  });
}

// One stream: the ants that need a human, the tasks, the merge queues' cards (pushed when one changes),
// and the ants' rows (a holder's pause or resume).
live('/api/events?tasks=1&merge=1', {
  inbox: show, task: refreshTasks, tasks: refreshTasks, merge: showMerge, ant: holderRow,
  open(again) { if (again) { holderRows.clear(); refresh(); refreshTasks(); refreshMerge(); } },
});
refresh();
refreshTasks();
refreshMerge();
