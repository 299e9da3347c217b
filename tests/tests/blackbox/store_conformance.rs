//! One conformance suite for the store, run on SQLite and on PostgreSQL.
//! PostgreSQL comes from `VIS_TEST_POSTGRES_URL` (infra/test.sh starts one);
//! without it the PostgreSQL run fails, unless VIS_TEST_SKIP_POSTGRES=1 says
//! to skip it on purpose.

use std::sync::Arc;

use control_plane::store::prewarm::{ItemStatus, NewPrewarmItem, PrewarmState, PrewarmStore};
use control_plane::store::{
    AccountStore, ActivityStore, BudgetStore, ChargeWriter, Claim, CreditStore, DeliveryStore,
    DeliveryUrlStore, EntryKind, EventStore, JobPriority, JobStatus, JobStore, KeyStore,
    LedgerStore, NewDelivery, NewDeliveryUrl, NewEntry, NewJob, NewKey, PaidCheckout, PartnerStore,
    Payer, PaymentOutcome, PaymentStore, PeopleStore, RateStore, RateTake, RevocationStore,
    RevokedKind, SqlStore, Store, StoreError, now_millis,
};

async fn suite(store: SqlStore) {
    store.migrate().await.expect("migrations apply");
    store.migrate().await.expect("migrations are idempotent");
    store.ping().await.expect("ping");
    let store: Arc<SqlStore> = Arc::new(store);

    // Accounts: the opening balance is a ledger grant.
    let a = store.create_account("a@example.com", 100).await.unwrap();
    assert_eq!(store.balance(&a.id).await.unwrap(), Some(100));
    assert!(matches!(
        store.create_account("a@example.com", 100).await,
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(
        store
            .account_by_email("a@example.com")
            .await
            .unwrap()
            .unwrap()
            .id,
        a.id
    );
    assert_eq!(
        store.account_by_id(&a.id).await.unwrap().unwrap().email,
        "a@example.com"
    );
    assert!(
        store
            .account_by_email("nobody@example.com")
            .await
            .unwrap()
            .is_none()
    );
    let entries = store.entries(&a.id, 10).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (entries[0].kind, entries[0].delta, entries[0].balance_after),
        (EntryKind::Grant, 100, 100)
    );
    let zero = store.create_account("zero@example.com", 0).await.unwrap();
    assert!(store.entries(&zero.id, 10).await.unwrap().is_empty());

    // Ledger: charges and refunds move the balance; it never goes negative.
    let charge = |reference: &'static str| NewEntry {
        kind: EntryKind::Charge,
        delta: -1,
        reason: "image",
        reference: Some(reference),
    };
    let e = store.append_entry(&a.id, charge("req_1")).await.unwrap();
    assert_eq!(
        (e.balance_after, e.reference.as_deref()),
        (99, Some("req_1"))
    );
    store
        .append_entry(
            &a.id,
            NewEntry {
                kind: EntryKind::Refund,
                delta: 1,
                reason: "render failed",
                reference: Some("req_1"),
            },
        )
        .await
        .unwrap();
    let err = store
        .append_entry(
            &a.id,
            NewEntry {
                kind: EntryKind::Adjustment,
                delta: -101,
                reason: "too much",
                reference: None,
            },
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::InsufficientCredits {
                balance: 100,
                required: 101
            }
        ),
        "{err:?}"
    );
    assert_eq!(store.balance(&a.id).await.unwrap().unwrap(), 100);
    assert!(matches!(
        store.append_entry("no-such-account", charge("x")).await,
        Err(StoreError::NotFound(_))
    ));
    // The window's sums of charges and refunds (credits spent, usage_30d).
    let all = store.usage_since(&a.id, 0).await.unwrap();
    assert_eq!((all.charged, all.refunded), (-1, 1));
    let none = store.usage_since(&a.id, i64::MAX).await.unwrap();
    assert_eq!((none.charged, none.refunded), (0, 0));

    // Concurrent charges against a small balance: exactly `balance` succeed,
    // and the ledger's last balance_after equals the account balance.
    let small = store.create_account("small@example.com", 7).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let store = Arc::clone(&store);
        let id = small.id.clone();
        tasks.push(tokio::spawn(async move {
            let reference = format!("c{i}");
            store
                .append_entry(
                    &id,
                    NewEntry {
                        kind: EntryKind::Charge,
                        delta: -1,
                        reason: "image",
                        reference: Some(&reference),
                    },
                )
                .await
        }));
    }
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(StoreError::InsufficientCredits { .. }) => {}
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(ok, 7);
    assert_eq!(store.balance(&small.id).await.unwrap().unwrap(), 0);
    let ledger = store.entries(&small.id, 100).await.unwrap();
    assert_eq!(ledger.len(), 8, "grant + 7 charges");
    assert_eq!(ledger[0].balance_after, 0);
    assert_eq!(ledger.iter().map(|e| e.delta).sum::<i64>(), 0);

    // Keys: found by hash, revocable once.
    let k = store
        .create_key(NewKey {
            account_id: a.id.clone(),
            name: "laptop".into(),
            display_prefix: "vis_abcd1234".into(),
            key_hash: "f".repeat(64),
            scopes: "images:read account:read".into(),
            rate_limit_per_minute: 120,
        })
        .await
        .unwrap();
    assert_eq!(
        store
            .key_by_hash(&"f".repeat(64))
            .await
            .unwrap()
            .unwrap()
            .id,
        k.id
    );
    assert!(store.key_by_hash(&"e".repeat(64)).await.unwrap().is_none());
    assert_eq!(
        store.key_by_id(&k.id).await.unwrap().unwrap().name,
        "laptop"
    );
    assert_eq!(store.keys_of_account(&a.id).await.unwrap().len(), 1);

    // Partners belong to a live key; revoking the key or the partner ends
    // them, each revocation on the feed.
    let p = store.create_partner(&k.id, "vps_secret").await.unwrap();
    let p2 = store.create_partner(&k.id, "vps_other").await.unwrap();
    let found = store.partner_by_id(&p.id).await.unwrap().unwrap();
    assert_eq!(found.secret.expose(), "vps_secret");
    assert_eq!(
        (found.key_id.as_deref(), found.account_id.as_str()),
        (Some(k.id.as_str()), a.id.as_str())
    );
    assert!(!format!("{found:?}").contains("vps_secret"));
    assert!(matches!(
        store.create_partner("no-such-key", "vps_x").await,
        Err(StoreError::NotFound(_))
    ));
    let mut live: Vec<String> = store
        .live_partners()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    live.sort();
    let mut want = vec![p.id.clone(), p2.id.clone()];
    want.sort();
    assert_eq!(live, want);
    let head = store.revocation_head().await.unwrap();
    assert!(store.revoke_partner(&p2.id).await.unwrap());
    assert!(!store.revoke_partner(&p2.id).await.unwrap());
    let feed = store.revocations(head, i64::MAX, 10).await.unwrap();
    assert_eq!(
        feed.iter()
            .map(|r| (r.kind, r.subject_id.as_str()))
            .collect::<Vec<_>>(),
        [(control_plane::store::RevokedKind::Partner, p2.id.as_str())]
    );
    let ids =
        |v: Vec<control_plane::store::Partner>| v.into_iter().map(|p| p.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.live_partners().await.unwrap()),
        vec![p.id.clone()]
    );
    assert_eq!(store.partners_of_account(&a.id).await.unwrap().len(), 2);
    assert!(store.revoke_key(&k.id).await.unwrap());
    assert!(
        store.live_partners().await.unwrap().is_empty(),
        "a revoked key ends its partners"
    );
    assert!(matches!(
        store.create_partner(&k.id, "vps_y").await,
        Err(StoreError::NotFound(_))
    ));
    assert!(!store.revoke_key(&k.id).await.unwrap());
    assert!(
        store
            .key_by_hash(&"f".repeat(64))
            .await
            .unwrap()
            .unwrap()
            .revoked_at
            .is_some()
    );

    deliveries(&store).await;
    usage_window(&store).await;
    charge_batches(&store, std::sync::Arc::new(SqlStore::clone(&store))).await;
    shared(&store).await;
    delivery_urls(&store).await;
    jobs(&store).await;
    priorities_and_prewarm(&store).await;
    batches(&store).await;
    budget(&store).await;
    events(&store).await;
    idempotent_mints(&store).await;
    device_logins(&store).await;
    people_and_payments(&store).await;
    operators(&store).await;
    email_verification(&store).await;
    history_aggregates(&store).await;
    store.close().await;
}

/// An Idempotency-Key is recorded in its mint's transaction: a second mint
/// with the key charges nothing and fails with a conflict; an insufficient
/// balance records nothing, so the key can be used again.
async fn idempotent_mints(store: &SqlStore) {
    use control_plane::store::IdempotencyClaim;
    let acct = store.create_account("idem@example.com", 3).await.unwrap();
    let key = store
        .create_key(NewKey {
            account_id: acct.id.clone(),
            name: "idem".into(),
            display_prefix: "vis_idem".into(),
            key_hash: "e".repeat(64),
            scopes: "images:read".into(),
            rate_limit_per_minute: 120,
        })
        .await
        .unwrap();
    let payer = |request_id| Payer {
        account_id: &acct.id,
        key_id: &key.id,
        request_id,
    };
    let claim = IdempotencyClaim {
        key: "order-1",
        fingerprint: "f1",
    };
    assert!(
        store
            .idempotent_mint(&acct.id, "order-1")
            .await
            .unwrap()
            .is_none()
    );
    let after = store
        .mint_delivery_urls(
            payer("req-i1"),
            &[new_url("i1", 0), new_url("i2", 0)],
            Some(claim),
        )
        .await
        .unwrap();
    assert_eq!(after, 1);
    let record = store
        .idempotent_mint(&acct.id, "order-1")
        .await
        .unwrap()
        .expect("recorded with the mint");
    assert_eq!(
        (
            record.fingerprint.as_str(),
            record.request_id.as_str(),
            record.balance_after
        ),
        ("f1", "req-i1", 1)
    );
    assert_eq!(record.url_ids, vec!["i1".to_owned(), "i2".to_owned()]);
    // The same key again: a conflict, nothing charged, no URL written.
    let err = store
        .mint_delivery_urls(payer("req-i2"), &[new_url("i3", 0)], Some(claim))
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::Conflict("idempotency key")),
        "{err:?}"
    );
    assert_eq!(balance_of(store, &acct.id).await, 1);
    assert!(store.delivery_url("i3").await.unwrap().is_none());
    // Too few credits: nothing recorded under the new key.
    let other = IdempotencyClaim {
        key: "order-2",
        fingerprint: "f2",
    };
    let err = store
        .mint_delivery_urls(
            payer("req-i3"),
            &[new_url("i4", 0), new_url("i5", 0)],
            Some(other),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::InsufficientCredits { .. }),
        "{err:?}"
    );
    assert!(
        store
            .idempotent_mint(&acct.id, "order-2")
            .await
            .unwrap()
            .is_none()
    );
    // Keys belong to an account: another account's "order-1" is its own.
    let b = store.create_account("idem-b@example.com", 0).await.unwrap();
    assert!(
        store
            .idempotent_mint(&b.id, "order-1")
            .await
            .unwrap()
            .is_none()
    );
}

