//! A read-only view of a dataset's store in which listings show only the files the manifests
//! name: DataFusion's listing tables then read exactly the published generations, never the
//! uploads of a publish still under way (or killed before its manifest).

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// `inner` with listings limited to `visible` paths; writes are refused.
#[derive(Debug)]
pub struct ManifestView {
    inner: Arc<dyn ObjectStore>,
    visible: Arc<HashSet<Path>>,
}

impl ManifestView {
    pub fn new(inner: Arc<dyn ObjectStore>, visible: HashSet<Path>) -> ManifestView {
        ManifestView {
            inner,
            visible: Arc::new(visible),
        }
    }
}

impl fmt::Display for ManifestView {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "ManifestView({})", self.inner)
    }
}

fn read_only() -> object_store::Error {
    object_store::Error::NotSupported {
        source: "a published esker dataset is read-only here".into(),
    }
}

#[async_trait::async_trait]
impl ObjectStore for ManifestView {
    async fn put_opts(&self, _: &Path, _: PutPayload, _: PutOptions) -> Result<PutResult> {
        Err(read_only())
    }

    async fn put_multipart_opts(
        &self,
        _: &Path,
        _: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        Err(read_only())
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        locations.map(|_| Err(read_only())).boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        let visible = Arc::clone(&self.visible);
        self.inner
            .list(prefix)
            .filter(move |meta| {
                let keep = meta
                    .as_ref()
                    .map_or(true, |meta| visible.contains(&meta.location));
                futures::future::ready(keep)
            })
            .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        let mut listed = self.inner.list_with_delimiter(prefix).await?;
        listed
            .objects
            .retain(|meta| self.visible.contains(&meta.location));
        listed.common_prefixes.retain(|directory| {
            self.visible
                .iter()
                .any(|path| path.prefix_matches(directory))
        });
        Ok(listed)
    }

    async fn copy_opts(&self, _: &Path, _: &Path, _: CopyOptions) -> Result<()> {
        Err(read_only())
    }
}
