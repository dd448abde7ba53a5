//! `esker serve --project-only` (issue #13) and a team server's token scopes (issue #54): what
//! a scoped server answers for. [`ProjectScope`] is a project (the session's working directory
//! is a root of the project, a checkout or linked worktree of the same repository, or lies
//! below one); [`ServingScope`] adds the machines a token may read in a pulled team store.
//! A generation's in-scope session ids are computed once ([`sessions_in_scope`]): the tantivy
//! search and `open` read that set, and SQL reads the same set through
//! `in_session_set(session_id, $n)` (`query::session_set`), registered under the scope's
//! [`ServingScope::key`].

use std::collections::HashSet;
use std::path::Path;

use regex::Regex;
use serde_json::Value;

use crate::indexer::touches::paths;
use crate::service::catalog::{CatalogError, NamedQuery, WarmSnapshot, text_parameter};
use crate::service::directory::TURN_BY_ID;
use crate::service::envelope::ToolError;
use crate::service::file_attention::tail::{LaunchProject, launch_project, roots_pattern};
use crate::service::validate::{IdKind, McpId};
use crate::team::pull::sessions_of_machines;

/// The sessions whose working directory matches the scope's pattern.
pub const SESSIONS_IN_SCOPE: NamedQuery = NamedQuery {
    name: "project_sessions",
    sql: include_str!("../../queries/project_sessions.sql"),
};

/// The profiles whose every tool answers through the scoped service layer: the tantivy search
/// (the in-scope session set), `open` ([`admits`]) and the SQL of their listings and id lookups
/// ([`WarmSnapshot::scope_parameters`]).
pub const SCOPED_PROFILES: [&str; 3] = ["moraine", "agtrace", "relay"];

/// Why the scope could not be established.
#[derive(Debug, thiserror::Error)]
pub enum ProjectScopeError {
    #[error("the launch directory {0} does not exist")]
    NoLaunchDirectory(String),
    #[error(
        "--project-only scopes the tools of the moraine, agtrace and relay profiles only; the {0} profile is not scoped"
    )]
    UnscopedProfile(String),
    #[error("the project roots do not form a valid pattern: {0}")]
    Pattern(#[from] regex::Error),
    #[error("a project scope needs at least one root directory")]
    NoRoots,
    #[error("project root {0:?} is not an absolute path")]
    RelativeRoot(String),
}

/// The project a `--project-only` server answers for.
#[derive(Debug, Clone)]
pub struct ProjectScope {
    project: LaunchProject,
    /// [`roots_pattern`] of the project's roots, compiled.
    cwd_pattern: Regex,
}

impl ProjectScope {
    /// The scope of a server launched in `launch_dir`: its Git checkout (with every linked
    /// worktree of it), or the directory itself outside Git.
    pub fn of_launch_dir(launch_dir: &Path) -> Result<ProjectScope, ProjectScopeError> {
        let project = launch_project(launch_dir).ok_or_else(|| {
            ProjectScopeError::NoLaunchDirectory(launch_dir.display().to_string())
        })?;
        ProjectScope::of_project(project)
    }

    pub fn of_project(project: LaunchProject) -> Result<ProjectScope, ProjectScopeError> {
        let cwd_pattern = Regex::new(&roots_pattern(&project.roots))?;
        Ok(ProjectScope {
            project,
            cwd_pattern,
        })
    }

    /// The scope of a team server's token (issue #54): sessions run under any of `roots`, absolute
    /// directories as the sessions recorded them. A root that exists here also brings the
    /// other worktrees of its repository, as `--project-only` does; one that does not (the
    /// projects of other machines) is matched as written.
    pub fn of_roots(roots: &[String]) -> Result<ProjectScope, ProjectScopeError> {
        let first = roots.first().ok_or(ProjectScopeError::NoRoots)?;
        let mut all_roots = Vec::new();
        for root in roots {
            if !root.starts_with('/') {
                return Err(ProjectScopeError::RelativeRoot(root.clone()));
            }
            all_roots.push(paths::normalize(root));
            if let Some(local) = launch_project(Path::new(root)) {
                all_roots.extend(local.roots);
            }
        }
        all_roots.sort();
        all_roots.dedup();
        let root = paths::normalize(first);
        ProjectScope::of_project(LaunchProject {
            launch_dir: root.clone(),
            root,
            roots: all_roots,
        })
    }

    /// The project's root (the checkout containing the launch directory).
    pub fn root(&self) -> &str {
        &self.project.root
    }