/// The telemetry sink's table: a batch is written whole; counts by day and
/// name from a day on.
async fn events(store: &SqlStore) {
    let day_ms = 1_795_305_600_000; // 2026-11-22T00:00:00Z
    let event = |name: &str, at: i64| control_plane::store::NewEvent {
        received_at: at,
        name: name.into(),
        source: Some("web".into()),
        anonymous_id: Some("anon-1".into()),
        session_id: None,
        url: Some("https://example.com/".into()),
        referrer: None,
        properties: Some(r#"{"path":"/"}"#.into()),
        utm: None,
    };
    store.insert_events(&[]).await.unwrap();
    store
        .insert_events(&[
            event("page_view", day_ms - 1),
            event("page_view", day_ms),
            event("page_view", day_ms + 5),
            event("cli_login", day_ms + 10),
        ])
        .await
        .unwrap();
    let counts = store.event_counts("2026-11-21").await.unwrap();
    let got: Vec<(String, String, i64)> = counts
        .into_iter()
        .map(|c| (c.day, c.name, c.count))
        .collect();
    assert_eq!(
        got,
        vec![
            ("2026-11-21".into(), "page_view".into(), 1),
            ("2026-11-22".into(), "cli_login".into(), 1),
            ("2026-11-22".into(), "page_view".into(), 2),
        ]
    );
    assert_eq!(store.event_counts("2026-11-22").await.unwrap().len(), 2);
    assert!(store.event_counts("2026-11-23").await.unwrap().is_empty());
}

/// A delivery billed by request `req-<tag>`.
fn delivery(tag: &str, account_id: &str, source: &'static str) -> NewDelivery {
    NewDelivery {
        request_id: format!("req-{tag}"),
        account_id: account_id.into(),
        key_id: None,
        variant: "toyota/camry/2019/red/side".into(),
        revision: 1,
        width: 512,
        height: 512,
        format: "png".into(),
        source,
        credits: 1,
    }
}

/// `usage_30d`'s window: a refund takes its image off only when its charge
/// is in the window (a refund of an older charge is still credits returned),
/// and a refunded cache hit is no longer a cache hit.
async fn usage_window(store: &SqlStore) {
    let acct = store.create_account("w@example.com", 5).await.unwrap();
    store
        .charge_delivery(&delivery("w1", &acct.id, "cache"))
        .await
        .unwrap();
    store
        .charge_delivery(&delivery("w2", &acct.id, "generated"))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let w1 = store
        .delivery_by_request_id("req-w1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store.refund_delivery(w1.id, "failed").await.unwrap(),
        Some(4)
    );
    let all = store.usage_since(&acct.id, 0).await.unwrap();
    assert_eq!(
        (
            all.requests,
            all.images,
            all.cache_hits,
            all.charged,
            all.refunded
        ),
        (2, 1, 0, -2, 1)
    );
    let window = store.usage_since(&acct.id, later).await.unwrap();
    assert_eq!(
        (
            window.requests,
            window.images,
            window.cache_hits,
            window.charged,
            window.refunded
        ),
        (0, 0, 0, 0, 1)
    );
}

async fn deliveries(store: &SqlStore) {
    let acct = store.create_account("d@example.com", 2).await.unwrap();
    assert_eq!(
        store
            .charge_delivery(&delivery("d1", &acct.id, "generated"))
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .charge_delivery(&delivery("d2", &acct.id, "cache"))
            .await
            .unwrap(),
        0
    );
    let err = store
        .charge_delivery(&delivery("d3", &acct.id, "cache"))
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        StoreError::InsufficientCredits {
            balance: 0,
            required: 1
        }
    ));
    // The refused charge wrote no delivery.
    assert!(
        store
            .delivery_by_request_id("req-d3")
            .await
            .unwrap()
            .is_none()
    );
    let d1 = store
        .delivery_by_request_id("req-d1")
        .await
        .unwrap()
        .expect("the charge is the delivery record");
    assert_eq!(d1.refunded_at, None);
    assert_eq!(
        store.refund_delivery(d1.id, "render failed").await.unwrap(),
        Some(1)
    );
    assert_eq!(
        store.refund_delivery(d1.id, "render failed").await.unwrap(),
        None,
        "refunds happen once"
    );
    assert!(matches!(
        store.refund_delivery(d1.id + 1000, "no such charge").await,
        Err(StoreError::NotFound(_))
    ));
    let refunded = store
        .delivery_by_request_id("req-d1")
        .await
        .unwrap()
        .unwrap();
    assert!(refunded.refunded_at.is_some());
    let usage = store.usage_since(&acct.id, 0).await.unwrap();
    assert_eq!((usage.requests, usage.images, usage.cache_hits), (2, 1, 1));
    let found = store
        .delivery_by_request_id("req-d2")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            found.request_id.as_str(),
            found.variant.as_str(),
            found.revision
        ),
        ("req-d2", "toyota/camry/2019/red/side", 1)
    );
    let ledger = store.entries(&acct.id, 10).await.unwrap();
    let kinds: Vec<_> = ledger.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EntryKind::Refund,
            EntryKind::Charge,
            EntryKind::Charge,
            EntryKind::Grant
        ]
    );
    // Each charge is its delivery's record: the same entry, referencing the
    // request it billed.
    assert_eq!(
        (ledger[1].id, ledger[1].reference.as_deref()),
        (found.id, Some("req-d2"))
    );
    assert_eq!(
        (ledger[2].id, ledger[2].reference.as_deref()),
        (d1.id, Some("req-d1"))
    );
    assert_eq!((ledger[0].delta, ledger[0].balance_after), (1, 1));
    assert_eq!(ledger.iter().map(|e| e.delta).sum::<i64>(), 1);
}

/// What charges a batch: the store's portable algorithm, or the ledger
/// thread's writer (a `ChargeWriter`, which `Ledger::charge` uses: on a SQLite
/// file its rusqlite connection, on PostgreSQL one statement for the batch).
trait Charger: Send + Sync + 'static {
    fn charge(
        &self,
        batch: Vec<NewDelivery>,
    ) -> impl std::future::Future<Output = Result<Vec<Result<i64, StoreError>>, StoreError>> + Send;
}

impl Charger for SqlStore {
    fn charge(
        &self,
        batch: Vec<NewDelivery>,
    ) -> impl std::future::Future<Output = Result<Vec<Result<i64, StoreError>>, StoreError>> + Send
    {
        CreditStore::charge_deliveries(self, batch)
    }
}

impl Charger for Box<dyn ChargeWriter> {
    fn charge(
        &self,
        batch: Vec<NewDelivery>,
    ) -> impl std::future::Future<Output = Result<Vec<Result<i64, StoreError>>, StoreError>> + Send
    {
        self.charge_deliveries(batch)
    }
}

