//! `CreditStore` on both databases: the one adapter behind
//! `billing::Ledger`. Each method is the transaction written beside the
//! rows it touches (accounts and grants in sql.rs, URL mints in urls.rs,
//! purchases in people.rs, refunds and disputes in after_sale.rs); this impl is the only way to reach them.

use super::*;

#[async_trait]
impl CreditStore for SqlStore {
    async fn balance(&self, account_id: &str) -> Result<Option<i64>, StoreError> {
        sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1")
            .bind(account_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)
    }

    async fn create_account(
        &self,
        email: &str,
        initial_credits: i64,
    ) -> Result<Account, StoreError> {
        self.sql_create_account(email, initial_credits).await
    }

    async fn create_person(
        &self,
        email: &str,
        password_hash: &str,
        initial_credits: i64,
    ) -> Result<Account, StoreError> {
        self.sql_create_person(email, password_hash, initial_credits)
            .await
    }

    async fn append_entry(
        &self,
        account_id: &str,
        entry: NewEntry<'_>,
    ) -> Result<LedgerEntry, StoreError> {
        self.sql_append_entry(account_id, entry).await
    }

    async fn charge_delivery(&self, delivery: &NewDelivery) -> Result<i64, StoreError> {
        self.sql_charge_delivery(delivery).await
    }

    async fn charge_deliveries(
        &self,
        deliveries: Vec<NewDelivery>,
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        self.sql_charge_deliveries(deliveries).await
    }

    async fn refund_delivery(
        &self,
        charge_id: i64,
        reason: &str,
    ) -> Result<Option<i64>, StoreError> {
        self.sql_refund_delivery(charge_id, reason).await
    }

    async fn mint_delivery_urls(
        &self,
        payer: Payer<'_>,
        urls: &[NewDeliveryUrl],
        idempotency: Option<IdempotencyClaim<'_>>,
    ) -> Result<i64, StoreError> {
        self.sql_mint_delivery_urls(payer, urls, idempotency).await
    }

    async fn fail_delivery_url(&self, id: &str, reason: &str) -> Result<Option<i64>, StoreError> {
        self.sql_fail_delivery_url(id, reason).await
    }

    async fn record_paid_checkout(
        &self,
        paid: &PaidCheckout<'_>,
    ) -> Result<PaymentOutcome, StoreError> {
        self.sql_record_paid_checkout(paid).await
    }

    async fn verify_email(
        &self,
        token_hash: &str,
        credits: i64,
    ) -> Result<Verification, StoreError> {
        self.sql_verify_email(token_hash, credits).await
    }

    async fn record_refund(&self, refund: &RefundNotice<'_>) -> Result<PaymentOutcome, StoreError> {
        self.sql_record_refund(refund).await
    }

    async fn record_dispute(
        &self,
        dispute: &DisputeNotice<'_>,
    ) -> Result<PaymentOutcome, StoreError> {
        self.sql_record_dispute(dispute).await
    }

    async fn claim_auto_reload(
        &self,
        account_id: &str,
        provider: &str,
    ) -> Result<Option<Purchase>, StoreError> {
        self.sql_claim_auto_reload(account_id, provider).await
    }
}
