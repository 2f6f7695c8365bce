import {
  el, clean, cleanBlock, clear, getJson, topbar, live, timeEl, budgetBar, stateBadge, outcomeBadge, antApi, actionButton,
  canAct, onColony, NEED_LABEL, banner, usd, duration, exactTime, safeHref, toast,
  toMillis, sandboxBadge,
} from './common.js';

const $ = (id) => document.getElementById(id);
let name = '';
try { name = decodeURIComponent(location.pathname.replace(/^\/ants\//, '').replace(/\/+$/, '')); } catch (e) { name = ''; }
topbar('');
document.title = 'Ant ' + clean(name, 60);

let detail = null; // last /api/ants/{name} answer (updated by live rows)
let colony = null;
let currentSession = null;
let lastLedgerKey = '';
let lastRecentKey = '';
let plot = null;

// ------------------------------------------------------------ header

function renderHead() {
  const r = detail;
  const c = r.card || {};
  const facts = [];
  const fact = (label, ...v) => facts.push(el('span', null, label + ' ', el('b', null, ...v)));
  if (c.stateSinceMillis) fact('in this state for', timeEl(c.stateSinceMillis, 'for'));
  if (c.session) fact(c.sessionRunning ? 'running session' : 'last session', String(c.session), c.sessionStartedMillis ? el('span', { class: 'muted' }, ' started ', timeEl(c.sessionStartedMillis)) : null);
  fact('sessions', String(r.sessions ?? 0), r.card ? el('span', { class: 'muted' }, ` (${c.sessionsToday ?? 0} today)`) : null);
  if (r.errors) fact('failed in a row', String(r.errors));
  fact('queue', String(r.queue ?? 0));
  if (r.nextWake) fact('wakes', timeEl(r.nextWake));
  if (r.host) fact('host', el('span', { class: 'data' }, clean(r.host, 120)));
  if (r.engine) fact('engine', el('span', { class: 'data' }, clean(r.engine, 80)));
  if (c.sandbox) fact('sandbox', el('span', { class: 'data' }, clean(c.sandbox, 40)));
  if (r.lastOutcome) fact('last outcome', outcomeBadge(r.lastOutcome));
  const webUi = r.webUiUrl ? el('a', { href: safeHref(r.webUiUrl), target: '_blank', rel: 'noopener noreferrer' }, 'Open in Temporal Web UI ↗') : null;
  clear($('head'),
    el('div', { class: 'anthead' },
      el('h1', { class: 'data', title: clean(r.name, 4000) }, clean(r.name, 300)),
      stateBadge(r),
      sandboxBadge(c),
      r.needsHuman ? el('span', { class: 'badge c-need' }, '⚑ needs you' + (c.needsHuman ? ': ' + clean(NEED_LABEL[c.needsHuman] || c.needsHuman, 40) : '')) : null),
    c.doing ? el('div', { class: 'data doingline' }, clean(c.doing, 400)) : null,
    r.description ? el('div', { class: 'muted small data' }, clean(r.description, 600)) : null,
    el('div', { class: 'facts' }, ...facts),
    r.card ? null : el('div', { class: 'readonly-note' }, 'This ant has not published its card yet (it does so at its next change; an older worker does not): only its search attributes are shown.'),
    !r.card ? null : el('div', { class: 'grid2 budgets' },
      el('div', null, el('div', { class: 'small muted' }, 'Today'), budgetBar(c.costTodayUsd, c.dailyBudgetUsd)),
      el('div', null, el('div', { class: 'small muted' }, 'This month'), budgetBar(c.costMonthUsd, c.monthlyBudgetUsd))),
    c.lastError ? el('div', { class: 'lasterror' }, el('span', { class: 'muted' }, 'Last error '), c.lastErrorMillis ? timeEl(c.lastErrorMillis) : null, ': ',
      el('span', { class: 'data err-text' }, clean(c.lastError, 2000))) : null,
    webUi ? el('div', { class: 'small' }, webUi) : null);
  document.title = 'Ant ' + clean(r.name, 60) + (colony ? ' — ' + clean(colony.colony, 40) : '');

  // what a human is needed for (other than confirmations, listed below)
  const needs = $('needs');
  if (r.needsHuman && c.needsHuman && c.needsHuman !== 'confirmation') {
    clear(needs, el('div', { class: 'error-banner' }, el('strong', null, clean(NEED_LABEL[c.needsHuman] || c.needsHuman, 60)),
      c.needsHumanSinceMillis ? el('span', null, ' · waiting ', timeEl(c.needsHumanSinceMillis, 'for')) : null,
      c.needsHumanDetail ? el('pre', { class: 'detail data' }, cleanBlock(c.needsHumanDetail, 4000)) : null,
      el('div', { class: 'small' }, canAct() ? 'Resume the ant when it is fixed.' : 'An operator can resume the ant.')));
  } else {
    needs.replaceChildren();
  }
}

// ------------------------------------------------------------ actions

const actMsg = $('actmsg');
const allActionButtons = () => [...document.querySelectorAll('#actionbar button, #sendbuttons button')];
function buildActions() {
  const mk = (label, action, cls, confirmText, title) => actionButton(label, {
    path: antApi(name, '/' + action), body: {}, cls, msgEl: actMsg, group: allActionButtons, title,
    before: confirmText ? () => window.confirm(confirmText) : undefined, after: () => reload(),
  });
  $('actionbar').append(
    mk('Pause', 'pause', '', null, 'Pause after the running session; no new sessions until resumed'),
    mk('Resume', 'resume', 'primary', null, 'Resume a paused or parked ant'),
    mk('Abort session', 'abort', 'danger', 'Abort the running session of this ant?', 'End the running session now'),
    mk('Clear queue', 'clear', '', 'Drop every queued instruction of this ant?', 'Drop the queued instructions'),
    mk('Stop', 'stop', 'danger', 'Stop this ant for good? Its loop ends; start it again with colony start.', 'Stop the ant\'s loop (the workflow completes)'));
  const text = $('text');
  const send = (label, action, cls) => actionButton(label, {
    path: antApi(name, '/' + action), body: () => ({ text: text.value }), cls, msgEl: actMsg, group: allActionButtons,
    before: () => { if (!text.value.trim()) { actMsg.className = 'msg err'; actMsg.textContent = 'Write a message first.'; text.focus(); return false; } return true; },
    after: () => { text.value = ''; reload(); },
  });
  const sendBtn = send('Send', 'send', 'primary');
  $('sendbuttons').append(sendBtn, send('Send urgent', 'urgent', 'danger'));
  text.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey) && !sendBtn.disabled) { ev.preventDefault(); sendBtn.click(); }
  });
  text.title = 'Ctrl+Enter sends';
}

