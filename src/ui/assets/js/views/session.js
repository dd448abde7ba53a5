// The session reader: facts, links along chains and to sub-agents, each turn's prompt and
// reply; a turn unfolds into its events (reasoning, tool calls with their arguments, tool
// results, each folded until opened). /turn/ID and /event/ID open the session at that turn
// (and event). Copy the resume command; export as Markdown.

import { get, tool } from '../api.js';
import { duration, el, errorBox, eventPath, idTail, link, replace, sessionPath, thousands, turnPath, when } from '../dom.js';

/** What the open page shows, kept across refreshes (unfolded turns stay unfolded). */
const state = { sessionId: null, focusTurn: null, focusEvent: null, openTurns: new Set() };

export async function render(view, match) {
  const [, kind, tail] = match;
  const id = `${kind}:${decodeURIComponent(tail)}`;
  replace(view, el('p', { class: 'hint', text: 'Opening…' }));
  let sessionId = id;
  let focusTurn = null;
  let focusEvent = null;
  if (kind === 'turn') {
    const turn = await tool('open', { id });
    sessionId = turn.turn.session_id;
    focusTurn = id;
  } else if (kind === 'event') {
    const event = await tool('open', { id });
    sessionId = event.event.session_id;
    focusTurn = event.event.turn_id;
    focusEvent = id;
  }
  if (state.sessionId !== sessionId) state.openTurns = new Set();
  Object.assign(state, { sessionId, focusTurn, focusEvent });
  if (focusTurn) state.openTurns.add(focusTurn);
  await draw(view, { scroll: true });
}

/** A commit: the session is read again; unfolded turns stay unfolded. */
export async function refresh(view) {
  if (state.sessionId) await draw(view, { scroll: false });
}

/** Turns drawn at once (at least up to the focused one); the rest follow TURN_SLICE at a
 * time, one slice per frame, so a 1,000-turn session paints its first turns at once and the
 * page never stops answering while the others come in. */
const FIRST_TURNS = 40;
const TURN_SLICE = 80;
let drawing = 0;

async function draw(view, { scroll }) {
  const opened = await tool('open', { id: state.sessionId });
  const all = opened.turns || [];
  const focusIndex = state.focusTurn ? all.findIndex((turn) => turn.id === state.focusTurn) : -1;
  const first = Math.max(FIRST_TURNS, focusIndex + 1);
  const turns = el('div', { class: 'turns', 'data-total': all.length, 'data-first': Math.min(first, all.length) }, all.slice(0, first).map((turn) => turnSection(turn)));
  replace(view, sessionHeader(opened), turns);
  view.dataset.session = state.sessionId;
  const unfolding = [...turns.querySelectorAll('details.turn-events[open]')].map((details) => loadTurnEvents(details));
  await Promise.all(unfolding);
  drawRest(turns, all, first, ++drawing);
  if (scroll) {
    const target = (state.focusEvent && document.getElementById(domId(state.focusEvent)))
      || (state.focusTurn && document.getElementById(domId(state.focusTurn)));
    if (target) target.scrollIntoView({ block: 'center' });
  }
}

/** Appends `all[from..]` to `turns`, a slice per animation frame, until done or until another
 * draw starts (`run` is no longer the newest). */
function drawRest(turns, all, from, run) {
  if (from >= all.length) {
    turns.dataset.drawn = 'all';
    return;
  }
  requestAnimationFrame(() => {
    if (run !== drawing || !turns.isConnected) return;
    const slice = all.slice(from, from + TURN_SLICE).map((turn) => turnSection(turn));
    turns.append(...slice);
    slice.forEach((section) => section.querySelectorAll('details.turn-events[open]').forEach((details) => loadTurnEvents(details)));
    drawRest(turns, all, from + TURN_SLICE, run);
  });
}

function domId(id) {
  return id.replace(':', '-');
}

function sessionHeader(opened) {
  const s = opened.session || {};
  const t = opened.traversal || {};
  const facts = el('dl', { class: 'facts' },
    fact('harness', s.harness || s.source),
    fact('project', s.project),
    fact('directory', s.cwd),
    fact('branch', s.git_branch),
    fact('model', (s.models && s.models.length ? s.models.join(', ') : s.model)),
    fact('started', when(s.started_at)),
    fact('duration', duration(s.started_at, s.updated_at)),
    fact('turns', s.turn_count),
    fact('tokens', s.usage ? thousands(s.usage.total_tokens) : null),
    fact('id', s.id));
  const links = el('nav', { class: 'session-links' },
    t.parent_session_id ? link(sessionPath(t.parent_session_id), '↑ parent session') : null,
    t.forked_from_session_id ? link(sessionPath(t.forked_from_session_id), '⑂ forked from') : null,
    t.previous_session_id ? link(sessionPath(t.previous_session_id), '← previous in chain') : null,
    t.next_session_id ? link(sessionPath(t.next_session_id), 'next in chain →') : null,
    (t.child_session_ids || []).length
      ? el('span', { class: 'children' }, 'sub-agents: ', t.child_session_ids.map((child, index) => [index ? ', ' : '', link(sessionPath(child), idTail(child))]))
      : null);
  const actions = el('div', { class: 'actions' });
  const resumeSlot = el('span', { class: 'resume' });
  actions.append(
    resumeSlot,
    copyButton('Copy esker show command', () => `esker show ${s.id}`),
    el('a', { class: 'button', href: `/api/export/${encodeURIComponent(s.id)}`, download: `${idTail(s.id)}.md`, text: 'Export Markdown' }));
  get(`resume/${encodeURIComponent(s.id)}`).then((answer) => {
    if (answer.command) {
      replace(resumeSlot, copyButton('Copy resume command', () => answer.command), el('code', { class: 'resume-command', text: answer.command }));
    }
  }).catch(() => {});
  return el('header', { class: 'session-head' },
    el('h1', { text: s.title || '(untitled)' }),
    s.session_summary ? el('p', { class: 'summary', text: s.session_summary }) : null,
    facts, links, actions);
}

