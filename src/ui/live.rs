//! `GET /api/events`: server-sent events telling the page that the indexer committed. The
//! store's current generation (what every request's catalog snapshot checks) is read every
//! [`POLL`]; each change is an event `generation` whose data is the new number, and the first
//! event tells the one the page was loaded on.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;

use crate::store::Store;
use crate::ui::AppState;

/// How often the current generation is read.
pub const POLL: Duration = Duration::from_millis(500);

/// The event stream of one page.
pub async fn events(
    State(state): State<Arc<AppState>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let store = state.reader.catalog.store().clone();
    Sse::new(generations(store)).keep_alive(KeepAlive::default())
}

/// One event per generation change (the first at once).
fn generations(store: Store) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::unfold((store, None::<u64>), |(store, last_sent)| async move {
        loop {
            let current = store.current().ok().map(|snapshot| snapshot.generation);
            if let Some(generation) = current.filter(|now| Some(*now) != last_sent) {
                let event = Event::default()
                    .event("generation")
                    .data(generation.to_string());
                return Some((Ok(event), (store, Some(generation))));
            }
            tokio::time::sleep(POLL).await;
        }
    })
}