    /// Every root of the project, each worktree in both its given and canonical spelling.
    pub fn roots(&self) -> &[String] {
        &self.project.roots
    }

    /// Whether a session run in `cwd` is inside the project.
    pub fn contains_cwd(&self, cwd: &str) -> bool {
        self.cwd_pattern.is_match(cwd)
    }

    /// The pattern SQL matches `cwd` columns against (`regexp_like`).
    pub fn cwd_pattern(&self) -> &str {
        self.cwd_pattern.as_str()
    }

    /// What the server instructions add: the scope, named.
    pub fn instructions(&self) -> String {
        format!(
            "This server is scoped to the project at {}: every tool answers only sessions whose working directory is inside it (or inside another worktree of the same repository); sessions of other projects are not found.",
            self.root()
        )
    }
}

/// What a scoped server answers for: sessions inside a project (or of every project) and, on
/// a team server, published by one of the machines a token may read (or by any).
#[derive(Debug, Clone)]
pub struct ServingScope {
    project: Option<ProjectScope>,
    /// Sorted and deduplicated machine names.
    machines: Option<Vec<String>>,
    /// [`ServingScope::key`], computed once.
    key: String,
}

impl ServingScope {
    /// The scope of `project` and `machines`; `None` when neither limits anything.
    pub fn new(
        project: Option<ProjectScope>,
        machines: Option<Vec<String>>,
    ) -> Option<ServingScope> {
        let machines = machines.map(|mut machines| {
            machines.sort();
            machines.dedup();
            machines
        });
        if project.is_none() && machines.is_none() {
            return None;
        }
        let key = format!(
            "cwd:{}|machines:{}",
            project.as_ref().map_or("*", ProjectScope::cwd_pattern),
            machines
                .as_ref()
                .map_or("*".to_owned(), |names| names.join("\u{1f}"))
        );
        Some(ServingScope {
            project,
            machines,
            key,
        })
    }

    /// A project's scope (`esker serve --project-only`).
    pub fn of_project(project: ProjectScope) -> ServingScope {
        ServingScope::new(Some(project), None).expect("a project limits the scope")
    }

    /// The project answers are limited to, if any.
    pub fn project(&self) -> Option<&ProjectScope> {
        self.project.as_ref()
    }

    /// The machines answers are limited to, if any.
    pub fn machines(&self) -> Option<&[String]> {
        self.machines.as_deref()
    }

    /// The name of the scope's session set in SQL (`in_session_set(session_id, key)`): the
    /// same for two scopes that admit the same sessions.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What the server instructions add: the scope, named.
    pub fn instructions(&self) -> String {
        match (&self.project, &self.machines) {
            (Some(project), None) => project.instructions(),
            (project, Some(machines)) => format!(
                "{}This server answers only sessions published by the machine(s) {}; sessions of other machines are not found.",
                project.as_ref().map_or(String::new(), |project| format!(
                    "{} ",
                    project.instructions()
                )),
                machines.join(", ")
            ),
            (None, None) => String::new(),
        }
    }
}

/// Refuses a profile that `--project-only` cannot scope (its tools would answer for every
/// project).
pub fn check_profiles(names: &[&str]) -> Result<(), ProjectScopeError> {
    match names.iter().find(|name| !SCOPED_PROFILES.contains(name)) {
        Some(unscoped) => Err(ProjectScopeError::UnscopedProfile((*unscoped).to_owned())),
        None => Ok(()),
    }
}

/// The ids of a generation's sessions inside `scope` ([`WarmSnapshot::sessions_in_scope`]
/// keeps them for the generation): those whose working directory is inside the project,
/// among those the scope's machines published (read from the pulled store's record; a store
/// that was not pulled has no machine's sessions).
pub async fn sessions_in_scope(
    snapshot: &WarmSnapshot,
    scope: &ServingScope,
) -> Result<HashSet<String>, CatalogError> {
    let of_project = match scope.project() {
        Some(project) => Some(sessions_in_project(snapshot, project).await?),
        None => None,
    };
    let of_machines = match scope.machines() {
        Some(machines) => {
            let root = snapshot.generation_root().to_path_buf();
            let machines = machines.to_vec();
            let read = tokio::task::spawn_blocking(move || sessions_of_machines(&root, &machines))
                .await
                .map_err(|error| CatalogError::SearchTask(error.to_string()))?;
            Some(read.map_err(|error| CatalogError::Scope(error.to_string()))?)
        }
        None => None,
    };
    Ok(match (of_project, of_machines) {
        (Some(project), Some(machines)) => project.intersection(&machines).cloned().collect(),
        (Some(sessions), None) | (None, Some(sessions)) => sessions,
        (None, None) => HashSet::new(),
    })
}

