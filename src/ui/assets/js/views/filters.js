// The filter row shared by the search and sessions views: harness, project, time window (and
// event types for search), kept in the page's query string so every filtered page has a URL.

import { el } from '../dom.js';

export const SOURCES = [
  'claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode', 'qwen', 'amp', 'aider', 'cline',
  'roo', 'crush', 'factory', 'goose', 'kimi', 'pi', 'antigravity',
];

export const WINDOWS = [
  ['', 'any time'], ['today', 'today'], ['1d', 'last 24 h'], ['7d', 'last 7 days'],
  ['30d', 'last 30 days'], ['90d', 'last 90 days'], ['365d', 'last year'],
];

export const EVENT_TYPES = [
  'user_input', 'assistant_response', 'tool_response', 'tool_call', 'reasoning', 'compaction', 'system', 'runtime',
];

function select(name, options, value) {
  return el('select', { name, 'aria-label': name },
    options.map(([optionValue, label]) => el('option', { value: optionValue, selected: optionValue === (value || ''), text: label })));
}

/** The filter form; `onChange(params)` gets the page's new query parameters. */
export function filterRow(params, { eventTypes = false } = {}, onChange) {
  const form = el('form', { class: 'filters' });
  const harness = select('sources', [['', 'every harness'], ...SOURCES.map((s) => [s, s])], params.get('sources'));
  const project = el('input', { name: 'project', type: 'text', placeholder: 'project or directory', value: params.get('project') || '', 'aria-label': 'project' });
  const since = select('since', WINDOWS, params.get('since'));
  form.append(harness, project, since);
  let types = null;
  if (eventTypes) {
    const chosen = new Set((params.get('types') || '').split(',').filter(Boolean));
    types = el('fieldset', { class: 'types' }, el('legend', { text: 'event types' }),
      EVENT_TYPES.map((type) => el('label', {},
        el('input', { type: 'checkbox', name: 'types', value: type, checked: chosen.has(type) }), ` ${type.replace('_', ' ')}`)));
    form.append(types);
  }
  const emit = () => {
    const next = new URLSearchParams(params);
    const set = (key, value) => (value ? next.set(key, value) : next.delete(key));
    set('sources', harness.value);
    set('project', project.value.trim());
    set('since', since.value);
    if (types) {
      const checked = [...types.querySelectorAll('input:checked')].map((box) => box.value);
      set('types', checked.join(','));
    }
    onChange(next);
  };
  form.addEventListener('change', emit);
  let timer = null;
  project.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(emit, 400);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    emit();
  });
  return form;
}
