//! Held charges: image deliveries billed in memory against credits this
//! server holds, with the journal as the durability point, and settled into
//! the ledger in batches (docs/ledger.md).
//!
//! Why: on a SQLite file every other design makes the request wait for a
//! commit on another thread, and on two busy cores that wait, not SQL, was
//! what a billed image cost (docs/benchmarks.md). Here a charge is decided
//! and made durable on the request's own thread:
//!
//! 1. The key is checked live on the calling thread: its row is read again
//!    whenever any process has announced a revocation since the last read
//!    (`store/sql/revocations.rs`), so a revocation stops billing at once.
//! 2. The credit comes out of this server's hold on the account (a
//!    counter under a lock). When the hold is short, one request per
//!    account takes more from the database (`HoldStore::take_hold`) while
//!    the others wait; when nothing is free, the answer is 402.
//! 3. The charge is appended to the journal before the response. If that
//!    write fails, the credit goes back and nothing is delivered.
//!
//! The settler task moves journalled charges into the ledger every
//! `billing.settle_every_ms` (20 ms by default; one transaction, each
//! charge its own ledger row with its request id), gives back holds an
//! account stopped using, and settles the journals of servers that died. At shutdown it settles everything and
//! gives every hold back. After a crash, the next server to start on the
//! database settles the dead server's journal: no charge is lost, none is
//! written twice (the journal mark is written in each settle's transaction).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::{Duration, Instant};

use crate::billing::journal::{self, Journal};
use crate::store::{HeldCharge, NewDelivery, Store, StoreError, now_millis};

/// Charges waiting that wake the settler early.
const SETTLE_AT: usize = 4096;
/// A hold not charged against for this long is given back.
const IDLE_RELEASE: Duration = Duration::from_secs(1);
/// How often the settler looks for journals of dead servers.
const RECOVER_EVERY: Duration = Duration::from_secs(30);
/// Smallest and largest hold taken at once. A hold that runs out soon
/// after it was taken is followed by one twice its size.
const MIN_HOLD: i64 = 16;
const MAX_HOLD: i64 = 4096;
const QUICK_REFILL: Duration = Duration::from_millis(250);
/// Charges per settle transaction when replaying a dead server's journal.
const REPLAY_BATCH: usize = 10_000;

/// This server's holds, one per account it is charging.
#[derive(Debug)]
pub struct HeldLedger {
    store: Arc<dyn Store>,
    journal: Journal,
    accounts: Mutex<HashMap<String, Arc<AccountHold>>>,
    wake: tokio::sync::Notify,
    settling: tokio::sync::Mutex<()>,
    settle_every: Duration,
    /// Settles that failed since the last one that went through.
    failing: std::sync::atomic::AtomicU64,
    stop: tokio::sync::watch::Sender<bool>,
    settler: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

#[derive(Debug, Default)]
struct AccountHold {
    state: Mutex<HoldState>,
    /// One refill at a time per account; others wait and re-check.
    refill: tokio::sync::Mutex<()>,
}

#[derive(Debug, Default)]
struct HoldState {
    /// Held credits not yet spent.
    remaining: i64,
    /// The account's balance at the database's last answer.
    balance: i64,
    /// Spent here and not yet settled (still in `balance`).
    unsettled: i64,
    /// Settles applied; a refill's balance is older than any settle that
    /// lands while it is in flight.
    settles: u64,
    /// The size of the next hold.
    chunk: i64,
    /// Refills done, and whether the last one found nothing free.
    refills: u64,
    last_refill_empty: bool,
    last_refill: Option<Instant>,
    last_charge: Option<Instant>,
}

impl HoldState {
    fn spend(&mut self, credits: i64) -> Option<i64> {
        if self.remaining < credits {
            return None;
        }
        self.remaining -= credits;
        self.unsettled += credits;
        self.last_charge = Some(Instant::now());
        Some(self.balance - self.unsettled)
    }
}

impl AccountHold {
    fn state(&self) -> parking_lot::MutexGuard<'_, HoldState> {
        self.state.lock()
    }
}

