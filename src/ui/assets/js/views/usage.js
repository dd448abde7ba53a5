// Token usage (`esker usage --json` over the API) by day, week, month, model, harness, project
// or session: a bar chart of total tokens and the table with its TOTAL row (whose cells carry
// their raw numbers in data-value).

import { get } from '../api.js';
import { el, errorBox, replace, thousands } from '../dom.js';
import { WINDOWS } from './filters.js';
import { barChart } from './chart.js';

const GROUPINGS = [['day', 'day'], ['week', 'week'], ['month', 'month'], ['model', 'model'], ['source', 'harness'], ['project', 'project'], ['session', 'session']];
const COLUMNS = ['sessions', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_tokens', 'total_tokens'];

export async function render(view, _match, params, { navigate }) {
  const by = params.get('by') || 'day';
  const form = el('form', { class: 'filters' },
    el('label', {}, 'by ', el('select', { name: 'by' }, GROUPINGS.map(([value, label]) => el('option', { value, selected: value === by, text: label })))),
    el('select', { name: 'since', 'aria-label': 'since' }, WINDOWS.map(([value, label]) => el('option', { value, selected: value === (params.get('since') || ''), text: label }))));
  form.addEventListener('change', () => {
    const next = new URLSearchParams();
    next.set('by', form.elements.by.value);
    if (form.elements.since.value) next.set('since', form.elements.since.value);
    navigate(`/usage?${next}`, { replace: true });
  });
  const body = el('div', { class: 'usage', 'data-state': 'loading' }, el('p', { class: 'hint', text: 'Loading…' }));
  replace(view, el('h1', { text: 'Usage' }), form, body);
  await fill(body, by, params);
}

export async function refresh(view, _match, params) {
  const body = view.querySelector('.usage');
  if (body) await fill(body, params.get('by') || 'day', params);
}

async function fill(body, by, params) {
  let data;
  try {
    data = await get('usage', { by, since: params.get('since'), until: params.get('until') });
  } catch (error) {
    replace(body, errorBox(error));
    return;
  }
  const rows = data.rows || [];
  const chronological = ['day', 'week', 'month'].includes(by);
  const ordered = chronological ? rows : [...rows].sort((a, b) => b.total_tokens - a.total_tokens);
  const label = by === 'source' ? 'harness' : by;
  replace(body,
    el('h2', { text: `Total tokens by ${label}` }),
    rows.length ? barChart(ordered.map((row) => [row.key, row.total_tokens])) : el('p', { class: 'hint', text: 'No token usage recorded in this window.' }),
    el('table', { class: 'usage-table' },
      el('thead', {}, el('tr', {}, el('th', { text: label }), COLUMNS.map((name) => el('th', { class: 'num', text: name.replace(/_/g, ' ') })))),
      el('tbody', {}, ordered.map((row) => el('tr', {}, el('td', { text: row.key }), COLUMNS.map((name) => numberCell(row[name]))))),
      el('tfoot', {}, el('tr', { class: 'total' }, el('th', { text: 'TOTAL' }), COLUMNS.map((name) => numberCell(data.total?.[name], name))))));
  body.dataset.state = 'done';
}

function numberCell(value, totalName) {
  return el('td', { class: 'num', 'data-value': value ?? 0, 'data-total': totalName, text: thousands(value ?? 0) });
}