/// Group commit: one call (and the store's own queue, where it has one)
/// charges several payers at once, each item with its own outcome. `store`
/// sets up and reads back; `charger` charges.
async fn charge_batches<C: Charger>(store: &SqlStore, charger: std::sync::Arc<C>) {
    let rich = store
        .create_account("batch-rich@example.com", 10)
        .await
        .unwrap();
    let poor = store
        .create_account("batch-poor@example.com", 2)
        .await
        .unwrap();
    let revoked_owner = store
        .create_account("batch-rev@example.com", 10)
        .await
        .unwrap();
    let key = |account_id: &str, prefix: &str| NewKey {
        account_id: account_id.into(),
        name: "batch".into(),
        display_prefix: prefix.into(),
        key_hash: prefix.repeat(4),
        scopes: "images:read".into(),
        rate_limit_per_minute: 120,
    };
    let live = store
        .create_key(key(&rich.id, "vis_batchliv"))
        .await
        .unwrap();
    let gone = store
        .create_key(key(&revoked_owner.id, "vis_batchrev"))
        .await
        .unwrap();
    assert!(store.revoke_key(&gone.id).await.unwrap());
    let item = |id: &str, account_id: &str, key_id: Option<&str>| NewDelivery {
        key_id: key_id.map(str::to_owned),
        ..delivery(id, account_id, "cache")
    };
    let outcomes = charger
        .charge(vec![
            item("b1", &rich.id, Some(&live.id)),
            item("b2", &poor.id, None),
            item("b3", &rich.id, Some(&live.id)),
            item("b4", &poor.id, None),
            item("b5", &poor.id, None),
            item("b6", &revoked_owner.id, Some(&gone.id)),
            item("b7", "no-such-account", None),
        ])
        .await
        .expect("a batch with refused items still commits the rest");
    assert!(matches!(outcomes[0], Ok(9)), "{:?}", outcomes[0]);
    assert!(matches!(outcomes[2], Ok(8)), "{:?}", outcomes[2]);
    // The poor account covers the first two of its three, in order.
    assert!(matches!(outcomes[1], Ok(1)), "{:?}", outcomes[1]);
    assert!(matches!(outcomes[3], Ok(0)), "{:?}", outcomes[3]);
    assert!(
        matches!(
            outcomes[4],
            Err(StoreError::InsufficientCredits {
                balance: 0,
                required: 1
            })
        ),
        "{:?}",
        outcomes[4]
    );
    assert!(matches!(outcomes[5], Err(StoreError::KeyRevoked)));
    assert!(matches!(outcomes[6], Err(StoreError::NotFound(_))));
    // Refused items wrote nothing; charged ones wrote a delivery and an entry.
    for refused in ["req-b5", "req-b6", "req-b7"] {
        assert!(
            store
                .delivery_by_request_id(refused)
                .await
                .unwrap()
                .is_none()
        );
    }
    for charged in ["req-b1", "req-b2", "req-b3", "req-b4"] {
        assert!(
            store
                .delivery_by_request_id(charged)
                .await
                .unwrap()
                .is_some()
        );
    }
    assert_eq!(balance_of(store, &rich.id).await, 8);
    assert_eq!(balance_of(store, &poor.id).await, 0);
    assert_eq!(balance_of(store, &revoked_owner.id).await, 10);
    let entries = store.entries(&rich.id, 10).await.unwrap();
    assert_eq!(
        entries
            .iter()
            .filter(|e| e.kind == EntryKind::Charge)
            .map(|e| (e.delta, e.balance_after))
            .collect::<Vec<_>>(),
        [(-1, 8), (-1, 9)],
        "one entry per charge, newest first, each with its own balance"
    );

    // Concurrent transactions never overdraw: 10 charges at once, each its
    // own batch, against 8 credits; the conditional debit decides.
    let racing: Vec<_> = (0..10)
        .map(|i| {
            let charger = std::sync::Arc::clone(&charger);
            let d = item(&format!("q{i}"), &rich.id, Some(&live.id));
            tokio::spawn(async move { charger.charge(vec![d]).await.unwrap().remove(0) })
        })
        .collect();
    let mut charged = 0;
    let mut refused = 0;
    for t in racing {
        match t.await.unwrap() {
            Ok(_) => charged += 1,
            Err(StoreError::InsufficientCredits { .. }) => refused += 1,
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!((charged, refused), (8, 2));
    assert_eq!(balance_of(store, &rich.id).await, 0);

    // A batch bigger than one multi-row statement keeps its order, and one
    // that the balance covers only in part charges the longest prefix.
    let big = store
        .create_account("big@example.com", 1_500)
        .await
        .unwrap()
        .id;
    let many: Vec<NewDelivery> = (1..=1_600)
        .map(|n| NewDelivery {
            key_id: None,
            ..delivery(&format!("big{n}"), &big, "cache")
        })
        .collect();
    let outcomes = charger.charge(many).await.unwrap();
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1_500);
    assert!(matches!(outcomes[1_499], Ok(0)));
    assert!(matches!(
        outcomes[1_500],
        Err(StoreError::InsufficientCredits {
            balance: 0,
            required: 1
        })
    ));
    let charges: Vec<(i64, String)> = store
        .entries(&big, 2_000)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EntryKind::Charge)
        .map(|e| (e.balance_after, e.reference.unwrap()))
        .rev()
        .collect();
    let expected: Vec<(i64, String)> = (1..=1_500)
        .map(|n| (1_500 - n, format!("req-big{n}")))
        .collect();
    assert_eq!(charges, expected);

    // One account paying with two keys in one batch: its groups are decided
    // one after the other, in order of first appearance.
    let shared_account = store
        .create_account("two-keys@example.com", 3)
        .await
        .unwrap();
    let first = store
        .create_key(key(&shared_account.id, "vis_twokeys1"))
        .await
        .unwrap();
    let second = store
        .create_key(key(&shared_account.id, "vis_twokeys2"))
        .await
        .unwrap();
    let outcomes = charger
        .charge(vec![
            item("t1", &shared_account.id, Some(&first.id)),
            item("t2", &shared_account.id, Some(&second.id)),
            item("t3", &shared_account.id, Some(&first.id)),
            item("t4", &shared_account.id, Some(&second.id)),
        ])
        .await
        .unwrap();
    assert!(matches!(outcomes[0], Ok(2)), "{:?}", outcomes[0]);
    assert!(matches!(outcomes[2], Ok(1)), "{:?}", outcomes[2]);
    assert!(matches!(outcomes[1], Ok(0)), "{:?}", outcomes[1]);
    assert!(
        matches!(outcomes[3], Err(StoreError::InsufficientCredits { .. })),
        "{:?}",
        outcomes[3]
    );
    assert_eq!(balance_of(store, &shared_account.id).await, 0);
    assert_eq!(
        crate::ledger_model::ledger_sum(store, &shared_account.id).await,
        0,
        "the balance is the sum of the ledger"
    );
}
/// What replicas share besides the ledger: the revocation feed (written in
/// the revocation's transaction) and rate-limit windows taken in blocks.
async fn shared(store: &SqlStore) {
    let acct = store
        .create_account("shared@example.com", 5)
        .await
        .unwrap()
        .id;
    let key = store
        .create_key(NewKey {
            account_id: acct.clone(),
            name: "feed".into(),
            display_prefix: "vis_feed".into(),
            key_hash: "feed-hash".into(),
            scopes: "images:read".into(),
            rate_limit_per_minute: 60,
        })
        .await
        .unwrap();
    let head = store.revocation_head().await.unwrap();
    assert!(store.revoke_key(&key.id).await.unwrap());
    assert!(!store.revoke_key(&key.id).await.unwrap(), "once");
    let feed = store.revocations(head, i64::MAX, 100).await.unwrap();
    assert_eq!(feed.len(), 1, "one entry per revocation");
    assert_eq!(feed[0].kind, RevokedKind::Key);
    assert_eq!(feed[0].subject_id, key.id);
    assert!(feed[0].seq > head);
    assert_eq!(store.revocation_head().await.unwrap(), feed[0].seq);
    // Entries revoked since a time are returned even when their seq is old.
    let recent = store
        .revocations(feed[0].seq, feed[0].revoked_at, 100)
        .await
        .unwrap();
    assert_eq!(recent, feed);
    assert!(
        store
            .revocations(feed[0].seq, feed[0].revoked_at + 1, 100)
            .await
            .unwrap()
            .is_empty()
    );

    // Rate windows: a window opens at its subject's first block and lasts
    // 60 s; blocks are granted while it lasts, the last one only in part,
    // then nothing; after 60 s another window starts afresh.
    let take = |subject: &'static str, holder: &'static str, now: i64, want: i64| RateTake {
        subject,
        holder,
        now,
        window: 60_000,
        lease: 10_000,
        want,
        limit: 10,
        returned: 0,
        returned_window: -1,
    };
    let t0 = 1_000_000;
    let g = store
        .take_rate_block(&take("k1", "a", t0, 4))
        .await
        .unwrap();
    assert_eq!((g.granted, g.used, g.window_start), (4, 4, t0));
    let g = store
        .take_rate_block(&take("k1", "a", t0 + 59_999, 4))
        .await
        .unwrap();
    assert_eq!(
        (g.granted, g.used, g.window_start),
        (4, 8, t0),
        "one window"
    );
    assert_eq!(
        store
            .take_rate_block(&take("k1", "b", t0 + 1, 4))
            .await
            .unwrap()
            .granted,
        2
    );
    assert_eq!(
        store
            .take_rate_block(&take("k1", "b", t0 + 2, 4))
            .await
            .unwrap()
            .granted,
        0
    );
    let g = store
        .take_rate_block(&take("k1", "a", t0 + 60_000, 20))
        .await
        .unwrap();
    assert_eq!(
        (g.granted, g.window_start),
        (10, t0 + 60_000),
        "a new window"
    );
    // A holder gives back what it did not spend of its block (at most what
    // it was granted, and only in the block's window).
    let t1 = t0 + 60_000;
    let back = |returned: i64, returned_window: i64| RateTake {
        returned,
        returned_window,
        ..take("k1", "a", t1 + 1, 1)
    };
    let g = store.take_rate_block(&back(3, t0)).await.unwrap();
    assert_eq!((g.granted, g.used), (0, 10), "another window's block");
    let g = store.take_rate_block(&back(3, t1)).await.unwrap();
    assert_eq!((g.granted, g.used), (0, 10), "its lease was given up above");
    // Holder b takes the last 2 of a fresh subject's window; a gives its
    // whole block back (claiming more than it held returns what it held).
    let g = store
        .take_rate_block(&take("k4", "a", t1, 8))
        .await
        .unwrap();
    assert_eq!(g.granted, 8);
    let g = store
        .take_rate_block(&take("k4", "b", t1 + 1, 8))
        .await
        .unwrap();
    assert_eq!((g.granted, g.used), (2, 10));
    let g = store
        .take_rate_block(&RateTake {
            returned: 99,
            returned_window: t1,
            ..take("k4", "a", t1 + 2, 4)
        })
        .await
        .unwrap();
    assert_eq!((g.granted, g.used), (4, 6), "8 back (not 99), 4 taken");
    // A holder that stops asking (a dead replica): its lease returns its
    // block to whoever asks after it expired, not before.
    let g = store
        .take_rate_block(&take("k4", "c", t1 + 9_999, 10))
        .await
        .unwrap();
    assert_eq!((g.granted, g.used), (4, 10), "b's and a's leases hold");
    let g = store
        .take_rate_block(&take("k4", "c", t1 + 12_003, 10))
        .await
        .unwrap();
    assert_eq!(
        (g.granted, g.used),
        (6, 10),
        "a's 4 and b's 2 returned, c's own 4 stay spent"
    );
    assert_eq!(
        store
            .take_rate_block(&take("k2", "a", t0, 1))
            .await
            .unwrap()
            .granted,
        1
    );
    // Concurrent takers never exceed the limit together.
    let store_arc = std::sync::Arc::new(store.clone());
    let takers: Vec<_> = (0..20)
        .map(|i| {
            let store = std::sync::Arc::clone(&store_arc);
            tokio::spawn(async move {
                let holder = format!("h{i}");
                store
                    .take_rate_block(&RateTake {
                        subject: "k3",
                        holder: &holder,
                        now: t0,
                        window: 60_000,
                        lease: 10_000,
                        want: 3,
                        limit: 25,
                        returned: 0,
                        returned_window: -1,
                    })
                    .await
                    .unwrap()
                    .granted
            })
        })
        .collect();
    let mut total = 0;
    for t in takers {
        total += t.await.unwrap();
    }
    assert_eq!(total, 25);
    // Pruning: windows (and their leases) that started before the bound.
    assert_eq!(store.prune_rate_windows(t0 + 1).await.unwrap(), 2, "k2, k3");
    assert_eq!(
        store
            .take_rate_block(&RateTake {
                limit: 25,
                ..take("k3", "h0", t0 + 30_000, 25)
            })
            .await
            .unwrap()
            .granted,
        25,
        "pruned"
    );
}

async fn balance_of(store: &SqlStore, account_id: &str) -> i64 {
    store
        .balance(account_id)
        .await
        .unwrap()
        .expect("account exists")
}

pub(crate) fn new_url(id: &str, max_uses: i64) -> NewDeliveryUrl {
    NewDeliveryUrl {
        id: id.into(),
        variant: "toyota/camry/2019/red/side".into(),
        shape: "sedan".into(),
        revision: 1,
        box_width: Some(256),
        box_height: None,
        width: 256,
        height: 256,
        format: "png".into(),
        framing: "bg-white_cover".into(),
        max_uses,
        expires_at: now_millis() + 3_600_000,
    }
}