impl HeldLedger {
    /// Opens this server's journal in the store's journal folder, settles
    /// the journals of servers that died, and starts the settler. None
    /// when the store keeps no journals (held charges are off).
    pub async fn start(
        store: Arc<dyn Store>,
        settle_every: Duration,
    ) -> Result<Option<Arc<HeldLedger>>, StoreError> {
        let Some(dir) = store.journal_dir() else {
            return Ok(None);
        };
        // A fresh id per start. A server starting while another claims
        // dead journals can lose the race for its own brand-new lock (the
        // claimer sees an unlocked file for an instant): it takes another id.
        let mut opened = Err(std::io::Error::other("no attempt"));
        for _ in 0..3 {
            let owner = format!("s{}", crate::store::time_ordered_id().simple());
            opened = Journal::open(&dir, &owner);
            if opened.is_ok() {
                break;
            }
        }
        let journal = opened.map_err(|e| {
            StoreError::Unavailable(format!("charge journal in {}: {e}", dir.display()))
        })?;
        let (stop, _) = tokio::sync::watch::channel(false);
        let ledger = Arc::new(HeldLedger {
            store,
            journal,
            accounts: Mutex::new(HashMap::new()),
            wake: tokio::sync::Notify::new(),
            settling: tokio::sync::Mutex::new(()),
            settle_every,
            failing: std::sync::atomic::AtomicU64::new(0),
            stop,
            settler: Mutex::new(None),
        });
        ledger.recover().await?;
        let task = tokio::spawn(Arc::clone(&ledger).settle_loop());
        *ledger.settler.lock() = Some(task);
        Ok(Some(ledger))
    }

    pub fn owner(&self) -> &str {
        self.journal.owner()
    }

    fn hold(&self, account_id: &str) -> Arc<AccountHold> {
        let mut accounts = self.accounts.lock();
        if let Some(h) = accounts.get(account_id) {
            return Arc::clone(h);
        }
        let h = Arc::new(AccountHold::default());
        h.state().chunk = MIN_HOLD;
        accounts.insert(account_id.to_owned(), Arc::clone(&h));
        h
    }

    /// Charges one delivery; returns the balance after, as
    /// `DeliveryStore::charge_delivery` does.
    pub async fn charge(&self, delivery: NewDelivery) -> Result<i64, StoreError> {
        if let Some(key_id) = &delivery.key_id
            && !self.store.key_live_now(key_id)?
        {
            return Err(StoreError::KeyRevoked);
        }
        let credits = delivery.credits;
        let hold = self.hold(&delivery.account_id);
        let spent = hold.state().spend(credits);
        let balance_after = match spent {
            Some(after) => after,
            None => {
                self.refill_and_spend(&hold, &delivery.account_id, credits)
                    .await?
            }
        };
        let waiting = match self.journal.append(delivery, now_millis()) {
            Ok((_, waiting)) => waiting,
            Err(e) => {
                let mut s = hold.state();
                s.remaining += credits;
                s.unsettled -= credits;
                tracing::error!(error = %e, "could not write a charge to the journal; nothing delivered");
                return Err(StoreError::Unavailable(
                    "the charge journal cannot be written".into(),
                ));
            }
        };
        if waiting >= SETTLE_AT {
            self.wake.notify_one();
        }
        Ok(balance_after)
    }

