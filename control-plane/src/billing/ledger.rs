//! The ledger port: every movement of credits goes through [`Ledger`], on
//! one embedded process and on N replicas of one PostgreSQL alike
//! (docs/ledger.md).
//!
//! - **Decided in the database.** Whether credits suffice is decided by a
//!   conditional `UPDATE accounts … WHERE balance >= n` in the transaction
//!   that writes the ledger row, never by a read followed by a write.
//! - **Durable before the response.** A charge's caller waits for its
//!   transaction to commit; a 200 that charged is backed by a committed row.
//!   Nothing is reserved in memory, so a replica that dies loses nothing and
//!   leaves nothing to recover.
//! - **Group commit for image charges.** Requests hand their charge to one
//!   collector task and wait for its outcome; the collector drains whatever
//!   has queued up and writes it as one transaction (`store::sql::charges`,
//!   one algorithm and one SQL text for both databases). Under load many
//!   charges share a commit; alone, a charge commits at once. An
//!   InsufficientCredits outcome affects only its own item.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{mpsc, oneshot};

use crate::config::BillingConfig;
use crate::store::{
    IdempotencyClaim, LedgerEntry, NewDelivery, NewDeliveryUrl, NewEntry, Payer, Store, StoreError,
};

type Reply = oneshot::Sender<Result<i64, StoreError>>;
type Request = (NewDelivery, Reply);

/// Scheduler turns a batch waits for more charges before it is written.
const LINGER_YIELDS: usize = 2;

/// The one way the service charges, debits, refunds and reads balances.
#[derive(Debug, Clone)]
pub struct Ledger {
    store: Arc<dyn Store>,
    charges: mpsc::Sender<Request>,
    stats: Arc<LedgerStats>,
}

/// What the collector has done, for `GET /metrics`.
#[derive(Debug, Default)]
pub struct LedgerStats {
    pub batches: AtomicU64,
    pub charges: AtomicU64,
    pub failed_batches: AtomicU64,
}

impl Ledger {
    /// Starts the charge collector (on the current Tokio runtime).
    pub fn start(store: Arc<dyn Store>, config: &BillingConfig) -> Ledger {
        let max_batch = config.max_batch.max(1);
        let (tx, rx) = mpsc::channel::<Request>(4 * max_batch);
        let stats = Arc::new(LedgerStats::default());
        tokio::spawn(collect(
            Arc::clone(&store),
            rx,
            max_batch,
            Arc::clone(&stats),
        ));
        Ledger {
            store,
            charges: tx,
            stats,
        }
    }

    /// Charges one image delivery; its ledger row is its delivery record.
    /// Returns the balance right after this charge, once committed.
    pub async fn charge(&self, delivery: NewDelivery) -> Result<i64, StoreError> {
        let (done, outcome) = oneshot::channel();
        self.charges
            .send((delivery, done))
            .await
            .map_err(|_| StoreError::Unavailable("the ledger has stopped".into()))?;
        outcome
            .await
            .map_err(|_| StoreError::Unavailable("the ledger dropped a charge".into()))?
    }

    /// Mints signed delivery URLs: one debit of their number, the URL rows
    /// and the idempotency record in one transaction. Returns the balance
    /// after.
    pub async fn mint(
        &self,
        payer: Payer<'_>,
        urls: &[NewDeliveryUrl],
        idempotency: Option<IdempotencyClaim<'_>>,
    ) -> Result<i64, StoreError> {
        self.store
            .mint_delivery_urls(payer, urls, idempotency)
            .await
    }

    /// Refunds an image delivery's charge (by its ledger row id), once.
    /// `Some(balance after)` when this call refunded it.
    pub async fn refund_delivery(
        &self,
        charge_id: i64,
        reason: &str,
    ) -> Result<Option<i64>, StoreError> {
        self.store.refund_delivery(charge_id, reason).await
    }

    /// Consumes a signed URL whose first load failed and refunds its credit,
    /// once. `Some(balance after)` when this call did it.
    pub async fn refund_failed_url(
        &self,
        url_id: &str,
        reason: &str,
    ) -> Result<Option<i64>, StoreError> {
        self.store.fail_delivery_url(url_id, reason).await
    }

    /// A grant, purchase or adjustment: one entry and the balance, in one
    /// transaction; refused when the balance would go negative.
    pub async fn post(
        &self,
        account_id: &str,
        entry: NewEntry<'_>,
    ) -> Result<LedgerEntry, StoreError> {
        self.store.append_entry(account_id, entry).await
    }

    /// The balance as every reader sees it: the committed one.
    pub async fn balance(&self, account_id: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .store
            .account_by_id(account_id)
            .await?
            .map(|a| a.balance))
    }

    pub fn stats(&self) -> &LedgerStats {
        &self.stats
    }
}

async fn collect(
    store: Arc<dyn Store>,
    mut rx: mpsc::Receiver<Request>,
    max_batch: usize,
    stats: Arc<LedgerStats>,
) {
    let mut batch: Vec<Request> = Vec::with_capacity(max_batch);
    while rx.recv_many(&mut batch, max_batch).await > 0 {
        // Let request tasks that are already runnable reach their charge
        // first: a yield costs only their turn on this worker, and every
        // charge that joins shares the commit.
        for _ in 0..LINGER_YIELDS {
            tokio::task::yield_now().await;
            while batch.len() < max_batch {
                match rx.try_recv() {
                    Ok(item) => batch.push(item),
                    Err(_) => break,
                }
            }
        }
        let requests = std::mem::replace(&mut batch, Vec::with_capacity(max_batch));
        write(&*store, requests, &stats).await;
    }
}

async fn write(store: &dyn Store, requests: Vec<Request>, stats: &LedgerStats) {
    let (items, replies): (Vec<NewDelivery>, Vec<_>) = requests.into_iter().unzip();
    let size = items.len();
    match store.charge_deliveries(items).await {
        Ok(outcomes) => {
            stats.batches.fetch_add(1, Ordering::Relaxed);
            stats.charges.fetch_add(
                outcomes.iter().filter(|o| o.is_ok()).count() as u64,
                Ordering::Relaxed,
            );
            for (done, outcome) in replies.into_iter().zip(outcomes) {
                let _ = done.send(outcome);
            }
        }
        Err(e) => {
            // Nothing of this batch was written: every caller fails, and
            // nobody is charged for an image it does not receive.
            stats.failed_batches.fetch_add(1, Ordering::Relaxed);
            tracing::error!(error = %e, batch.size = size, "a charge batch failed");
            for done in replies {
                let _ = done.send(Err(e.duplicate()));
            }
        }
    }
}
