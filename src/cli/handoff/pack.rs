//! The hand-off pack `esker handoff` prints: a compact Markdown brief another agent can start
//! from (the goal, the last state, the files touched, the open problems), every item citing
//! the esker id it came from, cut to a token budget (estimated as characters / 4, rounded up,
//! as `esker recall` estimates it). Pure: the gathered facts in, text out.
//!
//! Each section gets a share of the budget (what a section leaves unused passes to the next),
//! so a long goal never crowds out the files or the problems; the last turns are given their
//! room newest first, so the final state is the last thing a small budget drops.

use std::collections::HashMap;

use crate::cli::recall::block::estimate_tokens;

/// The token budget of a pack unless `--budget` says otherwise.
pub const DEFAULT_BUDGET: usize = 2000;

/// Characters per estimated token.
const CHARS_PER_TOKEN: usize = 4;

/// Shares of the room left after the header, in percent: goal, last state, files, problems.
const SHARES: [usize; 4] = [25, 35, 22, 18];

/// Widest one-line text (a title, a prompt asked in a later turn, a problem), in characters.
const LINE_CHARS: usize = 200;

/// Least characters of a trimmed text worth printing (below that, the item is left out).
const MIN_TEXT_CHARS: usize = 40;

/// Where an item came from, for the pack to cite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cited {
    pub text: String,
    /// The esker id (`event:...`, `turn:...`) `esker show` opens.
    pub id: String,
}

/// What the pack says of the session it hands off.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionHeader {
    pub session_id: String,
    pub title: String,
    /// The harness it ran in (`claude-code`, `codex`, ...).
    pub harness: String,
    pub project: Option<String>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub started_at: String,
    pub updated_at: String,
    pub turn_count: i64,
}

/// One of the session's last turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastTurn {
    pub turn_id: String,
    pub ordinal: i64,
    pub completed: bool,
    /// What the user asked (left out when it is the goal itself).
    pub prompt: Option<Cited>,
    /// The turn's final response.
    pub response: Option<Cited>,
}

/// One touch of a file by a tool call: a row of `queries/handoff_file_touches.sql`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileTouch {
    pub event_id: String,
    /// The path resolved against the call's directory.
    pub resolved_path: String,
    pub tool: String,
    pub mutation: bool,
}

/// A file as the pack lists it: every touch of one path folded together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileTouched {
    /// Relative to the session's working directory when under it.
    pub path: String,
    /// Some call changed it.
    pub mutated: bool,
    /// The tools that touched it, newest first, each once.
    pub tools: Vec<String>,
    pub touches: usize,
    /// The newest mutating call when there is one, else the newest touch.
    pub event_id: String,
}

/// An open problem: a failed tool call or an error in the last turns, or an unfinished turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub text: String,
    pub id: String,
}

/// Everything a pack shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pack {
    pub session: SessionHeader,
    /// The harness the work continues in (`codex`, `claude-code`, ...).
    pub target: String,
    /// The first user prompt.
    pub goal: Option<Cited>,
    /// The last turns, oldest first.
    pub last_turns: Vec<LastTurn>,
    /// Mutated files first, then by the newest touch.
    pub files: Vec<FileTouched>,
    /// Newest first.
    pub problems: Vec<Problem>,
    /// How many of the last turns were searched for problems.
    pub problem_turns: usize,
}

/// The files of `touches` (newest touch first, as the query orders them), one entry per path:
/// changed files first, then by their newest touch.
pub fn files_touched(touches: &[FileTouch], cwd: Option<&str>) -> Vec<FileTouched> {
    let mut files: Vec<FileTouched> = Vec::new();
    let mut position_of: HashMap<&str, usize> = HashMap::new();
    for touch in touches {
        let position = *position_of
            .entry(touch.resolved_path.as_str())
            .or_insert_with(|| {
                files.push(FileTouched {
                    path: relative_to(&touch.resolved_path, cwd),
                    mutated: false,
                    tools: Vec::new(),
                    touches: 0,
                    event_id: touch.event_id.clone(),
                });
                files.len() - 1
            });
        let file = &mut files[position];
        file.touches += 1;
        if !file.tools.contains(&touch.tool) {
            file.tools.push(touch.tool.clone());
        }
        if touch.mutation && !file.mutated {
            file.mutated = true;
            file.event_id = touch.event_id.clone();
        }
    }
    // Stable: within each class the newest-first order of the first touches is kept.
    files.sort_by_key(|file| !file.mutated);
    files
}

