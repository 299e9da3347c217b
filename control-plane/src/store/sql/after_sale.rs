//! Money after the sale (migration 23, docs/billing.md "After the sale"):
//! refunds and disputes of a paid purchase, and auto-reload claims. Each
//! provider event is one transaction that first records its id in
//! `payment_events` (the primary key: a replayed or concurrent copy of the
//! event waits for the first and changes nothing), then moves credits
//! through the credit helpers of `sql.rs`, then writes what happened on the
//! event's audit row. Reached through `CreditStore` (credits.rs) only, but
//! for the reads and the auto-reload setting at the end.

use super::*;

macro_rules! sale_cols {
    () => {
        "id, account_id, provider, provider_session, credits, amount_cents, status, created_at, paid_at"
    };
}

/// Records the event id in `tx`; false when it was recorded before.
async fn claim_event(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    event_id: &str,
    provider: &str,
    kind: &str,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO payment_events (event_id, provider, kind, purchase_id, outcome, received_at) \
         VALUES ($1, $2, $3, NULL, 'pending', $4) ON CONFLICT (event_id) DO NOTHING",
    )
    .bind(event_id)
    .bind(provider)
    .bind(kind)
    .bind(now_millis())
    .execute(&mut **tx)
    .await
    .map_err(map_err)?;
    Ok(inserted.rows_affected() == 1)
}

