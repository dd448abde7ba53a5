// Sessions, newest first (`esker sessions` over the API): harness, project and time filters in
// the URL; title, harness, project, start, duration, turns and tokens per row.

import { get } from '../api.js';
import { duration, el, errorBox, link, replace, sessionPath, thousands, when } from '../dom.js';
import { filterRow } from './filters.js';

export async function render(view, _match, params, { navigate }) {
  const table = el('div', { class: 'table-wrap', 'data-state': 'loading' }, el('p', { class: 'hint', text: 'Loading…' }));
  const filters = filterRow(params, {}, (next) => navigate(`/sessions${next.toString() ? `?${next}` : ''}`, { replace: true }));
  replace(view, el('h1', { text: 'Sessions' }), filters, table);
  await fill(table, params);
}

export async function refresh(view, _match, params) {
  const table = view.querySelector('.table-wrap');
  if (table) await fill(table, params);
}

async function fill(table, params) {
  let data;
  try {
    data = await get('sessions', {
      sources: params.get('sources'),
      project: params.get('project'),
      since: params.get('since'),
      until: params.get('until'),
      limit: params.get('limit') || 200,
    });
  } catch (error) {
    replace(table, errorBox(error));
    return;
  }
  const rows = (data.sessions || []).map(row);
  replace(table,
    el('p', { class: 'count', text: `${rows.length} session${rows.length === 1 ? '' : 's'}` }),
    el('table', { class: 'sessions' },
      el('thead', {}, el('tr', {}, ['Title', 'Harness', 'Project', 'Started', 'Duration', 'Turns', 'Tokens'].map((name) => el('th', { text: name })))),
      el('tbody', {}, rows)));
  table.dataset.state = 'done';
}

function row(item) {
  const s = item.session || {};
  const tokens = item.usage?.total_tokens ?? s.usage?.total_tokens;
  return el('tr', { 'data-session': item.id },
    el('td', { class: 'title' }, link(sessionPath(item.id), s.title || '(untitled)')),
    el('td', { text: s.harness || s.source }),
    el('td', { text: item.facts?.project || '–' }),
    el('td', {}, el('time', { datetime: s.started_at || '', text: when(s.started_at) })),
    el('td', { class: 'num', text: duration(s.started_at, s.updated_at) }),
    el('td', { class: 'num', text: s.turn_count }),
    el('td', { class: 'num', text: thousands(tokens) }));
}
