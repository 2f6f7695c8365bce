import {
  el, clean, clear, ell, getJson, topbar, live, timeEl, budgetBar, stateBadge, antHref, bucket, NEED_SHORT, NEED_LABEL, banner, sandboxBadge,
} from './common.js';

const PAGE_SIZE = 50;
const FILTERS = [['all', 'All'], ['needYou', 'Need you'], ['working', 'Working'], ['waiting', 'Waiting'], ['paused', 'Paused'], ['parked', 'Parked']];
const params = new URLSearchParams(location.search);
let filter = FILTERS.some(([k]) => k === params.get('filter')) ? params.get('filter') : 'all';
let q = params.get('q') || '';
let tokens = [null]; // page tokens: tokens[i] loads page i
let pageIndex = 0;
let next = null;
let total = 0;
const rowsByName = new Map();
let loadSeq = 0;

const $ = (id) => document.getElementById(id);
topbar('overview');

const chips = FILTERS.map(([k, label]) => el('button', {
  type: 'button', class: 'chip' + (k === filter ? ' on' : ''), 'aria-pressed': String(k === filter), dataset: { f: k },
  on: { click: () => { filter = k; restart(); } },
}, label));
$('chips').append(...chips);
$('q').value = q;
let debounce = 0;
$('q').addEventListener('input', () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => { q = $('q').value.trim(); restart(); }, 250);
});
const toTop = () => { if ($('ants').getBoundingClientRect().top < 0) $('ants').scrollIntoView({ block: 'start' }); };
$('prev').addEventListener('click', () => { if (pageIndex > 0) { pageIndex--; load().then(toTop); } });
$('next').addEventListener('click', () => { if (next) { tokens[pageIndex + 1] = next; pageIndex++; load().then(toTop); } });

function restart() {
  tokens = [null];
  pageIndex = 0;
  chips.forEach((c) => { const on = c.dataset.f === filter; c.classList.toggle('on', on); c.setAttribute('aria-pressed', String(on)); });
  const u = new URLSearchParams();
  if (filter !== 'all') u.set('filter', filter);
  if (q) u.set('q', q);
  history.replaceState(null, '', location.pathname + (u.toString() ? '?' + u : ''));
  load();
}

async function load() {
  const seq = ++loadSeq;
  const u = new URLSearchParams({ filter, pageSize: String(PAGE_SIZE) });
  if (q) u.set('q', q);
  if (tokens[pageIndex]) u.set('page', tokens[pageIndex]);
  $('prev').disabled = true;
  $('next').disabled = true;
  let ans;
  try {
    ans = await getJson('/api/ants?' + u);
  } catch (e) {
    if (seq !== loadSeq) return;
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    banner($('main'), 'Could not load the ants: ' + e.message);
    $('summary').textContent = '';
    return;
  }
  if (seq !== loadSeq) return;
  document.querySelectorAll('.error-banner').forEach((b) => b.remove());
  const ants = Array.isArray(ans && ans.ants) ? ans.ants : [];
  next = ans.next || null;
  total = Number(ans.total || 0);
  rowsByName.clear();
  const tbody = $('rows');
  tbody.replaceChildren(...ants.map((r) => { const tr = renderRow(r); rowsByName.set(r.name, tr); return tr; }));
  const from = pageIndex * PAGE_SIZE + (ants.length ? 1 : 0);
  const to = pageIndex * PAGE_SIZE + ants.length;
  $('pageinfo').textContent = ants.length ? `${from}–${to} of ${total}` : '';
  $('prev').disabled = pageIndex === 0;
  $('next').disabled = !next;
  const label = FILTERS.find(([k]) => k === filter)[1].toLowerCase();
  $('summary').textContent = `${total} ant${total === 1 ? '' : 's'}` + (filter !== 'all' ? ` · ${label}` : '') + (q ? ` · name matches “${clean(q, 60)}”` : '');
  const empty = $('empty');
  empty.classList.toggle('hidden', ants.length > 0);
  $('ants').classList.toggle('hidden', ants.length === 0);
  document.querySelector('.pager').classList.toggle('hidden', pageIndex === 0 && !next);
  if (!ants.length) {
    if (filter === 'all' && !q && pageIndex === 0) {
      clear(empty, el('p', null, el('strong', null, 'No ants yet.')),
        el('p', null, 'Start a worker with ', el('code', null, 'colony worker DIR'), ' and the ants with ',
          el('code', null, 'colony start DIR'), ' (or both at once: ', el('code', null, 'colony dev DIR'), ').'));
    } else {
      clear(empty, el('p', null, 'No ants match' + (filter !== 'all' ? ` “${label}”` : '') + (q ? ` and “${clean(q, 60)}”` : '') + '.'),
        el('p', null, el('button', { type: 'button', on: { click: () => { filter = 'all'; q = ''; $('q').value = ''; restart(); } } }, 'Show all ants')));
    }
  }
}