async fn delivery_urls(store: &SqlStore) {
    let acct = store.create_account("u@example.com", 3).await.unwrap();
    let key = store
        .create_key(NewKey {
            account_id: acct.id.clone(),
            name: "payer".into(),
            display_prefix: "vis_urls0000".into(),
            key_hash: "a".repeat(64),
            scopes: "images:read".into(),
            rate_limit_per_minute: 120,
        })
        .await
        .unwrap();
    let payer = Payer {
        account_id: &acct.id,
        key_id: &key.id,
        request_id: "req-mint",
    };
    // A batch is one debit of one credit per URL, in one ledger entry.
    let after = store
        .mint_delivery_urls(payer, &[new_url("u1", 0), new_url("u2", 2)], None)
        .await
        .unwrap();
    assert_eq!(after, 1);
    let ledger = store.entries(&acct.id, 10).await.unwrap();
    assert_eq!(
        (
            ledger[0].kind,
            ledger[0].delta,
            ledger[0].balance_after,
            ledger[0].reference.as_deref()
        ),
        (EntryKind::Charge, -2, 1, Some("req-mint"))
    );
    // Not enough credits: nothing written, required = the number of URLs.
    let err = store
        .mint_delivery_urls(payer, &[new_url("u3", 0), new_url("u4", 0)], None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::InsufficientCredits {
                balance: 1,
                required: 2
            }
        ),
        "{err:?}"
    );
    assert!(store.delivery_url("u3").await.unwrap().is_none());
    assert_eq!(store.entries(&acct.id, 10).await.unwrap().len(), 2);

    let u1 = store.delivery_url("u1").await.unwrap().unwrap();
    assert_eq!(
        (
            u1.account_id.as_str(),
            u1.key_id.as_str(),
            u1.request_id.as_str()
        ),
        (acct.id.as_str(), key.id.as_str(), "req-mint")
    );
    assert_eq!(
        (
            u1.box_width,
            u1.box_height,
            u1.width,
            u1.max_uses,
            u1.uses,
            u1.key_revoked
        ),
        (Some(256), None, 256, 0, 0, false)
    );
    assert_eq!((u1.shape.as_str(), u1.failed_at), ("sedan", None));
    assert_eq!(
        u1.framing, "bg-white_cover",
        "the framing is kept as minted"
    );
    assert!(store.delivery_url("nope").await.unwrap().is_none());

    // Redemptions: a capped URL stops at max_uses, an unlimited one never.
    assert_eq!(store.consume_delivery_url("u2").await.unwrap(), Some(1));
    assert_eq!(store.consume_delivery_url("u2").await.unwrap(), Some(2));
    assert_eq!(store.consume_delivery_url("u2").await.unwrap(), None);
    assert_eq!(store.delivery_url("u2").await.unwrap().unwrap().uses, 2);
    for n in 1..=3 {
        assert_eq!(store.consume_delivery_url("u1").await.unwrap(), Some(n));
    }
    assert_eq!(store.consume_delivery_url("nope").await.unwrap(), None);
    // Concurrent redemptions of a capped URL: exactly max_uses succeed.
    store
        .mint_delivery_urls(payer, &[new_url("u5", 3)], None)
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store.consume_delivery_url("u5").await.unwrap()
        }));
    }
    let mut ok = 0;
    for t in tasks {
        ok += usize::from(t.await.unwrap().is_some());
    }
    assert_eq!(ok, 3);

    // A failed first load: consumed and refunded once; not after a use.
    assert_eq!(
        store
            .fail_delivery_url("u2", "first load failed")
            .await
            .unwrap(),
        None,
        "u2 was used"
    );
    store
        .append_entry(
            &acct.id,
            NewEntry {
                kind: EntryKind::Grant,
                delta: 1,
                reason: "top up",
                reference: None,
            },
        )
        .await
        .unwrap();
    store
        .mint_delivery_urls(payer, &[new_url("u6", 0)], None)
        .await
        .unwrap();
    assert_eq!(balance_of(store, &acct.id).await, 0);
    assert_eq!(
        store
            .fail_delivery_url("u6", "first load failed")
            .await
            .unwrap(),
        Some(1)
    );
    assert_eq!(
        store
            .fail_delivery_url("u6", "first load failed")
            .await
            .unwrap(),
        None,
        "refunded once"
    );
    let u6 = store.delivery_url("u6").await.unwrap().unwrap();
    assert!(u6.failed_at.is_some());
    assert_eq!(
        store.consume_delivery_url("u6").await.unwrap(),
        None,
        "consumed"
    );
    let ledger = store.entries(&acct.id, 10).await.unwrap();
    assert_eq!(
        (
            ledger[0].kind,
            ledger[0].delta,
            ledger[0].reference.as_deref()
        ),
        (EntryKind::Refund, 1, Some("u6"))
    );
    assert_eq!(balance_of(store, &acct.id).await, 1);
    assert_eq!(
        ledger.iter().map(|e| e.delta).sum::<i64>(),
        1,
        "the ledger balances"
    );

    // Revoking the minting key invalidates its URLs and stops minting.
    assert!(store.revoke_key(&key.id).await.unwrap());
    assert!(store.delivery_url("u1").await.unwrap().unwrap().key_revoked);
    assert_eq!(store.consume_delivery_url("u1").await.unwrap(), None);
    assert!(matches!(
        store
            .mint_delivery_urls(payer, &[new_url("u7", 0)], None)
            .await,
        Err(StoreError::KeyRevoked)
    ));
    assert_eq!(balance_of(store, &acct.id).await, 1);

    // Settings inserted only when absent: every replica reads the first.
    assert_eq!(
        store
            .setting_or_insert("delivery_url_secret", "first")
            .await
            .unwrap(),
        "first"
    );
    assert_eq!(
        store
            .setting_or_insert("delivery_url_secret", "second")
            .await
            .unwrap(),
        "first"
    );
    // Usage: every mint above was one request; u1, u2 and u5 delivered
    // their image, u6's first load failed.
    let usage = store.usage_since(&acct.id, 0).await.unwrap();
    assert_eq!((usage.url_requests, usage.urls_loaded), (1, 3));
}