function fact(label, value) {
  if (value === null || value === undefined || value === '') return null;
  return el('div', {}, el('dt', { text: label }), el('dd', { text: value }));
}

function copyButton(label, text) {
  const button = el('button', { type: 'button', class: 'button', text: label });
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed: select the text';
    }
    setTimeout(() => { button.textContent = label; }, 1500);
  });
  return button;
}

function turnSection(turn) {
  const focused = turn.id === state.focusTurn;
  const events = el('details', { class: 'turn-events', 'data-turn': turn.id, open: state.openTurns.has(turn.id) },
    el('summary', { text: `All ${turn.event_count} events${turn.tools_called?.length ? ` · tools: ${turn.tools_called.join(', ')}` : ''}` }),
    el('div', { class: 'events' }));
  events.addEventListener('toggle', () => {
    if (events.open) {
      state.openTurns.add(turn.id);
      loadTurnEvents(events);
    } else {
      state.openTurns.delete(turn.id);
    }
  });
  return el('section', { class: `turn${focused ? ' focused' : ''}`, id: domId(turn.id), 'data-turn': turn.id },
    el('div', { class: 'turn-head' },
      el('a', { href: turnPath(turn.id), 'data-nav': true, class: 'turn-no', text: `Turn ${turn.ordinal}` }),
      el('time', { datetime: turn.started_at || '', text: when(turn.started_at) }),
      turn.usage ? el('span', { class: 'tokens', text: `${thousands(turn.usage.total_tokens)} tokens` }) : null,
      turn.completed ? null : el('span', { class: 'badge', text: 'incomplete' })),
    turn.user_input ? message('prompt', 'You', turn.user_input) : null,
    turn.final_response ? message('reply', 'Agent', turn.final_response) : null,
    events);
}

function message(kind, who, part) {
  return el('div', { class: `message ${kind}` },
    el('div', { class: 'who', text: who }),
    el('div', { class: 'text', text: part.text + (part.truncated ? ' …' : '') }),
    part.truncated ? el('a', { href: eventPath(part.event_id), 'data-nav': true, class: 'more', text: 'full text' }) : null);
}

/** Fills a turn's event list (once). */
async function loadTurnEvents(details) {
  if (details.dataset.loaded) return;
  details.dataset.loaded = 'loading';
  const box = details.querySelector('.events');
  try {
    const opened = await tool('open', { id: details.dataset.turn });
    replace(box, (opened.events || []).map(eventRow));
    details.dataset.loaded = 'done';
    if (state.focusEvent) {
      const row = document.getElementById(domId(state.focusEvent));
      if (row) {
        row.classList.add('focused');
        const fold = row.querySelector('details');
        if (fold) fold.open = true;
      }
    }
  } catch (error) {
    replace(box, errorBox(error));
    delete details.dataset.loaded;
  }
}

const FOLDED = { reasoning: 'reasoning', tool_call: 'tool-call', tool_response: 'tool-result' };

function eventRow(event) {
  const type = event.type || 'unknown';
  const head = el('span', { class: 'event-head' },
    el('span', { class: `badge type ${type}`, text: type.replace('_', ' ') }),
    event.tool_name ? el('span', { class: 'tool-name', text: event.tool_name }) : null,
    el('a', { href: eventPath(event.id), 'data-nav': true, class: 'permalink', title: 'link to this event', text: '#' }));
  const row = el('div', { class: `event ${type}`, id: domId(event.id), 'data-event': event.id });
  if (FOLDED[type]) {
    const fold = el('details', { class: FOLDED[type] },
      el('summary', {}, head, el('span', { class: 'preview', text: event.summary || '' })),
      el('div', { class: 'full' }));
    fold.addEventListener('toggle', () => {
      if (fold.open) loadEventContent(fold, event.id);
    });
    row.append(fold);
  } else {
    row.append(head, el('div', { class: 'text', text: event.summary || '' }));
    if (event.truncated) {
      const fold = el('details', { class: 'more-text' }, el('summary', { text: 'full text' }), el('div', { class: 'full' }));
      fold.addEventListener('toggle', () => {
        if (fold.open) loadEventContent(fold, event.id);
      });
      row.append(fold);
    }
  }
  return row;
}

/** Fills a folded event with its full content (once). */
async function loadEventContent(fold, eventId) {
  if (fold.dataset.loaded) return;
  fold.dataset.loaded = 'loading';
  const box = fold.querySelector('.full');
  try {
    const opened = await tool('open', { id: eventId });
    const content = opened.content || {};
    const parts = [];
    if (content.format === 'tool_call') {
      parts.push(el('div', { class: 'label', text: 'arguments' }),
        el('pre', { class: 'tool-args', text: pretty(content.arguments ?? content.text) }));
    } else if (content.format === 'tool_response') {
      if (content.exit_code !== null && content.exit_code !== undefined) {
        parts.push(el('div', { class: `label exit${content.exit_code === 0 ? '' : ' failed'}`, text: `exit code ${content.exit_code}` }));
      }
      parts.push(el('pre', { class: 'tool-output', text: content.text || '' }));
    } else {
      parts.push(el('div', { class: 'text', text: content.text || '' }));
    }
    replace(box, parts);
    fold.dataset.loaded = 'done';
  } catch (error) {
    replace(box, errorBox(error));
    delete fold.dataset.loaded;
  }
}

function pretty(value) {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}
