// Horizontal bar charts drawn with elements (widths set through the CSSOM, which the
// Content-Security-Policy allows; no inline styles, no canvas library).

import { el, thousands } from '../dom.js';

/** One bar per `[label, value]`, scaled to the largest. */
export function barChart(entries, { unit = '' } = {}) {
  const largest = Math.max(1, ...entries.map(([, value]) => value || 0));
  return el('div', { class: 'chart', role: 'img', 'aria-label': 'bar chart' },
    entries.map(([label, value]) => {
      const bar = el('span', { class: 'bar' });
      bar.style.width = `${Math.max(0.5, (100 * (value || 0)) / largest)}%`;
      return el('div', { class: 'chart-row' },
        el('span', { class: 'chart-label', title: label, text: label }),
        el('span', { class: 'chart-track' }, bar),
        el('span', { class: 'chart-value', text: `${thousands(value || 0)}${unit}` }));
    }));
}
