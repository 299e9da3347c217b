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
//!   collector and wait for its outcome; the collector drains whatever has
//!   queued up and writes it as one batch (a `store::ChargeWriter`: the one
//!   algorithm of `store/sql/charges.rs`, run on a SQLite file by the
//!   collector's own rusqlite connection and on PostgreSQL one statement per
//!   paying key, both measured in docs/ledger.md). Under load many charges
//!   share a commit; alone, a charge commits at once. An InsufficientCredits
//!   outcome affects only its own item.
//! - **The collector has a thread of its own**, with a one-thread runtime
//!   and its own database connection. On a busy machine a task among the
//!   request tasks waits its turn after every round trip of a batch; a
//!   thread is woken by the kernel as soon as the database answers
//!   (docs/benchmarks.md, "One ledger").

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{mpsc, oneshot};

use crate::config::{BillingConfig, Secret};
use crate::store::{
    Account, ChargeWriter, CreditStore, DisputeNotice, IdempotencyClaim, LedgerEntry, NewDelivery,
    NewDeliveryUrl, NewEntry, PaidCheckout, Payer, PaymentOutcome, Purchase, RefundNotice,
    StoreError, Verification,
};

type Reply = oneshot::Sender<Result<i64, StoreError>>;
type Request = (NewDelivery, Reply);

