// esker ui: the router (stable paths, history.pushState), the top bar's search box and the
// live link (server-sent events when the indexer commits).

import { debounce, errorBox, replace } from './dom.js';
import * as search from './views/search.js';
import * as sessions from './views/sessions.js';
import * as session from './views/session.js';
import * as usage from './views/usage.js';
import * as activity from './views/activity.js';
import * as files from './views/files.js';
import * as memory from './views/memory.js';
import * as status from './views/status.js';

const ROUTES = [
  [/^\/(search)?$/, search, 'search'],
  [/^\/sessions$/, sessions, 'sessions'],
  [/^\/(session|turn|event)\/([A-Za-z0-9_-]+)$/, session, 'sessions'],
  [/^\/usage$/, usage, 'usage'],
  [/^\/activity$/, activity, 'activity'],
  [/^\/files$/, files, 'files'],
  [/^\/memory$/, memory, 'memory'],
  [/^\/status$/, status, 'status'],
];

const view = document.getElementById('view');
const queryBox = document.getElementById('q');
let current = null;

/** Goes to `href` inside the app (no reload); `replace` rewrites the history entry. */
export function navigate(href, { replace: replacing = false } = {}) {
  if (replacing) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  render();
}

async function render() {
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  params.delete('token');
  const route = ROUTES.find(([pattern]) => pattern.test(path));
  document.querySelectorAll('.nav a').forEach((a) => {
    a.classList.toggle('active', route && a.dataset.section === route[2]);
  });
  if (!route) {
    current = null;
    replace(view, errorBox(new Error(`no page at ${path}`)));
    return;
  }
  const [pattern, module] = route;
  const match = path.match(pattern);
  current = { module, match, params, context: { navigate, queryBox } };
  if (module !== search && document.activeElement !== queryBox) queryBox.value = '';
  try {
    await module.render(view, match, params, current.context);
  } catch (error) {
    replace(view, errorBox(error));
  }
  // The page's content is on screen: a mark the latency bench (benches/ui_latency) and the
  // browser tests read.
  document.body.dataset.rendered = path + location.search;
  performance.mark('esker:rendered');
}

/** A commit arrived: the view refreshes what it shows, keeping its state. */
async function refresh() {
  if (!current) return;
  const { module, match, params, context } = current;
  try {
    if (module.refresh) await module.refresh(view, match, params, context);
    else await module.render(view, match, params, context);
  } catch (error) {
    console.warn('refresh failed', error);
  }
}

function interceptLinks() {
  document.addEventListener('click', (event) => {
    const anchor = event.target.closest('a[data-nav]');
    if (!anchor || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
  window.addEventListener('popstate', render);
}

function wireSearchBox() {
  const run = debounce(() => {
    const q = queryBox.value.trim();
    const onSearch = /^\/(search)?$/.test(location.pathname);
    const params = onSearch ? new URLSearchParams(location.search) : new URLSearchParams();
    params.delete('token');
    if (q) params.set('q', q);
    else params.delete('q');
    const href = `/search${params.toString() ? `?${params}` : ''}`;
    navigate(href, { replace: onSearch });
  }, 250);
  queryBox.addEventListener('input', run);
  document.getElementById('searchbar').addEventListener('submit', (event) => {
    event.preventDefault();
    run();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === '/' && document.activeElement.tagName !== 'INPUT' && document.activeElement.tagName !== 'TEXTAREA') {
      event.preventDefault();
      queryBox.focus();
    }
  });
}

function watchCommits() {
  const badge = document.getElementById('live');
  let generation = null;
  const source = new EventSource('/api/events');
  source.addEventListener('generation', (event) => {
    const next = Number(event.data);
    badge.textContent = `live · gen ${next}`;
    badge.classList.add('on');
    document.body.dataset.generation = String(next);
    if (generation !== null && next !== generation) refresh();
    generation = next;
  });
  source.addEventListener('error', () => {
    badge.textContent = 'offline';
    badge.classList.remove('on');
  });
}

function start() {
  // The start URL carries the token once; the cookie carries it from here on.
  const url = new URL(location.href);
  if (url.searchParams.has('token')) {
    url.searchParams.delete('token');
    history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  interceptLinks();
  wireSearchBox();
  watchCommits();
  render();
}

start();
