//! The substring fallback for shell commands: a small POSIX-shell lexer (quotes, escapes,
//! operators, comments, here-documents skipped) and the path-like arguments of each simple
//! command, with whether the command clearly writes them (`sed -i`, `rm`, `mv`, `cp`'s
//! destination, `tee`, `>` redirections, `git rm/mv/checkout/restore`), resolved past `cd`.
//! Heuristic by design:
//! it never runs anything and prefers missing a path to inventing one.

use super::paths;

/// A path-like argument of a shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellPath {
    pub path: String,
    pub mutation: bool,
}

/// One lexed piece of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A word with quotes and escapes removed.
    Word(String),
    /// `;`, `&`, `&&`, `|`, `||`, `(`, `)` or a line break: ends a simple command.
    Separator,
    /// `>`, `>>`, `>|`, `&>`: the next word is written.
    WriteRedirect,
    /// `<`: the next word is read.
    ReadRedirect,
    /// `<<`, `<<-`, `<<<`: the next word is a delimiter or a string, not a file.
    HereRedirect,
}

/// Shells whose `-c` argument is itself a script.
const SHELLS: [&str; 8] = [
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "pwsh",
    "powershell",
];
/// Words that run the command after them.
const WRAPPERS: [&str; 7] = ["sudo", "env", "time", "nohup", "command", "exec", "nice"];
/// Programs whose first operand is a pattern or a program, never a file.
const PATTERN_FIRST: [&str; 7] = ["grep", "egrep", "fgrep", "rg", "ag", "awk", "sed"];
/// Flags of grep-like programs whose value is the next word (a pattern, glob or count).
const VALUE_FLAGS: [&str; 12] = [
    "-e", "--regexp", "-f", "--file", "-g", "--glob", "-t", "--type", "-m", "-A", "-B", "-C",
];
/// Programs whose operands are text, not files.
const TEXT_ONLY: [&str; 3] = ["echo", "printf", "cd"];
/// Programs that write every path operand.
const WRITES_ALL: [&str; 7] = ["rm", "unlink", "shred", "truncate", "touch", "mv", "tee"];
/// Programs that write their last path operand (the destination).
const WRITES_LAST: [&str; 4] = ["cp", "install", "rsync", "ln"];
/// `git` subcommands that change files in the work tree.
const GIT_WRITES: [&str; 5] = ["rm", "mv", "checkout", "restore", "apply"];

/// The path-like arguments of a command line (a script run by a shell). A `cd` moves where
/// later relative paths resolve from; after a `cd` to somewhere unknown (`cd $DIR`, `cd ~`,
/// `cd -`) later relative paths are dropped rather than misplaced.
pub fn script_paths(script: &str) -> Vec<ShellPath> {
    let mut paths = Vec::new();
    let mut directory = WorkingDirectory::Start;
    for command in simple_commands(&lex(script)) {
        if let Some(target) = cd_target(&command) {
            directory = directory.change(target);
            continue;
        }
        let mut found = Vec::new();
        analyze_command(&command, &mut found);
        paths.extend(found.into_iter().filter_map(|path| directory.resolve(path)));
    }
    paths
}

/// Where a script is, relative to where it started.
#[derive(Debug, Clone, PartialEq, Eq)]
enum WorkingDirectory {
    /// Where the script started (the call's working directory).
    Start,
    /// Moved here by `cd` (absolute, or relative to the start).
    At(String),
    /// Moved somewhere this lexer cannot tell.
    Unknown,
}

impl WorkingDirectory {
    fn change(self, target: Option<String>) -> WorkingDirectory {
        let Some(target) = target else {
            return WorkingDirectory::Unknown;
        };
        match self {
            _ if paths::is_absolute(&target) => WorkingDirectory::At(paths::normalize(&target)),
            WorkingDirectory::Start => WorkingDirectory::At(paths::normalize(&target)),
            WorkingDirectory::At(current) => {
                WorkingDirectory::At(paths::normalize(&format!("{current}/{target}")))
            }
            WorkingDirectory::Unknown => WorkingDirectory::Unknown,
        }
    }

    fn resolve(&self, found: ShellPath) -> Option<ShellPath> {
        match self {
            _ if paths::is_absolute(&found.path) => Some(found),
            WorkingDirectory::Start => Some(found),
            WorkingDirectory::At(current) => Some(ShellPath {
                path: paths::normalize(&format!("{current}/{}", found.path)),
                mutation: found.mutation,
            }),
            WorkingDirectory::Unknown => None,
        }
    }
}