async fn jobs(store: &SqlStore) {
    let (job, claim) = store
        .claim_job(
            "bmw/m3/2020/blue/front",
            1,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap();
    assert_eq!((claim, job.status), (Claim::Created, JobStatus::Queued));
    let (same, claim) = store
        .claim_job(
            "bmw/m3/2020/blue/front",
            1,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap();
    assert_eq!((claim, same.id.as_str()), (Claim::Joined, job.id.as_str()));
    // A new revision is a new job.
    let (rev2, claim) = store
        .claim_job(
            "bmw/m3/2020/blue/front",
            2,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap();
    assert_eq!(claim, Claim::Created);
    assert_ne!(rev2.id, job.id);

    let leased = store.lease_job("node-a", 60_000).await.unwrap().unwrap();
    assert_eq!(
        (leased.id.as_str(), leased.status, leased.attempts),
        (job.id.as_str(), JobStatus::Running, 1)
    );
    let second = store.lease_job("node-b", 60_000).await.unwrap().unwrap();
    assert_eq!(second.id, rev2.id, "a leased job is not leased twice");
    assert!(store.lease_job("node-c", 60_000).await.unwrap().is_none());
    assert!(
        !store.finish_job(&job.id, "node-b", Ok(10)).await.unwrap(),
        "only the holder finishes"
    );
    assert!(store.finish_job(&job.id, "node-a", Ok(42)).await.unwrap());
    let done = store.job_by_id(&job.id).await.unwrap().unwrap();
    assert_eq!((done.status, done.duration_ms), (JobStatus::Done, Some(42)));
    assert!(
        store
            .finish_job(&rev2.id, "node-b", Err("gpu lost"))
            .await
            .unwrap()
    );
    let (again, claim) = store
        .claim_job(
            "bmw/m3/2020/blue/front",
            2,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap();
    assert_eq!(
        (claim, again.status, again.error),
        (Claim::Requeued, JobStatus::Queued, None)
    );

    // An expired lease goes to another node.
    let l1 = store.lease_job("node-a", -1).await.unwrap().unwrap();
    let l2 = store.lease_job("node-b", 60_000).await.unwrap().unwrap();
    assert_eq!(l1.id, l2.id);
    assert_eq!(
        l2.attempts, 3,
        "attempts count every lease: failed once, expired once, now"
    );
    assert!(
        !store.finish_job(&l1.id, "node-a", Ok(1)).await.unwrap(),
        "the old holder lost its lease"
    );
    let counts = store.job_counts().await.unwrap();
    assert_eq!((counts.done, counts.running, counts.queued), (1, 1, 0));
}

/// Prewarm jobs lease after interactive ones, a request joining one raises
/// it, a cancelled prewarm withdraws only its still-queued jobs; prewarm
/// items keep their state.
async fn priorities_and_prewarm(store: &SqlStore) {
    let old = store
        .claim_job("audi/a4/2019/red/side", 1, "sedan", JobPriority::Prewarm)
        .await
        .unwrap()
        .0;
    let joined = store
        .claim_job("audi/a4/2019/red/rear", 1, "sedan", JobPriority::Prewarm)
        .await
        .unwrap()
        .0;
    let withdrawn = store
        .claim_job("audi/a4/2019/red/front", 1, "sedan", JobPriority::Prewarm)
        .await
        .unwrap()
        .0;
    let counts = store.job_counts().await.unwrap();
    assert_eq!((counts.queued, counts.queued_prewarm), (3, 3));
    assert_eq!(counts.queued_interactive(), 0);
    let urgent = store
        .claim_job(
            "audi/a4/2019/blue/side",
            1,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap()
        .0;
    assert_eq!(urgent.priority, JobPriority::Interactive);
    // A request joins the second prewarm job: it is raised.
    let (again, claim) = store
        .claim_job(
            "audi/a4/2019/red/rear",
            1,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap();
    assert_eq!(
        (claim, again.priority),
        (Claim::Joined, JobPriority::Interactive)
    );
    // Both interactive jobs (the raised one is older) lease before the
    // prewarm one queued first of all.
    let first = store.lease_job("node-p", 60_000).await.unwrap().unwrap();
    let second = store.lease_job("node-p", 60_000).await.unwrap().unwrap();
    assert_eq!(first.id, joined.id);
    assert_eq!(second.id, urgent.id);
    // Only a queued prewarm job can be withdrawn; it names its day.
    assert_eq!(store.withdraw_job(&urgent.id).await.unwrap(), None);
    assert_eq!(store.withdraw_job(&joined.id).await.unwrap(), None);
    let day = store.withdraw_job(&withdrawn.id).await.unwrap();
    assert_eq!(
        day.as_deref(),
        Some(control_plane::renders::utc_day().as_str())
    );
    assert!(store.job_by_id(&withdrawn.id).await.unwrap().is_none());
    assert!(store.promote_job(&old.id).await.unwrap());
    let third = store.lease_job("node-p", 60_000).await.unwrap().unwrap();
    assert_eq!(third.id, old.id);
    assert!(!store.promote_job(&withdrawn.id).await.unwrap(), "gone");

    // Prewarm jobs: items in order, counts, one driver at a time.
    let items: Vec<NewPrewarmItem> = (0..1500)
        .map(|i| NewPrewarmItem {
            variant: format!("audi/a4/{}/red/side", 1990 + i % 30),
            revision: i,
            shape: "sedan".into(),
        })
        .collect();
    let run = store
        .create_prewarm("{\"make\":\"audi\"}", "hash-1", "256:webp", &items)
        .await
        .unwrap();
    assert_eq!((run.total, run.state), (1500, PrewarmState::Running));
    assert_eq!(
        store.open_prewarm("hash-1").await.unwrap().unwrap().id,
        run.id
    );
    let pending = store
        .prewarm_items(&run.id, ItemStatus::Pending, 3)
        .await
        .unwrap();
    assert_eq!(
        pending.iter().map(|i| i.seq).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert_eq!(pending[1].revision, 1);
    let last = store
        .prewarm_items(&run.id, ItemStatus::Pending, 2000)
        .await
        .unwrap();
    assert_eq!(last.len(), 1500, "every chunk of the insert landed");
    assert_eq!(last[1499].variant, "audi/a4/2019/red/side");
    store
        .set_prewarm_item(&run.id, 0, ItemStatus::Failed, None, Some("gpu lost"))
        .await
        .unwrap();
    store
        .set_prewarm_item(&run.id, 1, ItemStatus::Queued, Some("job-1"), None)
        .await
        .unwrap();
    let counts = store.prewarm_counts(&run.id).await.unwrap();
    assert_eq!((counts.pending, counts.queued, counts.failed), (1498, 1, 1));
    assert_eq!((counts.finished(), counts.remaining()), (1, 1499));
    assert!(
        store
            .drive_prewarm(&run.id, "driver-a", 5_000)
            .await
            .unwrap()
    );
    assert!(
        !store
            .drive_prewarm(&run.id, "driver-b", 5_000)
            .await
            .unwrap(),
        "a live driver keeps its job"
    );
    assert!(
        store.drive_prewarm(&run.id, "driver-b", -1).await.unwrap(),
        "a silent one does not"
    );
    assert_eq!(store.retry_failed_prewarm_items(&run.id).await.unwrap(), 1);
    assert!(
        store
            .end_prewarm(&run.id, PrewarmState::Paused, Some("budget"))
            .await
            .unwrap()
    );
    let paused = store.prewarm(&run.id).await.unwrap().unwrap();
    assert_eq!(
        (paused.state, paused.stopped_reason.as_deref()),
        (PrewarmState::Paused, Some("budget"))
    );
    assert!(
        store
            .end_prewarm(&run.id, PrewarmState::Done, None)
            .await
            .unwrap()
    );
    assert!(
        !store
            .end_prewarm(&run.id, PrewarmState::Cancelled, None)
            .await
            .unwrap(),
        "an ended job stays ended"
    );
    assert!(store.open_prewarm("hash-1").await.unwrap().is_none());
    assert!(!store.drive_prewarm(&run.id, "driver-c", -1).await.unwrap());
    assert_eq!(store.prewarms(10).await.unwrap()[0].id, run.id);
}

/// Jobs of a coupe's variants at revision 1.
fn coupes(variants: &[String]) -> Vec<NewJob<'_>> {
    variants
        .iter()
        .map(|variant| NewJob {
            variant,
            revision: 1,
            shape: "coupe",
        })
        .collect()
}

/// Batches: jobs claimed together are queued together, and a lease takes
/// the oldest job with the queued jobs of its vehicle and revision, up to
/// the node's batch, never another vehicle's or revision's.
async fn batches(store: &SqlStore) {
    // Whatever earlier sections left queued goes first.
    while !store
        .lease_jobs("drain", 60_000, 24)
        .await
        .unwrap()
        .is_empty()
    {}
    let frames: Vec<String> = (0..4)
        .map(|i| format!("audi/tt/2016/red/angle-{}", i * 15))
        .collect();
    let (other, _) = store
        .claim_job(
            "audi/a4/2016/red/side",
            1,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    let new = coupes(&frames);
    let claimed = store
        .claim_jobs(&new, JobPriority::Interactive)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 4, "one answer per job");
    assert!(claimed.iter().all(|(_, c)| *c == Claim::Created));
    for (job, (record, _)) in new.iter().zip(&claimed) {
        assert_eq!(record.variant, job.variant, "in order");
    }
    // Claiming them again joins them, in one transaction too.
    let again = store
        .claim_jobs(&new[..2], JobPriority::Interactive)
        .await
        .unwrap();
    assert_eq!(
        again
            .iter()
            .map(|(r, c)| (r.id.clone(), *c))
            .collect::<Vec<_>>(),
        claimed[..2]
            .iter()
            .map(|(r, _)| (r.id.clone(), Claim::Joined))
            .collect::<Vec<_>>()
    );
    // Answers come back in the caller's order, whatever order the rows
    // are claimed in.
    let reversed: Vec<NewJob<'_>> = new.iter().rev().copied().collect();
    let back = store
        .claim_jobs(&reversed, JobPriority::Interactive)
        .await
        .unwrap();
    assert_eq!(
        back.iter()
            .map(|(r, _)| r.variant.as_str())
            .collect::<Vec<_>>(),
        reversed.iter().map(|j| j.variant).collect::<Vec<_>>()
    );
    // The same vehicle at another revision is another batch.
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    let (rev2, _) = store
        .claim_job(&frames[0], 2, "coupe", JobPriority::Interactive)
        .await
        .unwrap();

    // The oldest job is another vehicle's: it comes alone.
    let first = store.lease_jobs("node-batch", 60_000, 24).await.unwrap();
    assert_eq!(
        first.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
        [other.id.as_str()]
    );
    // Then three of the four frames (a batch of 3), every one leased.
    let batch = store.lease_jobs("node-batch", 60_000, 3).await.unwrap();
    assert_eq!(batch.len(), 3, "{batch:?}");
    for job in &batch {
        assert!(frames.contains(&job.variant), "{}", job.variant);
        assert_eq!((job.revision, job.status), (1, JobStatus::Running));
        assert_eq!(job.lease_owner.as_deref(), Some("node-batch"));
    }
    // The last frame, alone: revision 2 is not its batch.
    let last = store.lease_jobs("node-other", 60_000, 24).await.unwrap();
    assert_eq!(last.len(), 1, "{last:?}");
    assert!(frames.contains(&last[0].variant) && last[0].revision == 1);
    let rest = store.lease_jobs("node-other", 60_000, 24).await.unwrap();
    assert_eq!(
        rest.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
        [rev2.id.as_str()]
    );
    assert!(
        store
            .lease_jobs("node-other", 60_000, 24)
            .await
            .unwrap()
            .is_empty()
    );
    // Each job of a batch is finished by its holder on its own.
    for job in batch.iter().chain(&last).chain(&rest).chain(&first) {
        let owner = job.lease_owner.as_deref().unwrap();
        assert!(store.finish_job(&job.id, owner, Ok(5)).await.unwrap());
    }

    // Prewarm jobs are leased alone (an interactive request overtakes them
    // after one render), and never join an interactive batch.
    let views = ["audi/q5/2017/red/front", "audi/q5/2017/red/side"];
    for v in views {
        store
            .claim_job(v, 1, "suv", JobPriority::Prewarm)
            .await
            .unwrap();
    }
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    let (wanted, _) = store
        .claim_job("audi/q5/2017/red/rear", 1, "suv", JobPriority::Interactive)
        .await
        .unwrap();
    let alone = store.lease_jobs("node-p", 60_000, 24).await.unwrap();
    assert_eq!(
        alone.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
        [wanted.id.as_str()],
        "the interactive job first, without the prewarm ones"
    );
    for _ in views {
        let one = store.lease_jobs("node-p", 60_000, 24).await.unwrap();
        assert_eq!(one.len(), 1, "{one:?}");
        assert_eq!(one[0].priority, JobPriority::Prewarm);
    }

    // Two claims of the same jobs in opposite orders at once both succeed
    // (on PostgreSQL they would deadlock if rows were claimed as given).
    for round in 0..4 {
        let frames: Vec<String> = (0..24)
            .map(|i| format!("audi/r8/2016/red/angle-{}/r{round}", i * 15))
            .collect();
        let store_a = store.clone();
        let (fwd, rev) = (
            frames.clone(),
            frames.iter().rev().cloned().collect::<Vec<_>>(),
        );
        let claim = |store: SqlStore, variants: Vec<String>| async move {
            let jobs = coupes(&variants);
            store
                .claim_jobs(&jobs, JobPriority::Interactive)
                .await
                .map(|c| c.len())
        };
        let (a, b) = tokio::join!(
            tokio::spawn(claim(store_a, fwd)),
            tokio::spawn(claim(store.clone(), rev))
        );
        assert_eq!(
            (a.unwrap().unwrap(), b.unwrap().unwrap()),
            (24, 24),
            "round {round}"
        );
    }
    // Nothing of this section is left queued for the next.
    loop {
        let jobs = store.lease_jobs("drain", 60_000, 24).await.unwrap();
        if jobs.is_empty() {
            break;
        }
        for job in jobs {
            assert!(store.finish_job(&job.id, "drain", Ok(1)).await.unwrap());
        }
    }
}

async fn budget(store: &SqlStore) {
    assert_eq!(store.budget_used("2026-11-22").await.unwrap(), 0);
    assert!(store.take_budget("2026-11-22", 2).await.unwrap());
    assert!(store.take_budget("2026-11-22", 2).await.unwrap());
    assert!(!store.take_budget("2026-11-22", 2).await.unwrap());
    assert_eq!(store.budget_used("2026-11-22").await.unwrap(), 2);
    store.return_budget("2026-11-22").await.unwrap();
    assert_eq!(store.budget_used("2026-11-22").await.unwrap(), 1);
    assert!(
        store.take_budget("2026-11-23", 2).await.unwrap(),
        "a new day starts fresh"
    );
    // Several at once: all or none.
    assert!(store.take_budgets("2026-11-24", 5, 3).await.unwrap());
    assert!(!store.take_budgets("2026-11-24", 5, 3).await.unwrap());
    assert_eq!(store.budget_used("2026-11-24").await.unwrap(), 3);
    assert!(store.take_budgets("2026-11-24", 5, 2).await.unwrap());
    store.return_budgets("2026-11-24", 4).await.unwrap();
    assert_eq!(store.budget_used("2026-11-24").await.unwrap(), 1);
    store.return_budgets("2026-11-24", 9).await.unwrap();
    assert_eq!(
        store.budget_used("2026-11-24").await.unwrap(),
        0,
        "never below zero"
    );
    assert_eq!(store.setting("daily_render_budget").await.unwrap(), None);
    store
        .set_setting("daily_render_budget", "500")
        .await
        .unwrap();
    store
        .set_setting("daily_render_budget", "700")
        .await
        .unwrap();
    assert_eq!(
        store
            .setting("daily_render_budget")
            .await
            .unwrap()
            .as_deref(),
        Some("700")
    );
}

/// Migration 4 folds the `deliveries` table into the ledger: a database
/// with old-shape deliveries, one refunded, keeps every entry, and each
/// delivery becomes its charge row (refund included).
async fn upgrade_to_delivery_charges(store: SqlStore) {
    store.migrate_to(20261122000003).await.unwrap();
    // Written in that version's shape (today's store reads columns it
    // did not have yet).
    let id = "acct-old";
    for sql in [
        format!(
            "INSERT INTO accounts (id, email, balance, auto_reload, has_payment_method, created_at) VALUES ('{id}', 'old@example.com', 5, 0, 0, 500)"
        ),
        format!(
            "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) VALUES ('{id}', 'grant', 5, 5, 'opening balance', NULL, 500)"
        ),
        // Two deliveries charged the old way, the first refunded; and a
        // signed URL's refund, whose reference is not a delivery.
        format!(
            "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) VALUES ('{id}', 'charge', -1, 4, 'image delivery', 'dlv-1', 1000)"
        ),
        format!(
            "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) VALUES ('{id}', 'charge', -1, 3, 'image delivery', 'dlv-2', 2000)"
        ),
        format!(
            "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) VALUES ('{id}', 'refund', 1, 4, 'render failed', 'dlv-1', 3000)"
        ),
        format!(
            "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at) VALUES ('{id}', 'refund', 1, 5, 'url failed', 'url-1', 4000)"
        ),
        format!(
            "INSERT INTO deliveries (id, request_id, account_id, key_id, variant, revision, width, height, format, source, credits, refunded_at, created_at) VALUES ('dlv-1', 'req-old-1', '{id}', NULL, 'toyota/camry/2019/red/side', 1, 512, 341, 'webp', 'generated', 1, 3000, 1000)"
        ),
        format!(
            "INSERT INTO deliveries (id, request_id, account_id, key_id, variant, revision, width, height, format, source, credits, refunded_at, created_at) VALUES ('dlv-2', 'req-old-2', '{id}', NULL, 'toyota/camry/2019/red/front', 1, 512, 341, 'png', 'cache', 1, NULL, 2000)"
        ),
        format!("UPDATE accounts SET balance = 5 WHERE id = '{id}'"),
    ] {
        sqlx_exec(&store, &sql).await;
    }
    store.migrate().await.unwrap();

    let entries = store.entries(id, 10).await.unwrap();
    assert_eq!(entries.len(), 5, "every entry survives: {entries:?}");
    let refunded = store
        .delivery_by_request_id("req-old-1")
        .await
        .unwrap()
        .expect("the first delivery");
    assert_eq!(refunded.refunded_at, Some(3000));
    assert_eq!(refunded.created_at, 1000);
    let kept = store
        .delivery_by_request_id("req-old-2")
        .await
        .unwrap()
        .expect("the second delivery");
    assert_eq!(
        (kept.variant.as_str(), kept.refunded_at),
        ("toyota/camry/2019/red/front", None)
    );
    let usage = store.usage_since(id, 0).await.unwrap();
    assert_eq!((usage.requests, usage.images, usage.cache_hits), (2, 1, 1));
    // The old refund still counts: no second refund of the first delivery.
    assert_eq!(
        store.refund_delivery(refunded.id, "again").await.unwrap(),
        None
    );
    assert_eq!(
        store.refund_delivery(kept.id, "late").await.unwrap(),
        Some(6)
    );
    // New charges continue the ledger after the old ids.
    assert_eq!(
        store
            .charge_delivery(&delivery("new", id, "cache"))
            .await
            .unwrap(),
        5
    );
    let newest = store
        .delivery_by_request_id("req-new")
        .await
        .unwrap()
        .unwrap();
    assert!(newest.id > entries[0].id);
    store.close().await;
}

#[tokio::test]
async fn store_conformance_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
    suite(SqlStore::connect(&url).await.unwrap()).await;
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    upgrade_to_delivery_charges(SqlStore::connect(&url).await.unwrap()).await;
}

/// The conformance batches through the ledger thread's writer on the
/// database at `url` (on a SQLite file its rusqlite connection; on
/// PostgreSQL the batch's groups in one statement).
async fn writer_batches(url: &str) {
    let store = SqlStore::connect(url).await.unwrap();
    store.migrate().await.unwrap();
    let writer = control_plane::store::open_charge_writer(url, 1)
        .await
        .unwrap();
    charge_batches(&store, std::sync::Arc::new(writer)).await;
}

#[tokio::test]
async fn the_ledger_writer_decides_batches_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    writer_batches(&format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("w.db").display()
    ))
    .await;
}

#[tokio::test]
async fn the_ledger_writer_decides_batches_on_postgres() {
    if vis_tests::postgres_url_or_skip("the_ledger_writer_decides_batches_on_postgres").is_none() {
        return;
    }
    writer_batches(&vis_tests::fresh_postgres_database().await).await;
}

#[tokio::test]
async fn store_conformance_postgres() {
    let Some(admin_url) = vis_tests::postgres_url_or_skip("store_conformance_postgres") else {
        return;
    };
    // A fresh database per run keeps runs independent.
    let name = format!("vis_test_{}", uuid::Uuid::new_v4().simple());
    let admin = SqlStore::connect(&admin_url)
        .await
        .expect("connect to PostgreSQL");
    sqlx_exec(&admin, &format!("CREATE DATABASE {name}")).await;
    let (base, _) = admin_url.rsplit_once('/').expect("URL has a database");
    let store = SqlStore::connect(&format!("{base}/{name}")).await.unwrap();
    suite(store).await;
    sqlx_exec(&admin, &format!("DROP DATABASE {name}")).await;
    sqlx_exec(&admin, &format!("CREATE DATABASE {name}_old")).await;
    let old = SqlStore::connect(&format!("{base}/{name}_old"))
        .await
        .unwrap();
    upgrade_to_delivery_charges(old).await;
    sqlx_exec(&admin, &format!("DROP DATABASE {name}_old")).await;
}

async fn sqlx_exec(store: &SqlStore, sql: &str) {
    control_plane::store::execute_raw(store, sql)
        .await
        .expect(sql);
}

/// Device logins: one live user code at a time, polls respecting the
/// interval, one decision, one delivery.
async fn device_logins(store: &SqlStore) {
    use control_plane::store::{DevicePoll, DeviceStore, now_millis};
    let acct = store.create_account("device@example.com", 1).await.unwrap();
    let later = now_millis() + 600_000;
    assert!(
        store
            .create_device_login("h-old", "AAAA-2222", "old", now_millis() - 1)
            .await
            .unwrap()
    );
    assert_eq!(
        store.poll_device_login("h-old", 0).await.unwrap(),
        DevicePoll::Expired
    );
    assert!(
        store
            .create_device_login("h1", "BBBB-3333", "cli", later)
            .await
            .unwrap()
    );
    assert!(
        !store
            .create_device_login("h2", "BBBB-3333", "other", later)
            .await
            .unwrap(),
        "a live code is taken"
    );
    assert_eq!(
        store.poll_device_login("nope", 0).await.unwrap(),
        DevicePoll::Unknown
    );
    assert_eq!(
        store.poll_device_login("h1", 3_000).await.unwrap(),
        DevicePoll::Pending
    );
    assert!(
        matches!(store.poll_device_login("h1", 3_000).await.unwrap(), DevicePoll::TooFast { wait_ms } if wait_ms > 0 && wait_ms <= 3_000)
    );
    let approved = store
        .decide_device_login("BBBB-3333", Some(&acct.id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(approved.status, "approved");
    assert!(
        store
            .decide_device_login("BBBB-3333", None)
            .await
            .unwrap()
            .is_none(),
        "decided once"
    );
    let DevicePoll::Approved(login) = store.poll_device_login("h1", 0).await.unwrap() else {
        panic!("approved");
    };
    let key = |hash: &str| NewKey {
        account_id: acct.id.clone(),
        name: "cli".into(),
        display_prefix: "vis_dev".into(),
        key_hash: hash.into(),
        scopes: "images:read".into(),
        rate_limit_per_minute: 120,
    };
    assert!(
        store
            .deliver_device_key(&login.id, key(&"d".repeat(64)))
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        store
            .deliver_device_key(&login.id, key(&"c".repeat(64)))
            .await
            .unwrap()
            .is_none(),
        "delivered once"
    );
    assert!(
        store.key_by_hash(&"c".repeat(64)).await.unwrap().is_none(),
        "no second key"
    );
    assert_eq!(
        store.poll_device_login("h1", 0).await.unwrap(),
        DevicePoll::Expired
    );
}

async fn people_and_payments(store: &SqlStore) {
    // A person: account, password and free credits in one write.
    let p = store
        .create_person("person@example.com", "$argon2id$hash", 100)
        .await
        .unwrap();
    assert_eq!(store.balance(&p.id).await.unwrap(), Some(100));
    assert!(matches!(
        store
            .create_person("person@example.com", "$argon2id$x", 100)
            .await,
        Err(StoreError::Conflict(_))
    ));
    let (found, hash) = store
        .person_by_email("person@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.id.as_str(), hash.as_deref()),
        (p.id.as_str(), Some("$argon2id$hash"))
    );
    let operator_made = store.create_account("nopass@example.com", 0).await.unwrap();
    assert_eq!(
        store
            .person_by_email("nopass@example.com")
            .await
            .unwrap()
            .unwrap()
            .1,
        None
    );
    // Sessions: live until they expire or end.
    store
        .create_web_session("s1", &p.id, now_millis() + 60_000)
        .await
        .unwrap();
    store
        .create_web_session("s-old", &p.id, now_millis() - 1)
        .await
        .unwrap();
    assert_eq!(store.web_session("s1").await.unwrap().unwrap().id, p.id);
    assert!(store.web_session("s-old").await.unwrap().is_none());
    store.end_web_session("s1").await.unwrap();
    assert!(store.web_session("s1").await.unwrap().is_none());
    // A reset link works once, sets the password and ends every session.
    store
        .create_web_session("s2", &operator_made.id, now_millis() + 60_000)
        .await
        .unwrap();
    store
        .create_password_reset("r1", &operator_made.id, now_millis() + 60_000)
        .await
        .unwrap();
    store
        .create_password_reset("r-old", &operator_made.id, now_millis() - 1)
        .await
        .unwrap();
    assert!(store.password_reset_live("r1").await.unwrap());
    assert!(!store.password_reset_live("r-old").await.unwrap());
    assert!(
        store
            .use_password_reset("r-old", "$h")
            .await
            .unwrap()
            .is_none()
    );
    let used = store
        .use_password_reset("r1", "$argon2id$new")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.id, operator_made.id);
    assert!(
        store
            .use_password_reset("r1", "$h2")
            .await
            .unwrap()
            .is_none(),
        "once"
    );
    assert!(
        store.web_session("s2").await.unwrap().is_none(),
        "signed out everywhere"
    );
    assert_eq!(
        store
            .person_by_email("nopass@example.com")
            .await
            .unwrap()
            .unwrap()
            .1
            .as_deref(),
        Some("$argon2id$new")
    );

    // Purchases: credits land once per purchase, by event id and by state.
    let buy = store
        .open_purchase(&p.id, "sandbox", 5000, 500)
        .await
        .unwrap();
    assert_eq!(buy.status, "open");
    store.attach_checkout(&buy.id, "cs_1").await.unwrap();
    assert_eq!(
        store.purchase_by_session("cs_1").await.unwrap().unwrap().id,
        buy.id
    );
    let paid = |event: &'static str, amount: i64| PaidCheckout {
        event_id: event,
        provider: "sandbox",
        session_id: "cs_1",
        purchase_id: None,
        customer: Some("cus_1"),
        payment_intent: None,
        amount_cents: amount,
    };
    assert_eq!(store.payment_customer(&p.id).await.unwrap(), None);
    assert_eq!(
        store
            .record_paid_checkout(&paid("evt_wrong", 499))
            .await
            .unwrap(),
        PaymentOutcome::AmountMismatch
    );
    match store
        .record_paid_checkout(&paid("evt_1", 500))
        .await
        .unwrap()
    {
        PaymentOutcome::Credited { purchase, balance } => {
            assert_eq!((purchase.status.as_str(), balance), ("paid", 5100));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        store
            .record_paid_checkout(&paid("evt_1", 500))
            .await
            .unwrap(),
        PaymentOutcome::Duplicate
    );
    assert_eq!(
        store
            .record_paid_checkout(&paid("evt_2", 500))
            .await
            .unwrap(),
        PaymentOutcome::AlreadyPaid
    );
    assert_eq!(balance_of(store, &p.id).await, 5100);
    let account = store.account_by_id(&p.id).await.unwrap().unwrap();
    assert!(account.has_payment_method);
    assert_eq!(
        store.payment_customer(&p.id).await.unwrap().as_deref(),
        Some("cus_1")
    );
    assert_eq!(
        store
            .account_of_customer("cus_1")
            .await
            .unwrap()
            .unwrap()
            .id,
        p.id
    );
    let unknown = PaidCheckout {
        session_id: "cs_nope",
        ..paid("evt_3", 500)
    };
    assert_eq!(
        store.record_paid_checkout(&unknown).await.unwrap(),
        PaymentOutcome::Unknown
    );
    assert_eq!(
        store
            .record_other_event("evt_4", "sandbox", "charge.refunded")
            .await
            .unwrap(),
        PaymentOutcome::Ignored
    );
    assert_eq!(
        store
            .record_other_event("evt_4", "sandbox", "charge.refunded")
            .await
            .unwrap(),
        PaymentOutcome::Duplicate
    );
    let list = store.purchases_of(&p.id, 10).await.unwrap();
    assert_eq!(list.len(), 1);
    assert!(list[0].paid_at.is_some());
    // Concurrent deliveries of one event credit once.
    let again = store
        .open_purchase(&p.id, "sandbox", 10000, 1000)
        .await
        .unwrap();
    store.attach_checkout(&again.id, "cs_2").await.unwrap();
    let tasks: Vec<_> = (0..4)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let event = format!("evt_race_{}", i % 2);
                store
                    .record_paid_checkout(&PaidCheckout {
                        event_id: &event,
                        provider: "sandbox",
                        session_id: "cs_2",
                        purchase_id: None,
                        customer: None,
                        payment_intent: None,
                        amount_cents: 1000,
                    })
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut credited = 0;
    for t in tasks {
        if matches!(t.await.unwrap(), PaymentOutcome::Credited { .. }) {
            credited += 1;
        }
    }
    assert_eq!(credited, 1);
    assert_eq!(balance_of(store, &p.id).await, 15_100);
    // Ten concurrent payments (distinct events) of one checkout: credited
    // once, and the audit rows say so: one `credited`, nine `already_paid`.
    let third = store
        .open_purchase(&p.id, "sandbox", 100, 10)
        .await
        .unwrap();
    store.attach_checkout(&third.id, "cs_3").await.unwrap();
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let event = format!("evt_ten_{i}");
                store
                    .record_paid_checkout(&PaidCheckout {
                        event_id: &event,
                        provider: "sandbox",
                        session_id: "cs_3",
                        purchase_id: None,
                        customer: None,
                        payment_intent: None,
                        amount_cents: 10,
                    })
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.push(t.await.unwrap().as_str());
    }
    outcomes.sort_unstable();
    let mut expected = vec!["already_paid"; 9];
    expected.push("credited");
    assert_eq!(outcomes, expected);
    let mut rows: Vec<String> = store
        .payment_events_of(&third.id)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, outcome)| outcome)
        .collect();
    rows.sort_unstable();
    assert_eq!(rows, expected, "the audit rows say what happened");
    assert_eq!(balance_of(store, &p.id).await, 15_200);
    // The dashboard's view: one day of activity (the purchases are not spending).
    let days = store.usage_by_day(&p.id, 0).await.unwrap();
    assert!(days.iter().all(|d| d.credits_spent == 0), "{days:?}");
    assert!(
        store
            .recent_delivery_urls(&p.id, 5)
            .await
            .unwrap()
            .is_empty()
    );
}

/// The operator role (migration 15): granted once, revoked, listed.
async fn operators(store: &SqlStore) {
    let op = store.create_account("op@example.com", 0).await.unwrap();
    assert!(!store.is_operator(&op.id).await.unwrap());
    store.set_operator(&op.id, true).await.unwrap();
    store.set_operator(&op.id, true).await.unwrap();
    assert!(store.is_operator(&op.id).await.unwrap());
    let listed = store.operators().await.unwrap();
    assert_eq!(
        listed.iter().map(|(e, _)| e.as_str()).collect::<Vec<_>>(),
        ["op@example.com"]
    );
    assert!(listed[0].1 > 0);
    store.set_operator(&op.id, false).await.unwrap();
    store.set_operator(&op.id, false).await.unwrap();
    assert!(!store.is_operator(&op.id).await.unwrap());
    assert!(store.operators().await.unwrap().is_empty());
}

/// PostgreSQL over TLS (managed databases require it): `sslmode` and
/// `sslrootcert` in the database URL, as libpq reads them. infra/test.sh
/// starts the test server with TLS on, its certificate signed by a CA of its
/// own (`VIS_TEST_POSTGRES_CA`), for `localhost` and `127.0.0.1`.
#[tokio::test]
async fn postgres_over_tls_verifies_the_server() {
    let Some(url) = vis_tests::postgres_url_or_skip("postgres_over_tls_verifies_the_server") else {
        return;
    };
    let ca = std::env::var("VIS_TEST_POSTGRES_CA")
        .expect("VIS_TEST_POSTGRES_CA: the CA of the test server's certificate (infra/test.sh)");
    let url = url.replace("127.0.0.1", "localhost");
    let sep = if url.contains('?') { '&' } else { '?' };
    // Fails unless this connection is encrypted (or, inverted, plain).
    const TLS_ONLY: &str = "DO $$ BEGIN IF NOT (SELECT ssl FROM pg_stat_ssl \
                            WHERE pid = pg_backend_pid()) THEN RAISE EXCEPTION 'plain'; \
                            END IF; END $$";
    const PLAIN_ONLY: &str = "DO $$ BEGIN IF (SELECT ssl FROM pg_stat_ssl \
                              WHERE pid = pg_backend_pid()) THEN RAISE EXCEPTION 'tls'; \
                              END IF; END $$";

    let verified = SqlStore::connect(&format!("{url}{sep}sslmode=verify-full&sslrootcert={ca}"))
        .await
        .expect("verify-full against the test CA");
    sqlx_exec(&verified, TLS_ONLY).await;
    verified.close().await;

    let plain = SqlStore::connect(&format!("{url}{sep}sslmode=disable"))
        .await
        .unwrap();
    sqlx_exec(&plain, PLAIN_ONLY).await;
    plain.close().await;

    // The OS trust store does not know the test CA: refused, and the
    // error says why without quoting the URL.
    let Err(err) = SqlStore::connect(&format!("{url}{sep}sslmode=verify-full")).await else {
        panic!("an unknown issuer is accepted");
    };
    let err = err.to_string();
    assert!(err.contains("certificate"), "{err}");
    assert!(!err.contains("postgres://"), "{err}");
}

/// Verified sign-up (migration 20): an unverified person starts with no
/// credits; the first live link posts the grant, once per account, however
/// many links are opened at once; sign-ups count per subject and day, all
/// or none, never past a limit.
async fn email_verification(store: &SqlStore) {
    use control_plane::store::{NewVerificationLink, Verification};
    let link = |token_hash: &'static str, ttl_ms: i64| NewVerificationLink {
        token_hash,
        expires_at: now_millis() + ttl_ms,
    };
    let p = store
        .create_unverified_person("new@example.com", "$argon2id$h", &link("v1", 60_000))
        .await
        .unwrap();
    assert_eq!(store.balance(&p.id).await.unwrap(), Some(0));
    assert!(store.entries(&p.id, 10).await.unwrap().is_empty());
    assert!(store.is_unverified(&p.id).await.unwrap());
    assert!(matches!(
        store
            .create_unverified_person("new@example.com", "$x", &link("v-dup", 60_000))
            .await,
        Err(StoreError::Conflict(_))
    ));
    // Accounts the operator makes (and every older one) count as verified.
    let made = store.create_account("made@example.com", 100).await.unwrap();
    assert!(!store.is_unverified(&made.id).await.unwrap());
    assert!(
        !store
            .create_verification_link(&made.id, &link("v-made", 60_000), 5)
            .await
            .unwrap()
    );
    assert_eq!(
        store.verify_email("v-made", 100).await.unwrap(),
        Verification::Unknown
    );
    // An expired link and an unknown one change nothing.
    assert!(
        store
            .create_verification_link(&p.id, &link("v-old", -1), 5)
            .await
            .unwrap()
    );
    assert_eq!(
        store.verify_email("v-old", 100).await.unwrap(),
        Verification::Expired
    );
    assert_eq!(
        store.verify_email("nope", 100).await.unwrap(),
        Verification::Unknown
    );
    assert!(store.is_unverified(&p.id).await.unwrap());
    assert_eq!(store.balance(&p.id).await.unwrap(), Some(0));
    // Five links in 24 hours, no more.
    for h in ["v2", "v3", "v4"] {
        assert!(
            store
                .create_verification_link(&p.id, &link(h, 60_000), 5)
                .await
                .unwrap(),
            "{h}"
        );
    }
    assert!(
        !store
            .create_verification_link(&p.id, &link("v5", 60_000), 5)
            .await
            .unwrap()
    );
    // Sixteen verifications over four live links at once: one grant.
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let store = store.clone();
            let h = ["v1", "v2", "v3", "v4"][i % 4];
            tokio::spawn(async move { store.verify_email(h, 100).await.unwrap() })
        })
        .collect();
    let mut granted = 0;
    for t in tasks {
        match t.await.unwrap() {
            Verification::Granted {
                account_id,
                balance,
            } => {
                assert_eq!((account_id.as_str(), balance), (p.id.as_str(), 100));
                granted += 1;
            }
            Verification::AlreadyVerified { account_id } => assert_eq!(account_id, p.id),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(granted, 1);
    assert_eq!(store.balance(&p.id).await.unwrap(), Some(100));
    let entries = store.entries(&p.id, 10).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!((entries[0].kind, entries[0].delta), (EntryKind::Grant, 100));
    assert!(!store.is_unverified(&p.id).await.unwrap());
    // Verified: the expired link says so, and no new link is made.
    assert_eq!(
        store.verify_email("v-old", 100).await.unwrap(),
        Verification::AlreadyVerified {
            account_id: p.id.clone()
        }
    );
    assert!(
        !store
            .create_verification_link(&p.id, &link("v6", 60_000), 50)
            .await
            .unwrap()
    );

    // Sign-up limits: per subject and day, all or none.
    let subjects = |addr: &str, domain: &str| {
        vec![(format!("addr:{addr}"), 2), (format!("domain:{domain}"), 3)]
    };
    let day = 20_000;
    assert_eq!(
        store.count_signup(&subjects("1", "x"), day).await.unwrap(),
        None
    );
    assert_eq!(
        store.count_signup(&subjects("1", "x"), day).await.unwrap(),
        None
    );
    assert_eq!(
        store.count_signup(&subjects("1", "x"), day).await.unwrap(),
        Some(0),
        "the address is full"
    );
    assert_eq!(
        store.count_signup(&subjects("2", "x"), day).await.unwrap(),
        None
    );
    assert_eq!(
        store.count_signup(&subjects("3", "x"), day).await.unwrap(),
        Some(1),
        "the domain is full"
    );
    // The refused attempt counted nothing against address 3.
    assert_eq!(
        store.count_signup(&subjects("3", "y"), day).await.unwrap(),
        None
    );
    assert_eq!(
        store.count_signup(&subjects("3", "y"), day).await.unwrap(),
        None
    );
    assert_eq!(
        store.count_signup(&subjects("3", "y"), day).await.unwrap(),
        Some(0)
    );
    // A new day starts afresh.
    assert_eq!(
        store
            .count_signup(&subjects("1", "x"), day + 1)
            .await
            .unwrap(),
        None
    );
    // Ten at once from one address: exactly the limit gets through.
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let store = store.clone();
            let subjects = subjects("busy", &format!("d{i}"));
            tokio::spawn(async move { store.count_signup(&subjects, day).await.unwrap() })
        })
        .collect();
    let mut admitted = 0;
    for t in tasks {
        if t.await.unwrap().is_none() {
            admitted += 1;
        }
    }
    assert_eq!(admitted, 2);
}

