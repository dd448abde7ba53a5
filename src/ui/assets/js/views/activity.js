// Activity: sessions started per day (from the sessions list), newest day first.

import { get } from '../api.js';
import { el, errorBox, replace } from '../dom.js';
import { barChart } from './chart.js';

export async function render(view) {
  const body = el('div', { class: 'activity', 'data-state': 'loading' }, el('p', { class: 'hint', text: 'Loading…' }));
  replace(view, el('h1', { text: 'Activity' }), el('p', { class: 'hint', text: 'Sessions started per day (the newest 1000 sessions).' }), body);
  await fill(body);
}

export async function refresh(view) {
  const body = view.querySelector('.activity');
  if (body) await fill(body);
}

async function fill(body) {
  let data;
  try {
    data = await get('sessions', { limit: 1000 });
  } catch (error) {
    replace(body, errorBox(error));
    return;
  }
  const perDay = new Map();
  for (const item of data.sessions || []) {
    const started = item.session?.started_at;
    if (!started) continue;
    const day = started.slice(0, 10);
    perDay.set(day, (perDay.get(day) || 0) + 1);
  }
  const days = [...perDay.entries()].sort((a, b) => b[0].localeCompare(a[0]));
  replace(body, days.length ? barChart(days) : el('p', { class: 'hint', text: 'No sessions yet.' }));
  body.dataset.state = 'done';
}