/// `Some(target)` when the command is `cd`/`pushd`; the target is `None` when it cannot be
/// told (`cd` alone, `cd -`, `cd ~`, `cd "$DIR"`).
fn cd_target(tokens: &[Token]) -> Option<Option<String>> {
    let words: Vec<&str> = tokens
        .iter()
        .filter_map(|token| match token {
            Token::Word(word) => Some(word.as_str()),
            _ => None,
        })
        .collect();
    let words = without_prefixes(&words);
    let (program, operands) = words.split_first()?;
    if !matches!(program_name(program), "cd" | "pushd") {
        return None;
    }
    let target = operands
        .iter()
        .find(|word| !word.starts_with('-'))
        .filter(|word| !word.is_empty() && !word.contains(['$', '~', '`']))
        .map(|word| (*word).to_owned());
    Some(target)
}

/// The path-like arguments of an argv array (`["bash", "-lc", "…"]`, `["cat", "x.rs"]`).
pub fn argv_paths(argv: &[String]) -> Vec<ShellPath> {
    let words: Vec<Token> = argv.iter().cloned().map(Token::Word).collect();
    let mut paths = Vec::new();
    analyze_command(&words, &mut paths);
    paths
}

/// Splits a lexed line at separators.
fn simple_commands(tokens: &[Token]) -> Vec<Vec<Token>> {
    tokens
        .split(|token| *token == Token::Separator)
        .filter(|command| !command.is_empty())
        .map(<[Token]>::to_vec)
        .collect()
}

/// Adds the paths of one simple command: redirection targets and path-like operands.
fn analyze_command(tokens: &[Token], paths: &mut Vec<ShellPath>) {
    let mut argv: Vec<&str> = Vec::new();
    let mut pending_redirect: Option<&Token> = None;
    for token in tokens {
        match (token, pending_redirect.take()) {
            (Token::Word(word), Some(Token::WriteRedirect)) => push_path(paths, word, true),
            (Token::Word(word), Some(Token::ReadRedirect)) => push_path(paths, word, false),
            (Token::Word(_), Some(_)) => {}
            (Token::Word(word), None) => argv.push(word),
            (redirect, _) => pending_redirect = Some(redirect),
        }
    }
    let argv = without_prefixes(&argv);
    let Some((program_word, operands)) = argv.split_first() else {
        return;
    };
    let program = program_name(program_word);
    if SHELLS.contains(&program)
        && let Some(script) = shell_script(operands)
    {
        paths.extend(script_paths(script));
        return;
    }
    if TEXT_ONLY.contains(&program) {
        return;
    }
    let path_operands: Vec<&str> = positional_operands(program, operands)
        .into_iter()
        .filter(|word| is_path_like(word))
        .collect();
    let writes_operands = match program {
        "sed" | "perl" | "ruby" => edits_in_place(operands),
        "git" => operands
            .iter()
            .find(|word| !word.starts_with('-'))
            .is_some_and(|subcommand| GIT_WRITES.contains(subcommand)),
        _ => WRITES_ALL.contains(&program),
    };
    let writes_last = WRITES_LAST.contains(&program);
    for (index, word) in path_operands.iter().enumerate() {
        let is_last = index + 1 == path_operands.len();
        push_path(paths, word, writes_operands || (writes_last && is_last));
    }
}

fn push_path(paths: &mut Vec<ShellPath>, word: &str, mutation: bool) {
    if is_path_like(word) {
        paths.push(ShellPath {
            path: word.to_owned(),
            mutation,
        });
    }
}

/// `argv` without leading `NAME=value` assignments and wrappers (`sudo`, `env`, ...).
fn without_prefixes<'a>(argv: &[&'a str]) -> Vec<&'a str> {
    let start = argv
        .iter()
        .position(|word| {
            let assignment = word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            });
            !assignment && !WRAPPERS.contains(&program_name(word)) && !word.starts_with('-')
        })
        .unwrap_or(argv.len());
    argv[start..].to_vec()
}

/// `/usr/bin/sed` → `sed`; `bash.exe` → `bash`.
fn program_name(word: &str) -> &str {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    name.strip_suffix(".exe").unwrap_or(name)
}

/// The script of `sh -c SCRIPT` / `bash -lc SCRIPT` (also `-Command` for PowerShell).
fn shell_script<'a>(operands: &[&'a str]) -> Option<&'a str> {
    let flag = operands.iter().position(|word| {
        (word.starts_with('-') && !word.starts_with("--") && word.ends_with('c'))
            || word.eq_ignore_ascii_case("-command")
    })?;
    operands.get(flag + 1).copied()
}

