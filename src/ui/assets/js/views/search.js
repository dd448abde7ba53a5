// Search as you type: `esker search` over the API, filters in the URL, terms highlighted in
// each hit; a hit links to its event (the session reader opened at that turn).

import { get } from '../api.js';
import { el, errorBox, eventPath, highlight, link, queryTerms, replace, when } from '../dom.js';
import { filterRow } from './filters.js';

let ticket = 0;

export async function render(view, _match, params, { navigate, queryBox }) {
  const q = params.get('q') || '';
  if (document.activeElement !== queryBox) queryBox.value = q;
  const results = el('section', { class: 'results', 'data-state': 'idle' });
  const filters = filterRow(params, { eventTypes: true }, (next) => {
    navigate(`/search${next.toString() ? `?${next}` : ''}`, { replace: true });
  });
  replace(view, el('h1', { text: 'Search' }), filters, results);
  if (!q.trim()) {
    results.append(el('p', { class: 'hint', text: 'Type in the search box above (press / to focus it). Words, identifiers and "quoted phrases" match as in esker search.' }));
    return;
  }
  const mine = ++ticket;
  results.dataset.state = 'loading';
  results.append(el('p', { class: 'hint', text: 'Searching…' }));
  let data;
  try {
    data = await get('search', {
      q,
      sources: params.get('sources'),
      project: params.get('project'),
      since: params.get('since'),
      until: params.get('until'),
      types: params.get('types'),
      limit: 30,
    });
  } catch (error) {
    if (mine === ticket) {
      replace(results, errorBox(error));
      results.dataset.state = 'error';
    }
    return;
  }
  if (mine !== ticket) return;
  const terms = queryTerms(q);
  const hits = data.results || [];
  replace(results,
    el('p', { class: 'count', text: hits.length ? `${hits.length} hit${hits.length === 1 ? '' : 's'}` : `No hits for “${q}”.` }),
    el('ol', { class: 'hits' }, hits.map((hit) => hitItem(hit, terms))));
  results.dataset.state = 'done';
}

function hitItem(hit, terms) {
  const session = hit.session || {};
  const event = hit.event || {};
  const project = hit.facts?.project;
  return el('li', { class: 'hit' },
    link(eventPath(hit.open?.event_id || hit.id),
      el('div', { class: 'hit-head' },
        el('span', { class: 'title' }, highlight(session.title || '(untitled)', terms)),
        el('span', { class: 'badge harness', text: session.harness || session.source }),
        project ? el('span', { class: 'badge project', text: project }) : null,
        el('span', { class: 'badge type', text: (event.type || '').replace('_', ' ') }),
        el('time', { datetime: event.timestamp || '', text: when(event.timestamp || session.updated_at) }),
        el('span', { class: 'turn-no', text: hit.turn ? `turn ${hit.turn.ordinal}` : '' })),
      el('p', { class: 'snippet' }, highlight(hit.snippet?.text || '', terms))));
}
