// The JSON API of esker ui (same origin; the token travels in the HttpOnly cookie).

async function asJson(response) {
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const message = body?.error?.message || `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
}

/** Runs an MCP tool by name; resolves to its envelope's `data`, rejects with its error. */
export async function tool(name, args = {}) {
  const response = await fetch(`/api/tool/${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
    credentials: 'same-origin',
  });
  const envelope = await asJson(response);
  if (envelope?.error) {
    throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  }
  return envelope.data;
}

/** GET /api/<path> with the non-empty `params`. */
export async function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') query.set(key, value);
  }
  const suffix = query.toString() ? `?${query}` : '';
  return asJson(await fetch(`/api/${path}${suffix}`, { credentials: 'same-origin' }));
}
