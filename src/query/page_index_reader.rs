//! Parquet readers that always bring a file's page index with its footer, so that a row
//! selection fetches and decodes only the pages holding its rows.
//!
//! A keyed scan ([`super::keyed_scan`]) selects a few rows of each file and turns DataFusion's
//! pruning off (the selection already names the rows). DataFusion then asks for the footer
//! without the page index, and without the offset index the Parquet reader fetches each
//! projected column's whole chunk of a row group (the `text` of 8,192 events, megabytes) and
//! decompresses its pages up to the selected rows. With the offset index it fetches the
//! selected rows' pages only. The index is read once per file and kept in the runtime's
//! metadata cache with the footer (tens of bytes per page).

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::ParquetFileReaderFactory;
use datafusion::parquet::arrow::arrow_reader::ArrowReaderOptions;
use datafusion::parquet::arrow::async_reader::AsyncFileReader;
use datafusion::parquet::errors::Result as ParquetResult;
use datafusion::parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use futures::FutureExt;
use futures::future::BoxFuture;

/// Wraps a reader factory so that every reader's metadata includes the page index.
#[derive(Debug)]
pub struct WithPageIndex {
    inner: Arc<dyn ParquetFileReaderFactory>,
}

impl WithPageIndex {
    pub fn new(inner: Arc<dyn ParquetFileReaderFactory>) -> WithPageIndex {
        WithPageIndex { inner }
    }
}

impl ParquetFileReaderFactory for WithPageIndex {
    fn create_reader(
        &self,
        partition_index: usize,
        partitioned_file: PartitionedFile,
        metadata_size_hint: Option<usize>,
        metrics: &ExecutionPlanMetricsSet,
    ) -> datafusion::error::Result<Box<dyn AsyncFileReader + Send>> {
        let inner = self.inner.create_reader(
            partition_index,
            partitioned_file,
            metadata_size_hint,
            metrics,
        )?;
        Ok(Box::new(PageIndexReader { inner }))
    }
}

/// A reader whose metadata requests ask for the page index too.
struct PageIndexReader {
    inner: Box<dyn AsyncFileReader + Send>,
}

impl AsyncFileReader for PageIndexReader {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, ParquetResult<Bytes>> {
        self.inner.get_bytes(range)
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, ParquetResult<Vec<Bytes>>> {
        self.inner.get_byte_ranges(ranges)
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, ParquetResult<Arc<ParquetMetaData>>> {
        let with_index = options
            .cloned()
            .unwrap_or_default()
            .with_page_index_policy(PageIndexPolicy::Optional);
        async move { self.inner.get_metadata(Some(&with_index)).await }.boxed()
    }
}