/// `path` relative to `cwd` when it lies under it, else unchanged.
pub fn relative_to(path: &str, cwd: Option<&str>) -> String {
    let Some(cwd) = cwd
        .map(|dir| dir.trim_end_matches('/'))
        .filter(|dir| !dir.is_empty())
    else {
        return path.to_owned();
    };
    match path
        .strip_prefix(cwd)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(relative) if !relative.is_empty() => relative.to_owned(),
        _ => path.to_owned(),
    }
}

/// The pack within `budget_tokens` (estimated as characters / 4, rounded up).
pub fn render(pack: &Pack, budget_tokens: usize) -> String {
    let limit = budget_tokens.saturating_mul(CHARS_PER_TOKEN);
    let header = header(pack);
    let room_after_header = limit.saturating_sub(chars(&header));
    let mut text = header;
    let mut carried = 0;
    for (index, share) in SHARES.into_iter().enumerate() {
        let room = room_after_header * share / 100 + carried;
        let section = match index {
            0 => goal_section(pack, room),
            1 => state_section(pack, room),
            2 => files_section(pack, room),
            _ => problems_section(pack, room),
        };
        carried = room.saturating_sub(chars(&section));
        text.push_str(&section);
    }
    fit(text, limit)
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// The title, where the work comes from and how to open what the pack cites.
fn header(pack: &Pack) -> String {
    let session = &pack.session;
    let mut text = format!("# Hand-off: {}\n\n", one_line(&session.title, LINE_CHARS));
    text.push_str(&format!(
        "You continue in {} the work of a {} session. Each item cites the esker id it came \
         from: `esker show ID` (or esker's MCP tool `open`) shows it in full.\n\n",
        pack.target, session.harness
    ));
    text.push_str(&format!("- session: `{}`\n", session.session_id));
    let place: Vec<String> = [&session.project, &session.cwd, &session.git_branch]
        .into_iter()
        .flatten()
        .map(|part| format!("`{part}`"))
        .collect();
    if !place.is_empty() {
        text.push_str(&format!("- where: {}\n", place.join(" · ")));
    }
    text.push_str(&format!(
        "- when: {} .. {}, {} turns\n",
        session.started_at, session.updated_at, session.turn_count
    ));
    text
}

fn goal_section(pack: &Pack, room: usize) -> String {
    let mut section = Section::new("Goal (the first prompt)", room);
    match &pack.goal {
        Some(goal) => {
            let citation = format!("(from `{}`)\n", goal.id);
            section.push_quoted(&goal.text, &citation);
        }
        None => {
            section.push_line("No user prompt recorded.\n");
        }
    }
    section.finish()
}

/// The last turns, room given newest first (the newest the most), printed oldest first.
fn state_section(pack: &Pack, room: usize) -> String {
    let mut section = Section::new("Last state (the last turns)", room);
    if pack.last_turns.is_empty() {
        section.push_line("No turn recorded.\n");
        return section.finish();
    }
    let mut blocks: Vec<String> = Vec::new();
    for (placed, turn) in pack.last_turns.iter().rev().enumerate() {
        // The newest turn may take half the room, the next two thirds of what is left, ...;
        // what a turn leaves unused passes to the older ones. One character per block is kept
        // for the blank line between blocks.
        let unplaced = pack.last_turns.len() - placed;
        let share = section.room_left().saturating_sub(1) * 2 / (unplaced + 1);
        let block = turn_block(turn, share);
        if block.is_empty() {
            break;
        }
        section.reserve(chars(&block) + 1);
        blocks.push(block);
    }
    blocks.reverse();
    section.push_reserved(&blocks.join("\n"));
    section.finish()
}

/// One turn within `room` characters: empty when not even its heading fits.
fn turn_block(turn: &LastTurn, room: usize) -> String {
    let state = if turn.completed {
        "completed"
    } else {
        "did not complete"
    };
    let heading = format!("**Turn {}** `{}` ({state})\n", turn.ordinal, turn.turn_id);
    if chars(&heading) > room {
        return String::new();
    }
    let mut block = heading;
    if let Some(prompt) = &turn.prompt {
        let line = format!(
            "Asked (`{}`): {}\n",
            prompt.id,
            one_line(&prompt.text, LINE_CHARS)
        );
        if chars(&block) + chars(&line) <= room {
            block.push_str(&line);
        }
    }
    if let Some(response) = &turn.response {
        let label = format!("Replied (`{}`):\n", response.id);
        let available = room.saturating_sub(chars(&block) + chars(&label));
        let quoted = quote(&response.text, available);
        if !quoted.is_empty() {
            block.push_str(&label);
            block.push_str(&quoted);
        }
    }
    block
}

fn files_section(pack: &Pack, room: usize) -> String {
    let mut section = Section::new("Files touched (changed first)", room);
    if pack.files.is_empty() {
        section.push_line("No file touched by a tool call.\n");
        return section.finish();
    }
    for (index, file) in pack.files.iter().enumerate() {
        let line = file_line(file);
        let remaining = pack.files.len() - index - 1;
        // Keep room for the line that says how many are left out.
        let tail = if remaining > 0 {
            chars(&more_files_line(remaining))
        } else {
            0
        };
        if chars(&line) + tail > section.room_left() {
            section.push_line(&more_files_line(pack.files.len() - index));
            break;
        }
        section.push_line(&line);
    }
    section.finish()
}

fn file_line(file: &FileTouched) -> String {
    let verb = if file.mutated { "changed" } else { "read" };
    let times = if file.touches > 1 {
        format!(", {} calls", file.touches)
    } else {
        String::new()
    };
    format!(
        "- `{}`: {verb} ({}{times}) `{}`\n",
        file.path,
        file.tools.join(", "),
        file.event_id
    )
}

fn more_files_line(count: usize) -> String {
    format!("- and {count} more\n")
}

fn problems_section(pack: &Pack, room: usize) -> String {
    let title = format!("Open problems (last {} turns)", pack.problem_turns);
    let mut section = Section::new(&title, room);
    if pack.problems.is_empty() {
        section.push_line("None found (no failed tool call or error).\n");
        return section.finish();
    }
    for problem in &pack.problems {
        let line = format!(
            "- {} `{}`\n",
            one_line(&problem.text, LINE_CHARS),
            problem.id
        );
        if !section.push_line(&line) {
            break;
        }
    }
    section.finish()
}

/// A section being filled within its room: empty unless its heading and one item fit.
struct Section {
    text: String,
    room: usize,
    /// Characters promised to items added later in one piece.
    reserved: usize,
    items: usize,
}

impl Section {
    fn new(title: &str, room: usize) -> Section {
        Section {
            text: format!("\n## {title}\n\n"),
            room,
            reserved: 0,
            items: 0,
        }
    }

    fn room_left(&self) -> usize {
        self.room.saturating_sub(chars(&self.text) + self.reserved)
    }

    fn reserve(&mut self, count: usize) {
        self.reserved += count;
    }

    /// Adds what everything reserved was reserved for.
    fn push_reserved(&mut self, text: &str) {
        self.reserved = 0;
        if !text.is_empty() {
            self.text.push_str(text);
            self.items += 1;
        }
    }

    /// Adds `line` when it fits; whether it did.
    fn push_line(&mut self, line: &str) -> bool {
        if chars(line) > self.room_left() {
            return false;
        }
        self.text.push_str(line);
        self.items += 1;
        true
    }

    /// Adds `text` as a block quote cut to the room, followed by `citation`.
    fn push_quoted(&mut self, text: &str, citation: &str) {
        let available = self.room_left().saturating_sub(chars(citation));
        let quoted = quote(text, available);
        if quoted.is_empty() {
            return;
        }
        self.text.push_str(&quoted);
        self.text.push_str(citation);
        self.items += 1;
    }

    fn finish(self) -> String {
        if self.items == 0 {
            String::new()
        } else {
            self.text
        }
    }
}

/// `text` as a Markdown block quote of at most `max_chars` characters (every line prefixed
/// `> `), cut at a word with `…`; empty when less than [`MIN_TEXT_CHARS`] would show.
pub fn quote(text: &str, max_chars: usize) -> String {
    let lines = tidy_lines(text);
    let mut quoted = String::new();
    for line in &lines {
        let rendered = format!("> {line}\n");
        if chars(&quoted) + chars(&rendered) <= max_chars {
            quoted.push_str(&rendered);
            continue;
        }
        // The last line that fits in part, cut at a word.
        let available = max_chars.saturating_sub(chars(&quoted) + "> \n".len());
        if available >= MIN_TEXT_CHARS.min(chars(line)) && available > 1 {
            quoted.push_str(&format!("> {}\n", cut(line, available)));
        } else if !quoted.is_empty() && chars(&quoted) + "> …\n".chars().count() <= max_chars {
            quoted.push_str("> …\n");
        }
        break;
    }
    if chars(&quoted) < MIN_TEXT_CHARS.min(chars(&text.trim().replace('\n', " ")) + 3) {
        return String::new();
    }
    quoted
}

/// The text's lines without trailing spaces and with runs of blank lines made one.
fn tidy_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = Vec::new();
    for line in text.trim().lines().map(str::trim_end) {
        if line.is_empty() && lines.last().is_some_and(|last| last.is_empty()) {
            continue;
        }
        lines.push(line);
    }
    lines
}