/// Operands without flags, and without the pattern (or program) of grep-like tools: their
/// first operand, or the value of `-e`/`-f`.
fn positional_operands<'a>(program: &str, operands: &[&'a str]) -> Vec<&'a str> {
    let pattern_first = PATTERN_FIRST.contains(&program);
    let mut positional: Vec<&str> = Vec::new();
    let mut after_double_dash = false;
    let mut skip_value = false;
    let mut pattern_seen = false;
    for word in operands {
        if skip_value {
            skip_value = false;
        } else if !after_double_dash && *word == "--" {
            after_double_dash = true;
        } else if after_double_dash || !word.starts_with('-') {
            positional.push(word);
        } else if pattern_first && VALUE_FLAGS.contains(word) {
            skip_value = true;
            pattern_seen |= matches!(*word, "-e" | "--regexp" | "-f" | "--file");
        }
    }
    if pattern_first && !pattern_seen && !positional.is_empty() {
        positional.remove(0);
    }
    positional
}

/// `sed -i`, `sed -Ei`, `perl -pi -e`, `--in-place`.
fn edits_in_place(operands: &[&str]) -> bool {
    operands.iter().any(|word| {
        word.starts_with("--in-place")
            || (word.starts_with('-')
                && !word.starts_with("--")
                && word[1..]
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .any(|flag| flag == 'i'))
    })
}

/// Whether a shell word plausibly names a file: a single token of path characters with a
/// directory separator or a file extension, and not a flag, URL, glob, sed script or number.
pub fn is_path_like(word: &str) -> bool {
    let allowed =
        |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | '@' | ',');
    if word.is_empty()
        || word.len() > 512
        || word.starts_with('-')
        || word.starts_with("/dev/")
        || word.starts_with("/proc/")
        || word.ends_with('/')
        || !word.chars().all(allowed)
        || is_sed_script(word)
    {
        return false;
    }
    let last = word.rsplit('/').next().unwrap_or(word);
    if last.is_empty() || last.chars().all(|c| c == '.') {
        return false;
    }
    word.contains('/') || has_extension(last)
}

/// `s/a/b/g`, `y/abc/xyz/`.
fn is_sed_script(word: &str) -> bool {
    (word.starts_with("s/") || word.starts_with("y/")) && word.matches('/').count() >= 3
}

/// `lib.rs`, `.gitignore`: a dot and 1 to 10 alphanumerics with a letter among them, after a
/// stem that is not a number (`1.5`, `v1.2.3` are not files).
fn has_extension(name: &str) -> bool {
    let Some((stem, extension)) = name.rsplit_once('.') else {
        return false;
    };
    let extension_ok = (1..=10).contains(&extension.len())
        && extension.chars().all(|c| c.is_ascii_alphanumeric())
        && extension.chars().any(|c| c.is_ascii_alphabetic());
    if !extension_ok {
        return false;
    }
    if stem.is_empty() {
        return extension.len() >= 2;
    }
    !stem.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// Lexes a script into words and operators; here-document bodies are skipped.
fn lex(script: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        chars: script.chars().collect(),
        position: 0,
        tokens: Vec::new(),
        word: None,
        heredocs: Vec::new(),
        expecting_delimiter: false,
    };
    lexer.run();
    lexer.tokens
}

struct Lexer {
    chars: Vec<char>,
    position: usize,
    tokens: Vec<Token>,
    /// The word being built (`Some` once any character of it was seen, even `''`).
    word: Option<String>,
    /// Delimiters of here-documents whose bodies start at the next line break.
    heredocs: Vec<String>,
    /// The next word is a here-document delimiter.
    expecting_delimiter: bool,
}

