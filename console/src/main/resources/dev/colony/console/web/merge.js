// The Merge page: each repository's merge queue as its card says it (GET /api/merge once, then the
// console's live stream pushes the queues whenever a card changes: one read for every open page);
// Approve / Retry / Cancel send the queue's decide update.
// Everything an ant or a human wrote goes into the DOM as text (el / clean), never as markup.
import {
  el, clean, cleanBlock, clear, getJson, topbar, live, timeEl, antHref, canAct, onColony, banner, duration, mergeActions,
} from './common.js';

const $ = (id) => document.getElementById(id);
topbar('merge');

const STATE = {
  QUEUED: ['queued', 'c-wait', 'Waiting its turn'],
  AWAITING_REVIEW: ['awaiting review', 'c-pause', 'Green, waiting for a human: approve it (or its task) to let it land'],
  LANDING: ['landing', 'c-work', 'Being landed now'],
  REWORK: ['rework', 'c-park', 'A conflict or a red test: its ant was told and fixes it'],
  NEEDS_HUMAN: ['needs a human', 'c-need', 'Out of the queue after its tries: a human decides (Retry or Cancel)'],
  LANDED: ['landed', 'c-ok', 'On the target'],
  CLOSED: ['closed', 'c-stop', 'Nothing to land, or cancelled'],
};
const LAND = { REBASE: 'rebase', SQUASH: 'squash', PULL_REQUEST: 'pull request' };

const short = (sha) => clean(sha, 80).slice(0, 7);
const taskHref = (id) => '/board#task=' + encodeURIComponent(id);
const itemRows = new Map(); // repo \0 id -> { v, node }

function stateBadge(it) {
  const [label, cls, title] = STATE[it.state] || [clean(it.state, 30).toLowerCase(), 'c-wait', ''];
  const step = it.state === 'LANDING' && it.step ? ' · ' + clean(it.step, 60) : '';
  return el('span', { class: 'badge ' + cls, title }, label + step);
}

/** Every task whose work the item holds (its parts), each a link to the board. */
function taskLinks(it) {
  const ids = [];
  for (const p of it.parts || []) {
    if (p && p.taskId && !ids.includes(p.taskId)) ids.push(p.taskId);
  }
  if (!ids.length && it.taskId) ids.push(it.taskId);
  return ids.slice(0, 20).map((id) => el('span', null, 'task ', el('a', { href: taskHref(id), class: 'mono data' }, clean(id, 100))));
}

/** Which commits an approval covers, and which wait for one (review on): from the item's parts. */
function reviewLine(it) {
  const parts = it.parts || [];
  if (!parts.some((p) => p && p.head)) return null;
  const base = parts[0] && parts[0].base ? short(parts[0].base) + '..' : 'up to ';
  const waiting = parts.filter((p) => p && !p.approved && p.head)
    .map((p) => (p.taskId ? clean(p.taskId, 100) + ' at ' : '') + short(p.head));
  return el('div', { class: 'facts small review' },
    it.approvedHead ? el('span', { title: 'What lands: nothing after this head' }, 'approved ',
      el('b', { class: 'mono' }, base + short(it.approvedHead))) : null,
    waiting.length ? el('span', { title: 'Commits no approval covers yet' }, 'awaiting review: ',
      el('span', { class: 'mono data' }, waiting.join(', '))) : null);
}

function renderItem(repo, it, pos) {
  const facts = el('div', { class: 'facts small' },
    el('span', null, 'item ', el('b', { class: 'mono data' }, clean(it.id, 80))),
    el('span', null, 'tries ', el('b', null, String(Number(it.tries) || 0))),
    ...taskLinks(it),
    el('span', null, 'submitted ', timeEl(it.submittedAt)),
    it.head ? el('span', null, 'head ', el('b', { class: 'mono', title: clean(it.head, 80) }, short(it.head))) : null,
    it.paths && it.paths.length ? el('span', { title: it.paths.slice(0, 40).map((p) => clean(p, 300)).join('\n') }, String(it.paths.length) + ' path' + (it.paths.length === 1 ? '' : 's')) : null,
    it.by ? el('span', null, 'by ', el('span', { class: 'data' }, clean(it.by, 80))) : null);
  const review = reviewLine(it);
  const reason = it.reason && (it.state === 'REWORK' || it.state === 'NEEDS_HUMAN' || it.state === 'AWAITING_REVIEW' || it.state === 'QUEUED')
    ? el('pre', { class: 'detail data' }, cleanBlock(it.reason, 4000)) : null;
  return el('li', { class: 'mitem s-' + clean(it.state, 30).toLowerCase(), dataset: { item: clean(it.id, 100), state: clean(it.state, 30) } },
    el('div', { class: 'mbody' },
      el('div', { class: 'head' },
        el('span', { class: 'pos', title: pos === 1 ? 'next to land' : 'place in the line' }, String(pos)),
        el('a', { href: antHref(it.ant), class: 'ant ellipsis data', title: clean(it.ant, 400) }, clean(it.ant, 100)),
        stateBadge(it)),
      facts, review, reason),
    mergeActions(repo, it, () => refresh()));
}

