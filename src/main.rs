//! The `esker` binary: parses the command line, runs the command, maps errors to exit codes.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::LazyLock;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};

use esker::cli::sample::{IndexPlan, discard_sample_store, plan_index, reading_location};
use esker::cli::{CliError, ERROR_EXIT, Outcome};
use esker::config::resolve_data_dir;
use esker::indexer::run::{IndexError, IndexOptions, IndexSummary, index_paths};
use esker::indexer::status::IngestMonitor;
use esker::indexer::watch::{WatchOptions, watch_and_index};
use esker::query::output::{OutputFormat, write_batches};
use esker::redact::Redactor;
use esker::redact::check::check_files;
use esker::store::{Store, StoreError};

// jemalloc returns freed memory to the OS (see `esker::heap`).
esker::shipped_allocator!();

/// `esker --version`: the release, the commit it was built from and the store format it writes.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (commit {}, store format {})",
        env!("CARGO_PKG_VERSION"),
        env!("ESKER_COMMIT"),
        esker::store::FORMAT_VERSION
    )
});

/// Index AI coding-agent session logs into Parquet + tantivy and serve them over MCP.
#[derive(Debug, Parser)]
#[command(name = "esker", version = VERSION.as_str(), about)]
struct Cli {
    /// When to colour the output: auto (a terminal without NO_COLOR), always or never.
    #[arg(long, global = true, value_enum, default_value = "auto")]
    color: ColorWhen,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index session logs (files or directories); with no PATH, the harnesses' default
    /// locations ($CODEX_HOME, $CLAUDE_CONFIG_DIR, $GEMINI_CLI_HOME), or the bundled sample
    /// corpus when none exists.
    Index {
        /// Where the tables and index live [default: $ESKER_DATA_DIR or ~/.local/share/esker]
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Do not list each ingested file.
        #[arg(long, short)]
        quiet: bool,
        /// Keep running: index again whenever the logs change.
        #[arg(long)]
        watch: bool,
        /// Delete the store and rebuild it from the source logs (the recovery for a damaged
        /// data dir).
        #[arg(long)]
        rebuild: bool,
        /// When another esker process is writing, wait for it (`--wait=SECS`, default 600 s)
        /// instead of failing.
        #[arg(
            long,
            value_name = "SECS",
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "600"
        )]
        wait: Option<u64>,
        #[command(flatten)]
        ingest: IngestArgs,
        #[command(flatten)]
        semantic: SemanticArgs,
        /// Commit after this many bytes of changed logs (bounds memory; tests use it to get
        /// many commits from a small corpus).
        #[arg(long, value_name = "BYTES", hide = true)]
        batch_bytes: Option<u64>,
        /// Log files or directories to index.
        paths: Vec<PathBuf>,
    },
    /// Run read-only SQL over the `events`, `turns`, `sessions` and `memories` tables.
    Query {
        /// A data dir, or a published dataset's URL (s3://bucket/prefix, gs://, az://,
        /// file://): every machine's tables, with a `machine` column.
        #[arg(long, value_name = "DIR|URL")]
        data_dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
        /// One SQL statement (SELECT, WITH, EXPLAIN, SHOW, DESCRIBE).
        sql: String,
    },
    /// Serve the MCP tools over stdio (or streamable HTTP with --http), keeping the index of
    /// the default locations fresh in the background (file watching, with a periodic full pass).
    Serve {
        /// A data dir, or a published dataset's URL (s3://bucket/prefix, gs://, az://,
        /// file://): pulled into a local cache store (only new files are downloaded) and pulled
        /// again every --pull-every seconds; nothing is indexed locally.
        #[arg(long, value_name = "DIR|URL")]
        data_dir: Option<PathBuf>,
        /// Seconds between pulls when --data-dir is a dataset URL.
        #[arg(long, value_name = "SECS", default_value_t = 60,
              value_parser = clap::value_parser!(u64).range(1..))]
        pull_every: u64,
        /// Do not index at all (serve the store as it is).
        #[arg(long)]
        no_index: bool,
        /// Index once at startup, then do not watch for changes.
        #[arg(long)]
        no_watch: bool,
        /// Seconds between full passes over every location while watching (file events
        /// trigger passes in between; when they are unavailable, polling runs every second).
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        full_pass_every: u64,
        /// Tool sets to serve, comma-separated: `moraine` (search_sessions, open,
        /// list_sessions), `agtrace` (list_sessions, get_project_info, get_session_details,
        /// analyze_session, search_event_previews, get_event_details), `relay`
        /// (search_history, get_conversation, list_sessions) or `memory` (save_memory, search,
        /// timeline, get_entries, ingest_docs, retention_dry_run). Profiles defining the same
        /// tool name cannot be combined.
        #[arg(long, value_name = "NAME[,NAME...]", default_value = "moraine")]
        profile: String,
        /// Answer only for sessions run inside the launch directory's project (its Git checkout
        /// and that repository's worktrees; the directory itself outside Git): every tool is
        /// scoped, and an id of another project is not found.
        #[arg(long)]
        project_only: bool,
        /// The project memory entries belong to when a call names none [default: the
        /// working directory's name].
        #[arg(long)]
        project: Option<String>,
        /// Serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio (e.g.
        /// 127.0.0.1:8765; port 0 picks a free one). Without --tokens only a loopback
        /// address is allowed.
        #[arg(long, value_name = "ADDR", conflicts_with = "project_only")]
        http: Option<std::net::SocketAddr>,
        /// The bearer tokens of the HTTP server (TOML: name, token or sha256, projects or
        /// "all", optional limits; README "Team server").
        #[arg(long, value_name = "FILE", requires = "http")]
        tokens: Option<PathBuf>,
        /// Requests one token may have in flight over HTTP; more get 429.
        #[arg(long, value_name = "N", requires = "http",
              default_value_t = esker::mcp::http::limits::DEFAULT_MAX_CONCURRENT,
              value_parser = clap::value_parser!(u32).range(1..))]
        max_concurrent: u32,
        /// Requests one token may start per second over HTTP (bursts up to that many); more
        /// get 429 with Retry-After.
        #[arg(long, value_name = "N", requires = "http",
              default_value_t = esker::mcp::http::limits::DEFAULT_RATE_PER_SECOND,
              value_parser = clap::value_parser!(u32).range(1..))]
        rate_limit: u32,
        #[command(flatten)]
        ingest: IngestArgs,
        #[command(flatten)]
        semantic: SemanticArgs,
    },
    /// Browse the history in a local web view (search, sessions, usage, ...) at
    /// http://127.0.0.1:PORT/?token=..., keeping the index fresh in the background as
    /// `serve` does. Only this machine's browser with the printed token gets in.
    Ui {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// The port on 127.0.0.1 (0 picks a free one).
        #[arg(long, default_value_t = esker::ui::DEFAULT_PORT)]
        port: u16,
        /// Open the page in the default browser.
        #[arg(long)]
        open: bool,
        /// Do not index at all (show the store as it is).
        #[arg(long)]
        no_index: bool,
        /// Index once at startup, then do not watch for changes.
        #[arg(long)]
        no_watch: bool,
        /// Seconds between full passes over every location while watching.
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        full_pass_every: u64,
        #[command(flatten)]
        ingest: IngestArgs,
        #[command(flatten)]
        semantic: SemanticArgs,
    },
    /// The static embedding model of the semantic search leg.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// Audit what redaction would replace in log files: prints each finding's kind and
    /// position (line, JSON pointer, byte range), never the value. Exit code 1 when any is found.
    Redact {
        /// Report only (the one mode; nothing is written).
        #[arg(long, required = true)]
        check: bool,
        /// Also use the rules of this gitleaks-format TOML file.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
        /// Log files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Register `esker serve` as an MCP server with every client found here (Claude Code,
    /// Codex CLI, Gemini CLI, Qwen Code, OpenCode, Copilot CLI, Cursor).
    Setup {
        /// Print the change (a diff) and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Take the esker server out again (restoring the file from its backup when possible).
        #[arg(long)]
        remove: bool,
        /// The MCP profile the registered server runs with (`esker serve --profile`).
        #[arg(long)]
        profile: Option<String>,
        /// Only this client (repeatable), configured even when it is not found here.
        #[arg(long = "client", value_name = "NAME")]
        clients: Vec<String>,
        /// The esker binary to register [default: this one].
        #[arg(long, value_name = "PATH")]
        command: Option<PathBuf>,
        /// Install (or with --remove take out) the recall hooks instead: `esker recall` on
        /// each prompt and/or session start of Claude Code, Codex CLI, Gemini CLI, Copilot CLI,
        /// Factory Droid, CodeBuddy Code, Qwen Code, Cursor, Kiro, Cline and Kimi Code.
        #[arg(long)]
        hooks: bool,
        #[arg(long)]
        json: bool,
    },
    /// Search the history (the engine of the `search_sessions` tool), one block per hit.
    Search {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Only hits from this harness (codex, claude, gemini); repeatable.
        #[arg(long = "source")]
        sources: Vec<String>,
        /// Only sessions whose project or working directory contains this text.
        #[arg(long)]
        project: Option<String>,
        /// Only hits at or after this time (2026-04-30, RFC 3339, today, yesterday, 7d, 12h).
        #[arg(long)]
        since: Option<String>,
        /// Only hits before this time.
        #[arg(long)]
        until: Option<String>,
        /// Event types to search (repeatable) [default: user_input, assistant_response,
        /// tool_response].
        #[arg(long = "type", value_name = "TYPE")]
        event_types: Vec<String>,
        /// Number of hits (1 to 50).
        #[arg(short = 'n', long = "limit", default_value_t = 10)]
        limit: usize,
        /// Print the tool's `data` as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        semantic: SemanticArgs,
        /// Keywords.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
    },
    /// Print the past events, sessions and memory entries most relevant to a prompt (or to
    /// the working directory's project) as a bounded context block, for an agent's hook
    /// (`esker setup --hooks`). Never fails: on any error it prints nothing and exits 0.
    Recall {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// The prompt to recall for [default: the hook input's; none: the project's recent
        /// sessions and memory entries].
        #[arg(long, value_name = "TEXT")]
        prompt: Option<String>,
        /// The working directory whose project comes first [default: the hook input's, else
        /// the current directory].
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// Most tokens printed (estimated as characters / 4).
        #[arg(long, value_name = "TOKENS", default_value_t = esker::cli::recall::DEFAULT_BUDGET)]
        budget: usize,
        /// Read this agent's hook JSON from stdin and answer in its format.
        #[arg(long, value_name = "AGENT", value_parser = esker::cli::recall::hook::AGENT_NAMES)]
        hook: Option<String>,
        /// Give up (printing nothing) after this many milliseconds [default: 1000].
        #[arg(long, value_name = "MS", hide = true)]
        deadline_ms: Option<u64>,
        /// Stay running and answer the store's hooks over `<data dir>/recall.sock` (a hook
        /// starts this itself; it exits after 15 idle minutes; `ESKER_RECALL_RESIDENT=0`
        /// turns it off).
        #[arg(long, conflicts_with_all = ["prompt", "cwd", "hook"])]
        resident: bool,
    },
    /// Show a session, turn or event as readable text.
    Show {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Untruncated payloads and unfolded reasoning.
        #[arg(long)]
        full: bool,
        /// Go on through the sessions that continue this one.
        #[arg(long)]
        chain: bool,
        #[arg(long)]
        json: bool,
        /// A session:..., turn:... or event:... id.
        id: String,
    },
    /// Resume a session in its own harness (`claude --resume`, `codex resume`, ...), run in
    /// the session's working directory.
    Resume {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Print the command (`cd DIR && COMMAND`) instead of running it.
        #[arg(long)]
        print: bool,
        /// A session:... id, or a turn:... or event:... id of the session.
        id: String,
    },
    /// Hand a session's work over to another agent: a compact Markdown pack (the goal, the
    /// last state, the files touched, the open problems), each item citing its esker id;
    /// `--write` also creates a new session holding it in the target harness.
    Handoff {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// The harness the work continues in: a source name (claude, codex, gemini, ...) or a
        /// harness name (claude-code, gemini-cli, ...).
        #[arg(long, value_name = "HARNESS")]
        to: String,
        /// Also write a new session holding the pack in the target harness's own format
        /// (claude, codex) and print its path and resume command.
        #[arg(long)]
        write: bool,
        /// Most tokens in the pack (estimated as characters / 4).
        #[arg(
            long,
            value_name = "TOKENS",
            default_value_t = esker::cli::handoff::pack::DEFAULT_BUDGET
        )]
        budget: usize,
        /// A session:... id, or a turn:... or event:... id of the session.
        id: String,
    },
    /// Every place esker looks for agent history on this machine: what each holds, how much
    /// of it is in the store, and what was skipped and why (missing, not a format esker
    /// reads, encrypted, malformed lines, not indexed yet).
    Doctor {
        /// The store to compare with [default: $ESKER_DATA_DIR or ~/.local/share/esker]
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Print the whole diagnosis as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Recent sessions as a table, newest first.
    Sessions {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        #[arg(long = "source")]
        sources: Vec<String>,
        #[arg(long)]
        project: Option<String>,
        /// Sessions active at or after this time.
        #[arg(long)]
        since: Option<String>,
        /// Sessions started before this time.
        #[arg(long)]
        until: Option<String>,
        #[arg(short = 'n', long = "limit", default_value_t = 20)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// Upload the current generation's tables to object storage (s3://bucket/prefix, gs://,
    /// az://, file:// or a directory) as this machine's part of a team dataset; only files
    /// not already there are uploaded, the machine's manifest is replaced last.
    Publish {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// The machine id to publish as [default: the one recorded in the data dir, else the
        /// host name and a random suffix]; kept for the next publish.
        #[arg(long, value_name = "ID")]
        machine: Option<String>,
        /// Keep running: publish again after every commit.
        #[arg(long)]
        watch: bool,
        /// Seconds the files a publish replaces stay in the dataset (listed as retired in the
        /// manifest) before a later publish deletes them, for readers still on an older Delta
        /// version or manifest.
        #[arg(long, value_name = "SECS", default_value_t = esker::team::publish::DEFAULT_KEEP_REPLACED.as_secs())]
        keep_replaced: u64,
        /// Where the dataset lives. Credentials come from the cloud's standard environment.
        url: String,
    },
    /// Build or update a local store (tables + search index) holding every machine of a
    /// published dataset, for `esker serve --no-index --data-dir DIR`.
    Pull {
        /// The local store to fill [default: the default data dir + `-team`].
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        url: String,
    },
    /// Memory entries (what the `memory` MCP profile serves): add, search, list.
    Memory {
        #[command(subcommand)]
        command: MemoryCommand,
    },
    /// Token usage by day, week, month, session, model, source or project.
    Usage {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        #[arg(long, default_value = "day", value_parser = clap::builder::PossibleValuesParser::new(esker::cli::usage::GROUPINGS))]
        by: String,
        #[arg(long)]
        since: Option<String>,
        #[arg(long)]
        until: Option<String>,
        /// Add a cost column priced with the bundled table (data/prices.json).
        #[arg(long)]
        cost: bool,
        /// Add a cost column priced with this table (JSON, USD per million tokens).
        #[arg(long, value_name = "FILE")]
        prices: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum MemoryCommand {
    /// Save an entry (durable when the command returns).
    Add {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// [default: the working directory's name]
        #[arg(long)]
        project: Option<String>,
        /// Entry type (decision, constraint, finding, ...) [default: note].
        #[arg(long = "type", value_name = "TYPE")]
        entry_type: Option<String>,
        /// [default: the text's first line]
        #[arg(long)]
        title: Option<String>,
        /// Where the note comes from (a path, URL or ticket).
        #[arg(long)]
        source_ref: Option<String>,
        /// A JSON object kept with the entry.
        #[arg(long, value_name = "JSON")]
        metadata: Option<String>,
        /// Also refuse secrets matched by the rules of this gitleaks-format TOML file.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        /// The text (`-` reads it from standard input).
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
    },
    /// Search entries by keywords (BM25 over title and body).
    Search {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        #[arg(long)]
        project: Option<String>,
        #[arg(long = "type", value_name = "TYPE")]
        entry_type: Option<String>,
        /// Number of entries (1 to 100).
        #[arg(short = 'n', long = "limit", default_value_t = 20)]
        limit: i64,
        #[arg(long, default_value_t = 0)]
        offset: i64,
        #[arg(long)]
        json: bool,
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
    },
    /// The newest entries.
    List {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        #[arg(long)]
        project: Option<String>,
        #[arg(long = "type", value_name = "TYPE")]
        entry_type: Option<String>,
        #[arg(short = 'n', long = "limit", default_value_t = 20)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ModelCommand {
    /// Install the pinned WordLlama weights (`pip download` of the PyPI wheel, sha256 checked)
    /// into the data dir, then embed the store's events.
    Install {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Install from this file instead of downloading: the pinned wheel, or a model2vec
        /// directory (tokenizer.json + model.safetensors).
        #[arg(long, value_name = "PATH")]
        from_file: Option<PathBuf>,
    },
}

/// Options of the semantic search leg (issue #23).
#[derive(Debug, Clone, clap::Args)]
struct SemanticArgs {
    /// Fuse hits by meaning (the installed model's vectors) into search results [default: off;
    /// see PERFORMANCE.md].
    #[arg(long, value_name = "on|off", value_parser = ["on", "off"])]
    semantic: Option<String>,
    /// Embed with this OpenAI-compatible embeddings endpoint (e.g. a local Ollama,
    /// http://localhost:11434/v1) instead of the installed model.
    #[arg(long, value_name = "URL")]
    embeddings_url: Option<String>,
    /// The model name sent to --embeddings-url.
    #[arg(long, value_name = "NAME", default_value = esker::semantic::DEFAULT_ENDPOINT_MODEL)]
    embeddings_model: String,
}

impl SemanticArgs {
    fn settings(&self) -> esker::semantic::SemanticSettings {
        esker::semantic::SemanticSettings {
            enabled: self
                .semantic
                .as_deref()
                .map_or(esker::semantic::ON_BY_DEFAULT, |value| value == "on"),
            embeddings_url: self.embeddings_url.clone(),
            embeddings_model: self.embeddings_model.clone(),
        }
    }
}

/// Options shared by everything that ingests.
#[derive(Debug, clap::Args)]
struct IngestArgs {
    /// Store secrets found in the logs as they are (by default they are replaced by
    /// `[REDACTED:<kind>]` before anything is written).
    #[arg(long)]
    no_redact: bool,
    /// Also redact with the rules of this gitleaks-format TOML file (for example the official
    /// gitleaks.toml); a rule with a built-in id replaces it.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// Keep under this much resident memory, in MB (default 2048; at least 384): an index
    /// pass's batches shrink with it and a batch is committed early when memory nears it; a
    /// server answers list_sessions and the hits' sessions over Parquet instead of from
    /// memory when its in-memory directory would take over half of it.
    #[arg(long, value_name = "MB", env = "ESKER_MEMORY_LIMIT_MB")]
    memory_limit: Option<u64>,
}

impl IngestArgs {
    fn redactor(&self) -> anyhow::Result<std::sync::Arc<Redactor>> {
        redactor_with(self.rules.as_deref())
    }

    /// `--memory-limit` in bytes, checked.
    fn memory_limit(&self) -> anyhow::Result<u64> {
        let Some(megabytes) = self.memory_limit else {
            return Ok(esker::indexer::run::DEFAULT_MEMORY_LIMIT);
        };
        let bytes = megabytes.saturating_mul(1 << 20);
        anyhow::ensure!(
            bytes >= esker::indexer::run::MIN_MEMORY_LIMIT,
            "--memory-limit {megabytes}: at least {} MB is needed (the search writer's buffers \
             and the store's state alone take about that)",
            esker::indexer::run::MIN_MEMORY_LIMIT >> 20
        );
        Ok(bytes)
    }
}

/// The built-in redactor, or one that adds a rules file (skipped rules are reported).
fn redactor_with(rules: Option<&Path>) -> anyhow::Result<std::sync::Arc<Redactor>> {
    let Some(path) = rules else {
        return Ok(Redactor::builtin());
    };
    let redactor = Redactor::with_rules_file(path)?;
    for skipped in redactor.skipped() {
        eprintln!("esker: rule {} skipped: {}", skipped.id, skipped.reason);
    }
    Ok(std::sync::Arc::new(redactor))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    set_color_choice(cli.color);
    let recall = matches!(cli.command, Command::Recall { .. });
    let http_server = matches!(cli.command, Command::Serve { http: Some(_), .. });
    // A hook's stderr is the agent's business: recall logs only when ESKER_LOG asks. A team
    // server logs each request (issue #54).
    init_logging(match (recall, http_server) {
        (true, _) => "off",
        (false, true) => "warn,esker::mcp::http=info",
        (false, false) => "warn",
    });
    if recall && std::env::var_os("ESKER_LOG").is_none() {
        std::panic::set_hook(Box::new(|_| {}));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("esker: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("esker: {error:#}");
            ExitCode::from(ERROR_EXIT)
        }
    }
}

fn set_color_choice(color: ColorWhen) {
    let choice = match color {
        ColorWhen::Auto => return,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
}

fn init_logging(default_level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ESKER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Coloured like the rest of stderr: a terminal, unless `--color never` or NO_COLOR.
        .with_ansi(esker::cli::style::stderr_colors())
        .with_writer(std::io::stderr)
        .init();
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Index {
            data_dir,
            quiet,
            watch,
            rebuild,
            wait,
            ingest,
            semantic,
            batch_bytes,
            paths,
        } => {
            let plan = plan_index(&resolve_data_dir(data_dir.as_deref()), paths)?;
            if plan.paths.is_empty() {
                eprintln!(
                    "esker index: no agent history found in the default locations; the store at {} is unchanged",
                    plan.location.data_dir.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            announce_sample(&plan);
            let options = IndexOptions {
                paths: plan.paths.clone(),
                progress: std::io::stderr().is_terminal() && !watch,
                list_files: !quiet,
                report_issues: true,
                wait_for_lock: wait.map(Duration::from_secs),
                rebuild,
                redact: !ingest.no_redact,
                redactor: ingest.redactor()?,
                batch_bytes: batch_bytes.unwrap_or(IndexOptions::default().batch_bytes),
                memory_limit: ingest.memory_limit()?,
                ..IndexOptions::default()
            };
            if watch {
                if !plan.location.sample && discard_sample_store(&plan.location.data_dir)? {
                    eprintln!("removed the sample store: real history is indexed now");
                }
                run_index_watch(&plan.location.data_dir, options, semantic.settings()).await
            } else {
                run_index(&plan, &options, &semantic.settings()).await
            }
        }
        Command::Query {
            data_dir,
            format,
            sql,
        } => {
            let data_dir = resolve_data_dir(data_dir.as_deref());
            match data_dir
                .to_str()
                .filter(|text| esker::team::is_dataset_url(text))
            {
                Some(url) => finish(esker::cli::team::run_dataset_query(url, &sql, format).await),
                None => run_query(&data_dir, &sql, format).await,
            }
        }
        Command::Publish {
            data_dir,
            machine,
            watch,
            keep_replaced,
            url,
        } => finish(
            esker::cli::team::run_publish(
                &resolve_data_dir(data_dir.as_deref()),
                &url,
                machine.as_deref(),
                watch,
                Duration::from_secs(keep_replaced),
            )
            .await,
        ),
        Command::Pull { data_dir, url } => {
            let data_dir = data_dir
                .unwrap_or_else(|| esker::cli::team::default_pull_dir(&resolve_data_dir(None)));
            finish(esker::cli::team::run_pull(&data_dir, &url).await)
        }
        Command::Setup {
            dry_run,
            remove,
            profile,
            clients,
            command,
            hooks,
            json,
        } => {
            let options = esker::cli::setup::SetupOptions {
                dry_run,
                remove,
                profile,
                clients,
                command,
                hooks,
                json,
            };
            finish(esker::cli::setup::run(&options))
        }
        Command::Search {
            data_dir,
            sources,
            project,
            since,
            until,
            event_types,
            limit,
            json,
            semantic,
            query,
        } => {
            let data_dir = resolve_data_dir(data_dir.as_deref());
            let leg = esker::semantic::Leg::open(
                &reading_location(&data_dir).data_dir,
                &semantic.settings(),
            );
            let options = esker::cli::search::SearchOptions {
                query: query.join(" "),
                sources,
                project,
                since,
                until,
                event_types,
                limit,
                json,
            };
            let outcome = match esker::cli::team::open_reader_with(&data_dir, leg).await {
                Ok(reader) => esker::cli::search::run(&reader, &options).await,
                Err(error) => Err(error),
            };
            finish(outcome)
        }
        Command::Recall {
            data_dir,
            prompt,
            cwd,
            budget,
            hook,
            deadline_ms,
            resident,
        } => {
            let data_dir = resolve_data_dir(data_dir.as_deref());
            if resident {
                if let Err(error) = esker::cli::recall::resident::serve(&data_dir).await {
                    tracing::debug!("the resident recall stopped: {error}");
                }
                return Ok(ExitCode::SUCCESS);
            }
            let options = esker::cli::recall::RecallOptions {
                prompt,
                cwd,
                budget,
                data_dir,
                hook: hook
                    .as_deref()
                    .and_then(esker::cli::recall::hook::Agent::parse),
                deadline: deadline_ms.map(Duration::from_millis),
                resident: esker::cli::recall::resident::wanted(),
            };
            let text = esker::cli::recall::run_guarded(options).await;
            print_and_exit_quietly(&text)
        }
        Command::Show {
            data_dir,
            full,
            chain,
            json,
            id,
        } => {
            let options = esker::cli::show::ShowOptions {
                id,
                full,
                chain,
                json,
            };
            let outcome =
                match esker::cli::team::open_reader(&resolve_data_dir(data_dir.as_deref())).await {
                    Ok(reader) => esker::cli::show::run(&reader, &options).await,
                    Err(error) => Err(error),
                };
            finish(outcome)
        }
        Command::Resume {
            data_dir,
            print,
            id,
        } => {
            let options = esker::cli::resume::ResumeOptions { id, print };
            let outcome =
                match esker::cli::team::open_reader(&resolve_data_dir(data_dir.as_deref())).await {
                    Ok(reader) => esker::cli::resume::run(&reader, &options).await,
                    Err(error) => Err(error),
                };
            finish(outcome)
        }
        Command::Handoff {
            data_dir,
            to,
            write,
            budget,
            id,
        } => {
            let outcome = match esker::cli::handoff::HandoffOptions::new(id, &to, write, budget) {
                Ok(options) => {
                    match esker::cli::team::open_reader(&resolve_data_dir(data_dir.as_deref()))
                        .await
                    {
                        Ok(reader) => esker::cli::handoff::run(&reader, &options).await,
                        Err(error) => Err(error),
                    }
                }
                Err(error) => Err(error.into()),
            };
            finish(outcome)
        }
        Command::Sessions {
            data_dir,
            sources,
            project,
            since,
            until,
            limit,
            json,
        } => {
            let options = esker::cli::sessions::SessionsOptions {
                sources,
                project,
                since,
                until,
                limit,
                json,
            };
            let outcome =
                match esker::cli::team::open_reader(&resolve_data_dir(data_dir.as_deref())).await {
                    Ok(reader) => esker::cli::sessions::run(&reader, &options).await,
                    Err(error) => Err(error),
                };
            finish(outcome)
        }
        Command::Usage {
            data_dir,
            by,
            since,
            until,
            cost,
            prices,
            json,
        } => {
            let options = esker::cli::usage::UsageOptions {
                by,
                since,
                until,
                prices: prices.or_else(|| cost.then(String::new)),
                json,
            };
            let outcome =
                match esker::cli::team::open_reader(&resolve_data_dir(data_dir.as_deref())).await {
                    Ok(reader) => esker::cli::usage::run(&reader, &options).await,
                    Err(error) => Err(error),
                };
            finish(outcome)
        }
        Command::Doctor { data_dir, json } => finish(esker::cli::doctor::run(
            &resolve_data_dir(data_dir.as_deref()),
            json,
        )),
        Command::Memory { command } => finish(run_memory(command).await),
        Command::Serve {
            data_dir,
            pull_every,
            no_index,
            no_watch,
            full_pass_every,
            profile,
            project_only,
            project,
            http,
            tokens,
            max_concurrent,
            rate_limit,
            ingest,
            semantic,
        } => {
            let http = http.map(|address| esker::mcp::http::HttpOptions {
                address,
                tokens,
                limits: esker::mcp::http::limits::Limits {
                    max_concurrent,
                    rate_per_second: rate_limit,
                },
            });
            let semantic = semantic.settings();
            let redactor = ingest.redactor()?;
            esker::service::catalog::set_serving_memory_limit(ingest.memory_limit()?);
            let settings = esker::mcp::profiles::ServeSettings {
                memory: esker::memory::service::MemorySettings::from_cwd(project.as_deref()),
                redactor: std::sync::Arc::clone(&redactor),
            };
            let profiles = esker::mcp::profiles::ProfileSet::parse_with(&profile, &settings)
                .context("invalid --profile")?;
            let scope = project_only
                .then(|| project_scope_here(&profiles))
                .transpose()?;
            let requested_dir = resolve_data_dir(data_dir.as_deref());
            let dataset_url = requested_dir
                .to_str()
                .filter(|text| esker::team::is_dataset_url(text))
                .map(str::to_owned);
            // A dataset is served from its pulled cache store, never indexed locally.
            let no_index = no_index || dataset_url.is_some();
            let plan = if let Some(url) = &dataset_url {
                let every = Duration::from_secs(pull_every);
                let cache = esker::cli::team::serve_dataset(url, every).await?;
                IndexPlan {
                    paths: Vec::new(),
                    location: reading_location(&cache),
                }
            } else if no_index {
                IndexPlan {
                    paths: Vec::new(),
                    location: reading_location(&requested_dir),
                }
            } else {
                plan_index(&requested_dir, Vec::new())?
            };
            if let Some(notice) = plan.location.notice() {
                tracing::warn!("{notice}");
            }
            let data_dir = plan.location.data_dir.clone();
            // Memory entries need no logs: a memory server on a fresh machine starts on an
            // empty store (issue #48) instead of exiting for want of an index.
            let store = if no_index && !profiles.names().contains(&"memory") {
                Store::open_existing(&data_dir)?
            } else {
                // Create the store (if new) before the indexer and the server both open it.
                Store::open(&data_dir)?
            };
            store.verify()?;
            if !no_index && !plan.location.sample && discard_sample_store(&data_dir)? {
                tracing::warn!("removed the sample store: real history is indexed now");
            }
            let monitor = if plan.paths.is_empty() {
                IngestMonitor::external()
            } else {
                IngestMonitor::in_process()
            };
            if !plan.paths.is_empty() {
                let options = IndexOptions {
                    paths: plan.paths.clone(),
                    monitor: Some(monitor.clone()),
                    writer_role: "esker serve (background indexer)".to_string(),
                    redact: !ingest.no_redact,
                    redactor,
                    memory_limit: ingest.memory_limit()?,
                    ..IndexOptions::default()
                };
                let watch = (!no_watch).then(|| WatchOptions {
                    full_pass_every: Duration::from_secs(full_pass_every.max(1)),
                    ..WatchOptions::default()
                });
                spawn_background_index(store, options, watch, semantic.clone())?;
            }
            let leg = esker::semantic::Leg::open(&data_dir, &semantic);
            match http {
                Some(options) => {
                    esker::mcp::http::serve(&data_dir, profiles, monitor, leg, &options).await?
                }
                None => esker::mcp::serve_stdio(data_dir, profiles, monitor, leg, scope).await?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Ui {
            data_dir,
            port,
            open,
            no_index,
            no_watch,
            full_pass_every,
            ingest,
            semantic,
        } => {
            let background = (!no_index).then(|| WatchOptions {
                full_pass_every: Duration::from_secs(full_pass_every.max(1)),
                ..WatchOptions::default()
            });
            let options = esker::ui::UiOptions {
                port,
                open_browser: open,
            };
            run_ui(
                data_dir.as_deref(),
                background.map(|watch| (!no_watch).then_some(watch)),
                &ingest,
                semantic.settings(),
                &options,
            )
            .await
        }
        Command::Model {
            command:
                ModelCommand::Install {
                    data_dir,
                    from_file,
                },
        } => run_model_install(&resolve_data_dir(data_dir.as_deref()), from_file.as_deref()),
        Command::Redact {
            check: _,
            rules,
            files,
        } => run_redact_check(rules.as_deref(), &files),
    }
}

/// `esker memory add|search|list`.
async fn run_memory(command: MemoryCommand) -> Result<esker::cli::Outcome, CliError> {
    use esker::cli::memory::{self as memory_cli, AddOptions, ListOptions, SearchOptions};
    use esker::memory::policy::Policy;
    match command {
        MemoryCommand::Add {
            data_dir,
            project,
            entry_type,
            title,
            source_ref,
            metadata,
            rules,
            json,
            text,
        } => {
            let redactor = redactor_with(rules.as_deref())
                .map_err(|error| CliError::Usage(format!("{error:#}")))?;
            let service = memory_cli::open_service(
                &resolve_data_dir(data_dir.as_deref()),
                project.as_deref(),
                Policy::new(redactor),
            )?;
            let draft = esker::memory::entry::Draft {
                text: memory_text(&text)?,
                title,
                project,
                entry_type,
                source_ref,
                session_id: None,
                metadata: metadata.as_deref().map(metadata_object).transpose()?,
            };
            memory_cli::add(&service, &AddOptions { draft, json }).await
        }
        MemoryCommand::Search {
            data_dir,
            project,
            entry_type,
            limit,
            offset,
            json,
            query,
        } => {
            let service = memory_cli::open_service(
                &resolve_data_dir(data_dir.as_deref()),
                None,
                Policy::default(),
            )?;
            let request = esker::memory::service::SearchRequest {
                query: query.join(" "),
                project,
                entry_type,
                limit: Some(limit),
                offset: Some(offset),
            };
            memory_cli::search(&service, &SearchOptions { request, json })
        }
        MemoryCommand::List {
            data_dir,
            project,
            entry_type,
            limit,
            json,
        } => {
            let service = memory_cli::open_service(
                &resolve_data_dir(data_dir.as_deref()),
                None,
                Policy::default(),
            )?;
            let options = ListOptions {
                project,
                entry_type,
                limit,
                json,
            };
            memory_cli::list(&service, &options)
        }
    }
}

/// The text of `esker memory add`: the words joined, or standard input for `-`.
fn memory_text(words: &[String]) -> Result<String, CliError> {
    if let [only] = words
        && only == "-"
    {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
        return Ok(text);
    }
    Ok(words.join(" "))
}

fn metadata_object(text: &str) -> Result<serde_json::Map<String, serde_json::Value>, CliError> {
    match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        _ => Err(CliError::Usage(
            "--metadata must be a JSON object".to_owned(),
        )),
    }
}

/// `esker redact --check`: 0 when nothing would be redacted, 1 when something would, 2 when a
/// file could not be read.
fn run_redact_check(rules: Option<&Path>, files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let redactor = redactor_with(rules)?;
    let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let mut unreadable = 0;
    let found = check_files(
        &redactor,
        &files,
        &mut std::io::stdout().lock(),
        &mut unreadable,
    )?;
    eprintln!(
        "esker redact: {found} secret(s) would be redacted in {} file(s) (rules {})",
        files.len() - unreadable,
        redactor.version()
    );
    Ok(match (unreadable, found) {
        (1.., _) => ExitCode::from(2),
        (0, 1..) => ExitCode::from(1),
        (0, 0) => ExitCode::SUCCESS,
    })
}

/// Says on stderr that the bundled sample corpus is indexed, and where.
fn announce_sample(plan: &IndexPlan) {
    if plan.location.sample {
        eprintln!(
            "esker index: no Codex, Claude Code or Gemini CLI history found; indexing the bundled SAMPLE sessions into their own store {} (your real store stays clean)",
            plan.location.data_dir.display()
        );
    }
}

/// `esker recall`'s end: the text on stdout, then exit 0 at once (no wait for the runtime's
/// threads, whatever they still hold). A stdout that cannot be written is not an error either.
fn print_and_exit_quietly(text: &str) -> ! {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    std::process::exit(0)
}

/// Maps a command's outcome to its exit code (0 results, 1 none, 2 error).
fn finish(outcome: Result<Outcome, CliError>) -> anyhow::Result<ExitCode> {
    match outcome {
        Ok(outcome) => Ok(outcome.exit_code()),
        Err(error) => {
            eprintln!("esker: {error}");
            Ok(ExitCode::from(ERROR_EXIT))
        }
    }
}

async fn run_index(
    plan: &IndexPlan,
    options: &IndexOptions,
    semantic: &esker::semantic::SemanticSettings,
) -> anyhow::Result<ExitCode> {
    let store = Store::open(&plan.location.data_dir)?;
    let summary = index_paths(&store, options).await?;
    eprintln!("esker index: {summary}");
    tokio::task::block_in_place(|| embed_after_commit(&store, semantic, true));
    if let Some(resident) = esker::heap::Resident::read() {
        eprintln!("peak memory: {} MB", resident.peak / 1_000_000);
    }
    eprintln!("data dir: {}", store.data_dir().display());
    if !plan.location.sample && discard_sample_store(&plan.location.data_dir)? {
        eprintln!("removed the sample store: real history is indexed now");
    }
    Ok(if summary.files_failed > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// The semantic leg's embedding pass after a lexical commit: the new events become searchable
/// by meaning (words already find them). Nothing without a model or endpoint; a failure is
/// reported and leaves the lexical store as committed.
fn embed_after_commit(
    store: &Store,
    settings: &esker::semantic::SemanticSettings,
    to_stderr: bool,
) {
    let outcome =
        esker::semantic::Embedder::for_settings(store.data_dir(), settings).and_then(|embedder| {
            embedder
                .map(|embedder| esker::semantic::embed_pass::embed_pending(store, &embedder))
                .transpose()
        });
    match (outcome, to_stderr) {
        (Ok(None), _) => {}
        (Ok(Some(summary)), true) => eprintln!("esker index: semantic leg: {summary}"),
        (Ok(Some(summary)), false) => tracing::info!("semantic leg: {summary}"),
        (Err(error), true) => eprintln!("esker index: semantic leg: {error}"),
        (Err(error), false) => tracing::warn!("semantic leg: {error}"),
    }
}

/// `esker model install [--from-file PATH]`, then an embedding pass over the store if any.
fn run_model_install(data_dir: &Path, from_file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let origin = match from_file {
        Some(path) => esker::semantic::install::install_from_file(data_dir, path)?,
        None => esker::semantic::install::install_from_pip(data_dir)?,
    };
    eprintln!(
        "esker model install: {} from {} into {}\nlicence: {}",
        origin.name,
        origin.source,
        esker::semantic::model_files::model_dir(data_dir).display(),
        origin.licence
    );
    if let Ok(store) = Store::open_existing(data_dir) {
        embed_after_commit(&store, &esker::semantic::SemanticSettings::default(), true);
    }
    Ok(ExitCode::SUCCESS)
}

/// `esker index --watch`: indexes, then keeps indexing as the logs change, until killed.
async fn run_index_watch(
    data_dir: &Path,
    options: IndexOptions,
    semantic: esker::semantic::SemanticSettings,
) -> anyhow::Result<ExitCode> {
    let store = Store::open(data_dir)?;
    eprintln!(
        "esker index: watching {} location(s); Ctrl-C to stop",
        options.paths.len()
    );
    let outcome = tokio::task::spawn_blocking(move || {
        let mut first = true;
        watch_and_index(&store, &options, &WatchOptions::default(), |outcome| {
            match outcome {
                Ok(summary) if first || summary.files_ingested > 0 => {
                    eprintln!("esker index: {summary}");
                    embed_after_commit(&store, &semantic, true);
                }
                Ok(_) => {}
                Err(error) => eprintln!("esker index: {error}"),
            }
            first = false;
        })
    })
    .await?;
    outcome?;
    Ok(ExitCode::SUCCESS)
}

/// `esker ui`: the store `serve` would read (the sample store when there is no history),
/// kept fresh by the same background indexer unless `background` is `None` (`--no-index`;
/// `Some(None)` indexes once), served as a web view until killed.
async fn run_ui(
    data_dir: Option<&Path>,
    background: Option<Option<WatchOptions>>,
    ingest: &IngestArgs,
    semantic: esker::semantic::SemanticSettings,
    options: &esker::ui::UiOptions,
) -> anyhow::Result<ExitCode> {
    esker::service::catalog::set_serving_memory_limit(ingest.memory_limit()?);
    let requested_dir = resolve_data_dir(data_dir);
    let plan = match background {
        None => IndexPlan {
            paths: Vec::new(),
            location: reading_location(&requested_dir),
        },
        Some(_) => plan_index(&requested_dir, Vec::new())?,
    };
    let data_dir = plan.location.data_dir.clone();
    let store = if background.is_none() {
        Store::open_existing(&data_dir)?
    } else {
        Store::open(&data_dir)?
    };
    store.verify()?;
    if background.is_some() && !plan.location.sample && discard_sample_store(&data_dir)? {
        tracing::warn!("removed the sample store: real history is indexed now");
    }
    let monitor = if plan.paths.is_empty() {
        IngestMonitor::external()
    } else {
        IngestMonitor::in_process()
    };
    if let Some(watch) = background.filter(|_| !plan.paths.is_empty()) {
        let index_options = IndexOptions {
            paths: plan.paths.clone(),
            monitor: Some(monitor.clone()),
            writer_role: "esker ui (background indexer)".to_string(),
            redact: !ingest.no_redact,
            redactor: ingest.redactor()?,
            memory_limit: ingest.memory_limit()?,
            ..IndexOptions::default()
        };
        spawn_background_index(store, index_options, watch, semantic.clone())?;
    }
    let leg = esker::semantic::Leg::open(&data_dir, &semantic);
    let reader = esker::ui::open_reader(plan.location, monitor, leg).await?;
    esker::ui::serve(reader, options).await?;
    Ok(ExitCode::SUCCESS)
}

/// The scope of `esker serve --project-only`: the project of the working directory, for
/// profiles that can be scoped.
fn project_scope_here(
    profiles: &esker::mcp::profiles::ProfileSet,
) -> anyhow::Result<esker::service::project_scope::ProjectScope> {
    esker::service::project_scope::check_profiles(&profiles.names())?;
    let launch_dir = std::env::current_dir().context("cannot read the working directory")?;
    let scope = esker::service::project_scope::ProjectScope::of_launch_dir(&launch_dir)?;
    tracing::info!(
        root = scope.root(),
        "serving the sessions of one project only"
    );
    Ok(scope)
}

/// Keeps the store fresh while the server runs: one pass at startup, then (unless `watch` is
/// `None`) a pass whenever the logs change. Runs on a thread of its own so MCP requests keep
/// the runtime's workers.
fn spawn_background_index(
    store: Store,
    options: IndexOptions,
    watch: Option<WatchOptions>,
    semantic: esker::semantic::SemanticSettings,
) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("esker-indexer".to_string())
        .spawn(move || {
            let first_pass = std::sync::atomic::AtomicBool::new(true);
            let log_pass = |outcome: &Result<IndexSummary, IndexError>| match outcome {
                Ok(summary) => {
                    tracing::info!("background index: {summary}");
                    let first = first_pass.swap(false, std::sync::atomic::Ordering::Relaxed);
                    if first || summary.files_ingested > 0 {
                        embed_after_commit(&store, &semantic, false);
                    }
                }
                Err(IndexError::Store(StoreError::Locked { .. })) => {
                    tracing::debug!("another writer holds the store; retrying")
                }
                Err(error) => tracing::warn!("background index failed: {error}"),
            };
            match watch {
                Some(watch) => {
                    if let Err(error) = watch_and_index(&store, &options, &watch, log_pass) {
                        tracing::warn!("background indexer stopped: {error}");
                        if let Some(monitor) = &options.monitor {
                            monitor.indexer_stopped();
                        }
                    }
                }
                None => index_once(&store, &options, log_pass),
            }
        })?;
    Ok(())
}

fn index_once(
    store: &Store,
    options: &IndexOptions,
    log_pass: impl Fn(&Result<IndexSummary, IndexError>),
) {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => log_pass(&runtime.block_on(index_paths(store, options))),
        Err(error) => tracing::warn!("background indexer cannot start: {error}"),
    }
}

async fn run_query(data_dir: &Path, sql: &str, format: OutputFormat) -> anyhow::Result<ExitCode> {
    let location = reading_location(data_dir);
    if let Some(notice) = location.notice() {
        eprintln!("{notice}");
    }
    let store = Store::open_existing(&location.data_dir)?;
    store.verify()?;
    // Pinned: a writer committing meanwhile does not remove the files this query reads.
    let snapshot = store.pin_current()?;
    let context = esker::query::context_for(&snapshot).await?;
    let batches = match esker::query::run_read_only(&context, sql).await {
        Ok((_, batches)) => batches,
        Err(error) => {
            eprintln!("esker query: {error}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut stdout = std::io::stdout().lock();
    write_batches(&mut stdout, &batches, format)?;
    Ok(ExitCode::SUCCESS)
}
