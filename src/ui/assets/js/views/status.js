// Index status: the get_ingest_status tool's answer (health, coverage, freshness).

import { tool } from '../api.js';
import { el, errorBox, replace } from '../dom.js';

export async function render(view) {
  replace(view, el('h1', { text: 'Index status' }), el('p', { class: 'hint', text: 'Loading…' }));
  await refresh(view);
}

export async function refresh(view) {
  try {
    const data = await tool('get_ingest_status', {});
    replace(view, el('h1', { text: 'Index status' }), el('pre', { class: 'status', text: JSON.stringify(data, null, 2) }));
  } catch (error) {
    replace(view, el('h1', { text: 'Index status' }), errorBox(error));
  }
}