function itemNode(repo, it, pos) {
  const k = repo + '\u0000' + it.id;
  const v = JSON.stringify(it) + '#' + pos + '#' + canAct();
  let x = itemRows.get(k);
  if (!x || x.v !== v) {
    x = { v, node: renderItem(repo, it, pos) };
    itemRows.set(k, x);
  }
  x.seen = true;
  return x.node;
}

/** "holder: glob, glob" → [holder, globs]. */
function splitWaiting(s) {
  const t = clean(s, 2000);
  const i = t.indexOf(': ');
  return i > 0 ? [t.slice(0, i), t.slice(i + 2)] : ['', t];
}

function claimsPanel(q) {
  const claims = Object.entries(q.claims || {});
  const waiting = Object.entries(q.waiting || {});
  const undeclared = Array.isArray(q.undeclared) ? q.undeclared : [];
  const none = undeclared.length ? el('p', { class: 'small undeclared' }, 'Declaring no paths (not scheduled by paths before their sessions): ',
    undeclared.slice(0, 100).map((a, i) => [i ? ', ' : '', el('a', { href: antHref(a), class: 'data' }, clean(a, 100))])) : null;
  if (!claims.length && !waiting.length) {
    return el('div', { class: 'mpart' }, el('h3', null, 'Path claims'), el('p', { class: 'muted small' }, 'No ant holds paths in this repository.'), none);
  }
  return el('div', { class: 'mpart' },
    el('h3', null, 'Path claims'),
    claims.length ? el('ul', { class: 'plain claims' }, claims.map(([ant, globs]) => el('li', null,
      el('a', { href: antHref(ant), class: 'data' }, clean(ant, 100)), ' holds ',
      (Array.isArray(globs) ? globs : []).map((g) => el('code', { class: 'data' }, clean(g, 300)))))) : null,
    waiting.length ? el('ul', { class: 'plain waiting' }, waiting.map(([ant, s]) => {
      const [holder, globs] = splitWaiting(s);
      return el('li', null, el('span', { class: 'badge c-pause' }, 'waits'), ' ',
        el('a', { href: antHref(ant), class: 'data' }, clean(ant, 100)), ' waits for ',
        holder ? el('a', { href: antHref(holder), class: 'data' }, holder) : 'another ant', ' on ',
        el('code', { class: 'data' }, globs));
    })) : null, none);
}

function hotPanel(q) {
  const hot = Object.entries(q.hotPaths || {}).sort((a, b) => (b[1] || []).length - (a[1] || []).length || a[0].localeCompare(b[0]));
  return el('div', { class: 'mpart' },
    el('h3', null, 'Where ants collide'),
    hot.length ? el('ul', { class: 'plain hot' }, hot.slice(0, 50).map(([dir, ants]) => el('li', null,
      el('code', { class: 'data' }, clean(dir, 300)), ' ',
      el('span', { class: 'muted small' }, (ants || []).length + ' ants: '),
      (ants || []).slice(0, 20).map((a, i) => [i ? ', ' : '', el('a', { href: antHref(a), class: 'data' }, clean(a, 100))]))))
      : el('p', { class: 'muted small' }, 'No directory was changed by two ants yet.'));
}

const HEADS = [['When', null], ['Ant', null], ['Commits', null], ['Target', 'The target before → after the landing (hover for the ant\'s own head)'],
  ['Test time', 'How long the test command ran'], ['Queue time', 'The queue\'s own time beyond the test: publish, rebase, update'],
  ['Paths', 'Files changed (hover for them)'], ['PR', 'The pull request (land: pull_request)']];

function landedTable(q) {
  const landed = Array.isArray(q.landed) ? q.landed : [];
  if (!landed.length) return el('div', { class: 'mpart' }, el('h3', null, 'Last landings'), el('p', { class: 'muted small' }, 'Nothing landed yet.'));
  const td = (label, ...c) => el('td', { 'data-label': label }, ...c);
  return el('div', { class: 'mpart' },
    el('h3', null, 'Last landings ', el('span', { class: 'muted small' }, '(' + Number(q.landedCount || landed.length) + ' since the queue began)')),
    el('div', { class: 'tablewrap' }, el('table', { class: 'cards landed' },
      el('thead', null, el('tr', null, HEADS.map(([h, title]) => el('th', { title }, h)))),
      el('tbody', null, landed.map((l) => el('tr', { dataset: { item: clean(l.itemId, 100) } },
        td('When', timeEl(l.at)),
        td('Ant', el('a', { href: antHref(l.ant), class: 'data' }, clean(l.ant, 100)), ' ', el('span', { class: 'muted small mono' }, clean(l.itemId, 80))),
        td('Commits', String(Number(l.commits) || 0)),
        td('Target', el('span', { class: 'mono', title: 'the ant\'s head ' + clean(l.from, 80) + ' landed as ' + clean(l.to, 80) + ' (the target was ' + clean(l.before, 80) + ')' },
          short(l.before), ' → ', el('b', null, short(l.to)))),
        td('Test time', duration(Number(l.testMillis))),
        td('Queue time', duration(Number(l.queueMillis))),
        td('Paths', el('span', { title: (l.paths || []).slice(0, 40).map((p) => clean(p, 300)).join('\n') }, String((l.paths || []).length))),
        td('PR', l.pullRequest ? el('a', { href: clean(l.pullRequest, 2000), rel: 'noopener noreferrer', target: '_blank' }, 'pull request') : el('span', { class: 'muted' }, '–'))))))));
}

