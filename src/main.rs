//! The `esker` binary: parses the command line, runs the command, maps errors to exit codes.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use esker::config::{resolve_data_dir, sample_corpus_dir};
use esker::ingest::run::{IndexOptions, default_locations, index_paths};
use esker::query::output::{OutputFormat, write_batches};
use esker::store::Store;

/// Index AI coding-agent session logs into Parquet + tantivy and serve them over MCP.
#[derive(Debug, Parser)]
#[command(name = "esker", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
        /// Log files or directories to index.
        paths: Vec<PathBuf>,
    },
    /// Run read-only SQL over the `events`, `turns` and `sessions` tables.
    Query {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
        /// One SQL statement (SELECT, WITH, EXPLAIN, SHOW, DESCRIBE).
        sql: String,
    },
    /// Serve the MCP tools over stdio, keeping the index of the default locations fresh in the
    /// background.
    Serve {
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Do not index in the background (serve the store as it is).
        #[arg(long)]
        no_index: bool,
        /// Seconds between background indexing passes (0: only one pass at startup).
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        reindex_every: u64,
    },
}

fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
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
            ExitCode::FAILURE
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ESKER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Index {
            data_dir,
            quiet,
            paths,
        } => run_index(&resolve_data_dir(data_dir.as_deref()), paths, quiet).await,
        Command::Query {
            data_dir,
            format,
            sql,
        } => run_query(&resolve_data_dir(data_dir.as_deref()), &sql, format).await,
        Command::Serve {
            data_dir,
            no_index,
            reindex_every,
        } => {
            let data_dir = resolve_data_dir(data_dir.as_deref());
            // Create the store (if new) before the indexer and the server both open it.
            Store::open(&data_dir)
                .with_context(|| format!("cannot open the data dir {}", data_dir.display()))?;
            if !no_index {
                spawn_background_index(data_dir.clone(), reindex_every);
            }
            esker::mcp::serve_stdio(data_dir).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The paths to index when none are given: default locations, else the sample corpus.
fn paths_or_defaults(paths: Vec<PathBuf>) -> anyhow::Result<Vec<PathBuf>> {
    if !paths.is_empty() {
        return Ok(paths);
    }
    let defaults = default_locations();
    if !defaults.is_empty() {
        return Ok(defaults);
    }
    let sample = sample_corpus_dir()
        .context("no agent history found in the default locations and no data/sample corpus")?;
    tracing::warn!(
        "no Codex, Claude Code or Gemini CLI history found; indexing the sample corpus {}",
        sample.display()
    );
    Ok(vec![sample])
}

async fn run_index(data_dir: &Path, paths: Vec<PathBuf>, quiet: bool) -> anyhow::Result<ExitCode> {
    let store = Store::open(data_dir)
        .with_context(|| format!("cannot open the data dir {}", data_dir.display()))?;
    let options = IndexOptions {
        paths: paths_or_defaults(paths)?,
        progress: std::io::stderr().is_terminal(),
        list_files: !quiet,
    };
    let summary = index_paths(&store, &options).await?;
    eprintln!("esker index: {summary}");
    eprintln!("data dir: {}", store.data_dir().display());
    Ok(if summary.files_failed > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// Indexes the default locations now and then every `every_seconds` (0: once), so a running
/// server sees new agent activity; each pass commits a new generation the server picks up.
fn spawn_background_index(data_dir: PathBuf, every_seconds: u64) {
    tokio::spawn(async move {
        loop {
            // Parsing and Parquet writing block: run the pass on the blocking pool so the MCP
            // requests keep the runtime's workers.
            let runtime = tokio::runtime::Handle::current();
            let pass_data_dir = data_dir.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                runtime.block_on(background_pass(&pass_data_dir))
            })
            .await;
            match outcome {
                Ok(Ok(summary)) => tracing::info!("background index: {summary}"),
                Ok(Err(error)) => tracing::warn!("background index failed: {error:#}"),
                Err(error) => tracing::warn!("background index task failed: {error}"),
            }
            if every_seconds == 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_secs(every_seconds)).await;
        }
    });
}

async fn background_pass(data_dir: &Path) -> anyhow::Result<esker::ingest::run::IndexSummary> {
    let store = Store::open(data_dir)?;
    let options = IndexOptions {
        paths: paths_or_defaults(Vec::new())?,
        progress: false,
        list_files: false,
    };
    Ok(index_paths(&store, &options).await?)
}

async fn run_query(data_dir: &Path, sql: &str, format: OutputFormat) -> anyhow::Result<ExitCode> {
    let store = Store::open(data_dir)
        .with_context(|| format!("cannot open the data dir {}", data_dir.display()))?;
    let context = esker::query::context_for(&store.current()?).await?;
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
