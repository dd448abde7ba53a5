// Memory entries (the memory profile's notes): the newest, or those matching a query; each
// with its type, project, age and body.

import { get } from '../api.js';
import { el, errorBox, highlight, queryTerms, replace, when } from '../dom.js';

export async function render(view, _match, params, { navigate }) {
  const q = params.get('q') || '';
  const input = el('input', { name: 'q', type: 'text', value: q, placeholder: 'search memory entries', 'aria-label': 'search memory entries' });
  const form = el('form', { class: 'filters' }, input, el('button', { type: 'submit', class: 'button', text: 'Search' }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    navigate(value ? `/memory?q=${encodeURIComponent(value)}` : '/memory');
  });
  const body = el('div', { class: 'memory', 'data-state': 'loading' });
  replace(view, el('h1', { text: 'Memory' }), form, body);
  await fill(body, q);
}

export async function refresh(view, _match, params) {
  const body = view.querySelector('.memory');
  if (body) await fill(body, params.get('q') || '');
}

async function fill(body, q) {
  let data;
  try {
    data = await get('memory', { q });
  } catch (error) {
    replace(body, errorBox(error));
    return;
  }
  const terms = queryTerms(q);
  const items = data.items || [];
  replace(body,
    el('p', { class: 'count', text: items.length ? `${items.length} entr${items.length === 1 ? 'y' : 'ies'}` : 'No memory entries.' }),
    items.map((item) => el('article', { class: 'memory-entry' },
      el('h3', {}, highlight(item.title || '(untitled)', terms)),
      el('div', { class: 'facts' },
        el('span', { class: 'badge', text: item.entry_type || item.type || 'note' }),
        item.project ? el('span', { class: 'badge project', text: item.project }) : null,
        el('time', { text: when(item.created_at) }),
        el('code', { text: item.id })),
      item.body ? el('p', { class: 'text' }, highlight(item.body, terms)) : null)));
  body.dataset.state = 'done';
}
