// DOM helpers: every text goes in as a text node (never parsed as HTML).

/** An element with attributes (`class`, `href`, `data-*`, ...) and children (nodes or text). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = String(value);
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

/** Appends nodes and strings (as text), skipping null/undefined/false, flattening arrays. */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces every child of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** The words of a query worth highlighting (quotes and operators dropped). */
export function queryTerms(query) {
  return (query || '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}_./-]+/u)
    .map((term) => term.replace(/^[./-]+|[./-]+$/g, ''))
    .filter((term) => term.length > 1);
}

/** `text` as a fragment with every occurrence of a term wrapped in <mark>. */
export function highlight(text, terms) {
  const fragment = document.createDocumentFragment();
  const source = String(text ?? '');
  if (!terms.length) {
    fragment.append(source);
    return fragment;
  }
  const escaped = terms.map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // At the start of a word (a stem matches its longer forms, not the inside of other words).
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(${escaped.join('|')})`, 'giu');
  let last = 0;
  for (const match of source.matchAll(pattern)) {
    if (match.index > last) fragment.append(source.slice(last, match.index));
    fragment.append(el('mark', { text: match[0] }));
    last = match.index + match[0].length;
  }
  if (last < source.length) fragment.append(source.slice(last));
  return fragment;
}

const numberFormat = new Intl.NumberFormat('en-US');

export function thousands(value) {
  return value === null || value === undefined ? '–' : numberFormat.format(value);
}

/** `2026-03-31 09:00` in local time. */
export function when(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `1h 05m`, `3m 20s`, `12s`. */
export function duration(startIso, endIso) {
  if (!startIso || !endIso) return '–';
  let seconds = Math.max(0, Math.round((new Date(endIso) - new Date(startIso)) / 1000));
  if (!Number.isFinite(seconds)) return '–';
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  if (hours) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}

/** The part of an esker id after its kind (`session:abc` → `abc`), for page paths. */
export function idTail(id) {
  return String(id || '').replace(/^(session|turn|event):/, '');
}

export function sessionPath(id) {
  return `/session/${encodeURIComponent(idTail(id))}`;
}

export function eventPath(id) {
  return `/event/${encodeURIComponent(idTail(id))}`;
}

export function turnPath(id) {
  return `/turn/${encodeURIComponent(idTail(id))}`;
}

/** An in-app link (navigates without reload). */
export function link(href, ...children) {
  return el('a', { href, 'data-nav': true }, ...children);
}

export function errorBox(error) {
  return el('div', { class: 'error', role: 'alert', text: error?.message || String(error) });
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
