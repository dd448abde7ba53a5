//! The `file_attention` answer from the matched touches: Moraine's summary and worktree-root
//! breakdown over everything scanned, then one page of per-session rollups or of the
//! touch-by-touch timeline with `open` handles, and the short text summary.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Value, json};

use crate::model::harness_of;
use crate::service::file_attention::page::{ItemKey, encode_cursor, page_of};
use crate::service::file_attention::request::{AttentionRequest, Granularity};
use crate::service::file_attention::tail::ResolvedTail;
use crate::service::rows::{Row, RowError};
use crate::service::text::{format_timestamp, plain};

/// Most touches read for one call; the summary and roots cover these (the newest) and
/// `summary.scan_truncated` says when there were more.
pub const SCAN_CAP: usize = 2_000;
/// The bucket of touches whose path is under no known root.
pub const UNKNOWN_ROOT: &str = "(unknown)";

/// One matched touch, a row of `queries/file_attention_touches.sql`.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchedTouch {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    /// UTC nanoseconds.
    pub timestamp: i64,
    pub source: String,
    pub root: Option<String>,
    pub path: String,
    pub tool: String,
    pub mutation: bool,
    pub match_kind: String,
}

impl MatchedTouch {
    pub fn from_row(row: &Row<'_>) -> Result<MatchedTouch, RowError> {
        Ok(MatchedTouch {
            event_id: row.string("event_id")?.to_owned(),
            session_id: row.string("session_id")?.to_owned(),
            turn_id: row.string("turn_id")?.to_owned(),
            timestamp: row.opt_timestamp_nanos("timestamp")?.unwrap_or_default(),
            source: row.string("source")?.to_owned(),
            root: row.opt_string("root")?.map(str::to_owned),
            path: row.string("path")?.to_owned(),
            tool: row.string("tool")?.to_owned(),
            mutation: row.bool("mutation")?,
            match_kind: row.string("match_kind")?.to_owned(),
        })
    }

    fn root_label(&self) -> &str {
        self.root.as_deref().unwrap_or(UNKNOWN_ROOT)
    }

    fn key(&self) -> ItemKey<'_> {
        ItemKey {
            nanos: self.timestamp,
            id: &self.event_id,
            path: &self.path,
        }
    }
}

/// The `data` of a `file_attention` answer. `touches` are newest first, at most
/// [`SCAN_CAP`] + 1 of them; the warnings it implies are added to `warnings`.
pub fn build_data(
    request: &AttentionRequest,
    tail: &ResolvedTail,
    mut touches: Vec<MatchedTouch>,
    warnings: &mut Vec<String>,
) -> Value {
    let scan_truncated = touches.len() > SCAN_CAP;
    if scan_truncated {
        touches.truncate(SCAN_CAP);
        warnings.push(format!(
            "matched more than {SCAN_CAP} touches; summary and roots are computed over the {SCAN_CAP} most recent. Narrow with start_datetime/end_datetime or tool."
        ));
    }
    let (summary, roots) = summary_and_roots(&touches, scan_truncated);
    let unknown_root_touches = summary["unknown_root_touches"].as_u64().unwrap_or_default();
    if unknown_root_touches > 0 {
        warnings.push(format!(
            "{unknown_root_touches} touch(es) have unknown worktree roots; check matched_path/open results before treating the root spread as complete."
        ));
    }
    let (body_key, body, more) = match request.granularity {
        Granularity::Sessions => sessions_page(request, &touches),
        Granularity::Events => events_page(request, &touches),
    };
    let next_cursor = more.map(|position| encode_cursor(&request.fingerprint(), &position));
    let mut data = json!({
        "path": request.path,
        "tail": tail.tail,
        "tail_is_absolute": tail.tail_is_absolute,
        "stripped_root": tail.stripped_root,
        "scope": request.scope.as_str(),
        "granularity": request.granularity.as_str(),
        "summary": summary,
        "roots": roots,
        "result_count": body.len(),
        "limit": request.limit,
        "truncated": next_cursor.is_some() || scan_truncated,
    });
    data[body_key] = Value::Array(body);
    data["next_cursor"] = json!(next_cursor);
    data
}