/// Writes what the event did on its audit row, then commits.
async fn finish(
    mut tx: sqlx::Transaction<'static, sqlx::Any>,
    event_id: &str,
    purchase_id: Option<&str>,
    outcome: PaymentOutcome,
) -> Result<PaymentOutcome, StoreError> {
    sqlx::query("UPDATE payment_events SET outcome = $1, purchase_id = $2 WHERE event_id = $3")
        .bind(outcome.as_str())
        .bind(purchase_id)
        .bind(event_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
    tx.commit().await.map_err(map_err)?;
    Ok(outcome)
}

/// The paid purchase a provider payment (or our purchase id) names.
async fn paid_purchase(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    provider: &str,
    payment_intent: Option<&str>,
    purchase_id: Option<&str>,
) -> Result<Option<Purchase>, StoreError> {
    let row = sqlx::query(concat!(
        "SELECT ",
        sale_cols!(),
        " FROM purchases WHERE provider = $1 AND status = 'paid' \
         AND (payment_intent = $2 OR id = $3) ORDER BY created_at LIMIT 1"
    ))
    .bind(provider)
    .bind(payment_intent)
    .bind(purchase_id)
    .fetch_optional(&mut **tx)
    .await
    .map_err(map_err)?;
    row.as_ref()
        .map(Purchase::from_row)
        .transpose()
        .map_err(map_err)
}

/// Takes back the credits of `purchase` up to `target` in all (a share of
/// its pack), minus what was taken back (or owed) for it before. Returns
/// (taken, owed).
async fn reverse_purchase(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    purchase: &Purchase,
    target: i64,
    refunded_cents: i64,
    reason: &str,
) -> Result<(i64, i64), StoreError> {
    // Locks the purchase row: a concurrent event of the same purchase waits
    // here and then reads what this one committed.
    let before: i64 = sqlx::query_scalar(
        "UPDATE purchases SET refunded_cents = CASE WHEN refunded_cents > $1 THEN refunded_cents ELSE $1 END \
         WHERE id = $2 RETURNING credits_reversed",
    )
    .bind(refunded_cents)
    .bind(&purchase.id)
    .fetch_one(&mut **tx)
    .await
    .map_err(map_err)?;
    let due = target.min(purchase.credits) - before;
    if due <= 0 {
        return Ok((0, 0));
    }
    sqlx::query("UPDATE purchases SET credits_reversed = $1 WHERE id = $2")
        .bind(before + due)
        .bind(&purchase.id)
        .execute(&mut **tx)
        .await
        .map_err(map_err)?;
    take_back(tx, &purchase.account_id, due, reason, &purchase.id).await
}

/// Announces every live key of an account on the revocation feed, so each
/// replica's key cache drops them within a second and reads them again
/// (with the account's disputes) on their next use.
async fn announce_keys(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
) -> Result<(), StoreError> {
    let ids: Vec<String> =
        sqlx::query_scalar("SELECT id FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL")
            .bind(account_id)
            .fetch_all(&mut **tx)
            .await
            .map_err(map_err)?;
    let now = now_millis();
    for id in ids {
        announce_revocation(tx, RevokedKind::Key, &id, now).await?;
    }
    Ok(())
}

impl SqlStore {
    pub(super) async fn sql_record_refund(
        &self,
        refund: &RefundNotice<'_>,
    ) -> Result<PaymentOutcome, StoreError> {
        let mut tx = self.begin_write().await?;
        if !claim_event(&mut tx, refund.event_id, refund.provider, "charge.refunded").await? {
            return Ok(PaymentOutcome::Duplicate);
        }
        let purchase = paid_purchase(
            &mut tx,
            refund.provider,
            refund.payment_intent,
            refund.purchase_id,
        )
        .await?;
        let Some(purchase) = purchase else {
            return finish(tx, refund.event_id, None, PaymentOutcome::Unknown).await;
        };
        let amount = if refund.amount_cents > 0 {
            refund.amount_cents
        } else {
            purchase.amount_cents
        };
        let refunded = refund.refunded_cents.clamp(0, amount);
        // Proportional, rounded down: a partial refund takes back its share
        // of the pack; Stripe's cumulative figure makes every event say the
        // total so far, so each takes only the difference.
        let target = purchase.credits * refunded / amount;
        let (taken, owed) = reverse_purchase(
            &mut tx,
            &purchase,
            target,
            refunded,
            "payment refunded: credits taken back",
        )
        .await?;
        let outcome = PaymentOutcome::Reversed {
            account_id: purchase.account_id.clone(),
            taken,
            owed,
        };
        finish(tx, refund.event_id, Some(&purchase.id), outcome).await
    }

    pub(super) async fn sql_record_dispute(
        &self,
        dispute: &DisputeNotice<'_>,
    ) -> Result<PaymentOutcome, StoreError> {
        let kind = if dispute.won.is_none() {
            "charge.dispute.created"
        } else {
            "charge.dispute.closed"
        };
        let mut tx = self.begin_write().await?;
        if !claim_event(&mut tx, dispute.event_id, dispute.provider, kind).await? {
            return Ok(PaymentOutcome::Duplicate);
        }
        let purchase =
            paid_purchase(&mut tx, dispute.provider, dispute.payment_intent, None).await?;
        let Some(purchase) = purchase else {
            return finish(tx, dispute.event_id, None, PaymentOutcome::Unknown).await;
        };
        let account_id = purchase.account_id.clone();
        let now = now_millis();
        let Some(won) = dispute.won else {
            // Opened: once per dispute id, whatever the event ids.
            let opened = sqlx::query(
                "INSERT INTO disputes (id, purchase_id, account_id, status, opened_at) \
                 VALUES ($1, $2, $3, 'open', $4) ON CONFLICT (id) DO NOTHING",
            )
            .bind(dispute.dispute_id)
            .bind(&purchase.id)
            .bind(&account_id)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
            if opened.rows_affected() == 1 {
                move_standing(&mut tx, &account_id, 0, 1).await?;
                announce_keys(&mut tx, &account_id).await?;
            }
            let outcome = PaymentOutcome::Frozen { account_id };
            return finish(tx, dispute.event_id, Some(&purchase.id), outcome).await;
        };
        let status = if won { "won" } else { "lost" };
        // Closed: the open dispute moves to its final status once.
        let closed = sqlx::query(
            "UPDATE disputes SET status = $1, closed_at = $2 WHERE id = $3 AND status = 'open'",
        )
        .bind(status)
        .bind(now)
        .bind(dispute.dispute_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        let settles = if closed.rows_affected() == 1 {
            move_standing(&mut tx, &account_id, 0, -1).await?;
            true
        } else {
            // Closed without an open event seen (events can arrive out of
            // order): recorded closed, so a late `created` freezes nothing.
            let inserted = sqlx::query(
                "INSERT INTO disputes (id, purchase_id, account_id, status, opened_at, closed_at) \
                 VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (id) DO NOTHING",
            )
            .bind(dispute.dispute_id)
            .bind(&purchase.id)
            .bind(&account_id)
            .bind(status)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
            inserted.rows_affected() == 1
        };
        let (taken, owed) = if settles && !won {
            // Lost: the bank took the whole payment back, as a full refund.
            reverse_purchase(
                &mut tx,
                &purchase,
                purchase.credits,
                purchase.amount_cents,
                "payment disputed and lost: credits taken back",
            )
            .await?
        } else {
            (0, 0)
        };
        let (_, standing) = lock_standing(&mut tx, &account_id).await?;
        if settles {
            announce_keys(&mut tx, &account_id).await?;
        }
        let outcome = PaymentOutcome::DisputeClosed {
            account_id,
            won,
            taken,
            owed,
            still_frozen: standing.disputes > 0,
        };
        finish(tx, dispute.event_id, Some(&purchase.id), outcome).await
    }

    pub(super) async fn sql_claim_auto_reload(
        &self,
        account_id: &str,
        provider: &str,
    ) -> Result<Option<Purchase>, StoreError> {
        let mut tx = self.begin_write().await?;
        // The once-per-crossing decision: disarm while below the threshold.
        // A purchase that lifts the balance back to the threshold re-arms it.
        let credits: Option<Option<i64>> = sqlx::query_scalar(
            "UPDATE accounts SET auto_reload_armed = 0 \
             WHERE id = $1 AND auto_reload_armed = 1 AND auto_reload_threshold IS NOT NULL \
             AND balance < auto_reload_threshold AND has_payment_method = 1 \
             AND payment_customer IS NOT NULL AND held = 0 \
             RETURNING auto_reload_credits",
        )
        .bind(account_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let Some(Some(credits)) = credits else {
            return Ok(None);
        };
        // Packs cost a dollar per thousand credits (billing::PACKS).
        let row = sqlx::query(concat!(
            "INSERT INTO purchases (id, account_id, provider, credits, amount_cents, status, created_at, kind) \
             VALUES ($1, $2, $3, $4, $5, 'open', $6, 'auto_reload') RETURNING ",
            sale_cols!()
        ))
            .bind(time_ordered_id().to_string())
            .bind(account_id)
            .bind(provider)
            .bind(credits)
            .bind(credits / 10)
            .bind(now_millis())
            .fetch_one(&mut *tx)
            .await
            .map_err(map_err)?;
        let purchase = Purchase::from_row(&row).map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(Some(purchase))
    }

    pub(super) async fn sql_purchase_by_id(
        &self,
        id: &str,
    ) -> Result<Option<Purchase>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            sale_cols!(),
            " FROM purchases WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(Purchase::from_row)
            .transpose()
            .map_err(map_err)
    }

    pub(super) async fn sql_standing(&self, account_id: &str) -> Result<Standing, StoreError> {
        let row: Option<(i64, i64)> =
            sqlx::query_as("SELECT owed, disputes FROM accounts WHERE id = $1")
                .bind(account_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(map_err)?;
        let (owed, disputes) = row.ok_or(StoreError::NotFound("account"))?;
        Ok(Standing { owed, disputes })
    }

    pub(super) async fn sql_set_auto_reload(
        &self,
        account_id: &str,
        setting: Option<(i64, i64)>,
    ) -> Result<(), StoreError> {
        let done = sqlx::query(
            "UPDATE accounts SET auto_reload = $1, auto_reload_threshold = $2, \
             auto_reload_credits = $3, auto_reload_armed = 1 WHERE id = $4",
        )
        .bind(i64::from(setting.is_some()))
        .bind(setting.map(|s| s.0))
        .bind(setting.map(|s| s.1))
        .bind(account_id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("account"));
        }
        Ok(())
    }

    pub(super) async fn sql_auto_reloads_due(&self, limit: i64) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar(
            "SELECT id FROM accounts WHERE auto_reload_threshold IS NOT NULL \
             AND auto_reload_armed = 1 AND balance < auto_reload_threshold LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }
}
