-- esker serve --project-only: the sessions inside the launch project (src/service/project_scope.rs),
-- those whose working directory matches the pattern of the project's roots.
-- $1: regular expression of the project's roots (matched against cwd).
SELECT session_id
FROM sessions
WHERE regexp_like(cwd, $1)