function queueSection(q) {
  const repo = clean(q.repo, 100);
  const items = Array.isArray(q.items) ? q.items : [];
  const waitingHuman = items.filter((i) => i.state === 'NEEDS_HUMAN' || i.state === 'AWAITING_REVIEW').length;
  const line = items.length
    ? el('ol', { class: 'mline' }, items.map((it, i) => itemNode(repo, it, i + 1)))
    : el('p', { class: 'muted' }, 'The line is empty: nothing waits to land.');
  return el('section', { class: 'panel mqueue', dataset: { repo }, 'aria-labelledby': 'q-' + repo },
    el('div', { class: 'mhead' },
      el('h2', { id: 'q-' + repo, class: 'data' }, repo),
      el('div', { class: 'facts' },
        el('span', null, 'target ', el('b', { class: 'mono data' }, clean(q.target, 100)),
          q.targetHead ? [' at ', el('b', { class: 'mono', title: clean(q.targetHead, 80) }, short(q.targetHead))] : null),
        el('span', null, 'land ', el('b', null, LAND[q.land] || clean(q.land, 30))),
        el('span', null, 'review ', el('b', null, q.review ? 'required' : 'off')),
        el('span', null, el('b', null, String(items.length)), ' open'),
        waitingHuman ? el('span', { class: 'badge c-need' }, waitingHuman + ' wait' + (waitingHuman === 1 ? 's' : '') + ' for a human') : null,
        el('span', null, 'updated ', timeEl(q.updatedAt)))),
    el('h3', null, 'The line ', el('span', { class: 'muted small' }, '(in landing order)')),
    line,
    el('div', { class: 'mgrid' }, claimsPanel(q), hotPanel(q)),
    landedTable(q));
}

let last = '';
function show(ans) {
  const queues = Array.isArray(ans && ans.queues) ? ans.queues : [];
  const key = JSON.stringify(queues) + canAct();
  if (key === last) return;
  last = key;
  for (const x of itemRows.values()) x.seen = false;
  const sections = queues.map(queueSection);
  for (const [k, x] of itemRows) if (!x.seen) itemRows.delete(k);
  // Keep the focused element (a Keep/Cancel being answered) where it is: swap only what changed.
  clear($('queues'), ...sections);
  const open = queues.reduce((n, q) => n + (q.items || []).length, 0);
  const human = queues.reduce((n, q) => n + (q.items || []).filter((i) => i.state === 'NEEDS_HUMAN' || i.state === 'AWAITING_REVIEW').length, 0);
  $('summary').textContent = queues.length
    ? `${queues.length} repositor${queues.length === 1 ? 'y' : 'ies'} · ${open} open item${open === 1 ? '' : 's'}` + (human ? ` · ${human} for a human` : '')
    : '';
  const empty = $('empty');
  empty.classList.toggle('hidden', queues.length > 0);
  if (!queues.length) {
    clear(empty,
      el('p', null, el('strong', null, 'No merge queue: add merge.repos to colony.yaml')),
      el('p', null, 'Each repository listed there gets a queue that rebases, tests and lands its ants\' work one item at a time.'),
      el('pre', { class: 'yaml' }, 'merge:\n  repos:\n    - name: app\n      repo: ./repo\n      target: main\n      test: ["./test.sh"]'),
      el('p', null, 'How it works, review, path claims and each failure: ', el('code', null, 'docs/merge.md'), ' in Colony\'s documentation.'));
  }
}

let inFlight = null;
function refresh() {
  if (inFlight) return inFlight;
  inFlight = getJson('/api/merge').then((ans) => {
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    show(ans);
  }).catch((e) => {
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    banner($('main'), 'Could not load the merge queues: ' + e.message);
    if ($('summary').textContent === 'Loading…') $('summary').textContent = '';
  }).finally(() => { inFlight = null; });
  return inFlight;
}

// Live: the console reads the queues' cards (memos) for every open page at once and pushes them (`merge` events).
onColony((c) => {
  last = '';
  refresh();
  if (c.role === 'read' && !document.querySelector('.readonly-note')) {
    $('summary').after(el('div', { class: 'readonly-note' }, 'Read-only: you can see the queues but not decide.'));
  }
});
live('/api/events?merge=1', {
  open(again) { if (again) refresh(); },
  merge(ans) {
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    show(ans);
  },
});
refresh();