impl Lexer {
    fn run(&mut self) {
        while let Some(&c) = self.chars.get(self.position) {
            self.position += 1;
            match c {
                '\'' => self.single_quoted(),
                '"' => self.double_quoted(),
                '\\' => self.escaped(),
                '\n' => {
                    self.end_word();
                    self.tokens.push(Token::Separator);
                    self.skip_heredoc_bodies();
                }
                ' ' | '\t' | '\r' => self.end_word(),
                '#' if self.word.is_none() => self.skip_comment(),
                ';' | '(' | ')' => {
                    self.end_word();
                    self.tokens.push(Token::Separator);
                }
                '|' | '&' => self.pipe_or_background(c),
                '>' => self.write_redirect(),
                '<' => self.read_redirect(),
                other => self.word.get_or_insert_with(String::new).push(other),
            }
        }
        self.end_word();
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.position).copied()
    }

    fn end_word(&mut self) {
        let Some(word) = self.word.take() else {
            return;
        };
        if self.expecting_delimiter {
            self.expecting_delimiter = false;
            self.heredocs.push(word.clone());
        }
        self.tokens.push(Token::Word(word));
    }

    fn single_quoted(&mut self) {
        let word = self.word.get_or_insert_with(String::new);
        while let Some(&c) = self.chars.get(self.position) {
            self.position += 1;
            if c == '\'' {
                return;
            }
            word.push(c);
        }
    }

    fn double_quoted(&mut self) {
        let word = self.word.get_or_insert_with(String::new);
        while let Some(&c) = self.chars.get(self.position) {
            self.position += 1;
            match c {
                '"' => return,
                '\\' => {
                    if let Some(&next) = self.chars.get(self.position) {
                        self.position += 1;
                        if !matches!(next, '"' | '\\' | '$' | '`' | '\n') {
                            word.push('\\');
                        }
                        if next != '\n' {
                            word.push(next);
                        }
                    }
                }
                other => word.push(other),
            }
        }
    }

    fn escaped(&mut self) {
        match self.peek() {
            Some('\n') => self.position += 1,
            Some(next) => {
                self.position += 1;
                self.word.get_or_insert_with(String::new).push(next);
            }
            None => {}
        }
    }

    fn skip_comment(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                return;
            }
            self.position += 1;
        }
    }

    fn pipe_or_background(&mut self, c: char) {
        if c == '&' && self.peek() == Some('>') {
            self.end_word();
            self.position += 1;
            if self.peek() == Some('>') {
                self.position += 1;
            }
            self.tokens.push(Token::WriteRedirect);
            return;
        }
        self.end_word();
        if self.peek() == Some(c) {
            self.position += 1;
        }
        self.tokens.push(Token::Separator);
    }

    fn write_redirect(&mut self) {
        // `2>` / `1>>`: the digits name a descriptor, not a word.
        if self
            .word
            .as_deref()
            .is_some_and(|word| !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()))
        {
            self.word = None;
        }
        self.end_word();
        if matches!(self.peek(), Some('>' | '|')) {
            self.position += 1;
        }
        if self.peek() == Some('&') {
            // `>&2`: a descriptor duplication, no file.
            self.position += 1;
            while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '-') {
                self.position += 1;
            }
            return;
        }
        self.tokens.push(Token::WriteRedirect);
    }

    fn read_redirect(&mut self) {
        self.end_word();
        if self.peek() != Some('<') {
            self.tokens.push(Token::ReadRedirect);
            return;
        }
        self.position += 1;
        if self.peek() == Some('<') {
            self.position += 1;
            self.tokens.push(Token::HereRedirect);
            return;
        }
        if self.peek() == Some('-') {
            self.position += 1;
        }
        self.tokens.push(Token::HereRedirect);
        self.expecting_delimiter = true;
    }

    /// Skips the bodies of the here-documents opened on the line just ended.
    fn skip_heredoc_bodies(&mut self) {
        for delimiter in std::mem::take(&mut self.heredocs) {
            loop {
                let line_end = self.chars[self.position..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.chars.len(), |offset| self.position + offset);
                let line: String = self.chars[self.position..line_end].iter().collect();
                self.position = (line_end + 1).min(self.chars.len());
                if line.trim() == delimiter || self.position >= self.chars.len() {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(script: &str) -> Vec<(String, bool)> {
        script_paths(script)
            .into_iter()
            .map(|found| (found.path, found.mutation))
            .collect()
    }

    fn owned(expected: &[(&str, bool)]) -> Vec<(String, bool)> {
        expected
            .iter()
            .map(|(path, mutation)| ((*path).to_owned(), *mutation))
            .collect()
    }

    #[test]
    fn reads_are_operands_that_look_like_files() {
        assert_eq!(
            paths("sed -n 1,120p src/store/commit.rs"),
            owned(&[("src/store/commit.rs", false)])
        );
        assert_eq!(
            paths("cat README.md | head -n 5 && wc -l src/lib.rs"),
            owned(&[("README.md", false), ("src/lib.rs", false)])
        );
        assert_eq!(paths("git diff -- src/a.rs"), owned(&[("src/a.rs", false)]));
        assert_eq!(
            paths("python -m pytest tests/test_x.py -q -k y"),
            owned(&[("tests/test_x.py", false)])
        );
    }

    #[test]
    fn patterns_flags_urls_and_globs_are_not_files() {
        assert_eq!(paths("rg -n \"foo.bar\" src/b"), owned(&[("src/b", false)]));
        assert_eq!(paths("grep -e x.y file.txt"), owned(&[("file.txt", false)]));
        assert!(paths("cargo test --workspace 1.2.3").is_empty());
        assert!(paths("curl https://example.com/a.json").is_empty());
        assert!(paths("ls *.rs src/").is_empty());
        assert!(paths("sed 's/a/b/g' -n").is_empty());
        assert_eq!(paths("echo done/ok > out.x"), owned(&[("out.x", true)]));
        assert!(paths("make 2> /dev/null").is_empty());
        assert!(paths("git commit -m \"fix src/x.rs\"").is_empty());
    }

    #[test]
    fn writes_are_recognised() {
        assert_eq!(
            paths("sed -i 's/a/b/' src/x.rs"),
            owned(&[("src/x.rs", true)])
        );
        assert_eq!(
            paths("perl -pi -e 's/a/b/' lib/a.pm"),
            owned(&[("lib/a.pm", true)])
        );
        assert_eq!(
            paths("cp src/a.rs src/b.rs"),
            owned(&[("src/a.rs", false), ("src/b.rs", true)])
        );
        assert_eq!(
            paths("mv old.txt new.txt; rm -f tmp/x.log"),
            owned(&[("old.txt", true), ("new.txt", true), ("tmp/x.log", true)])
        );
        assert_eq!(
            paths("echo hi | tee out/log.txt >> notes.md"),
            owned(&[("notes.md", true), ("out/log.txt", true)])
        );
        assert_eq!(
            paths("git checkout -- src/lib.rs"),
            owned(&[("src/lib.rs", true)])
        );
        assert_eq!(
            paths("cat a.txt 2>err.log"),
            owned(&[("err.log", true), ("a.txt", false)])
        );
        assert_eq!(paths("make 2>&1 build.log"), owned(&[("build.log", false)]));
        assert_eq!(paths("sort < in.txt"), owned(&[("in.txt", false)]));
    }

    #[test]
    fn nested_shells_and_wrappers_are_unwrapped() {
        assert_eq!(
            paths("bash -lc 'sed -i s/x/y/ conf/app.toml'"),
            owned(&[("conf/app.toml", true)])
        );
        assert_eq!(
            paths("sudo FOO=1 rm -rf build/out.bin"),
            owned(&[("build/out.bin", true)])
        );
        let argv: Vec<String> = ["bash", "-lc", "cat src/main.rs"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(
            argv_paths(&argv),
            vec![ShellPath {
                path: "src/main.rs".into(),
                mutation: false
            }]
        );
    }

    #[test]
    fn heredoc_bodies_and_comments_are_skipped() {
        let script = "cat > docs/plan.md <<'EOF'\nrm everything.txt\nsee src/x.rs\nEOF\ncat docs/plan.md # then notes.txt";
        assert_eq!(
            paths(script),
            owned(&[("docs/plan.md", true), ("docs/plan.md", false)])
        );
    }

    #[test]
    fn cd_moves_where_relative_paths_resolve() {
        assert_eq!(
            paths("cd crates/core && cat src/lib.rs; cd /abs/wt && sed -i s/a/b/ x.toml"),
            owned(&[("crates/core/src/lib.rs", false), ("/abs/wt/x.toml", true)])
        );
        assert_eq!(
            paths("cd \"$REPO\" && cat src/lib.rs /etc/hosts.txt"),
            owned(&[("/etc/hosts.txt", false)])
        );
        assert_eq!(paths("cd .. && cat a/b.rs"), owned(&[("../a/b.rs", false)]));
    }

    #[test]
    fn path_likeness() {
        for path in [
            "src/lib.rs",
            "a.py",
            ".gitignore",
            "dir/sub",
            "Cargo.toml",
            "ünï/cödé.rs",
        ] {
            assert!(is_path_like(path), "{path}");
        }
        for word in [
            "1.5", "-n", "foo", "a=b", "x:y.rs", "~/x.rs", "$HOME/x", "s/a/b/", "..", "src/",
            "*.rs", "v1.2.3",
        ] {
            assert!(!is_path_like(word), "{word}");
        }
    }
}