    async fn refill_and_spend(
        &self,
        hold: &AccountHold,
        account_id: &str,
        credits: i64,
    ) -> Result<i64, StoreError> {
        let refills = hold.state().refills;
        let _refilling = hold.refill.lock().await;
        {
            let mut s = hold.state();
            // Another request may have refilled while this one waited.
            if let Some(after) = s.spend(credits) {
                return Ok(after);
            }
            // Or found nothing free: a burst from an empty account costs
            // the database one refill, not one per request.
            if s.refills != refills && s.last_refill_empty {
                return Err(StoreError::InsufficientCredits {
                    balance: (s.balance - s.unsettled).max(0),
                    required: credits,
                });
            }
        }
        let (want, settles) = {
            let mut s = hold.state();
            let quick = s.last_refill.is_some_and(|t| t.elapsed() < QUICK_REFILL);
            s.chunk = if quick {
                (s.chunk * 2).min(MAX_HOLD)
            } else {
                (s.chunk / 2).max(MIN_HOLD)
            };
            (s.chunk.max(credits), s.settles)
        };
        let (granted, balance) = self.store.take_hold(self.owner(), account_id, want).await?;
        let mut s = hold.state();
        s.remaining += granted;
        s.last_refill = Some(Instant::now());
        s.refills += 1;
        s.last_refill_empty = granted == 0;
        if s.settles == settles {
            s.balance = balance;
        }
        s.spend(credits)
            .ok_or_else(|| StoreError::InsufficientCredits {
                balance: (s.balance - s.unsettled).max(0),
                required: credits,
            })
    }

    /// Charges in the journal not yet taken into the ledger, and settles
    /// failed in a row (for `GET /metrics`).
    pub fn backlog(&self) -> (usize, u64) {
        (
            self.journal.pending_len(),
            self.failing.load(std::sync::atomic::Ordering::Relaxed),
        )
    }

    /// Credits charged here on the account and not yet in its balance.
    pub fn unsettled(&self, account_id: &str) -> i64 {
        let accounts = self.accounts.lock();
        accounts.get(account_id).map_or(0, |h| h.state().unsettled)
    }

    /// Gives back what this server holds on the account, unspent, so that
    /// another kind of debit (a URL mint) can spend it. Returns whether
    /// anything was given back.
    pub async fn release(&self, account_id: &str) -> Result<bool, StoreError> {
        let hold = {
            let accounts = self.accounts.lock();
            accounts.get(account_id).cloned()
        };
        let Some(hold) = hold else { return Ok(false) };
        self.give_back(account_id, &hold).await
    }

    async fn give_back(&self, account_id: &str, hold: &AccountHold) -> Result<bool, StoreError> {
        let _refilling = hold.refill.lock().await;
        let (credits, settles) = {
            let mut s = hold.state();
            (std::mem::take(&mut s.remaining), s.settles)
        };
        if credits == 0 {
            return Ok(false);
        }
        match self
            .store
            .release_hold(self.owner(), account_id, credits)
            .await
        {
            Ok(balance) => {
                let mut s = hold.state();
                if s.settles == settles {
                    s.balance = balance;
                }
                Ok(true)
            }
            Err(e) => {
                hold.state().remaining += credits;
                Err(e)
            }
        }
    }

    /// Moves what the journal holds into the ledger now.
    pub async fn settle_now(&self) -> Result<(), StoreError> {
        // One settle at a time, so journal marks only move forward and a
        // failed batch goes back in front of later charges.
        let _one = self.settling.lock().await;
        let (batch, last) = self.journal.take_pending();
        if batch.is_empty() {
            return Ok(());
        }
        self.settle(batch, last).await
    }