/// `text` cut to at most `max_chars` characters at a word boundary when one is near, with `…`.
pub fn cut(text: &str, max_chars: usize) -> String {
    if chars(text) <= max_chars {
        return text.to_owned();
    }
    if max_chars == 0 {
        return String::new();
    }
    let kept: String = text.chars().take(max_chars - 1).collect();
    let at_word = match kept.rfind(char::is_whitespace) {
        Some(space) if chars(&kept[..space]) * 4 >= max_chars * 3 => kept[..space].trim_end(),
        _ => kept.as_str(),
    };
    format!("{at_word}…")
}

/// `text` on one line (whitespace runs made one space), cut to `max_chars`.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    cut(&flat, max_chars)
}

/// `text` within `limit` characters: whole lines dropped from the end, or the first line cut
/// when even it is too long.
fn fit(text: String, limit: usize) -> String {
    if chars(&text) <= limit {
        return text;
    }
    let mut kept = String::new();
    for line in text.split_inclusive('\n') {
        if chars(&kept) + chars(line) > limit {
            break;
        }
        kept.push_str(line);
    }
    if kept.trim().is_empty() {
        return cut(text.lines().next().unwrap_or_default(), limit);
    }
    kept
}

/// Whether `text` is within `budget_tokens` as the pack counts them.
pub fn within_budget(text: &str, budget_tokens: usize) -> bool {
    estimate_tokens(text) <= budget_tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cited(text: &str, id: &str) -> Cited {
        Cited {
            text: text.to_owned(),
            id: id.to_owned(),
        }
    }

    fn touch(event: &str, path: &str, tool: &str, mutation: bool) -> FileTouch {
        FileTouch {
            event_id: event.to_owned(),
            resolved_path: path.to_owned(),
            tool: tool.to_owned(),
            mutation,
        }
    }

    fn pack() -> Pack {
        Pack {
            session: SessionHeader {
                session_id: "session:claude-s1".to_owned(),
                title: "Fix the staging migration".to_owned(),
                harness: "claude-code".to_owned(),
                project: Some("webapp".to_owned()),
                cwd: Some("/home/dev/webapp".to_owned()),
                git_branch: None,
                started_at: "2025-11-18T14:00:07.259Z".to_owned(),
                updated_at: "2025-11-18T15:00:00.000Z".to_owned(),
                turn_count: 4,
            },
            target: "codex".to_owned(),
            goal: Some(cited(
                &"The users migration fails on staging. Fix it and rerun it.\n\n\n".repeat(40),
                "event:goal",
            )),
            last_turns: (1..=3)
                .map(|ordinal| LastTurn {
                    turn_id: format!("turn:t{ordinal}"),
                    ordinal,
                    completed: ordinal != 3,
                    prompt: Some(cited(
                        &format!("prompt {ordinal}"),
                        &format!("event:p{ordinal}"),
                    )),
                    response: Some(cited(
                        &format!("reply {ordinal} ").repeat(300),
                        &format!("event:r{ordinal}"),
                    )),
                })
                .collect(),
            files: (0..100)
                .map(|index| FileTouched {
                    path: format!("src/file_{index}.rs"),
                    mutated: index < 5,
                    tools: vec!["Edit".to_owned()],
                    touches: 1,
                    event_id: format!("event:f{index}"),
                })
                .collect(),
            problems: vec![Problem {
                text: "Bash failed (exit 1), turn 3: rspec failed".to_owned(),
                id: "event:bad".to_owned(),
            }],
            problem_turns: 5,
        }
    }

    #[test]
    fn the_pack_stays_within_every_budget() {
        for budget in [0, 1, 5, 20, 60, 100, 250, 500, 1000, 2000, 8000] {
            let text = render(&pack(), budget);
            assert!(
                within_budget(&text, budget),
                "{budget}: {} chars\n{text}",
                text.chars().count()
            );
        }
    }

    #[test]
    fn every_section_gets_room_and_cites_its_ids() {
        let text = render(&pack(), DEFAULT_BUDGET);
        for expected in [
            "# Hand-off: Fix the staging migration",
            "`session:claude-s1`",
            "## Goal",
            "> The users migration fails on staging.",
            "(from `event:goal`)",
            "## Last state",
            "**Turn 3** `turn:t3` (did not complete)",
            "Asked (`event:p3`): prompt 3",
            "Replied (`event:r3`):",
            "## Files touched",
            "- `src/file_0.rs`: changed (Edit) `event:f0`",
            "more\n",
            "## Open problems (last 5 turns)",
            "- Bash failed (exit 1), turn 3: rspec failed `event:bad`",
        ] {
            assert!(text.contains(expected), "{expected:?} missing:\n{text}");
        }
        assert!(!text.contains("\n\n\n"), "{text}");
    }

    #[test]
    fn the_newest_turn_gets_the_most_room() {
        for budget in [250, 400, 1000, 2000] {
            let text = render(&pack(), budget);
            assert!(text.contains("`turn:t3`"), "{budget}: {text}");
            let newest = text.matches("reply 3").count();
            let oldest = text.matches("reply 1").count();
            assert!(newest >= oldest, "{budget}: {newest} < {oldest}\n{text}");
        }
        let roomy = render(&pack(), 2000);
        assert!(roomy.contains("Replied (`event:r3`)"), "{roomy}");
        assert!(roomy.contains("Replied (`event:r1`)"), "{roomy}");
    }

    #[test]
    fn an_empty_session_says_so() {
        let empty = Pack {
            problem_turns: 5,
            ..Pack::default()
        };
        let text = render(&empty, DEFAULT_BUDGET);
        assert!(text.contains("No user prompt recorded."), "{text}");
        assert!(text.contains("No turn recorded."), "{text}");
        assert!(text.contains("No file touched"), "{text}");
        assert!(text.contains("None found"), "{text}");
    }

    #[test]
    fn files_fold_their_touches_changed_first_citing_the_change() {
        let touches = [
            touch("event:4", "/w/README.md", "Read", false),
            touch("event:3", "/w/src/lib.rs", "Read", false),
            touch("event:2", "/w/src/lib.rs", "Edit", true),
            touch("event:1", "/elsewhere/notes.txt", "Bash", false),
        ];
        let files = files_touched(&touches, Some("/w/"));
        let summary: Vec<(&str, bool, usize, &str)> = files
            .iter()
            .map(|file| {
                (
                    file.path.as_str(),
                    file.mutated,
                    file.touches,
                    file.event_id.as_str(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("src/lib.rs", true, 2, "event:2"),
                ("README.md", false, 1, "event:4"),
                ("/elsewhere/notes.txt", false, 1, "event:1"),
            ]
        );
        assert_eq!(files[0].tools, ["Read", "Edit"]);
    }

    #[test]
    fn paths_are_relative_only_under_the_working_directory() {
        assert_eq!(relative_to("/w/a/b.rs", Some("/w")), "a/b.rs");
        assert_eq!(relative_to("/wx/b.rs", Some("/w")), "/wx/b.rs");
        assert_eq!(relative_to("/w", Some("/w")), "/w");
        assert_eq!(relative_to("/w/b.rs", None), "/w/b.rs");
    }

    #[test]
    fn texts_are_cut_at_a_word_with_an_ellipsis() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("alpha beta gamma delta", 12), "alpha beta…");
        assert_eq!(cut("abcdefghij", 5), "abcd…");
        assert_eq!(cut("abc", 0), "");
        assert_eq!(one_line("a\n\n  b\tc", 10), "a b c");
    }

    #[test]
    fn a_quote_prefixes_every_line_and_stays_within_its_room() {
        let text = "first line\n\n\n\nsecond line that is rather long and goes on and on";
        let quoted = quote(text, 1000);
        assert_eq!(
            quoted,
            "> first line\n> \n> second line that is rather long and goes on and on\n"
        );
        let short = quote(&"word ".repeat(100), 60);
        assert!(short.chars().count() <= 60, "{short}");
        assert!(short.ends_with("…\n"), "{short}");
        assert_eq!(quote(&"word ".repeat(100), 10), "");
    }
}