// ------------------------------------------------------------ confirmations

const confCards = new Map();
function renderConfirmations() {
  const list = (detail.card && Array.isArray(detail.card.confirmations)) ? detail.card.confirmations : [];
  $('confirmations').classList.toggle('hidden', list.length === 0);
  const box = $('conflist');
  const seen = new Set();
  for (const p of list) {
    const k = String(p.id);
    seen.add(k);
    if (confCards.has(k)) continue;
    const msg = el('div', { class: 'msg', role: 'status' });
    const note = el('input', { type: 'text', placeholder: 'Note (optional)', 'aria-label': 'Note for the decision', maxlength: '2000' });
    const buttons = [];
    const body = () => (note.value.trim() ? { id: p.id, note: note.value.trim() } : { id: p.id });
    const after = (ans) => { toast(ans && ans.message ? ans.message : 'Done'); reload(); };
    buttons.push(
      actionButton('Approve', { path: antApi(name, '/approve'), body, cls: 'good', msgEl: msg, group: () => buttons, after }),
      actionButton('Deny', { path: antApi(name, '/deny'), body, cls: 'danger', msgEl: msg, group: () => buttons, after }));
    const deadline = toMillis(p.deadline);
    const card = el('article', { class: 'panel inbox-item' },
      el('div', null,
        el('dl', { class: 'kv' },
          el('dt', null, 'Tool'), el('dd', { class: 'mono data' }, clean(p.tool, 200)),
          el('dt', null, 'Call'), el('dd', { class: 'mono data' }, cleanBlock(p.summary, 4000)),
          p.reason ? [el('dt', null, 'Why asked'), el('dd', { class: 'data' }, clean(p.reason, 2000))] : null,
          el('dt', null, 'Session'), el('dd', null, String(p.session ?? '–')),
          Number.isFinite(deadline) ? [el('dt', null, 'Deadline'), el('dd', null, timeEl(deadline), el('span', { class: 'muted' }, ' (denied when it passes)'))] : null)),
      el('div', { class: 'actions act-only' }, note, el('div', { class: 'row' }, ...buttons), msg));
    confCards.set(k, card);
    box.append(card);
  }
  for (const [k, card] of confCards) if (!seen.has(k)) { card.remove(); confCards.delete(k); }
}

