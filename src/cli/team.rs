//! `esker publish`, `esker pull` and the `--data-dir URL` of `query`, `search`, `sessions`
//! and `serve`: the command-line side of [`crate::team`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::{CliError, Outcome, Reader};
use crate::query::output::{OutputFormat, write_batches};
use crate::store::Store;
use crate::team::machine::machine_id;
use crate::team::publish::{publish, publish_watch};
use crate::team::pull::pull;
use crate::team::read::dataset_context;
use crate::team::remote::Remote;

/// How long `pull` waits for another writer of the same local store.
const PULL_WAIT: Duration = Duration::from_secs(120);

/// `esker publish URL`: the current generation of `data_dir`, once or after every commit.
pub async fn run_publish(
    data_dir: &Path,
    url: &str,
    machine: Option<&str>,
    watch: bool,
    keep_replaced: Duration,
) -> Result<Outcome, CliError> {
    let store = Store::open_existing(data_dir)?;
    store.verify()?;
    let remote = Remote::open(url)?;
    let machine = machine_id(store.data_dir(), machine)?;
    if watch {
        eprintln!(
            "esker publish: publishing {} as machine {machine} after every commit; Ctrl-C to stop",
            remote.display
        );
        publish_watch(
            &store,
            &remote,
            &machine,
            keep_replaced,
            |outcome| match outcome {
                Ok(summary) => eprintln!("esker publish: {summary}"),
                Err(error) => eprintln!("esker publish: {error}"),
            },
        )
        .await?;
        return Ok(Outcome::Found);
    }
    let summary = publish(&store, &remote, &machine, keep_replaced).await?;
    eprintln!("esker publish: {} -> {}", summary, remote.display);
    Ok(Outcome::Found)
}

/// `esker pull URL`: brings the local store at `data_dir` to the dataset's manifests.
pub async fn run_pull(data_dir: &Path, url: &str) -> Result<Outcome, CliError> {
    let remote = Remote::open(url)?;
    // Reached before the local store is created: a bad URL leaves nothing behind.
    crate::team::manifest::read_manifests(&remote).await?;
    let store = Store::open(data_dir)?;
    let summary = pull(&store, &remote, PULL_WAIT).await?;
    eprintln!("esker pull: {summary}");
    eprintln!(
        "data dir: {} (serve it with `esker serve --no-index --data-dir {}`)",
        store.data_dir().display(),
        store.data_dir().display()
    );
    Ok(Outcome::Found)
}

/// Where `esker pull` builds its store when given no `--data-dir`: beside the data dir, named
/// after it with `-team` (`~/.local/share/esker-team`). The name is taken from the last
/// component, so a data dir given with a trailing slash (`ESKER_DATA_DIR=/data/esker/`) gets
/// `/data/esker-team`, not a `-team` directory inside the store (issue #48).
pub fn default_pull_dir(data_dir: &Path) -> PathBuf {
    match data_dir.file_name() {
        Some(name) => {
            let mut team_name = name.to_os_string();
            team_name.push("-team");
            data_dir.with_file_name(team_name)
        }
        None => data_dir.join("team-store"),
    }
}

/// `esker query --data-dir URL "SQL"`: read-only SQL over every machine's tables.
pub async fn run_dataset_query(
    url: &str,
    sql: &str,
    format: OutputFormat,
) -> Result<Outcome, CliError> {
    let remote = Remote::open(url)?;
    let (context, _) = dataset_context(&remote).await?;
    let (_, batches) = crate::query::run_read_only(&context, sql)
        .await
        .map_err(|error| CliError::Usage(error.to_string()))?;
    let mut stdout = std::io::stdout().lock();
    write_batches(&mut stdout, &batches, format)
        .map_err(|error| CliError::Usage(format!("cannot write the output: {error}")))?;
    Ok(Outcome::Found)
}

/// The reader of `search` / `sessions` for a data dir or a dataset URL: a URL is pulled into
/// a local cache store first (incrementally), which then answers like any store.
pub async fn open_reader(data_dir: &Path) -> Result<Reader, CliError> {
    open_reader_with(data_dir, None).await
}

/// [`open_reader`] with the semantic search leg (`esker search --semantic on`).
pub async fn open_reader_with(
    data_dir: &Path,
    semantic: Option<std::sync::Arc<crate::semantic::Leg>>,
) -> Result<Reader, CliError> {
    let Some(url) = data_dir
        .to_str()
        .filter(|text| crate::team::is_dataset_url(text))
    else {
        return Reader::open_with(data_dir, semantic).await;
    };
    let remote = Remote::open(url)?;
    let cache = cache_dir(&remote.display);
    let store = Store::open(&cache)?;
    let summary = pull(&store, &remote, PULL_WAIT).await?;
    tracing::info!(
        "pulled {} into {}: {summary}",
        remote.display,
        cache.display()
    );
    Reader::open_with(&cache, semantic).await
}

/// `esker serve --data-dir URL`: the dataset pulled into its cache store ([`cache_dir`]),
/// then pulled again every `every` in the background while the server answers from that
/// store (each pull that changes something is one commit, which the server reads from its
/// next request on; a failed pull is logged and the last pulled generation stays served).
/// Returns the cache store's directory.
pub async fn serve_dataset(url: &str, every: Duration) -> Result<PathBuf, CliError> {
    let remote = Remote::open(url)?;
    let cache = cache_dir(&remote.display);
    let store = Store::open(&cache)?;
    let summary = pull(&store, &remote, PULL_WAIT).await?;
    eprintln!(
        "esker serve: pulled {} into {}: {summary}; pulling again every {} s",
        remote.display,
        cache.display(),
        every.as_secs()
    );
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match pull(&store, &remote, PULL_WAIT).await {
                Ok(summary) if summary.generation.is_some() => {
                    tracing::info!(dataset = %remote.display, "pulled: {summary}");
                }
                Ok(_) => tracing::debug!(dataset = %remote.display, "up to date"),
                Err(error) => tracing::warn!(
                    dataset = %remote.display,
                    %error,
                    "pull failed; serving the last pulled generation"
                ),
            }
        }
    });
    Ok(cache)
}

/// The local cache store of a dataset: `$XDG_CACHE_HOME/esker/datasets/<hash of the URL>`.
pub fn cache_dir(url: &str) -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("esker")
        .join("datasets")
        .join(crate::ids::stable_hash_hex(&[url.as_bytes()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pulled_store_sits_beside_the_data_dir() {
        for data_dir in ["/home/u/.local/share/esker", "/home/u/.local/share/esker/"] {
            assert_eq!(
                default_pull_dir(Path::new(data_dir)),
                PathBuf::from("/home/u/.local/share/esker-team"),
                "{data_dir}"
            );
        }
    }
}