/// Moraine's summary and the distinct roots (most touched first), over all scanned touches.
fn summary_and_roots(touches: &[MatchedTouch], scan_truncated: bool) -> (Value, Vec<Value>) {
    let mut per_root: HashMap<&str, (u64, BTreeSet<&str>)> = HashMap::new();
    for touch in touches {
        let entry = per_root.entry(touch.root_label()).or_default();
        entry.0 += 1;
        entry.1.insert(&touch.session_id);
    }
    let sessions: BTreeSet<&str> = touches.iter().map(|t| t.session_id.as_str()).collect();
    let unknown_root_touches = per_root.get(UNKNOWN_ROOT).map_or(0, |(count, _)| *count);
    let known_roots = per_root
        .keys()
        .filter(|root| **root != UNKNOWN_ROOT)
        .count();
    let total = touches.len() as u64;
    let ambiguous = per_root.len() > 1 || (unknown_root_touches > 0 && total > 1);
    let mut roots: Vec<(&str, u64, usize)> = per_root
        .iter()
        .map(|(root, (count, sessions))| (*root, *count, sessions.len()))
        .collect();
    roots.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let summary = json!({
        "total_touches": total,
        "distinct_sessions": sessions.len(),
        "distinct_roots": roots.len(),
        "distinct_known_roots": known_roots,
        "unknown_root_touches": unknown_root_touches,
        "first_touch": touches.iter().map(|t| t.timestamp).min().map(format_timestamp),
        "last_touch": touches.iter().map(|t| t.timestamp).max().map(format_timestamp),
        "ambiguous": ambiguous,
        "scan_truncated": scan_truncated,
    });
    let roots = roots
        .into_iter()
        .map(|(root, touch_count, session_count)| {
            json!({"root": root, "touch_count": touch_count, "session_count": session_count})
        })
        .collect();
    (summary, roots)
}

/// What one session did to the file.
struct SessionRollup<'a> {
    session_id: &'a str,
    source: &'a str,
    /// The most recent touch: the handle that drills straight to it.
    latest: &'a MatchedTouch,
    first: i64,
    touch_count: usize,
    mutation_count: usize,
    tools: BTreeSet<&'a str>,
    roots: BTreeSet<&'a str>,
    match_kinds: BTreeSet<&'a str>,
}

fn rollups(touches: &[MatchedTouch]) -> Vec<SessionRollup<'_>> {
    let mut by_session: BTreeMap<&str, SessionRollup<'_>> = BTreeMap::new();
    for touch in touches {
        let rollup = by_session
            .entry(&touch.session_id)
            .or_insert_with(|| SessionRollup {
                session_id: &touch.session_id,
                source: &touch.source,
                latest: touch,
                first: touch.timestamp,
                touch_count: 0,
                mutation_count: 0,
                tools: BTreeSet::new(),
                roots: BTreeSet::new(),
                match_kinds: BTreeSet::new(),
            });
        if touch.key().order(&rollup.latest.key()).is_lt() {
            rollup.latest = touch;
        }
        rollup.first = rollup.first.min(touch.timestamp);
        rollup.touch_count += 1;
        rollup.mutation_count += usize::from(touch.mutation);
        rollup.tools.insert(&touch.tool);
        rollup.roots.extend(touch.root.as_deref());
        rollup.match_kinds.insert(&touch.match_kind);
    }
    let mut listed: Vec<SessionRollup<'_>> = by_session.into_values().collect();
    listed.sort_by(|a, b| session_key(a).order(&session_key(b)));
    listed
}

fn session_key<'a>(rollup: &SessionRollup<'a>) -> ItemKey<'a> {
    ItemKey {
        nanos: rollup.latest.timestamp,
        id: rollup.session_id,
        path: "",
    }
}