function renderRow(r) {
  const c = r.card || null;
  const since = c && c.stateSinceMillis;
  const need = r.needsHuman
    ? el('span', { class: 'badge c-need', title: c ? [NEED_LABEL[c.needsHuman] || c.needsHuman, c.needsHumanDetail].filter(Boolean).join(': ') : 'needs a human' },
      '⚑ ' + (c && c.needsHuman ? clean(NEED_SHORT[c.needsHuman] || c.needsHuman, 40) : 'needs you'))
    : null;
  const needCell = el('td', { 'data-label': 'Needs you', class: need ? '' : 'empty-cell' },
    need || el('span', { class: 'muted' }, '–'),
    need && c && c.needsHumanSinceMillis ? el('span', { class: 'sub2' }, 'waiting ', timeEl(c.needsHumanSinceMillis, 'for')) : null);
  const tr = el('tr', { dataset: { bucket: bucket(r) } },
    el('td', { class: 'name', 'data-label': '' },
      el('a', { href: antHref(r.name), class: 'ellipsis data', title: clean(r.name, 400) }, clean(r.name, 200)),
      sandboxBadge(c),
      r.host ? el('span', { class: 'sub2 inline-host ellipsis data', title: 'host ' + clean(r.host, 400) }, clean(r.host, 80)) : null),
    el('td', { 'data-label': 'State', class: 'nowrap' }, stateBadge(r),
      since ? el('span', { class: 'sub2' }, 'for ', timeEl(since, 'for')) : null),
    el('td', { class: 'doing', 'data-label': 'Doing' }, c && c.doing ? ell(c.doing) : el('span', { class: 'muted' }, c ? '–' : 'no card yet'),
      r.nextWake ? el('span', { class: 'sub2' }, 'wakes ', timeEl(r.nextWake)) : null,
      c && c.lastError ? el('span', { class: 'sub2 inline-err ellipsis data', title: clean(c.lastError, 4000) }, clean(c.lastError, 200)) : null),
    needCell,
    el('td', { class: 'num', 'data-label': 'Sessions today' }, c ? String(c.sessionsToday ?? 0) : '–',
      el('span', { class: 'sub2' }, `${r.sessions ?? 0} in all`)),
    el('td', { 'data-label': 'Cost today' }, c ? budgetBar(c.costTodayUsd, c.dailyBudgetUsd, 'today') : el('span', { class: 'muted' }, '–')),
    el('td', { class: 'err' + (c && c.lastError ? '' : ' empty-cell'), 'data-label': 'Last error' },
      c && c.lastError ? ell(c.lastError) : el('span', { class: 'muted' }, '–'),
      c && c.lastError && c.lastErrorMillis ? el('span', { class: 'sub2' }, timeEl(c.lastErrorMillis)) : null),
    el('td', { 'data-label': 'Host', class: 'host' }, r.host ? ell(r.host, '', 80) : el('span', { class: 'muted' }, '–')));
  return tr;
}

// Rows change through `ant` events; should none come for a while (a quiet colony, or a server that does not
// send them), the page is reloaded every 30 s while visible.
let lastEvent = Date.now();
setInterval(() => {
  if (document.visibilityState === 'visible' && Date.now() - lastEvent > 30000) { lastEvent = Date.now(); load(); }
}, 5000);

live('/api/events', {
  open(again) { if (again) load(); },
  ant(row) {
    lastEvent = Date.now();
    const old = row && rowsByName.get(row.name);
    if (!old) return;
    const tr = renderRow(row);
    tr.classList.add('flash');
    old.replaceWith(tr);
    rowsByName.set(row.name, tr);
  },
});

load();
