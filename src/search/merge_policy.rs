//! Which segments of the master index merge: tantivy's log-size levels, each merge's input
//! bounded in bytes so that a merge never maps more of the index than the indexing memory
//! budget allows.
//!
//! tantivy reads the segments it merges through `mmap`, so every page of a merge's input
//! becomes resident in the indexing process while the merge runs. With tantivy's default
//! policy the 10M-document pass merged segments of 2–3 million documents (1–1.5 GB of files)
//! and its resident peak rose from ~0.9 GB to 2.4 GB during those merges alone. A level that
//! tantivy would merge is cut to its smallest segments whose files fit in the budget; a level
//! where not even two fit stays as it is (its segments are big enough to be searched alone).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tantivy::index::{SegmentComponent, SegmentId, SegmentMeta};
use tantivy::indexer::{LogMergePolicy, MergeCandidate, MergePolicy};

/// The most bytes of segment files one merge reads. Together with the indexing pass's own
/// ~0.9 GB at 10M documents this keeps the pass under 2 GB resident.
pub const MAX_MERGE_INPUT_BYTES: u64 = 640 * 1024 * 1024;

/// The segment files a merge reads (the delete bitset is read too, but is tiny).
const MERGED_COMPONENTS: [SegmentComponent; 6] = [
    SegmentComponent::Postings,
    SegmentComponent::Positions,
    SegmentComponent::FastFields,
    SegmentComponent::FieldNorms,
    SegmentComponent::Terms,
    SegmentComponent::Store,
];

/// tantivy's [`LogMergePolicy`] levels with a byte bound on each merge's input.
#[derive(Debug)]
pub struct BoundedMergePolicy {
    levels: LogMergePolicy,
    index_dir: PathBuf,
    max_input_bytes: u64,
}

impl BoundedMergePolicy {
    /// The policy of the index in `index_dir`, whose merges read at most `max_input_bytes`.
    pub fn new(index_dir: &Path, max_input_bytes: u64) -> BoundedMergePolicy {
        BoundedMergePolicy {
            levels: LogMergePolicy::default(),
            index_dir: index_dir.to_path_buf(),
            max_input_bytes,
        }
    }

    /// The bytes of `segment`'s files on disk (a file not found counts as empty).
    fn segment_bytes(&self, segment: &SegmentMeta) -> u64 {
        MERGED_COMPONENTS
            .iter()
            .filter_map(|component| {
                let path = self
                    .index_dir
                    .join(segment.relative_path(component.clone()));
                std::fs::metadata(path).ok()
            })
            .map(|metadata| metadata.len())
            .sum()
    }
}

impl MergePolicy for BoundedMergePolicy {
    fn compute_merge_candidates(&self, segments: &[SegmentMeta]) -> Vec<MergeCandidate> {
        let candidates = self.levels.compute_merge_candidates(segments);
        if candidates.is_empty() {
            return candidates;
        }
        let sizes: HashMap<SegmentId, u64> = segments
            .iter()
            .map(|segment| (segment.id(), self.segment_bytes(segment)))
            .collect();
        candidates
            .into_iter()
            .filter_map(|candidate| within_budget(candidate, &sizes, self.max_input_bytes))
            .collect()
    }
}

