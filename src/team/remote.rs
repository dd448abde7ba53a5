//! A published dataset's location: the object store for a URL, built from each cloud's
//! standard environment (object_store's `from_env` builders), and the dataset's base path in it.

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, S3ConditionalPut};
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ObjectStore, RetryConfig};
use url::Url;

use super::{TeamError, one_line};

/// URL schemes of datasets (`--data-dir` values with one of these are not local stores).
pub const SCHEMES: [&str; 8] = ["s3", "s3a", "gs", "az", "abfs", "abfss", "azure", "file"];

/// A dataset location: the store, the base path of the dataset in it, and the store's URL
/// (`s3://bucket`), which DataFusion's runtime maps to the store.
#[derive(Debug, Clone)]
pub struct Remote {
    pub store: Arc<dyn ObjectStore>,
    pub base: ObjectPath,
    /// `scheme://host` of the store (`file://` for local paths).
    pub store_url: Url,
    /// The same as text without a trailing slash: `s3://bucket`, `file://`.
    scheme_host: String,
    /// The URL as the user gave it, without a trailing slash (for messages).
    pub display: String,
}

/// Retries: a few, quickly, so an unreachable endpoint is an error in seconds, not minutes.
fn retry_config() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig::default(),
        max_retries: 3,
        retry_timeout: Duration::from_secs(30),
    }
}

impl Remote {
    /// The dataset at `text`: a URL (`s3://bucket/prefix`, `gs://`, `az://`, `file:///dir`) or
    /// a local directory path. Credentials come from the environment only.
    pub fn open(text: &str) -> Result<Remote, TeamError> {
        install_tls_provider();
        let trimmed = text.trim_end_matches('/');
        let url = match Url::parse(trimmed) {
            Ok(url) if url.scheme().len() > 1 => url,
            _ => local_url(trimmed)?,
        };
        let display = url.as_str().trim_end_matches('/').to_string();
        let failed = |error: object_store::Error| TeamError::Remote {
            url: display.clone(),
            message: one_line(&error),
        };
        let store: Arc<dyn ObjectStore> = match url.scheme() {
            "s3" | "s3a" => Arc::new(
                s3_builder()
                    .with_url(url.as_str())
                    .with_retry(retry_config())
                    .build()
                    .map_err(failed)?,
            ),
            "gs" => Arc::new(
                GoogleCloudStorageBuilder::from_env()
                    .with_url(url.as_str())
                    .with_retry(retry_config())
                    .build()
                    .map_err(failed)?,
            ),
            "az" | "abfs" | "abfss" | "azure" => Arc::new(
                MicrosoftAzureBuilder::from_env()
                    .with_url(url.as_str())
                    .with_retry(retry_config())
                    .build()
                    .map_err(failed)?,
            ),
            "file" => Arc::new(LocalFileSystem::new()),
            other => {
                return Err(TeamError::Usage(format!(
                    "unsupported URL scheme {other}:// (use s3://, gs://, az://, file:// or a \
                     local path)"
                )));
            }
        };
        let base = ObjectPath::from_url_path(url.path())
            .map_err(|error| TeamError::Usage(format!("bad path in {display}: {error}")))?;
        let scheme_host = format!("{}://{}", url.scheme(), url.host_str().unwrap_or(""));
        let store_url = Url::parse(&scheme_host)
            .map_err(|error| TeamError::Usage(format!("bad URL {display}: {error}")))?;
        Ok(Remote {
            store,
            base,
            store_url,
            scheme_host,
            display,
        })
    }

    /// The object path of `relative` (`events/machine=a/...`) under the dataset's base.
    pub fn path(&self, relative: &str) -> ObjectPath {
        let mut path = self.base.clone();
        for part in relative.split('/').filter(|part| !part.is_empty()) {
            path = path.join(part);
        }
        path
    }

    /// `relative` as a URL DataFusion can read (`s3://bucket/prefix/events/`).
    pub fn url_of(&self, relative: &str) -> String {
        let base = self.base.as_ref();
        let host = &self.scheme_host;
        if base.is_empty() {
            format!("{host}/{relative}")
        } else {
            format!("{host}/{base}/{relative}")
        }
    }

    /// The dataset-relative path of an object path under the base, if it is under it.
    pub fn relative(&self, path: &ObjectPath) -> Option<String> {
        let parts: Vec<String> = path
            .prefix_match(&self.base)?
            .map(|part| part.as_ref().to_string())
            .collect();
        Some(parts.join("/"))
    }

    /// The error for a failed store operation on this dataset.
    pub fn failure(&self, error: &object_store::Error) -> TeamError {
        TeamError::Remote {
            url: self.display.clone(),
            message: one_line(error),
        }
    }
}

/// Makes ring rustls's process-wide provider (once; a provider already installed stays).
fn install_tls_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// S3 from the environment, with conditional puts (`If-None-Match`, which AWS S3, MinIO, R2
/// and moto honour) unless `AWS_CONDITIONAL_PUT` chooses: a Delta log commit is a
/// put-if-absent (`crate::team::delta`).
fn s3_builder() -> AmazonS3Builder {
    let builder = AmazonS3Builder::from_env();
    if std::env::var_os("AWS_CONDITIONAL_PUT").is_some() {
        builder
    } else {
        builder.with_conditional_put(S3ConditionalPut::ETagMatch)
    }
}

/// `file://` URL of a local directory (which need not exist yet: publishing creates it).
fn local_url(text: &str) -> Result<Url, TeamError> {
    let absolute = std::path::absolute(text).map_err(TeamError::io(text))?;
    Url::from_directory_path(&absolute)
        .map_err(|_| TeamError::Usage(format!("not a usable directory: {text}")))
}