// ------------------------------------------------------------ queue

function renderQueue() {
  const q = (detail.card && Array.isArray(detail.card.queue)) ? detail.card.queue : [];
  const total = Number(detail.queue ?? q.length);
  if (!q.length) { clear($('queue'), el('div', { class: 'muted' }, total > 0 ? `${total} queued (not shown: no card yet).` : 'Nothing queued.')); return; }
  clear($('queue'), el('ol', { class: 'queue' }, ...q.map((m) => el('li', null,
    m.urgent ? el('span', { class: 'badge c-need' }, 'urgent') : null, m.urgent ? ' ' : null,
    el('span', { class: 'data' }, clean(m.text, 500)),
    el('span', { class: 'muted small' }, ' — from ', m.from ? el('span', { class: 'data' }, clean(m.from, 80)) : 'a human')))),
  total > q.length ? el('div', { class: 'muted small' }, `… and ${total - q.length} more`) : null);
}

// ------------------------------------------------------------ cost chart

function dayEpoch(day) {
  const t = Date.parse(day + 'T00:00:00');
  return Number.isFinite(t) ? t / 1000 : null;
}

function renderChart() {
  const ledger = (detail.card && Array.isArray(detail.card.ledger)) ? detail.card.ledger : [];
  const key = JSON.stringify(ledger);
  if (key === lastLedgerKey) return;
  lastLedgerKey = key;
  const total = ledger.reduce((a, d) => a + Number(d.usd || 0), 0);
  $('costsum').textContent = ledger.length ? `${usd(total)} over the last ${ledger.length} day${ledger.length === 1 ? '' : 's'}` : '';
  const box = $('chart');
  if (plot) { plot.destroy(); plot = null; }
  box.replaceChildren();
  if (!ledger.length) { box.append(el('div', { class: 'muted' }, 'No spend recorded yet.')); return; }
  if (!window.uPlot) { box.append(el('div', { class: 'muted' }, 'Chart unavailable (uPlot did not load).')); return; }
  const xs = []; const ys = []; const ss = [];
  for (const d of ledger) { const x = dayEpoch(d.day); if (x !== null) { xs.push(x); ys.push(Number(d.usd || 0)); ss.push(Number(d.sessions || 0)); } }
  const width = Math.max(260, box.clientWidth || 500);
  plot = new window.uPlot({
    width, height: 200,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(0.1, max * 1.1)] } },
    axes: [{ space: 50 }, { values: (u, vals) => vals.map((v) => '$' + (v < 10 ? v.toFixed(2) : v.toFixed(0))), size: 50 }],
    series: [
      { value: (u, v) => (v === null ? '–' : new Date(v * 1000).toLocaleDateString()) },
      { label: 'USD', stroke: '#2457c5', fill: 'rgba(36,87,197,.25)', width: 1, paths: window.uPlot.paths.bars({ size: [0.7, 40] }), points: { show: false }, value: (u, v) => (v === null ? '–' : usd(v)) },
      { label: 'sessions', show: false, scale: 'n', value: (u, v) => (v === null ? '–' : String(v)) },
    ],
  }, [xs, ys, ss], box);
}

window.addEventListener('resize', () => {
  if (plot) plot.setSize({ width: Math.max(260, $('chart').clientWidth), height: 200 });
});

// ------------------------------------------------------------ sessions table

function historyUrl(runId) {
  if (!colony || !colony.webUi || !detail.workflowId || !runId) return null;
  return String(colony.webUi).replace(/\/+$/, '') + '/namespaces/' + encodeURIComponent(colony.namespace || 'default') +
    '/workflows/' + encodeURIComponent(detail.workflowId) + '/' + encodeURIComponent(runId) + '/history';
}

