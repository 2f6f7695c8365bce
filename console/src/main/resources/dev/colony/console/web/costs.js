import { el, clean, clear, getJson, topbar, live, budgetBar, antHref, usd, banner } from './common.js';

const $ = (id) => document.getElementById(id);
topbar('costs');

const CHOICES = [7, 14, 30, 35];
let days = Number(new URLSearchParams(location.search).get('days')) || 30;
if (!CHOICES.includes(days)) days = 30;
const SHOWN = 25; // rows drawn before "show all"
const LINES = 8; // ants drawn as their own line; the rest are summed
const PALETTE = ['#2457c5', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];
let data = null;
let plot = null;
let showAllBudgets = false;
let showAllMatrix = false;

const dayButtons = CHOICES.map((d) => el('button', { type: 'button', class: 'chip', dataset: { d: String(d) }, on: { click: () => { days = d; history.replaceState(null, '', '?days=' + d); load(); } } }, `${d} days`));
$('days').append(...dayButtons);

const dayLabel = (day) => {
  const t = Date.parse(day + 'T00:00:00');
  return Number.isFinite(t) ? new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' }) : clean(day, 12);
};

async function load() {
  dayButtons.forEach((b) => b.classList.toggle('on', Number(b.dataset.d) === days));
  $('csv').setAttribute('href', '/api/costs.csv?days=' + days);
  $('periodhead').textContent = `Last ${days} days`;
  try {
    data = await getJson('/api/costs?days=' + days);
  } catch (e) {
    document.querySelectorAll('.error-banner').forEach((b) => b.remove());
    banner($('main'), 'Could not load the costs: ' + e.message);
    $('summary').textContent = '';
    return;
  }
  document.querySelectorAll('.error-banner').forEach((b) => b.remove());
  render();
}

function render() {
  const ds = Array.isArray(data.days) ? data.days : [];
  const ants = (Array.isArray(data.ants) ? data.ants : []).slice().sort((a, b) => Number(b.totalUsd || 0) - Number(a.totalUsd || 0));
  const tot = Array.isArray(data.totalPerDay) ? data.totalPerDay.map(Number) : [];
  const today = tot.length ? tot[tot.length - 1] : 0;
  const month = ants.reduce((a, x) => a + Number(x.monthUsd || 0), 0);
  const dailyCaps = ants.filter((a) => Number(a.dailyBudgetUsd) > 0);
  const over = dailyCaps.filter((a) => Number(a.todayUsd || 0) >= Number(a.dailyBudgetUsd)).length;
  $('summary').textContent = `${ants.length.toLocaleString('en-US')} ant${ants.length === 1 ? '' : 's'} · ${ds.length ? dayLabel(ds[0]) + ' – ' + dayLabel(ds[ds.length - 1]) : ''}`;
  const stat = (label, value, sub) => el('div', { class: 'panel stat' }, el('div', { class: 'small muted' }, label), el('div', { class: 'statvalue' }, value), sub ? el('div', { class: 'small muted' }, sub) : null);
  clear($('stats'),
    stat(`Colony, last ${ds.length} days`, usd(data.totalUsd), ds.length ? `${usd(Number(data.totalUsd || 0) / ds.length)} a day on average` : null),
    stat('Colony today', usd(today)),
    stat('Colony this month', usd(month)),
    stat('At their daily cap', String(over), `of ${dailyCaps.length} ant${dailyCaps.length === 1 ? '' : 's'} with one`));
  const empty = $('empty');
  empty.classList.toggle('hidden', ants.length > 0);
  if (!ants.length) clear(empty, el('p', null, el('strong', null, 'No ants, no costs yet.')), el('p', null, 'Costs show up here after the first sessions.'));
  document.querySelectorAll('main > section.panel').forEach((s) => s.classList.toggle('hidden', ants.length === 0));
  renderChart(ds, ants, tot);
  renderBudgets(ants);
  renderMatrix(ds, ants, tot);
}

// The y axis of a big colony: $25k, not a $25000 cut at the chart's edge.
function axisUsd(v) {
  if (v >= 1000) return '$' + (v / 1000).toFixed(v >= 10000 ? 0 : 1).replace(/\.0$/, '') + 'k';
  return '$' + (v < 10 ? v.toFixed(2) : v.toFixed(0));
}

