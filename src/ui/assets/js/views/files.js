// File attention: every session that read or changed a file (the file_attention tool, across
// every project), most recent first, each linking to the session; without a path, the files
// touched in the most sessions, each linking to its answer.

import { get, tool } from '../api.js';
import { el, errorBox, link, replace, sessionPath, when } from '../dom.js';

export async function render(view, _match, params, { navigate }) {
  const path = params.get('path') || '';
  const mutations = params.get('mutations') === '1';
  const input = el('input', { name: 'path', type: 'text', value: path, placeholder: 'src/lib.rs', 'aria-label': 'file path' });
  const onlyChanges = el('input', { type: 'checkbox', name: 'mutations', checked: mutations });
  const form = el('form', { class: 'filters' }, input, el('label', {}, onlyChanges, ' changes only'), el('button', { type: 'submit', class: 'button', text: 'Find' }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (input.value.trim()) next.set('path', input.value.trim());
    if (onlyChanges.checked) next.set('mutations', '1');
    navigate(`/files${next.toString() ? `?${next}` : ''}`);
  });
  const body = el('div', { class: 'files' });
  replace(view, el('h1', { text: 'File attention' }), form, body);
  if (!path) {
    body.append(el('p', { class: 'hint', text: 'Which sessions touched a file? Enter a project-relative path (matched by suffix across worktrees), or pick one of the files touched most.' }));
    await renderTop(body);
    return;
  }
  let data;
  try {
    data = await tool('file_attention', { path, scope: 'all', mutations_only: mutations, limit: 50 });
  } catch (error) {
    replace(body, errorBox(error));
    return;
  }
  const items = data.sessions || [];
  body.dataset.state = 'done';
  replace(body,
    el('p', { class: 'count', text: `${items.length} session${items.length === 1 ? '' : 's'} touched ${path}` }),
    el('table', { class: 'sessions' },
      el('thead', {}, el('tr', {}, ['Session', 'Harness', 'Touches', 'Tools', 'Last touch'].map((name) => el('th', { text: name })))),
      el('tbody', {}, items.map((item) => {
        const session = item.session || {};
        const id = session.id || item.id;
        return el('tr', {},
          el('td', {}, link(sessionPath(id), id)),
          el('td', { text: session.harness || session.source || '' }),
          el('td', { class: 'num', text: session.touch_count ?? '' }),
          el('td', { text: (session.tools || []).join(', ') }),
          el('td', { text: when(session.last_touch) }));
      }))));
}

// The files touched in the most sessions (GET /api/files/top).
async function renderTop(body) {
  let data;
  try {
    data = await get('files/top', { limit: 25 });
  } catch (error) {
    body.append(errorBox(error));
    return;
  }
  const files = data.files || [];
  body.dataset.state = 'done';
  body.append(
    el('h2', { text: 'Touched most' }),
    el('table', { class: 'top-files' },
      el('thead', {}, el('tr', {}, ['File', 'Sessions', 'Touches', 'Changes', 'Last touch'].map((name) => el('th', { text: name })))),
      el('tbody', {}, files.map((file) => el('tr', {},
        el('td', {}, link(`/files?path=${encodeURIComponent(file.tail)}`, file.tail)),
        el('td', { class: 'num', text: file.sessions }),
        el('td', { class: 'num', text: file.touches }),
        el('td', { class: 'num', text: file.changes }),
        el('td', { text: when(file.last_touch) }))))));
}
