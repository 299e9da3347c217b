//! People on the web, purchases of credit packs and the dashboard's view of
//! an account (migration 12). Every change that moves money or ends sessions
//! is one transaction; every "once" is a conditional write or a primary key.

use super::*;

#[async_trait]
impl PeopleStore for SqlStore {
    async fn person_by_email(
        &self,
        email: &str,
    ) -> Result<Option<(Account, Option<String>)>, StoreError> {
        let Some(account) = self.account_by_email(email).await? else {
            return Ok(None);
        };
        let hash: Option<String> =
            sqlx::query_scalar("SELECT password_hash FROM account_passwords WHERE account_id = $1")
                .bind(&account.id)
                .fetch_optional(&self.pool)
                .await
                .map_err(map_err)?;
        Ok(Some((account, hash)))
    }

    async fn create_web_session(
        &self,
        token_hash: &str,
        account_id: &str,
        expires_at: Millis,
    ) -> Result<(), StoreError> {
        let now = now_millis();
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO web_sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(account_id)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        // Expired sessions of this account go as new ones come.
        sqlx::query("DELETE FROM web_sessions WHERE account_id = $1 AND expires_at <= $2")
            .bind(account_id)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        tx.commit().await.map_err(map_err)
    }

    async fn web_session(&self, token_hash: &str) -> Result<Option<Account>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            account_cols!(),
            " FROM accounts WHERE id = \
             (SELECT account_id FROM web_sessions WHERE token_hash = $1 AND expires_at > $2)"
        ))
        .bind(token_hash)
        .bind(now_millis())
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(Account::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn end_web_session(&self, token_hash: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM web_sessions WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(())
    }

    async fn create_password_reset(
        &self,
        token_hash: &str,
        account_id: &str,
        expires_at: Millis,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO password_resets (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(account_id)
        .bind(now_millis())
        .bind(expires_at)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(())
    }

    async fn password_reset_live(&self, token_hash: &str) -> Result<bool, StoreError> {
        let found: Option<String> = sqlx::query_scalar(
            "SELECT account_id FROM password_resets \
             WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2",
        )
        .bind(token_hash)
        .bind(now_millis())
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(found.is_some())
    }

    async fn use_password_reset(
        &self,
        token_hash: &str,
        password_hash: &str,
    ) -> Result<Option<Account>, StoreError> {
        let now = now_millis();
        let mut tx = self.begin_write().await?;
        let account_id: Option<String> = sqlx::query_scalar(
            "UPDATE password_resets SET used_at = $1 \
             WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING account_id",
        )
        .bind(now)
        .bind(token_hash)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let Some(account_id) = account_id else {
            return Ok(None);
        };
        sqlx::query(
            "INSERT INTO account_passwords (account_id, password_hash, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (account_id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at",
        )
        .bind(&account_id)
        .bind(password_hash)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        // A new password signs out every browser (and voids other links).
        sqlx::query("DELETE FROM web_sessions WHERE account_id = $1")
            .bind(&account_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        sqlx::query(
            "UPDATE password_resets SET used_at = $1 WHERE account_id = $2 AND used_at IS NULL",
        )
        .bind(now)
        .bind(&account_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        let row = sqlx::query(concat!(
            "SELECT ",
            account_cols!(),
            " FROM accounts WHERE id = $1"
        ))
        .bind(&account_id)
        .fetch_one(&mut *tx)
        .await
        .map_err(map_err)?;
        let account = Account::from_row(&row).map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(Some(account))
    }

    async fn set_operator(&self, account_id: &str, operator: bool) -> Result<(), StoreError> {
        let query = if operator {
            sqlx::query(
                "INSERT INTO operators (account_id, granted_at) VALUES ($1, $2) \
                 ON CONFLICT (account_id) DO NOTHING",
            )
            .bind(account_id)
            .bind(now_millis())
        } else {
            sqlx::query("DELETE FROM operators WHERE account_id = $1").bind(account_id)
        };
        query.execute(&self.pool).await.map_err(map_err)?;
        Ok(())
    }

    async fn is_operator(&self, account_id: &str) -> Result<bool, StoreError> {
        let found: Option<String> =
            sqlx::query_scalar("SELECT account_id FROM operators WHERE account_id = $1")
                .bind(account_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(map_err)?;
        Ok(found.is_some())
    }

    async fn operators(&self) -> Result<Vec<(String, Millis)>, StoreError> {
        let rows = sqlx::query(
            "SELECT a.email, o.granted_at FROM operators o JOIN accounts a ON a.id = o.account_id \
             ORDER BY o.granted_at, a.email",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(|r| Ok((r.try_get("email")?, r.try_get("granted_at")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(map_err)
    }

    async fn create_unverified_person(
        &self,
        email: &str,
        password_hash: &str,
        link: &NewVerificationLink<'_>,
    ) -> Result<Account, StoreError> {
        let now = now_millis();
        let mut tx = self.begin_write().await?;
        // No credits yet: no ledger entry. The grant comes with the link.
        let account = insert_account(&mut tx, email, 0).await?;
        sqlx::query(
            "INSERT INTO account_passwords (account_id, password_hash, updated_at) VALUES ($1, $2, $3)",
        )
        .bind(&account.id)
        .bind(password_hash)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        sqlx::query("INSERT INTO unverified_accounts (account_id, created_at) VALUES ($1, $2)")
            .bind(&account.id)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        insert_verification_link(&mut tx, &account.id, link, now).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(account)
    }

    async fn count_signup(
        &self,
        subjects: &[(String, i64)],
        day: i64,
    ) -> Result<Option<usize>, StoreError> {
        let mut tx = self.begin_write().await?;
        for (i, (subject, limit)) in subjects.iter().enumerate() {
            // The upsert's WHERE is the decision: at the limit it updates
            // nothing and returns no row (on PostgreSQL a concurrent
            // sign-up waits for this row's lock and re-reads the count).
            let counted: Option<i64> = sqlx::query_scalar(
                "INSERT INTO signup_counts (subject, day, count) VALUES ($1, $2, 1) \
                 ON CONFLICT (subject, day) DO UPDATE SET count = signup_counts.count + 1 \
                 WHERE signup_counts.count < $3 RETURNING count",
            )
            .bind(subject)
            .bind(day)
            .bind(*limit)
            .fetch_optional(&mut *tx)
            .await
            .map_err(map_err)?;
            if counted.is_none_or(|n| n > *limit) {
                // Dropping the transaction counts none of them.
                return Ok(Some(i));
            }
        }
        tx.commit().await.map_err(map_err)?;
        // Rows of past days go as new sign-ups come, outside the counting
        // transaction (so concurrent sign-ups never wait on each other's
        // cleanup); yesterday's stay, for a sign-up near midnight.
        sqlx::query("DELETE FROM signup_counts WHERE day < $1")
            .bind(day - 1)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        Ok(None)
    }

    async fn is_unverified(&self, account_id: &str) -> Result<bool, StoreError> {
        let found: Option<String> =
            sqlx::query_scalar("SELECT account_id FROM unverified_accounts WHERE account_id = $1")
                .bind(account_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(map_err)?;
        Ok(found.is_some())
    }

    async fn create_verification_link(
        &self,
        account_id: &str,
        link: &NewVerificationLink<'_>,
        max_per_day: i64,
    ) -> Result<bool, StoreError> {
        let now = now_millis();
        let mut tx = self.begin_write().await?;
        let unverified: Option<String> =
            sqlx::query_scalar("SELECT account_id FROM unverified_accounts WHERE account_id = $1")
                .bind(account_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(map_err)?;
        if unverified.is_none() {
            return Ok(false);
        }
        let recent: i64 = sqlx::query_scalar(
            "SELECT CAST(COUNT(*) AS BIGINT) FROM email_verifications \
             WHERE account_id = $1 AND created_at > $2",
        )
        .bind(account_id)
        .bind(now - 86_400_000)
        .fetch_one(&mut *tx)
        .await
        .map_err(map_err)?;
        if recent >= max_per_day {
            return Ok(false);
        }
        insert_verification_link(&mut tx, account_id, link, now).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(true)
    }
}

async fn insert_verification_link(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    account_id: &str,
    link: &NewVerificationLink<'_>,
    now: Millis,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO email_verifications (token_hash, account_id, created_at, expires_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(link.token_hash)
    .bind(account_id)
    .bind(now)
    .bind(link.expires_at)
    .execute(&mut **tx)
    .await
    .map_err(map_err)?;
    Ok(())
}

macro_rules! purchase_cols {
    () => {
        "id, account_id, provider, provider_session, credits, amount_cents, status, created_at, paid_at"
    };
}

/// Records `event_id` in the caller's transaction; false when it was
/// recorded before (the event is a duplicate).
async fn record_event(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    event_id: &str,
    provider: &str,
    kind: &str,
    purchase_id: Option<&str>,
    outcome: &str,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO payment_events (event_id, provider, kind, purchase_id, outcome, received_at) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (event_id) DO NOTHING",
    )
    .bind(event_id)
    .bind(provider)
    .bind(kind)
    .bind(purchase_id)
    .bind(outcome)
    .bind(now_millis())
    .execute(&mut **tx)
    .await
    .map_err(map_err)?;
    Ok(inserted.rows_affected() == 1)
}

#[async_trait]
impl PaymentStore for SqlStore {
    async fn open_purchase(
        &self,
        account_id: &str,
        provider: &str,
        credits: i64,
        amount_cents: i64,
    ) -> Result<Purchase, StoreError> {
        let row = sqlx::query(concat!(
            "INSERT INTO purchases (id, account_id, provider, credits, amount_cents, status, created_at) \
             VALUES ($1, $2, $3, $4, $5, 'open', $6) RETURNING ",
            purchase_cols!()
        ))
        .bind(time_ordered_id().to_string())
        .bind(account_id)
        .bind(provider)
        .bind(credits)
        .bind(amount_cents)
        .bind(now_millis())
        .fetch_one(&self.pool)
        .await
        .map_err(map_err)?;
        Purchase::from_row(&row).map_err(map_err)
    }

    async fn attach_checkout(&self, purchase_id: &str, session_id: &str) -> Result<(), StoreError> {
        let done = sqlx::query(
            "UPDATE purchases SET provider_session = $1 WHERE id = $2 AND status = 'open'",
        )
        .bind(session_id)
        .bind(purchase_id)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("open purchase"));
        }
        Ok(())
    }

    async fn purchase_by_session(&self, session_id: &str) -> Result<Option<Purchase>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            purchase_cols!(),
            " FROM purchases WHERE provider_session = $1"
        ))
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(Purchase::from_row)
            .transpose()
            .map_err(map_err)
    }

    async fn purchases_of(
        &self,
        account_id: &str,
        limit: i64,
    ) -> Result<Vec<Purchase>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            purchase_cols!(),
            " FROM purchases WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
        ))
        .bind(account_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(Purchase::from_row)
            .collect::<Result<_, _>>()
            .map_err(map_err)
    }

    async fn record_other_event(
        &self,
        event_id: &str,
        provider: &str,
        kind: &str,
    ) -> Result<PaymentOutcome, StoreError> {
        let mut tx = self.begin_write().await?;
        let fresh = record_event(&mut tx, event_id, provider, kind, None, "ignored").await?;
        tx.commit().await.map_err(map_err)?;
        Ok(if fresh {
            PaymentOutcome::Ignored
        } else {
            PaymentOutcome::Duplicate
        })
    }

    async fn payment_events_of(
        &self,
        purchase_id: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        sqlx::query_as(
            "SELECT event_id, outcome FROM payment_events WHERE purchase_id = $1 \
             ORDER BY received_at, event_id",
        )
        .bind(purchase_id)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }

    async fn payment_customer(&self, account_id: &str) -> Result<Option<String>, StoreError> {
        let customer: Option<Option<String>> =
            sqlx::query_scalar("SELECT payment_customer FROM accounts WHERE id = $1")
                .bind(account_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(map_err)?;
        Ok(customer.flatten())
    }

    async fn purchase_by_id(&self, id: &str) -> Result<Option<Purchase>, StoreError> {
        self.sql_purchase_by_id(id).await
    }

    async fn standing(&self, account_id: &str) -> Result<Standing, StoreError> {
        self.sql_standing(account_id).await
    }

    async fn set_auto_reload(
        &self,
        account_id: &str,
        setting: Option<(i64, i64)>,
    ) -> Result<(), StoreError> {
        self.sql_set_auto_reload(account_id, setting).await
    }

    async fn auto_reloads_due(&self, limit: i64) -> Result<Vec<String>, StoreError> {
        self.sql_auto_reloads_due(limit).await
    }

    async fn account_of_customer(&self, customer: &str) -> Result<Option<Account>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            account_cols!(),
            " FROM accounts WHERE payment_customer = $1"
        ))
        .bind(customer)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.as_ref()
            .map(Account::from_row)
            .transpose()
            .map_err(map_err)
    }
}

#[async_trait]
impl ActivityStore for SqlStore {
    async fn usage_by_day(
        &self,
        account_id: &str,
        since: Millis,
    ) -> Result<Vec<DayUsage>, StoreError> {
        // A charge row is one billed request (a delivery, or a mint of
        // several URLs); a refund names the charge it refunds, probed per
        // charge by `ledger_refund_of` (a join scanned every refund on
        // PostgreSQL).
        sqlx::query_as::<_, DayUsage>(
            "SELECT CAST(c.created_at / 86400000 AS BIGINT) AS day, \
               CAST(SUM(CASE WHEN c.kind = 'charge' THEN 1 ELSE 0 END) AS BIGINT) AS requests, \
               CAST(SUM(CASE WHEN c.kind = 'charge' AND c.variant IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger r WHERE r.refund_of = c.id) THEN 1 ELSE 0 END) AS BIGINT) AS images, \
               CAST(SUM(CASE WHEN c.kind = 'charge' AND c.variant IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger r WHERE r.refund_of = c.id) AND c.source = 'cache' THEN 1 ELSE 0 END) AS BIGINT) AS cache_hits, \
               CAST(COALESCE(SUM(CASE WHEN c.kind IN ('charge', 'refund') THEN -c.delta ELSE 0 END), 0) AS BIGINT) AS credits_spent \
             FROM ledger c \
             WHERE c.account_id = $1 AND c.created_at >= $2 \
             GROUP BY CAST(c.created_at / 86400000 AS BIGINT) ORDER BY day",
        )
        .bind(account_id)
        .bind(since)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)
    }

    async fn recent_delivery_urls(
        &self,
        account_id: &str,
        limit: i64,
    ) -> Result<Vec<DeliveryUrlRecord>, StoreError> {
        super::urls::urls_of_account(self, account_id, limit).await
    }
}

