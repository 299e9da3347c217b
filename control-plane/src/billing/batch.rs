//! Group commit for delivery charges. Requests hand their charge to one
//! writer task and wait for its outcome; the writer drains whatever has
//! queued up and writes it in a single transaction. Under load, many charges
//! share one commit; alone, a charge commits at once. Every caller still
//! waits for its own durable commit, so no entry can be lost, and an
//! InsufficientCredits outcome affects only its own item.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::store::{NewDelivery, Store, StoreError};

/// Charges per transaction at most.
const MAX_BATCH: usize = 256;

type Request = (NewDelivery, oneshot::Sender<Result<i64, StoreError>>);

#[derive(Debug, Clone)]
pub struct ChargeBatcher {
    tx: mpsc::Sender<Request>,
}

impl ChargeBatcher {
    /// Starts the writer task.
    pub fn start(store: Arc<dyn Store>) -> ChargeBatcher {
        let (tx, rx) = mpsc::channel::<Request>(4 * MAX_BATCH);
        tokio::spawn(writer(store, rx));
        ChargeBatcher { tx }
    }

    /// Charges one delivery; returns the balance after, as
    /// `DeliveryStore::charge_delivery` does.
    pub async fn charge(&self, delivery: NewDelivery) -> Result<i64, StoreError> {
        let (done, outcome) = oneshot::channel();
        self.tx
            .send((delivery, done))
            .await
            .map_err(|_| StoreError::Unavailable("the ledger writer has stopped".into()))?;
        outcome
            .await
            .map_err(|_| StoreError::Unavailable("the ledger writer dropped a charge".into()))?
    }
}

async fn writer(store: Arc<dyn Store>, mut rx: mpsc::Receiver<Request>) {
    let mut batch: Vec<Request> = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let items: Vec<NewDelivery> = batch.iter().map(|(d, _)| d.clone()).collect();
        match store.charge_deliveries(&items).await {
            Ok(outcomes) => {
                for ((_, done), outcome) in batch.drain(..).zip(outcomes) {
                    let _ = done.send(outcome);
                }
            }
            Err(e) => {
                // Nothing of this batch was written: every caller fails, and
                // nobody is charged for an image it does not receive.
                tracing::error!(error = %e, batch.size = items.len(), "a charge batch failed");
                for (_, done) in batch.drain(..) {
                    let _ = done.send(Err(clone_err(&e)));
                }
            }
        }
    }
}

fn clone_err(e: &StoreError) -> StoreError {
    match e {
        StoreError::Unavailable(m) => StoreError::Unavailable(m.clone()),
        other => StoreError::Database(other.to_string()),
    }
}