/// The sessions whose working directory is inside `project` (`queries/project_sessions.sql`).
async fn sessions_in_project(
    snapshot: &WarmSnapshot,
    project: &ProjectScope,
) -> Result<HashSet<String>, CatalogError> {
    let rows = snapshot
        .run(
            SESSIONS_IN_SCOPE,
            vec![text_parameter(project.cwd_pattern())],
        )
        .await?;
    rows.iter()
        .map(|row| row.string("session_id").map(str::to_owned))
        .collect::<Result<_, _>>()
        .map_err(|source| CatalogError::Rows {
            name: SESSIONS_IN_SCOPE.name,
            source,
        })
}

/// Whether the session, turn or event `id` may be answered: always when the server is not
/// scoped; else when its session is inside the scope. An id whose session cannot be found is
/// admitted (the tool then answers `not_found` for it as for any missing id).
pub async fn admits(snapshot: &WarmSnapshot, id: &McpId) -> Result<bool, ToolError> {
    let Some(in_scope) = snapshot.sessions_in_scope().await? else {
        return Ok(true);
    };
    let session_id = match id.kind {
        IdKind::Session => Some(id.text.clone()),
        IdKind::Turn => session_of_turn(snapshot, &id.text).await?,
        IdKind::Event => snapshot
            .locate_event(&id.text)?
            .map(|location| location.session_id),
    };
    Ok(session_id.is_none_or(|session_id| in_scope.contains(&session_id)))
}

/// The session links of an opened session (its `traversal`, or each chain member's) with every
/// session outside the scope left out: the link null, the child unlisted.
pub fn hide_links_outside(data: &mut Value, in_scope: &HashSet<String>) {
    // `get_mut`, not `data["members"]`: indexing a JSON object inserts a null member list.
    let members = data
        .get_mut("members")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten();
    let traversals: Vec<&mut Value> = members.map(|member| &mut member["traversal"]).collect();
    for traversal in traversals {
        hide_traversal_links(traversal, in_scope);
    }
    if data.get("traversal").is_some() {
        hide_traversal_links(&mut data["traversal"], in_scope);
    }
}

const SESSION_LINKS: [&str; 4] = [
    "previous_session_id",
    "next_session_id",
    "parent_session_id",
    "forked_from_session_id",
];

fn hide_traversal_links(traversal: &mut Value, in_scope: &HashSet<String>) {
    let Some(links) = traversal.as_object_mut() else {
        return;
    };
    for link in SESSION_LINKS {
        if let Some(value) = links.get_mut(link)
            && value.as_str().is_some_and(|id| !in_scope.contains(id))
        {
            *value = Value::Null;
        }
    }
    if let Some(children) = links
        .get_mut("child_session_ids")
        .and_then(Value::as_array_mut)
    {
        children.retain(|child| child.as_str().is_some_and(|id| in_scope.contains(id)));
    }
}