/// Credit-moving writes: reached only through `CreditStore` (credits.rs).
impl SqlStore {
    pub(super) async fn sql_create_person(
        &self,
        email: &str,
        password_hash: &str,
        initial_credits: i64,
    ) -> Result<Account, StoreError> {
        let mut tx = self.begin_write().await?;
        let account = insert_account(&mut tx, email, initial_credits).await?;
        sqlx::query(
            "INSERT INTO account_passwords (account_id, password_hash, updated_at) VALUES ($1, $2, $3)",
        )
        .bind(&account.id)
        .bind(password_hash)
        .bind(now_millis())
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(account)
    }

    /// `CreditStore::verify_email`: one transaction; the deletion of the
    /// account's unverified mark decides whether the grant is posted (on
    /// PostgreSQL a concurrent verification waits for the row's lock and
    /// then deletes nothing; on SQLite write transactions take turns).
    pub(super) async fn sql_verify_email(
        &self,
        token_hash: &str,
        credits: i64,
    ) -> Result<Verification, StoreError> {
        let now = now_millis();
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(
            "SELECT account_id, expires_at FROM email_verifications WHERE token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let Some(row) = row else {
            return Ok(Verification::Unknown);
        };
        let account_id: String = row.try_get("account_id").map_err(map_err)?;
        let expires_at: i64 = row.try_get("expires_at").map_err(map_err)?;
        let unverified = sqlx::query("DELETE FROM unverified_accounts WHERE account_id = $1")
            .bind(&account_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?
            .rows_affected()
            == 1;
        if !unverified {
            // Verified before (by this link or another): nothing more.
            return Ok(Verification::AlreadyVerified { account_id });
        }
        if expires_at <= now {
            // Dropping the transaction keeps the account unverified.
            return Ok(Verification::Expired);
        }
        // Every link of the account is spent with the first one used.
        sqlx::query(
            "UPDATE email_verifications SET used_at = $1 WHERE account_id = $2 AND used_at IS NULL",
        )
        .bind(now)
        .bind(&account_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        let balance = move_balance(&mut tx, &account_id, credits).await?;
        let entry = NewEntry {
            kind: EntryKind::Grant,
            delta: credits,
            reason: "free credits for a verified email",
            reference: Some("email verification"),
        };
        insert_ledger(&mut tx, &account_id, &entry, balance).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(Verification::Granted {
            account_id,
            balance,
        })
    }

    pub(super) async fn sql_record_paid_checkout(
        &self,
        paid: &PaidCheckout<'_>,
    ) -> Result<PaymentOutcome, StoreError> {
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(concat!(
            "SELECT ",
            purchase_cols!(),
            " FROM purchases WHERE provider = $2 \
             AND (provider_session = $1 OR (provider_session IS NULL AND id = $3)) \
             ORDER BY CASE WHEN provider_session = $1 THEN 0 ELSE 1 END LIMIT 1"
        ))
        .bind(paid.session_id)
        .bind(paid.provider)
        // An auto-reload's payment can be reported before its PaymentIntent
        // id is attached to the purchase (Stripe confirms it synchronously
        // and may send the event first): its purchase is found by the id
        // the event names, while no session is attached.
        .bind(paid.purchase_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        let purchase = row
            .as_ref()
            .map(Purchase::from_row)
            .transpose()
            .map_err(map_err)?;
        // The purchase must be the one the event names, when it names one.
        let purchase = purchase.filter(|p| paid.purchase_id.is_none_or(|id| id == p.id));
        let outcome = match &purchase {
            None => PaymentOutcome::Unknown,
            Some(p) if p.status == "paid" => PaymentOutcome::AlreadyPaid,
            Some(p) if p.amount_cents != paid.amount_cents => PaymentOutcome::AmountMismatch,
            Some(_) => PaymentOutcome::Ignored, // replaced below once credited
        };
        // Claim the purchase before writing the audit row, so the row says
        // what happened: on PostgreSQL's READ COMMITTED, concurrent events of
        // one checkout all read it `open` above; the conditional update
        // below is what decides (the losers wait for the winner's commit,
        // see it `paid` and match nothing), and each event's row is written
        // after that decision (`credited` once, `already_paid` for the rest).
        let now = now_millis();
        let outcome = match (&purchase, outcome) {
            (Some(p), PaymentOutcome::Ignored) => {
                let marked = sqlx::query(
                    "UPDATE purchases SET status = 'paid', paid_at = $1 WHERE id = $2 AND status = 'open'",
                )
                .bind(now)
                .bind(&p.id)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
                if marked.rows_affected() == 0 {
                    PaymentOutcome::AlreadyPaid
                } else {
                    PaymentOutcome::Ignored
                }
            }
            (_, other) => other,
        };
        let purchase_id = purchase.as_ref().map(|p| p.id.as_str());
        let label = match outcome {
            PaymentOutcome::Ignored => "credited",
            ref other => other.as_str(),
        };
        if !record_event(
            &mut tx,
            paid.event_id,
            paid.provider,
            "checkout.paid",
            purchase_id,
            label,
        )
        .await?
        {
            // Seen before: dropping the transaction rolls back the claim.
            return Ok(PaymentOutcome::Duplicate);
        }
        let (Some(purchase), PaymentOutcome::Ignored) = (purchase, &outcome) else {
            tx.commit().await.map_err(map_err)?;
            return Ok(outcome);
        };
        let balance = move_balance(&mut tx, &purchase.account_id, purchase.credits).await?;
        let entry = NewEntry {
            kind: EntryKind::Purchase,
            delta: purchase.credits,
            reason: "credit pack",
            reference: Some(&purchase.id),
        };
        insert_ledger(&mut tx, &purchase.account_id, &entry, balance).await?;
        // What a refund could not take back is paid first (migration 23).
        let balance = settle_owed(&mut tx, &purchase.account_id, &purchase.id).await?;
        sqlx::query(
            "UPDATE purchases SET payment_intent = COALESCE($1, payment_intent) WHERE id = $2",
        )
        .bind(paid.payment_intent)
        .bind(&purchase.id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        // Back at or above the threshold: the next crossing may reload again.
        sqlx::query(
            "UPDATE accounts SET has_payment_method = 1, \
             payment_customer = COALESCE($1, payment_customer), \
             auto_reload_armed = CASE WHEN auto_reload_threshold IS NOT NULL \
               AND balance >= auto_reload_threshold THEN 1 ELSE auto_reload_armed END \
             WHERE id = $2",
        )
        .bind(paid.customer)
        .bind(&purchase.account_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(PaymentOutcome::Credited {
            purchase: Purchase {
                status: "paid".into(),
                paid_at: Some(now),
                ..purchase
            },
            balance,
        })
    }
}