/// The aggregates kept on write (migration 22) agree with the rows they
/// summarise: job counts by status and priority with a count over every
/// job; today's renders by duration bucket and failures by cause, per node,
/// with the jobs those nodes finished; the most charged variants with a
/// count over the ledger, through rollups, backdated rows and the live
/// tail.
async fn history_aggregates(store: &SqlStore) {
    use control_plane::store::execute_raw;
    let day = now_millis().div_euclid(86_400_000);
    let agree = |what: &str, counters: &[(String, i64, i64)], rows: &[(String, i64, i64)]| {
        assert_eq!(counters, rows, "{what}: job counters against the jobs");
    };
    agree(
        "after the suite",
        &store.job_counters().await.unwrap(),
        &store.recount_jobs().await.unwrap(),
    );
    // Jobs of both priorities, finished by two nodes in several buckets
    // (1 ms wide below 32 ms), failed by cause, promoted and withdrawn.
    let durations = [5i64, 31, 32, 33, 1000, 1060, 1061, 1070, 65_000];
    let mut ids = Vec::new();
    for (i, _) in durations.iter().enumerate() {
        let priority = if i % 3 == 0 {
            JobPriority::Prewarm
        } else {
            JobPriority::Interactive
        };
        let (job, _) = store
            .claim_job(&format!("hist/v{i}/2020/red/front"), 1, "sedan", priority)
            .await
            .unwrap();
        ids.push(job.id);
    }
    let (prewarm, _) = store
        .claim_job(
            "hist/withdrawn/2020/red/front",
            1,
            "sedan",
            JobPriority::Prewarm,
        )
        .await
        .unwrap();
    let (promoted, _) = store
        .claim_job(
            "hist/promoted/2020/red/front",
            1,
            "sedan",
            JobPriority::Prewarm,
        )
        .await
        .unwrap();
    assert!(store.promote_job(&promoted.id).await.unwrap());
    assert!(store.withdraw_job(&prewarm.id).await.unwrap().is_some());
    agree(
        "queued",
        &store.job_counters().await.unwrap(),
        &store.recount_jobs().await.unwrap(),
    );
    // Lease every queued job (earlier sections' too) and finish each once:
    // node a renders in turn through `durations`, node b fails.
    let mut n = 0;
    while let Some(job) = store.lease_job("node:hist-a", 60_000).await.unwrap() {
        let (owner, outcome) = if n % 4 == 3 {
            (
                "node:hist-b",
                Err(if n % 8 == 3 { "gpu lost" } else { "bad mesh" }),
            )
        } else {
            ("node:hist-a", Ok(durations[n % durations.len()]))
        };
        if owner == "node:hist-b" {
            // Node b takes it over: a lease that ran out goes to another.
            execute_raw(
                store,
                &format!(
                    "UPDATE render_jobs SET lease_owner = 'node:hist-b' WHERE id = '{}'",
                    job.id
                ),
            )
            .await
            .unwrap();
        }
        assert!(store.finish_job(&job.id, owner, outcome).await.unwrap());
        n += 1;
    }
    assert!(n >= durations.len(), "{n} jobs leased");
    // A job whose leases ran out MAX_JOB_ATTEMPTS times fails as "render
    // node lost", on node c, by the lease sweep.
    let (lost, _) = store
        .claim_job(
            "hist/lost/2020/red/front",
            1,
            "sedan",
            JobPriority::Interactive,
        )
        .await
        .unwrap();
    for _ in 0..3 {
        let l = store.lease_job("node:hist-c", -1).await.unwrap().unwrap();
        assert_eq!(l.id, lost.id);
    }
    assert!(
        store
            .lease_job("node:hist-c", 60_000)
            .await
            .unwrap()
            .is_none()
    );
    let lost = store.job_by_id(&lost.id).await.unwrap().unwrap();
    assert_eq!(lost.status, JobStatus::Failed);
    agree(
        "finished",
        &store.job_counters().await.unwrap(),
        &store.recount_jobs().await.unwrap(),
    );
    let counts = store.job_counts().await.unwrap();
    let rows = store.recount_jobs().await.unwrap();
    let of = |status: &str| -> i64 {
        rows.iter()
            .filter(|(s, _, _)| s == status)
            .map(|(_, _, n)| n)
            .sum()
    };
    assert_eq!(
        (counts.queued, counts.running, counts.done, counts.failed),
        (of("queued"), of("running"), of("done"), of("failed"))
    );

    let finishes = store.finishes_on(day).await.unwrap();
    for owner in ["node:hist-a", "node:hist-b", "node:hist-c"] {
        let (renders, failures) = store.recount_finishes(day, owner).await.unwrap();
        let kept: Vec<(i64, i64, i64, i64)> = finishes
            .renders
            .iter()
            .filter(|b| b.owner.as_deref() == Some(owner))
            .map(|b| (b.bucket, b.renders, b.min_ms, b.max_ms))
            .collect();
        assert_eq!(kept, renders, "{owner}: renders by bucket");
        let kept: Vec<(String, i64)> = finishes
            .failures
            .iter()
            .filter(|f| f.owner.as_deref() == Some(owner))
            .map(|f| (f.cause.clone(), f.failures))
            .collect();
        assert_eq!(kept, failures, "{owner}: failures by cause");
    }
    // The buckets themselves: 31 and 32 apart (1 ms wide below 32), 32 and
    // 33 together (32..34), 1000 (967..1027) apart from 1060..1070
    // (1027..1091).
    let a: Vec<(i64, i64, i64)> = finishes
        .renders
        .iter()
        .filter(|b| b.owner.as_deref() == Some("node:hist-a") && b.max_ms < 2000)
        .map(|b| (b.bucket, b.min_ms, b.max_ms))
        .collect();
    assert!(
        a.iter().any(|&(b, lo, hi)| b == 31 && lo == 31 && hi == 31),
        "{a:?}"
    );
    assert!(a.iter().any(|&(b, lo, _)| b == 32 && lo == 32), "{a:?}");
    assert!(
        !a.iter().any(|&(_, lo, hi)| lo <= 1000 && hi >= 1070),
        "1000 and 1070 share no bucket: {a:?}"
    );
    assert!(
        finishes
            .failures
            .iter()
            .any(|f| f.owner.as_deref() == Some("node:hist-c") && f.cause == "render node lost"),
        "{finishes:?}"
    );

    // Top variants: the rollup by day, rows backdated into closed days
    // (inserted after the rollup's mark, so rolled up next time), and the
    // live tail, all agree with a count over the ledger.
    let acct = store
        .create_account("history@example.com", 0)
        .await
        .unwrap();
    let now = now_millis();
    let charge = |variant: &str, at: i64, times: usize| {
        let values: Vec<String> = (0..times)
            .map(|_| {
                format!(
                    "('{}', 'charge', -1, 0, 'history test', NULL, {at}, '{variant}')",
                    acct.id
                )
            })
            .collect();
        format!(
            "INSERT INTO ledger (account_id, kind, delta, balance_after, reason, reference, created_at, variant) VALUES {}",
            values.join(", ")
        )
    };
    let since = now - 5 * 86_400_000;
    for (variant, days_ago, times) in [
        ("hist/a/2020/red/front", 3, 4),
        ("hist/b/2020/red/front", 1, 3),
        ("hist/old/2020/red/front", 10, 9),
        ("hist/today/2020/red/front", 0, 2),
    ] {
        execute_raw(
            store,
            &charge(variant, now - days_ago * 86_400_000 - 120_000, times),
        )
        .await
        .unwrap();
    }
    let top = store.top_variants(since, 50).await.unwrap();
    assert_eq!(top, store.recount_top_variants(since, 50).await.unwrap());
    assert!(
        top.contains(&("hist/a/2020/red/front".into(), 4)),
        "{top:?}"
    );
    assert!(
        !top.iter().any(|(v, _)| v == "hist/old/2020/red/front"),
        "{top:?}"
    );
    // Asked again: nothing counted twice.
    assert_eq!(store.top_variants(since, 50).await.unwrap(), top);
    // Backdated rows and the live tail (the last minute is read, not rolled).
    execute_raw(
        store,
        &charge("hist/b/2020/red/front", now - 2 * 86_400_000, 5),
    )
    .await
    .unwrap();
    execute_raw(store, &charge("hist/live/2020/red/front", now_millis(), 6))
        .await
        .unwrap();
    let top = store.top_variants(since, 50).await.unwrap();
    assert_eq!(top, store.recount_top_variants(since, 50).await.unwrap());
    assert!(
        top.contains(&("hist/b/2020/red/front".into(), 8)),
        "{top:?}"
    );
    assert!(
        top.contains(&("hist/live/2020/red/front".into(), 6)),
        "{top:?}"
    );
    assert_eq!(
        store.top_variants(since, 2).await.unwrap(),
        top[..2].to_vec()
    );
    // Another span of days moves the window of closed days; back again,
    // and with rows backdated into the window's days meanwhile.
    for (span, backdated) in [(2, None), (5, Some(3)), (5, None), (11, Some(10))] {
        if let Some(days_ago) = backdated {
            execute_raw(
                store,
                &charge("hist/c/2020/red/front", now - days_ago * 86_400_000, 7),
            )
            .await
            .unwrap();
        }
        let since = now - span * 86_400_000;
        assert_eq!(
            store.top_variants(since, 50).await.unwrap(),
            store.recount_top_variants(since, 50).await.unwrap(),
            "over {span} days"
        );
    }
    // The window is read by rank, `limit` rows: a variant below the first
    // ranks that live rows lift into them is still counted whole.
    execute_raw(
        store,
        &charge("hist/today/2020/red/front", now_millis(), 12),
    )
    .await
    .unwrap();
    let since = now - 5 * 86_400_000;
    let all = store.recount_top_variants(since, 50).await.unwrap();
    let at = all
        .iter()
        .position(|(v, _)| v == "hist/today/2020/red/front")
        .unwrap();
    let k = i64::try_from(at + 1).unwrap();
    let top = store.top_variants(since, k).await.unwrap();
    assert_eq!(top, all[..=at].to_vec(), "the first {k}");
    assert_eq!(
        top[at],
        ("hist/today/2020/red/front".into(), 14),
        "2 rolled up and 12 live: {top:?}"
    );
}