function renderSessions() {
  const recent = (detail.card && Array.isArray(detail.card.recent)) ? detail.card.recent : [];
  const key = JSON.stringify(recent) + (colony ? colony.webUi : '');
  if (key === lastRecentKey) return;
  lastRecentKey = key;
  $('nosessions').classList.toggle('hidden', recent.length > 0);
  $('history').querySelector('.tablewrap').classList.toggle('hidden', recent.length === 0);
  const rows = recent.slice().reverse().map((s) => {
    const url = historyUrl(s.runId);
    const tokIn = Number(s.inputTokens || 0).toLocaleString('en-US');
    const tokOut = Number(s.outputTokens || 0).toLocaleString('en-US');
    return el('tr', null,
      el('td', { class: 'num' }, String(s.number)),
      el('td', null, timeEl(s.startMillis)),
      el('td', null, timeEl(s.endMillis)),
      el('td', { class: 'num' }, duration(Number(s.endMillis) - Number(s.startMillis))),
      el('td', null, outcomeBadge(s.outcome)),
      el('td', { class: 'summary' }, el('span', { class: 'ellipsis data', title: clean(s.summary, 2000) }, clean(s.summary, 300))),
      el('td', { class: 'num' }, String(s.turns ?? '–')),
      el('td', { class: 'num' }, `${tokIn} / ${tokOut}`),
      el('td', { class: 'num' }, usd(s.costUsd)),
      el('td', null, url ? el('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, 'history ↗') : el('span', { class: 'muted' }, '–')));
  });
  $('sessions').replaceChildren(...rows);
}

// ------------------------------------------------------------ live session

const turnsBox = $('turns');
let stick = true;
turnsBox.addEventListener('scroll', () => {
  stick = turnsBox.scrollTop + turnsBox.clientHeight >= turnsBox.scrollHeight - 30;
  if (stick) $('newturns').classList.add('hidden');
});
$('newturns').addEventListener('click', () => { turnsBox.scrollTop = turnsBox.scrollHeight; stick = true; $('newturns').classList.add('hidden'); });

function pretty(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v, null, 2);
  const s = String(v);
  if (/^\s*[{[]/.test(s)) { try { return JSON.stringify(JSON.parse(s), null, 2); } catch (e) { /* as is */ } }
  return s;
}

function renderTurn(t) {
  const isErr = !!t.error;
  if (t.kind === 'text') {
    const said = t.result ?? t.input ?? t.name ?? '';
    return el('div', { class: 'turn text' + (isErr ? ' error' : '') }, el('div', { class: 'lbl' }, 'agent said'),
      el('div', { class: 'saytext data' }, cleanBlock(pretty(said), 20000)),
      isErr ? el('pre', { class: 'data' }, cleanBlock(t.error, 8000)) : null);
  }
  return el('div', { class: 'turn tool' + (isErr ? ' error' : '') },
    el('div', null, el('span', { class: 'lbl' }, isErr ? 'tool call · error ' : 'tool call '), el('span', { class: 'tname data' }, clean(t.name || '?', 120))),
    t.input !== null && t.input !== undefined && t.input !== '' ? el('pre', { class: 'data' }, cleanBlock(pretty(t.input), 20000)) : null,
    t.result !== null && t.result !== undefined && t.result !== '' ? [el('div', { class: 'lbl' }, 'result'), el('pre', { class: 'data' }, cleanBlock(t.result, 20000))] : null,
    isErr ? [el('div', { class: 'lbl' }, 'error'), el('pre', { class: 'data' }, cleanBlock(t.error, 8000))] : null);
}

const MAX_TURNS = 400;
function setSession(session, running) {
  currentSession = session;
  const title = $('sessiontitle');
  if (!session) { title.textContent = 'Session'; return; }
  clear(title, `Session ${session} `, el('span', { class: 'badge ' + (running ? 'c-work' : 'c-wait') }, running ? 'running' : 'ended'));
}

function addTurns(turns) {
  if (!Array.isArray(turns) || !turns.length) return;
  const empty = turnsBox.querySelector('.empty');
  if (empty) empty.remove();
  for (const t of turns) turnsBox.append(renderTurn(t));
  while (turnsBox.children.length > MAX_TURNS) turnsBox.firstChild.remove();
  if (stick) turnsBox.scrollTop = turnsBox.scrollHeight;
  else $('newturns').classList.remove('hidden');
}

async function loadLive() {
  try {
    const ans = await getJson(antApi(name, '/live'));
    turnsBox.replaceChildren();
    setSession(ans.session, ans.running);
    if (!ans.turns || !ans.turns.length) turnsBox.append(el('div', { class: 'empty' }, 'No turns reported in this run yet. Claude Code and Gemini sessions report each tool call and message as they happen; a command agent reports its outcome only (in the history below).'));
    addTurns(ans.turns);
    turnsBox.scrollTop = turnsBox.scrollHeight;
  } catch (e) {
    clear(turnsBox, el('div', { class: 'empty' }, 'Could not load the session: ' + clean(e.message, 300)));
  }
}

function onTurns(t) {
  if (t.ant !== undefined && t.ant !== name) return;
  if (t.session !== currentSession) {
    turnsBox.replaceChildren();
    stick = true;
    setSession(t.session, true);
  }
  addTurns(t.turns);
}

// ------------------------------------------------------------ its task

// The ant's current task: from its card when the card names it (taskId, taskTitle, read defensively:
// older cards have no such field), else asked of the board (the task In Progress with this worker).
let taskAsked = 0;
let taskShown = '';
function renderTask() {
  const c = (detail && detail.card) || {};
  const id = c.taskId ?? (c.task && c.task.id);
  const title = c.taskTitle ?? (c.task && c.task.title);
  if (typeof id === 'string' && id) {
    showTask({ id, title: typeof title === 'string' ? title : '' });
    return;
  }
  if (Date.now() - taskAsked < 5000) return;
  taskAsked = Date.now();
  getJson('/api/tasks?state=in_progress&worker=' + encodeURIComponent(name) + '&limit=1')
    .then((ans) => showTask(Array.isArray(ans && ans.tasks) && ans.tasks.length ? ans.tasks[0] : null))
    .catch(() => showTask(null)); // no board in this console
}

function showTask(t) {
  const box = $('task');
  const key = t ? t.id + '\u0000' + t.title : '';
  if (key === taskShown) return;
  taskShown = key;
  box.classList.toggle('hidden', !t);
  if (!t) { box.replaceChildren(); return; }
  clear(box, el('span', { class: 'muted' }, 'Working on task '),
    el('a', { href: '/board#task=' + encodeURIComponent(t.id), class: 'data' }, el('span', { class: 'mono' }, clean(t.id, 100)),
      t.title ? ': ' + clean(t.title, 200) : ''));
}

// ------------------------------------------------------------ loading

function renderAll() {
  renderHead();
  renderTask();
  renderConfirmations();
  renderQueue();
  renderChart();
  renderSessions();
  if (detail.card && currentSession !== null && detail.card.session === currentSession) setSession(currentSession, !!detail.card.sessionRunning);
}

let reloading = null;
async function reload() {
  if (reloading) return reloading;
  reloading = (async () => {
    try {
      detail = await getJson(antApi(name));
      document.querySelectorAll('#main > .error-banner').forEach((b) => b.remove());
      renderAll();
    } catch (e) {
      document.querySelectorAll('#main > .error-banner').forEach((b) => b.remove());
      if (e.status === 404) {
        clear($('main'), el('section', { class: 'panel empty' }, el('p', null, el('strong', null, 'No ant named '), el('span', { class: 'data' }, '“' + clean(name, 200) + '”'), '.'),
          el('p', null, el('a', { href: '/' }, '← All ants'))));
        return;
      }
      banner($('main'), 'Could not load the ant: ' + e.message);
    } finally { reloading = null; }
  })();
  return reloading;
}

async function loadConfig() {
  try {
    const cfg = await getJson(antApi(name, '/config'));
    $('config').textContent = cleanBlock(JSON.stringify(cfg, null, 2), 200000);
  } catch (e) {
    $('config').textContent = 'Could not load the config: ' + clean(e.message, 300);
  }
}

onColony((c) => {
  colony = c;
  if (c.role === 'read') {
    $('actions').replaceChildren(el('h2', null, 'Steer'), el('div', { class: 'readonly-note' }, 'Read-only: sign in with the operator token to steer this ant.'));
    document.querySelectorAll('.act-only button').forEach((b) => { b.disabled = true; });
  }
  if (detail) { lastRecentKey = ''; renderSessions(); }
});

if (!name) {
  clear($('main'), el('section', { class: 'panel empty' }, 'No ant named in the address. ', el('a', { href: '/' }, '← All ants')));
} else {
  buildActions();
  reload().then(() => { if (detail) { loadLive(); loadConfig(); } });
  live('/api/events?ant=' + encodeURIComponent(name), {
    ant(row) {
      if (!detail || row.name !== name) return;
      detail = { ...detail, ...row };
      renderAll();
    },
    turns: onTurns,
    open(again) { if (again && detail) { reload(); loadLive(); } },
  });
}