function renderChart(ds, ants, tot) {
  const box = $('chart');
  if (plot) { plot.destroy(); plot = null; }
  box.replaceChildren();
  if (!ds.length) return;
  if (!window.uPlot) { box.append(el('div', { class: 'muted' }, 'Chart unavailable (uPlot did not load).')); return; }
  const xs = ds.map((d) => Date.parse(d + 'T00:00:00') / 1000);
  const top = ants.slice(0, LINES).filter((a) => Number(a.totalUsd) > 0);
  const rest = ants.slice(top.length);
  // Stacked areas: each band is drawn as the running sum, the biggest sum first so smaller ones paint over it;
  // the legend shows each band's own value.
  const layers = top.map((a, i) => ({ label: clean(a.name, 40), color: PALETTE[i % PALETTE.length], raw: ds.map((_, k) => Number((a.perDay || [])[k] || 0)) }));
  if (rest.length) layers.push({ label: `${rest.length} other ant${rest.length === 1 ? '' : 's'}`, color: '#9aa3b2', raw: ds.map((_, k) => rest.reduce((s, a) => s + Number((a.perDay || [])[k] || 0), 0)) });
  const cum = [];
  layers.forEach((l, i) => cum.push(l.raw.map((v, k) => v + (i ? cum[i - 1][k] : 0))));
  const series = [{ value: (u, v) => (v == null ? '–' : new Date(v * 1000).toLocaleDateString()) }];
  const values = [xs];
  for (let i = layers.length - 1; i >= 0; i--) {
    const l = layers[i];
    series.push({ label: l.label, stroke: l.color, fill: l.color + '55', width: 1, points: { show: false }, value: (u, v, si, idx) => (idx == null ? '–' : usd(l.raw[idx])) });
    values.push(cum[i]);
  }
  $('chartnote').textContent = 'Stacked: the top of the pile is the colony\'s total for the day.' + (rest.length ? ` The ${top.length} costliest ants have a band each; the others share one.` : '');
  plot = new window.uPlot({
    width: Math.max(280, box.clientWidth), height: window.innerWidth < 600 ? 220 : 300,
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
    axes: [{ space: 60 }, { values: (u, vals) => vals.map(axisUsd), size: 60 }],
    series,
  }, values, box);
}

window.addEventListener('resize', () => {
  if (plot) plot.setSize({ width: Math.max(280, $('chart').clientWidth), height: window.innerWidth < 600 ? 220 : 300 });
});

function nameCell(a) {
  return el('td', { class: 'name' }, el('a', { href: antHref(a.name), class: 'ellipsis data', title: clean(a.name, 400) }, clean(a.name, 200)));
}

function renderBudgets(ants) {
  const frac = (a) => (Number(a.dailyBudgetUsd) > 0 ? Number(a.todayUsd || 0) / Number(a.dailyBudgetUsd) : -1);
  const sorted = ants.slice().sort((a, b) => frac(b) - frac(a) || Number(b.todayUsd || 0) - Number(a.todayUsd || 0));
  const shown = showAllBudgets ? sorted : sorted.slice(0, SHOWN);
  $('budgetrows').replaceChildren(...shown.map((a) => el('tr', null,
    nameCell(a),
    el('td', { class: 'budgetcell' }, budgetBar(a.todayUsd, a.dailyBudgetUsd)),
    el('td', { class: 'budgetcell' }, budgetBar(a.monthUsd, a.monthlyBudgetUsd)),
    el('td', { class: 'num' }, usd(a.totalUsd)))));
  more($('budgetmore'), sorted.length, shown.length, () => { showAllBudgets = true; renderBudgets(ants); });
}

function renderMatrix(ds, ants, tot) {
  const shown = showAllMatrix ? ants : ants.slice(0, SHOWN);
  clear($('matrixhead'), el('tr', null, el('th', { class: 'sticky' }, 'Ant'), el('th', { class: 'num' }, 'Total'),
    ...ds.map((d) => el('th', { class: 'num', title: clean(d, 12) }, dayLabel(d)))));
  const cell = (v, sessions) => {
    const n = Number(v || 0);
    return el('td', { class: 'num' + (n === 0 ? ' zero' : ''), title: sessions !== undefined ? `${usd(n, 2)} · ${sessions} session${sessions === 1 ? '' : 's'}` : null }, n === 0 ? '·' : usd(n));
  };
  $('matrixrows').replaceChildren(...shown.map((a) => el('tr', null,
    el('td', { class: 'name sticky' }, el('a', { href: antHref(a.name), class: 'ellipsis data', title: clean(a.name, 400) }, clean(a.name, 200))),
    el('td', { class: 'num strong' }, usd(a.totalUsd)),
    ...ds.map((_, k) => cell((a.perDay || [])[k], (a.sessionsPerDay || [])[k])))));
  clear($('matrixfoot'), el('tr', null, el('th', { class: 'sticky' }, 'Colony'), el('th', { class: 'num' }, usd(data.totalUsd)),
    ...ds.map((_, k) => el('th', { class: 'num' }, usd(tot[k] || 0)))));
  more($('matrixmore'), ants.length, shown.length, () => { showAllMatrix = true; renderMatrix(ds, ants, tot); });
}

function more(box, total, shown, fn) {
  box.replaceChildren();
  if (total > shown) {
    box.append(el('span', { class: 'muted' }, `${shown} of ${total} ants shown (the costliest first)`),
      el('button', { type: 'button', on: { click: fn } }, `Show all ${total}`));
  }
}

// Costs change slowly: refresh the figures when the colony's counts change, at most once a minute.
let lastLoad = Date.now();
live('/api/events', {
  open(again) { if (again) load(); },
  colony() { if (Date.now() - lastLoad > 60000) { lastLoad = Date.now(); load(); } },
});
load();