/// The session of a turn (`queries/turn_by_id.sql`).
async fn session_of_turn(
    snapshot: &WarmSnapshot,
    turn_id: &str,
) -> Result<Option<String>, ToolError> {
    let rows = snapshot
        .run(TURN_BY_ID, vec![text_parameter(turn_id)])
        .await?;
    let session_id = match rows.first() {
        Some(row) => Some(
            row.string("session_id")
                .map_err(|error| ToolError::internal(format!("{}: {error}", TURN_BY_ID.name)))?
                .to_owned(),
        ),
        None => None,
    };
    Ok(session_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope_of(roots: &[&str]) -> ProjectScope {
        ProjectScope::of_project(LaunchProject {
            launch_dir: roots[0].to_owned(),
            root: roots[0].to_owned(),
            roots: roots.iter().map(|root| (*root).to_owned()).collect(),
        })
        .unwrap()
    }

    #[test]
    fn the_root_itself_and_directories_below_it_are_in_scope() {
        let scope = scope_of(&["/a/proj"]);
        assert!(scope.contains_cwd("/a/proj"));
        assert!(scope.contains_cwd("/a/proj/"));
        assert!(scope.contains_cwd("/a/proj/crates/core"));
    }

    #[test]
    fn a_sibling_sharing_the_prefix_and_parents_are_not() {
        let scope = scope_of(&["/a/proj"]);
        for outside in [
            "/a/project2",
            "/a/proj2/x",
            "/a/proj-old",
            "/a",
            "/",
            "",
            "a/proj",
        ] {
            assert!(
                !scope.contains_cwd(outside),
                "{outside:?} is not in /a/proj"
            );
        }
    }

    #[test]
    fn every_worktree_root_is_in_scope_and_regex_characters_are_literal() {
        let scope = scope_of(&["/w/main", "/w/feat.x"]);
        assert!(scope.contains_cwd("/w/feat.x/src"));
        assert!(scope.contains_cwd("/w/main"));
        assert!(!scope.contains_cwd("/w/featAx/src"), "the dot is literal");
        assert_eq!(scope.root(), "/w/main");
    }

    #[test]
    fn a_serving_scope_is_named_by_what_it_admits() {
        assert!(ServingScope::new(None, None).is_none());
        let project = ServingScope::of_project(scope_of(&["/a/proj"]));
        assert_eq!(project.project().map(ProjectScope::root), Some("/a/proj"));
        assert_eq!(project.machines(), None);
        let machines = |names: &[&str]| Some(names.iter().map(|name| (*name).to_owned()).collect());
        let two = ServingScope::new(None, machines(&["b", "a", "b"])).unwrap();
        assert_eq!(two.machines(), Some(&["a".to_owned(), "b".to_owned()][..]));
        let same = ServingScope::new(None, machines(&["a", "b"])).unwrap();
        assert_eq!(two.key(), same.key());
        let both = ServingScope::new(Some(scope_of(&["/a/proj"])), machines(&["a", "b"])).unwrap();
        let keys = [project.key(), two.key(), both.key()];
        assert_eq!(
            keys.iter().collect::<HashSet<_>>().len(),
            3,
            "distinct scopes share no key: {keys:?}"
        );
        assert!(both.instructions().contains("/a/proj") && both.instructions().contains("a, b"));
    }

    #[test]
    fn the_instructions_name_the_scope() {
        let text = scope_of(&["/a/proj"]).instructions();
        assert!(
            text.contains("scoped") && text.contains("/a/proj"),
            "{text}"
        );
    }

    #[test]
    fn links_to_sessions_outside_the_scope_are_hidden() {
        let in_scope: HashSet<String> = ["session:a", "session:a2"].map(String::from).into();
        let traversal = serde_json::json!({
            "previous_session_id": "session:b",
            "next_session_id": "session:a2",
            "parent_session_id": null,
            "forked_from_session_id": "session:b",
            "child_session_ids": ["session:a2", "session:b"],
        });
        let hidden = serde_json::json!({
            "previous_session_id": null,
            "next_session_id": "session:a2",
            "parent_session_id": null,
            "forked_from_session_id": null,
            "child_session_ids": ["session:a2"],
        });
        let mut session = serde_json::json!({"kind": "session", "traversal": traversal});
        hide_links_outside(&mut session, &in_scope);
        assert_eq!(session["traversal"], hidden);
        let mut range = serde_json::json!({"members": [{"traversal": traversal}]});
        hide_links_outside(&mut range, &in_scope);
        assert_eq!(range["members"][0]["traversal"], hidden);
    }

    #[test]
    fn only_the_scoped_profiles_may_be_project_only() {
        assert!(check_profiles(&["moraine"]).is_ok());
        assert!(check_profiles(&["agtrace"]).is_ok());
        assert!(check_profiles(&["relay"]).is_ok());
        let error = check_profiles(&["moraine", "memory"]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("the memory profile is not scoped"),
            "{error}"
        );
    }

    #[test]
    fn a_token_scope_matches_every_root_given_even_when_absent_here() {
        let scope =
            ProjectScope::of_roots(&["/nowhere/esker-a/".to_owned(), "/nowhere/b".to_owned()])
                .unwrap();
        assert_eq!(scope.root(), "/nowhere/esker-a");
        assert!(scope.contains_cwd("/nowhere/esker-a/src"));
        assert!(scope.contains_cwd("/nowhere/b"));
        assert!(!scope.contains_cwd("/nowhere/c"));
        assert!(matches!(
            ProjectScope::of_roots(&[]),
            Err(ProjectScopeError::NoRoots)
        ));
        assert!(matches!(
            ProjectScope::of_roots(&["relative/dir".to_owned()]),
            Err(ProjectScopeError::RelativeRoot(_))
        ));
    }

    #[test]
    fn a_missing_launch_directory_is_an_error() {
        let error =
            ProjectScope::of_launch_dir(Path::new("/nonexistent-esker-launch")).unwrap_err();
        assert!(matches!(error, ProjectScopeError::NoLaunchDirectory(_)));
    }
}