/// The one way the service grants, sells, charges, debits, refunds and
/// reads balances: it holds the only handle to the store's
/// [`CreditStore`] (`tests/tidy.rs` checks that no other module names it).
#[derive(Debug, Clone)]
pub struct Ledger {
    credits: Arc<dyn CreditStore>,
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
    /// Starts the charge collector on its own thread, with its own
    /// connection to `database_url` (the database `credits` writes).
    pub async fn start(
        credits: Arc<dyn CreditStore>,
        database_url: &Secret<String>,
        config: &BillingConfig,
    ) -> Result<Ledger, StoreError> {
        let max_batch = config.max_batch.max(1);
        let (tx, rx) = mpsc::channel::<Request>(4 * max_batch);
        let stats = Arc::new(LedgerStats::default());
        let (opened, open) = oneshot::channel::<Result<(), StoreError>>();
        let url = database_url.clone();
        let config_in_flight = config.batches_in_flight;
        let collector_stats = Arc::clone(&stats);
        std::thread::Builder::new()
            .name("vis-ledger".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = opened.send(Err(StoreError::Unavailable(e.to_string())));
                        return;
                    }
                };
                let in_flight = config_in_flight.max(1);
                runtime.block_on(async move {
                    let connections = u32::try_from(in_flight).unwrap_or(1);
                    let writer =
                        match crate::store::open_charge_writer(url.expose(), connections).await {
                            Ok(w) => w,
                            Err(e) => {
                                let _ = opened.send(Err(e));
                                return;
                            }
                        };
                    let _ = opened.send(Ok(()));
                    let writer: Arc<dyn ChargeWriter> = Arc::from(writer);
                    collect(
                        Arc::clone(&writer),
                        rx,
                        max_batch,
                        in_flight,
                        collector_stats,
                    )
                    .await;
                    writer.close().await;
                });
            })
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        open.await
            .map_err(|_| StoreError::Unavailable("the ledger thread stopped".into()))??;
        Ok(Ledger {
            credits,
            charges: tx,
            stats,
        })
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
        self.credits
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
        self.credits.refund_delivery(charge_id, reason).await
    }

    /// Consumes a signed URL whose first load failed and refunds its credit,
    /// once. `Some(balance after)` when this call did it.
    pub async fn refund_failed_url(
        &self,
        url_id: &str,
        reason: &str,
    ) -> Result<Option<i64>, StoreError> {
        self.credits.fail_delivery_url(url_id, reason).await
    }

    /// An operator's adjustment (or any entry with its own kind): one entry
    /// and the balance, in one transaction; refused when the balance would
    /// go negative.
    pub async fn post(
        &self,
        account_id: &str,
        entry: NewEntry<'_>,
    ) -> Result<LedgerEntry, StoreError> {
        self.credits.append_entry(account_id, entry).await
    }

    /// Opens an account with `grant` free credits (one `grant` entry; none
    /// when 0), in one transaction.
    pub async fn open_account(&self, email: &str, grant: i64) -> Result<Account, StoreError> {
        self.credits.create_account(email, grant).await
    }

    /// Opens a person's account (a password) with `grant` free credits, in
    /// one transaction; `Conflict` when the email is taken.
    pub async fn open_person(
        &self,
        email: &str,
        password_hash: &str,
        grant: i64,
    ) -> Result<Account, StoreError> {
        self.credits
            .create_person(email, password_hash, grant)
            .await
    }

    /// Opens an email-verification link: the first link of an unverified
    /// account opened within its lifetime posts its `grant` of `credits`,
    /// once per account whatever is opened again, concurrently or on other
    /// replicas (decided in the database: docs/accounts.md, "Verified
    /// sign-up").
    pub async fn verify_email(
        &self,
        token_hash: &str,
        credits: i64,
    ) -> Result<Verification, StoreError> {
        self.credits.verify_email(token_hash, credits).await
    }

    /// Credits a paid checkout's pack, exactly once per purchase whatever
    /// the provider retries (the event and the purchase row decide).
    pub async fn credit_purchase(
        &self,
        paid: &PaidCheckout<'_>,
    ) -> Result<PaymentOutcome, StoreError> {
        self.credits.record_paid_checkout(paid).await
    }

    /// Takes back a refunded share of a purchase, once per provider event
    /// (docs/billing.md, "After the sale").
    pub async fn reverse_refund(
        &self,
        refund: &RefundNotice<'_>,
    ) -> Result<PaymentOutcome, StoreError> {
        self.credits.record_refund(refund).await
    }

    /// Opens or closes a dispute, once per provider event; a lost one takes
    /// the purchase back like a full refund.
    pub async fn dispute(&self, dispute: &DisputeNotice<'_>) -> Result<PaymentOutcome, StoreError> {
        self.credits.record_dispute(dispute).await
    }

    /// Claims an auto-reload due for `account_id` (once per threshold
    /// crossing, decided in the database) and opens its purchase.
    pub async fn claim_auto_reload(
        &self,
        account_id: &str,
        provider: &str,
    ) -> Result<Option<Purchase>, StoreError> {
        self.credits.claim_auto_reload(account_id, provider).await
    }

    /// The balance as every reader sees it: the committed one.
    pub async fn balance(&self, account_id: &str) -> Result<Option<i64>, StoreError> {
        self.credits.balance(account_id).await
    }

    pub fn stats(&self) -> &LedgerStats {
        &self.stats
    }
}

async fn collect(
    store: Arc<dyn ChargeWriter>,
    rx: mpsc::Receiver<Request>,
    max_batch: usize,
    in_flight: usize,
    stats: Arc<LedgerStats>,
) {
    // Each writer takes whatever has queued while it was writing as its
    // next batch: under load many charges share one commit. (Waiting longer
    // for more was measured and bought nothing: docs/benchmarks.md, "One
    // ledger".)
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let mut writers = tokio::task::JoinSet::new();
    for _ in 0..in_flight {
        let (store, rx, stats) = (Arc::clone(&store), Arc::clone(&rx), Arc::clone(&stats));
        writers.spawn(async move {
            let mut batch: Vec<Request> = Vec::with_capacity(max_batch);
            while rx.lock().await.recv_many(&mut batch, max_batch).await > 0 {
                let requests = std::mem::replace(&mut batch, Vec::with_capacity(max_batch));
                write(&*store, requests, &stats).await;
            }
        });
    }
    // Every batch in flight finishes before the thread ends.
    while writers.join_next().await.is_some() {}
}

async fn write(store: &dyn ChargeWriter, requests: Vec<Request>, stats: &LedgerStats) {
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
