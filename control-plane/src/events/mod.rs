//! The telemetry sink behind `POST /api/v1/events` (spec §6): accepted
//! batches wait in a bounded queue and a writer task stores them in batches
//! after the 202 has gone out. A batch is queued whole or refused whole
//! (the caller answers 503), so nothing is ever half-written; while the
//! database refuses writes the writer retries and the queue fills, which
//! turns into 503s rather than lost events or unbounded memory.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Mutex, Notify, mpsc};
use tokio::task::JoinHandle;

use crate::store::{EventStore, NewEvent};

/// Most events written in one transaction.
const WRITE_BATCH: usize = 500;

/// The queue is full: refuse the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueFull;

#[derive(Debug)]
pub struct EventSink {
    sender: mpsc::Sender<Vec<NewEvent>>,
    stop: Arc<Notify>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl EventSink {
    /// Starts the writer; at most `capacity` batches wait for it.
    pub fn start(store: Arc<dyn EventStore>, capacity: usize) -> EventSink {
        let (sender, rx) = mpsc::channel(capacity.max(1));
        let stop = Arc::new(Notify::new());
        let writer = tokio::spawn(write_loop(store, rx, Arc::clone(&stop)));
        EventSink {
            sender,
            stop,
            writer: Mutex::new(Some(writer)),
        }
    }

    /// A sink whose queue nobody drains (tests of the full-queue answer).
    pub fn unattended(capacity: usize) -> (EventSink, mpsc::Receiver<Vec<NewEvent>>) {
        let (sender, rx) = mpsc::channel(capacity.max(1));
        let sink = EventSink {
            sender,
            stop: Arc::new(Notify::new()),
            writer: Mutex::new(None),
        };
        (sink, rx)
    }

    /// Queues a batch whole, or refuses it whole.
    pub fn offer(&self, batch: Vec<NewEvent>) -> Result<(), QueueFull> {
        self.sender.try_send(batch).map_err(|_| QueueFull)
    }

    /// Writes what is queued, then stops the writer (at most `grace`).
    pub async fn shutdown(&self, grace: Duration) {
        let writer = self.writer.lock().await.take();
        if let Some(writer) = writer {
            self.stop.notify_one();
            let abort = writer.abort_handle();
            if tokio::time::timeout(grace, writer).await.is_err() {
                tracing::warn!("events still queued at shutdown were not written");
                abort.abort();
            }
        }
    }
}

async fn write_loop(
    store: Arc<dyn EventStore>,
    mut rx: mpsc::Receiver<Vec<NewEvent>>,
    stop: Arc<Notify>,
) {
    let mut stopping = false;
    loop {
        let first = if stopping {
            match rx.try_recv() {
                Ok(batch) => batch,
                Err(_) => return,
            }
        } else {
            tokio::select! {
                batch = rx.recv() => match batch {
                    Some(batch) => batch,
                    None => return,
                },
                () = stop.notified() => {
                    stopping = true;
                    continue;
                }
            }
        };
        let mut events = first;
        while events.len() < WRITE_BATCH {
            match rx.try_recv() {
                Ok(more) => events.extend(more),
                Err(_) => break,
            }
        }
        let mut backoff = Duration::from_millis(100);
        while let Err(e) = store.insert_events(&events).await {
            tracing::warn!(error = %e, events = events.len(), "storing events failed; retrying");
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str) -> NewEvent {
        NewEvent {
            received_at: 0,
            name: name.into(),
            source: None,
            anonymous_id: None,
            session_id: None,
            url: None,
            referrer: None,
            properties: None,
            utm: None,
        }
    }

    #[tokio::test]
    async fn a_full_queue_refuses_whole_batches() {
        let (sink, mut rx) = EventSink::unattended(2);
        assert_eq!(sink.offer(vec![event("a"), event("b")]), Ok(()));
        assert_eq!(sink.offer(vec![event("c")]), Ok(()));
        assert_eq!(sink.offer(vec![event("d"), event("e")]), Err(QueueFull));
        // What was accepted is there, whole; what was refused is not.
        assert_eq!(rx.recv().await.unwrap().len(), 2);
        assert_eq!(rx.recv().await.unwrap().len(), 1);
        assert!(rx.try_recv().is_err());
    }
}