/// The smallest segments of `candidate` whose sizes add up to at most `max_input_bytes`, or
/// `None` when fewer than two fit (nothing to merge).
fn within_budget(
    candidate: MergeCandidate,
    sizes: &HashMap<SegmentId, u64>,
    max_input_bytes: u64,
) -> Option<MergeCandidate> {
    let size_of = |id: &SegmentId| sizes.get(id).copied().unwrap_or_default();
    let mut ids = candidate.0;
    ids.sort_by_key(size_of);
    let mut total = 0u64;
    let kept: Vec<SegmentId> = ids
        .into_iter()
        .take_while(|id| {
            total += size_of(id);
            total <= max_input_bytes
        })
        .collect();
    (kept.len() >= 2).then_some(MergeCandidate(kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(count: usize) -> Vec<SegmentId> {
        (0..count).map(|_| SegmentId::generate_random()).collect()
    }

    #[test]
    fn a_level_over_the_budget_merges_its_smallest_segments_that_fit() {
        let segments = ids(4);
        let sizes: HashMap<SegmentId, u64> =
            segments.iter().copied().zip([400, 100, 300, 200]).collect();
        let kept = within_budget(MergeCandidate(segments.clone()), &sizes, 650).expect("a merge");
        assert_eq!(kept.0, vec![segments[1], segments[3], segments[2]]);
    }

    #[test]
    fn a_level_where_fewer_than_two_segments_fit_does_not_merge() {
        let segments = ids(3);
        let sizes: HashMap<SegmentId, u64> =
            segments.iter().copied().zip([500, 600, 700]).collect();
        assert!(within_budget(MergeCandidate(segments), &sizes, 1000).is_none());
    }

    #[test]
    fn a_level_within_the_budget_merges_whole() {
        let segments = ids(8);
        let sizes: HashMap<SegmentId, u64> = segments.iter().map(|id| (*id, 10)).collect();
        let kept = within_budget(MergeCandidate(segments), &sizes, 80).expect("a merge");
        assert_eq!(kept.0.len(), 8);
    }

    /// Commits `commits` segments of `docs_per_segment` alike documents without merging,
    /// then lets `policy` merge them; returns the documents of each segment afterwards.
    fn merged_segment_docs(
        commits: usize,
        docs_per_segment: usize,
        policy: impl Fn(&Path, u64) -> Box<dyn MergePolicy>,
    ) -> Vec<u32> {
        use tantivy::schema::{STORED, Schema, TEXT};
        use tantivy::{Index, IndexWriter, doc};
        let dir = tempfile::tempdir().expect("temp dir");
        let mut builder = Schema::builder();
        let text = builder.add_text_field("text", TEXT | STORED);
        let index = Index::create_in_dir(dir.path(), builder.build()).expect("index");
        let mut writer: IndexWriter = index
            .writer_with_num_threads(1, 15_000_000)
            .expect("writer");
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        for commit in 0..commits {
            for document in 0..docs_per_segment {
                writer
                    .add_document(
                        doc!(text => format!("migration {commit} failed at step {document}")),
                    )
                    .expect("add");
            }
            writer.commit().expect("commit");
        }
        let metas = index.searchable_segment_metas().expect("metas");
        let bounded = BoundedMergePolicy::new(dir.path(), u64::MAX);
        let largest = metas
            .iter()
            .map(|meta| bounded.segment_bytes(meta))
            .max()
            .unwrap_or(0);
        assert!(largest > 0, "segment files are measured");
        writer.set_merge_policy(policy(dir.path(), largest));
        writer.commit().expect("a commit that considers merges");
        writer.wait_merging_threads().expect("merges");
        let mut docs: Vec<u32> = index
            .searchable_segment_metas()
            .expect("metas")
            .iter()
            .map(|meta| meta.max_doc())
            .collect();
        docs.sort_unstable();
        assert_eq!(
            docs.iter().sum::<u32>() as usize,
            commits * docs_per_segment
        );
        docs
    }

    #[test]
    fn merges_of_a_real_index_read_no_more_than_the_budget() {
        // A budget of three and a half segments: no merge takes more than three of them.
        let docs = merged_segment_docs(12, 200, |dir, segment_bytes| {
            Box::new(BoundedMergePolicy::new(dir, segment_bytes * 7 / 2))
        });
        assert!(
            docs.iter().any(|&count| count > 200),
            "some segments merged: {docs:?}"
        );
        assert!(
            docs.iter().all(|&count| count <= 600),
            "a merge read too much: {docs:?}"
        );
        // Without the bound, tantivy's levels merge all twelve at once.
        let unbounded = merged_segment_docs(12, 200, |dir, _| {
            Box::new(BoundedMergePolicy::new(dir, u64::MAX))
        });
        assert_eq!(unbounded, vec![2400]);
    }
}
