//! Group commit for delivery charges. Requests hand their charge to one
//! collector task and wait for its outcome; the collector drains whatever
//! has queued up and writes it as one batch, in a single transaction. Under
//! load, many charges share one commit; alone, a charge commits at once.
//! Every caller still waits for its own durable commit, so no entry can be
//! lost, and an InsufficientCredits outcome affects only its own item.
//!
//! One batch is written at a time: while it commits, the next one gathers
//! everything that arrives. Measured on PostgreSQL with one busy account
//! (docs/benchmarks.md), four batches in flight were slower than one (8.8k
//! against 10.6-13.7k charges/s at 32 connections, 17.5k against 20.7k at 128):
//! they queue on the account's row lock, each waits for its own fsync, and
//! each is smaller.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::holds::HeldLedger;
use crate::config::BillingConfig;
use crate::store::{ChargeQueue, ChargeReply, NewDelivery, Store, StoreError};

/// Charges per transaction at most.
const MAX_BATCH: usize = 256;
/// Scheduler turns a batch waits for more charges before it is handed on.
const LINGER_YIELDS: usize = 2;

type Request = (NewDelivery, ChargeReply);

#[derive(Debug, Clone)]
pub struct ChargeBatcher {
    route: Route,
}

#[derive(Debug, Clone)]
enum Route {
    /// Charged against this server's credit holds, journalled on the
    /// request's thread, settled in batches (`holds.rs`).
    Held(Arc<HeldLedger>),
    /// The store group-commits by itself (SQLite's writer thread): each
    /// charge goes straight to it, with no task in between.
    Queue(Arc<dyn ChargeQueue>),
    /// The collector task batches for `charge_deliveries`.
    Collector(mpsc::Sender<Request>),
}

impl ChargeBatcher {
    /// Held charges when configured and the store keeps journals; else the
    /// store's own queue, or the collector task.
    pub async fn start(
        store: Arc<dyn Store>,
        config: &BillingConfig,
    ) -> Result<ChargeBatcher, StoreError> {
        let settle_every = std::time::Duration::from_millis(config.settle_every_ms);
        if config.held_charges
            && let Some(ledger) = HeldLedger::start(Arc::clone(&store), settle_every).await?
        {
            return Ok(ChargeBatcher {
                route: Route::Held(ledger),
            });
        }
        if let Some(queue) = store.charge_queue() {
            return Ok(ChargeBatcher {
                route: Route::Queue(queue),
            });
        }
        let (tx, rx) = mpsc::channel::<Request>(4 * MAX_BATCH);
        tokio::spawn(collect(store, rx));
        Ok(ChargeBatcher {
            route: Route::Collector(tx),
        })
    }

    /// Charges one delivery; returns the balance after, as
    /// `DeliveryStore::charge_delivery` does.
    pub async fn charge(&self, delivery: NewDelivery) -> Result<i64, StoreError> {
        let (done, outcome) = oneshot::channel();
        match &self.route {
            Route::Held(ledger) => return ledger.charge(delivery).await,
            Route::Queue(queue) => queue.submit(delivery, done)?,
            Route::Collector(tx) => tx
                .send((delivery, done))
                .await
                .map_err(|_| StoreError::Unavailable("the ledger writer has stopped".into()))?,
        }
        outcome
            .await
            .map_err(|_| StoreError::Unavailable("the ledger writer dropped a charge".into()))?
    }

    /// The held-charge ledger, when charges go through one.
    pub fn held(&self) -> Option<&Arc<HeldLedger>> {
        match &self.route {
            Route::Held(ledger) => Some(ledger),
            _ => None,
        }
    }

    /// Credits charged on the account and not yet in its stored balance.
    pub fn unsettled(&self, account_id: &str) -> i64 {
        self.held().map_or(0, |l| l.unsettled(account_id))
    }

    /// Gives back what this server holds on the account, so that another
    /// kind of debit can spend it; whether anything was given back.
    pub async fn release(&self, account_id: &str) -> Result<bool, StoreError> {
        match self.held() {
            Some(ledger) => ledger.release(account_id).await,
            None => Ok(false),
        }
    }

    /// Moves held charges into the ledger now (before reading the ledger).
    pub async fn settle_now(&self) -> Result<(), StoreError> {
        match self.held() {
            Some(ledger) => ledger.settle_now().await,
            None => Ok(()),
        }
    }

    /// Settles held charges and gives holds back (at shutdown).
    pub async fn shutdown(&self) {
        if let Some(ledger) = self.held() {
            ledger.shutdown().await;
        }
    }
}

async fn collect(store: Arc<dyn Store>, mut rx: mpsc::Receiver<Request>) {
    let mut batch: Vec<Request> = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        // Let request tasks that are already runnable reach their charge
        // first: a yield costs only their turn on this worker, and every
        // charge that joins shares the commit.
        for _ in 0..LINGER_YIELDS {
            tokio::task::yield_now().await;
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(item) => batch.push(item),
                    Err(_) => break,
                }
            }
        }
        let requests = std::mem::replace(&mut batch, Vec::with_capacity(MAX_BATCH));
        write(&*store, requests).await;
    }
}

async fn write(store: &dyn Store, requests: Vec<Request>) {
    let (items, replies): (Vec<NewDelivery>, Vec<_>) = requests.into_iter().unzip();
    let size = items.len();
    match store.charge_deliveries(items).await {
        Ok(outcomes) => {
            for (done, outcome) in replies.into_iter().zip(outcomes) {
                let _ = done.send(outcome);
            }
        }
        Err(e) => {
            // Nothing of this batch was written: every caller fails, and
            // nobody is charged for an image it does not receive.
            tracing::error!(error = %e, batch.size = size, "a charge batch failed");
            for done in replies {
                let _ = done.send(Err(e.duplicate()));
            }
        }
    }
}
