import { el, clean, clear, getJson, topbar, live, timeEl, antHref, banner } from './common.js';

const $ = (id) => document.getElementById(id);
topbar('supervision');

const EVENT = {
  agent_parked: ['ant parked', 'c-park'], agent_restarted: ['ant restarted', 'c-work'],
  restart_limit_exceeded: ['restart limit exceeded', 'c-need'], agent_failed: ['ant failed', 'c-need'], group_reset: ['group reset', 'c-pause'],
};

function antLink(name) {
  return el('a', { href: antHref(name), class: 'data', title: clean(name, 400) }, clean(name, 80));
}

function renderGroup(g) {
  const open = String(g.breaker || '').toLowerCase() === 'open';
  const restarts = Number(g.restarts || 0);
  const max = Number(g.maxRestarts || 0);
  const fill = el('span');
  fill.style.width = (max > 0 ? Math.min(100, (restarts / max) * 100) : 0).toFixed(1) + '%';
  const ants = Array.isArray(g.ants) ? g.ants : [];
  return el('article', { class: 'panel group' + (open ? ' breaker-open' : '') },
    el('h3', { class: 'data' }, clean(g.name, 200)),
    el('div', { class: 'row' },
      el('span', { class: 'badge ' + (open ? 'c-need' : 'c-ok'), title: open ? 'The breaker is open: restarts stopped until the window passes or an operator resets the group' : 'The breaker is closed: failed ants are restarted' },
        open ? 'breaker open' : 'breaker closed'),
      el('span', { class: 'badge c-wait', title: 'restart strategy' }, clean(String(g.strategy || '?').replace(/_/g, ' '), 40))),
    el('div', { class: 'small', title: `${restarts} restarts; at most ${max} within ${g.withinSeconds} s` }, 'Restarts ',
      el('b', null, `${restarts} of ${max}`), el('span', { class: 'muted' }, ` within ${windowText(g.withinSeconds)}`)),
    el('div', { class: 'bar' + (restarts >= max ? ' over' : restarts >= max * 0.7 ? ' warn' : '') }, fill),
    el('div', { class: 'members' }, ants.length ? ants.map(antLink) : el('span', { class: 'muted small' }, 'No members')));
}

function windowText(s) {
  const n = Number(s);
  if (!Number.isFinite(n)) return '?';
  if (n % 86400 === 0) return `${n / 86400} day${n === 86400 ? '' : 's'}`;
  if (n % 3600 === 0) return `${n / 3600} h`;
  if (n % 60 === 0) return `${n / 60} min`;
  return `${n} s`;
}

function renderEvent(e) {
  const [label, cls] = EVENT[e.type] || [clean(String(e.type || '?').replace(/_/g, ' '), 40), 'c-wait'];
  return el('tr', null,
    el('td', { 'data-label': 'When', class: 'nowrap' }, timeEl(e.atMillis)),
    el('td', { 'data-label': 'Event' }, el('span', { class: 'badge ' + cls }, label)),
    el('td', { 'data-label': 'Ant', class: 'name' }, e.ant ? antLink(e.ant) : el('span', { class: 'muted' }, 'the group')),
    el('td', { 'data-label': 'Group', class: 'name' }, e.group ? el('span', { class: 'data' }, clean(e.group, 80)) : '–',
      e.strategy ? el('span', { class: 'sub2' }, clean(String(e.strategy).replace(/_/g, ' '), 40)) : null),
    el('td', { 'data-label': 'Detail', class: 'summary' }, el('span', { class: 'data' }, clean(e.reason || '', 1000))));
}

async function load() {
  let ans;
  try {
    ans = await getJson('/api/supervision');
  } catch (e) {
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    banner($('main'), 'Could not load supervision: ' + e.message);
    $('summary').textContent = '';
    return;
  }
  document.querySelectorAll('.error-banner').forEach((b) => b.remove());
  const available = !!(ans && ans.available);
  $('groupsbox').classList.toggle('hidden', !available);
  $('eventsbox').classList.toggle('hidden', !available);
  $('unavailable').classList.toggle('hidden', available);
  if (!available) {
    $('summary').textContent = 'Not available';
    clear($('unavailable'), el('p', null, el('strong', null, 'Supervision is not available.')),
      el('p', null, 'The colony supervisor workflow is not running (or did not answer). It starts with the colony when its config declares supervision groups.'));
    return;
  }
  const groups = Array.isArray(ans.groups) ? ans.groups : [];
  const events = (Array.isArray(ans.events) ? ans.events : []).slice().sort((a, b) => Number(b.atMillis || 0) - Number(a.atMillis || 0) || Number(b.seq || 0) - Number(a.seq || 0));
  const open = groups.filter((g) => String(g.breaker).toLowerCase() === 'open').length;
  $('summary').textContent = `${groups.length} group${groups.length === 1 ? '' : 's'}` + (open ? ` · ${open} breaker${open === 1 ? '' : 's'} open` : ' · all breakers closed') + ` · ${events.length} event${events.length === 1 ? '' : 's'}`;
  $('groups').replaceChildren(...(groups.length ? groups.map(renderGroup) : [el('div', { class: 'muted' }, 'No supervision groups.')]));
  $('events').replaceChildren(...events.map(renderEvent));
  $('noevents').classList.toggle('hidden', events.length > 0);
}

$('refresh').addEventListener('click', load);
// The supervisor's log has no event of its own on the stream: reload when the colony changes, at most every 10 s.
let last = Date.now();
live('/api/events', { open(again) { if (again) load(); }, colony() { if (Date.now() - last > 10000) { last = Date.now(); load(); } } });
load();
