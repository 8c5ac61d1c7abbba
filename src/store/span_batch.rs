//! Spans of other files fetched in batches, for the stores whose keys point into files elsewhere
//! (kerchunk reference targets, Icechunk's virtual chunks). Both batch the same way, written
//! here once: the spans of one file that the reads of one turn want are collected, merged within
//! the merge gap, and fetched with one request per merged run, shared by every read that wanted
//! a span of it.

use super::single_flight::{Closer, SingleFlight};
use super::{merge_ranges, ReadableStore};
use crate::error::{Result, ZarrError};
use async_trait::async_trait;
use futures_util::future::{join_all, FutureExt};
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

/// The runs of bytes fetched of one file, each with its range.
pub type Blocks = Rc<Vec<(Range<u64>, Vec<u8>)>>;

/// Batches of range requests by file URL, collected from the reads of one turn.
pub type SpanBatches = SingleFlight<String, Blocks, RefCell<Vec<Range<u64>>>>;

/// A store that reads spans of other files, in batches.
#[async_trait(?Send)]
pub trait SpanSource: ReadableStore + Sized + 'static {
    /// The store's batches (shared by all its views).
    fn span_batches(&self) -> &SpanBatches;

    /// A view of the store, owned by a batch's fetch, that sends through this read's client.
    fn batch_view(&self) -> Self;

    /// Bytes `range` of the file at `url`, for `key` (in messages): one request of a batch.
    async fn fetch_block(&self, key: &str, url: &str, range: Range<u64>) -> Result<Vec<u8>>;
}

/// The fetched run of bytes of a batch that holds a wanted span.
pub struct Block {
    blocks: Blocks,
    index: usize,
}

impl Block {
    /// Where the run starts in its file.
    pub fn start(&self) -> u64 {
        self.blocks[self.index].0.start
    }

    /// Where the bytes fetched end in the file (before the run's end if the server sent less).
    pub fn end(&self) -> u64 {
        self.start() + self.blocks[self.index].1.len() as u64
    }

    /// Bytes `span` of the file, which the run holds.
    pub fn slice(&self, span: Range<u64>) -> &[u8] {
        let from = (span.start - self.start()) as usize;
        let to = (span.end - self.start()) as usize;
        &self.blocks[self.index].1[from..to]
    }
}

/// The run holding bytes `span` of the file at `url`, fetched with the spans of that file other
/// reads ask for in the same turn: one request per run of spans within the merge gap.
pub async fn fetch_batched<S: SpanSource>(
    store: &S,
    key: &str,
    url: &str,
    span: Range<u64>,
) -> Result<Block> {
    let wanted = span.clone();
    let join = |w: &RefCell<Vec<Range<u64>>>| w.borrow_mut().push(wanted.clone());
    let start = |w: Rc<RefCell<Vec<Range<u64>>>>, closer: Closer<String, Blocks, _>| {
        let view = store.batch_view();
        let (key, url) = (key.to_string(), url.to_string());
        async move {
            view.batch_window().await;
            closer.close();
            let groups = merge_ranges(w.take(), view.hints().merge_gap);
            let replies = join_all(
                groups
                    .iter()
                    .map(|g| view.fetch_block(&key, &url, g.clone())),
            )
            .await;
            let mut blocks = Vec::with_capacity(groups.len());
            for (g, bytes) in groups.into_iter().zip(replies) {
                blocks.push((g, bytes?));
            }
            Ok(Rc::new(blocks))
        }
        .boxed_local()
    };
    let location = || store.locate(key);
    let blocks = store
        .span_batches()
        .run(url.to_string(), store, location, join, start)
        .await?;
    let index = blocks
        .iter()
        .position(|(g, _)| g.start <= span.start && span.end <= g.end)
        .ok_or_else(|| ZarrError::store(&store.locate(key), "its range was not fetched"))?;
    Ok(Block { blocks, index })
}