type Body = (&'static str, Vec<Value>, Option<super::page::PagePosition>);

fn sessions_page(request: &AttentionRequest, touches: &[MatchedTouch]) -> Body {
    let listed = rollups(touches);
    let after = request.cursor.as_ref().map(|(_, position)| position);
    let page = page_of(&listed, session_key, after, request.limit);
    let body = page
        .items
        .iter()
        .map(|(rank, rollup)| session_json(*rank, rollup))
        .collect();
    ("sessions", body, page.last.filter(|_| page.has_more))
}

fn session_json(rank: usize, rollup: &SessionRollup<'_>) -> Value {
    json!({
        "rank": rank,
        "id": rollup.session_id,
        "session": {
            "id": rollup.session_id,
            "harness": harness_of(rollup.source),
            "source": rollup.source,
            "first_touch": format_timestamp(rollup.first),
            "last_touch": format_timestamp(rollup.latest.timestamp),
            "touch_count": rollup.touch_count,
            "mutation_count": rollup.mutation_count,
            "tools": rollup.tools,
            "worktree_roots": rollup.roots,
            "match_kinds": rollup.match_kinds,
        },
        "open": {
            "session_id": rollup.session_id,
            "event_id": rollup.latest.event_id,
            "turn_id": rollup.latest.turn_id,
        },
    })
}

fn events_page(request: &AttentionRequest, touches: &[MatchedTouch]) -> Body {
    let after = request.cursor.as_ref().map(|(_, position)| position);
    let page = page_of(touches, MatchedTouch::key, after, request.limit);
    let body = page
        .items
        .iter()
        .map(|(rank, touch)| event_json(*rank, touch))
        .collect();
    ("events", body, page.last.filter(|_| page.has_more))
}

fn event_json(rank: usize, touch: &MatchedTouch) -> Value {
    json!({
        "rank": rank,
        "id": touch.event_id,
        "event": {
            "id": touch.event_id,
            "session_id": touch.session_id,
            "turn_id": touch.turn_id,
            "timestamp": format_timestamp(touch.timestamp),
            "harness": harness_of(&touch.source),
            "source": touch.source,
            "tool_name": touch.tool,
            "mutation": touch.mutation,
            "match_kind": touch.match_kind,
            "worktree_root": touch.root,
            "matched_path": touch.path,
        },
        "open": {
            "event_id": touch.event_id,
            "session_id": touch.session_id,
            "turn_id": touch.turn_id,
        },
    })
}

/// The short text for `content`: the counts, the root spread, the warnings and the first
/// items with their ids.
pub fn summarize(data: &Value, warnings: &[String]) -> String {
    let summary = &data["summary"];
    let mut lines = vec![format!(
        "file_attention {} — {} touch(es) across {} session(s) in {} worktree root(s) [scope={}].",
        plain(&data["tail"]),
        summary["total_touches"],
        summary["distinct_sessions"],
        summary["distinct_roots"],
        plain(&data["scope"]),
    )];
    if summary["distinct_known_roots"].as_u64().unwrap_or_default() > 1 {
        lines.push("Ambiguous tail: matched more than one worktree root (see roots).".to_owned());
    }
    if summary["unknown_root_touches"].as_u64().unwrap_or_default() > 0 {
        lines.push(
            "Worktree-root attribution is incomplete; some touches have unknown roots (see roots and matched_path)."
                .to_owned(),
        );
    }
    lines.extend(warnings.iter().map(|warning| format!("⚠ {warning}")));
    for item in data["sessions"].as_array().into_iter().flatten() {
        let session = &item["session"];
        lines.push(format!(
            "{}. {} {} {} touch(es), tools {} ({})",
            item["rank"],
            plain(&session["last_touch"]),
            plain(&session["harness"]),
            session["touch_count"],
            session["tools"],
            plain(&item["id"]),
        ));
    }
    for item in data["events"].as_array().into_iter().flatten() {
        let event = &item["event"];
        lines.push(format!(
            "{}. {} {}{} {} ({})",
            item["rank"],
            plain(&event["timestamp"]),
            plain(&event["tool_name"]),
            if event["mutation"] == true {
                " (write)"
            } else {
                ""
            },
            plain(&event["matched_path"]),
            plain(&item["id"]),
        ));
    }
    if let Some(cursor) = data["next_cursor"].as_str() {
        lines.push(format!("more results: pass cursor \"{cursor}\""));
    } else if data["truncated"] == true {
        lines.push("More results were truncated by the scan limit.".to_owned());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::file_attention::request::parse;

    fn touch(session: &str, event: &str, tool: &str, root: Option<&str>, ts: i64) -> MatchedTouch {
        MatchedTouch {
            event_id: format!("event:{event}"),
            session_id: format!("session:{session}"),
            turn_id: format!("turn:{event}"),
            timestamp: ts,
            source: "claude".into(),
            root: root.map(str::to_owned),
            path: "crates/foo/tee.rs".into(),
            tool: tool.into(),
            mutation: tool == "Edit",
            match_kind: "argument".into(),
        }
    }

    fn request(extra: Value) -> AttentionRequest {
        let mut arguments = json!({"path": "crates/foo/tee.rs", "scope": "all"});
        for (key, value) in extra.as_object().unwrap() {
            arguments[key] = value.clone();
        }
        parse(arguments.as_object().unwrap()).unwrap()
    }

    fn tail() -> ResolvedTail {
        ResolvedTail {
            tail: "crates/foo/tee.rs".into(),
            stripped_root: None,
            tail_is_absolute: false,
            absolute_path: None,
            normalized: false,
        }
    }

    #[test]
    fn distinct_roots_are_surfaced_and_flag_ambiguity() {
        let touches = vec![
            touch("main", "e3", "Edit", Some("/repo/main"), 3_000),
            touch("sib", "e2", "Edit", Some("/repo/worktrees/foo"), 2_000),
            touch(
                "iso",
                "e1",
                "Read",
                Some("/home/.claude/worktrees/agent-x"),
                1_000,
            ),
        ];
        let mut warnings = Vec::new();
        let data = build_data(&request(json!({})), &tail(), touches, &mut warnings);
        assert_eq!(data["summary"]["total_touches"], 3);
        assert_eq!(data["summary"]["distinct_roots"], 3);
        assert_eq!(data["summary"]["ambiguous"], true);
        assert_eq!(data["roots"].as_array().unwrap().len(), 3);
        assert_eq!(data["sessions"][0]["id"], "session:main");
        assert_eq!(data["sessions"][0]["open"]["event_id"], "event:e3");
        assert_eq!(data["sessions"][0]["session"]["harness"], "claude-code");
        assert!(warnings.is_empty());
    }

    #[test]
    fn one_root_is_not_ambiguous_and_events_are_a_timeline() {
        let touches = vec![
            touch("a", "e2", "Edit", Some("/repo"), 1_777_464_001_123_000_000),
            touch("a", "e1", "Read", Some("/repo"), 1_777_464_000_000_000_000),
        ];
        let mut warnings = Vec::new();
        let data = build_data(
            &request(json!({"granularity": "events"})),
            &tail(),
            touches,
            &mut warnings,
        );
        assert_eq!(data["summary"]["ambiguous"], false);
        let events = data["events"].as_array().unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0]["event"]["tool_name"], "Edit");
        assert_eq!(events[0]["event"]["timestamp"], "2026-04-29T12:00:01.123Z");
        assert_eq!(events[0]["open"]["turn_id"], "turn:e2");
        assert_eq!(data["summary"]["first_touch"], "2026-04-29T12:00:00.000Z");
    }

    #[test]
    fn an_unknown_root_mixed_with_a_known_one_is_ambiguous_and_warned() {
        let touches = vec![
            touch("a", "e2", "Edit", Some("/repo"), 2_000),
            touch("b", "e1", "Bash", None, 1_000),
        ];
        let mut warnings = Vec::new();
        let data = build_data(&request(json!({})), &tail(), touches, &mut warnings);
        assert_eq!(data["summary"]["distinct_known_roots"], 1);
        assert_eq!(data["summary"]["unknown_root_touches"], 1);
        assert_eq!(data["summary"]["ambiguous"], true);
        assert!(
            warnings
                .iter()
                .any(|warning| warning.contains("unknown worktree roots"))
        );
        let text = summarize(&data, &warnings);
        assert!(text.contains("attribution is incomplete"), "{text}");
    }

    #[test]
    fn rollups_count_per_session_and_page_with_a_cursor() {
        let touches: Vec<MatchedTouch> = (0..5)
            .flat_map(|i| {
                [
                    touch(
                        &format!("s{i}"),
                        &format!("e{i}b"),
                        "Edit",
                        Some("/r"),
                        (i + 1) * 1_000 + 1,
                    ),
                    touch(
                        &format!("s{i}"),
                        &format!("e{i}a"),
                        "Read",
                        Some("/r"),
                        (i + 1) * 1_000,
                    ),
                ]
            })
            .rev()
            .collect();
        let mut warnings = Vec::new();
        let first = build_data(
            &request(json!({"limit": 2})),
            &tail(),
            touches.clone(),
            &mut warnings,
        );
        assert_eq!(first["result_count"], 2);
        assert_eq!(first["truncated"], true);
        assert_eq!(first["summary"]["distinct_sessions"], 5);
        assert_eq!(first["sessions"][0]["id"], "session:s4");
        assert_eq!(first["sessions"][0]["session"]["touch_count"], 2);
        assert_eq!(first["sessions"][0]["session"]["mutation_count"], 1);
        assert_eq!(
            first["sessions"][0]["session"]["tools"],
            json!(["Edit", "Read"])
        );
        let cursor = first["next_cursor"].as_str().unwrap();
        let second = build_data(
            &request(json!({"limit": 2, "cursor": cursor})),
            &tail(),
            touches.clone(),
            &mut warnings,
        );
        let ids: Vec<&str> = second["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["session:s2", "session:s1"]);
        assert_eq!(second["sessions"][0]["rank"], 3);
        let third_cursor = second["next_cursor"].as_str().unwrap();
        let third = build_data(
            &request(json!({"limit": 2, "cursor": third_cursor})),
            &tail(),
            touches,
            &mut warnings,
        );
        assert_eq!(third["result_count"], 1);
        assert_eq!(third["next_cursor"], Value::Null);
        assert_eq!(third["truncated"], false);
    }

    #[test]
    fn the_scan_cap_truncates_with_a_warning() {
        let touches: Vec<MatchedTouch> = (0..=SCAN_CAP as i64)
            .map(|i| {
                touch(
                    &format!("s{i}"),
                    &format!("e{i}"),
                    "Edit",
                    Some("/r"),
                    10_000 - i,
                )
            })
            .collect();
        let mut warnings = Vec::new();
        let data = build_data(&request(json!({})), &tail(), touches, &mut warnings);
        assert_eq!(data["summary"]["scan_truncated"], true);
        assert_eq!(data["summary"]["total_touches"], SCAN_CAP);
        assert_eq!(data["truncated"], true);
        assert!(warnings.iter().any(|warning| warning.contains("more than")));
    }
}