    async fn settle(&self, batch: Vec<HeldCharge>, last: i64) -> Result<(), StoreError> {
        // Shared with the writer thread, not copied.
        let batch: Arc<[HeldCharge]> = batch.into();
        match self
            .store
            .settle_held(self.owner(), Arc::clone(&batch), last)
            .await
        {
            Ok(balances) => {
                let mut spent: HashMap<&str, i64> = HashMap::new();
                for c in batch.iter() {
                    *spent.entry(c.delivery.account_id.as_str()).or_default() += c.delivery.credits;
                }
                for (account_id, balance) in &balances {
                    let hold = self.hold(account_id);
                    let mut s = hold.state();
                    s.unsettled -= spent.get(account_id.as_str()).copied().unwrap_or(0);
                    s.balance = *balance;
                    s.settles += 1;
                }
                self.journal.settled(last);
                self.failing.store(0, std::sync::atomic::Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                // Nothing was written; the charges stay in the journal and
                // go first in the next settle.
                self.journal.put_back(batch.to_vec());
                self.failing
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Err(e)
            }
        }
    }

    async fn settle_loop(self: Arc<HeldLedger>) {
        let mut stop = self.stop.subscribe();
        let mut last_idle_check = Instant::now();
        let mut last_recover = Instant::now();
        loop {
            tokio::select! {
                _ = stop.changed() => break,
                () = tokio::time::sleep(self.settle_every) => {}
                () = self.wake.notified() => {}
            }
            if let Err(e) = self.settle_now().await {
                tracing::warn!(error = %e, "settling held charges failed; retrying");
            }
            if last_idle_check.elapsed() >= IDLE_RELEASE {
                last_idle_check = Instant::now();
                self.release_idle().await;
            }
            if last_recover.elapsed() >= RECOVER_EVERY {
                last_recover = Instant::now();
                if let Err(e) = self.recover().await {
                    tracing::warn!(error = %e, "settling a dead server's journal failed");
                }
            }
        }
    }

    /// Gives back holds no charge has used for [`IDLE_RELEASE`], and
    /// forgets accounts with nothing held or unsettled.
    async fn release_idle(&self) {
        let idle: Vec<(String, Arc<AccountHold>)> = {
            let mut accounts = self.accounts.lock();
            // An entry a request is using (it cloned the Arc under this
            // lock) stays: a refill on a forgotten entry would hold credits
            // nobody gives back.
            accounts.retain(|_, h| {
                let s = h.state();
                Arc::strong_count(h) > 1
                    || s.remaining > 0
                    || s.unsettled > 0
                    || s.last_charge.is_some_and(|t| t.elapsed() < IDLE_RELEASE)
            });
            accounts
                .iter()
                .filter(|(_, h)| {
                    let s = h.state();
                    s.remaining > 0 && s.last_charge.is_none_or(|t| t.elapsed() >= IDLE_RELEASE)
                })
                .map(|(a, h)| (a.clone(), Arc::clone(h)))
                .collect()
        };
        for (account_id, hold) in idle {
            if let Err(e) = self.give_back(&account_id, &hold).await {
                tracing::warn!(error = %e, "giving back an idle hold failed");
            }
        }
    }

    /// Settles the journals of servers that died, and gives back holds of
    /// servers that left no journal.
    async fn recover(&self) -> Result<(), StoreError> {
        let dir = self
            .store
            .journal_dir()
            .ok_or_else(|| StoreError::Unavailable("no journal folder".into()))?;
        let mut owners = journal::owners(&dir, self.owner())
            .map_err(|e| StoreError::Unavailable(format!("charge journals: {e}")))?;
        for owner in self.store.hold_owners().await? {
            if owner != self.owner() && !owners.contains(&owner) {
                owners.push(owner);
            }
        }
        for owner in owners {
            let (d, o) = (dir.clone(), owner.clone());
            // Reads up to a whole journal: off the runtime's threads.
            let claimed = tokio::task::spawn_blocking(move || journal::claim(&d, &o))
                .await
                .map_err(|e| StoreError::Unavailable(format!("charge journal: {e}")))?;
            let dead = match claimed {
                Ok(Some(dead)) => dead,
                Ok(None) => continue,
                Err(e) => {
                    // Its holds stay held: better than losing its charges.
                    tracing::error!(error = %e, "a dead server's charge journal cannot be read; move it aside after checking it");
                    continue;
                }
            };
            let mark = self.store.journal_mark(&owner).await?;
            let records: Vec<HeldCharge> = dead
                .records
                .iter()
                .filter(|c| c.seq > mark)
                .cloned()
                .collect();
            let replayed = records.len();
            for chunk in records.chunks(REPLAY_BATCH) {
                let last = chunk.last().map_or(mark, |c| c.seq);
                self.store.settle_held(&owner, chunk.into(), last).await?;
            }
            dead.remove_segments()
                .map_err(|e| StoreError::Unavailable(format!("charge journal: {e}")))?;
            self.store.retire_owner(&owner).await?;
            dead.finish();
            tracing::info!(
                charges = replayed,
                "settled a stopped server's charge journal"
            );
        }
        Ok(())
    }

    /// Settles everything and gives every hold back; the journal is
    /// deleted when nothing is left in it. Called once, at shutdown.
    pub async fn shutdown(&self) {
        let _ = self.stop.send(true);
        let task = self.settler.lock().take();
        if let Some(task) = task {
            let _ = task.await;
        }
        // Requests still running past the grace period may not add charges
        // after the last settle: theirs fail (503) and deliver nothing.
        self.journal.close();
        let mut settled = false;
        for attempt in 0..50 {
            match self.settle_now().await {
                Ok(()) => {
                    settled = true;
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, attempt, "settling held charges at shutdown failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        if !settled {
            tracing::error!("held charges left in the journal; the next start settles them");
            return;
        }
        // Segments first: a journal whose owner is gone from the database
        // would be replayed from the start.
        self.journal.remove_segments();
        match self.store.retire_owner(self.owner()).await {
            Ok(()) => self.journal.remove_lock(),
            Err(e) => {
                tracing::warn!(error = %e, "holds not given back at shutdown; the next start does it")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{EntryKind, NewEntry, SqlStore};

    async fn sqlite_store(dir: &std::path::Path) -> Arc<dyn Store> {
        let url = format!("sqlite://{}?mode=rwc", dir.join("t.db").display());
        let store = SqlStore::connect(&url).await.unwrap();
        store.migrate().await.unwrap();
        Arc::new(store)
    }

    fn image(account_id: &str, n: u32) -> NewDelivery {
        NewDelivery {
            request_id: format!("req-{n}"),
            account_id: account_id.to_owned(),
            key_id: None,
            variant: "toyota/camry/2019/red/side".into(),
            revision: 1,
            width: 256,
            height: 171,
            format: "webp".into(),
            source: "cache",
            credits: 1,
        }
    }

    /// Random interleavings of charges, settles, grants from another
    /// process and debits that need held credits back (a mint does that),
    /// against a model balance: every charge succeeds exactly when the model
    /// has a credit, the balance a reader sees is the model's after every
    /// step, and after shutdown the ledger holds every charge once, sums to
    /// the balance, and nothing is held.
    #[tokio::test]
    async fn held_charges_match_a_model_balance_in_any_interleaving() {
        use rand::{RngExt, SeedableRng};
        for seed in 0..24u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let dir = tempfile::tempdir().unwrap();
            let store = sqlite_store(dir.path()).await;
            let initial = rng.random_range(0..40i64);
            let account = store
                .create_account("p@example.com", initial)
                .await
                .unwrap()
                .id;
            let ledger = HeldLedger::start(Arc::clone(&store), Duration::from_secs(3600))
                .await
                .unwrap()
                .unwrap();
            let (mut model, mut delivered, mut n) = (initial, 0, 0u32);
            // The balance a charge reports is the database's last answer to
            // this server minus its own charges since: a grant or debit made
            // elsewhere shows from the next refill, settle or give-back.
            let answers = |l: &HeldLedger| {
                let h = l.hold(&account);
                let s = h.state();
                (s.refills, s.settles, s.balance)
            };
            let mut stale: Option<(u64, u64, i64)> = None;
            for _ in 0..80 {
                if stale.is_some_and(|seen| seen != answers(&ledger)) {
                    stale = None;
                }
                match rng.random_range(0..10u32) {
                    0..=5 => {
                        n += 1;
                        match ledger.charge(image(&account, n)).await {
                            Ok(after) => {
                                assert!(model >= 1, "seed {seed}: charged past the balance");
                                model -= 1;
                                delivered += 1;
                                if stale.is_some_and(|seen| seen != answers(&ledger)) {
                                    stale = None;
                                }
                                if stale.is_none() {
                                    assert_eq!(after, model, "seed {seed}: balance after");
                                }
                            }
                            Err(StoreError::InsufficientCredits { balance, .. }) => {
                                assert_eq!((model, balance), (0, 0), "seed {seed}: refused");
                            }
                            Err(e) => panic!("seed {seed}: {e}"),
                        }
                    }
                    6 => ledger.settle_now().await.unwrap(),
                    7 => {
                        let credits = rng.random_range(1..10i64);
                        let grant = NewEntry {
                            kind: EntryKind::Grant,
                            delta: credits,
                            reason: "top-up",
                            reference: None,
                        };
                        store.append_entry(&account, grant).await.unwrap();
                        model += credits;
                        stale = Some(answers(&ledger));
                    }
                    _ => {
                        let credits = rng.random_range(1..5i64);
                        ledger.release(&account).await.unwrap();
                        let debit = NewEntry {
                            kind: EntryKind::Adjustment,
                            delta: -credits,
                            reason: "debit",
                            reference: None,
                        };
                        match store.append_entry(&account, debit).await {
                            Ok(_) => {
                                assert!(model >= credits, "seed {seed}: debit past the balance");
                                model -= credits;
                                stale = Some(answers(&ledger));
                            }
                            Err(StoreError::InsufficientCredits { .. }) => {
                                assert!(model < credits, "seed {seed}: debit refused");
                            }
                            Err(e) => panic!("seed {seed}: {e}"),
                        }
                    }
                }
                let stored = store.account_by_id(&account).await.unwrap().unwrap();
                assert_eq!(
                    stored.balance - ledger.unsettled(&account),
                    model,
                    "seed {seed}: the balance a reader sees"
                );
                assert!(0 <= stored.held && stored.held <= stored.balance);
            }
            ledger.shutdown().await;
            let stored = store.account_by_id(&account).await.unwrap().unwrap();
            assert_eq!((stored.balance, stored.held), (model, 0), "seed {seed}");
            let entries = store.entries(&account, 10_000).await.unwrap();
            let images = entries
                .iter()
                .filter(|e| {
                    e.reference
                        .as_deref()
                        .is_some_and(|r| r.starts_with("req-"))
                })
                .count();
            assert_eq!(images, delivered, "seed {seed}: every charge once");
            let sum: i64 = entries.iter().map(|e| e.delta).sum();
            assert_eq!(sum, stored.balance, "seed {seed}: the ledger balances");
        }
    }

    #[tokio::test]
    async fn a_charge_the_journal_refuses_is_given_back_and_never_settled() {
        let dir = tempfile::tempdir().unwrap();
        let store = sqlite_store(dir.path()).await;
        let account = store.create_account("j@example.com", 10).await.unwrap();
        let ledger = HeldLedger::start(Arc::clone(&store), Duration::from_secs(3600))
            .await
            .unwrap()
            .expect("a SQLite file keeps journals");
        let delivery = |n: u32| image(&account.id, n);
        assert_eq!(ledger.charge(delivery(1)).await.unwrap(), 9);
        // The disk refuses from now on (a closed journal fails as a full
        // disk does): the request fails and its credit goes back.
        ledger.journal.close();
        assert!(matches!(
            ledger.charge(delivery(2)).await,
            Err(StoreError::Unavailable(_))
        ));
        assert_eq!(ledger.unsettled(&account.id), 1, "only the first charge");
        let hold = ledger.hold(&account.id);
        let remaining = hold.state().remaining;
        drop(hold);
        ledger.settle_now().await.unwrap();
        let after = store.account_by_id(&account.id).await.unwrap().unwrap();
        assert_eq!(
            after.balance, 9,
            "one charge settled, the refused one never"
        );
        assert_eq!(
            after.held, remaining,
            "the refused credit is still held, unspent"
        );
        ledger.shutdown().await;
        let after = store.account_by_id(&account.id).await.unwrap().unwrap();
        assert_eq!((after.balance, after.held), (9, 0));
    }
}
