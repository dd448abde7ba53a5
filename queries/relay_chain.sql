-- relay get_conversation / list_sessions(slug): the sessions a slug names, in chain order
-- (started_at, then updated_at — continued Claude sessions copy the conversation they
-- continue, so they start together, src/store/chains.rs — then id): the members of the chain of that slug, the members of the slug-less
-- chain whose id is $2 (relay slug "chain:<source>-<native id>"), or the one session that
-- carries the slug alone (not a sub-agent); under --project-only, only the members inside the
-- project. $1: slug; $2: chain id or ''; $3, $4: whether the server is project-scoped and its
-- session set's name (in_session_set).
SELECT
  session_id,
  native_id,
  source,
  to_char(started_at, '%Y-%m') AS month,
  cwd,
  project,
  git_branch,
  started_at,
  updated_at,
  session_slug,
  chain_id,
  chain_slug,
  chain_number,
  chain_length,
  parent_session_id
FROM sessions
WHERE (
    chain_slug = $1
    OR (chain_slug IS NULL AND chain_id = $2)
    OR (chain_id IS NULL AND parent_session_id IS NULL AND session_slug = $1)
  )
  AND (NOT $3 OR in_session_set(session_id, $4))
ORDER BY started_at, updated_at, session_id
