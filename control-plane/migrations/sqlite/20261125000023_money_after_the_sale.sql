-- Money after the sale (issue 33, docs/billing.md "After the sale") and the
-- refund of signed URLs that expire having served only errors
-- (docs/delivery-urls.md).
--
-- accounts.owed             credits a refund or a lost dispute could not take
--                           back (the balance never goes negative); while > 0
--                           the account buys no renders, and the next purchase
--                           pays it first
-- accounts.disputes         open disputes; while > 0 the account's keys are
--                           frozen (403) and it is charged nothing
-- accounts.held             1 while owed > 0 or disputes > 0, else 0: the one
--                           column the conditional debit of a keyed charge or
--                           mint reads (charges::DEBIT_GROUP), written in the
--                           transactions that change owed or disputes
-- accounts.auto_reload_*    the optional auto-reload: below `threshold`, buy
--                           the pack of `credits` with the saved payment
--                           method; `armed` = 1 until it fires, back to 1 when
--                           a purchase lifts the balance to the threshold
--                           (once per crossing, decided by a conditional write)
-- purchases.payment_intent  the provider's payment (refunds and disputes name it)
-- purchases.refunded_cents  the amount refunded so far (Stripe's cumulative
--                           amount_refunded); credits_reversed: the credits
--                           taken back or owed for it, so far
-- purchases.kind            checkout (a person on a payment page) or auto_reload
-- delivery_urls.errored_at  a load that could not be served (503) while no use
--                           was redeemed; an expired URL with it set and no use
--                           is refunded once by the sweep over its index
ALTER TABLE accounts ADD COLUMN owed BIGINT NOT NULL DEFAULT 0 CHECK (owed >= 0);
ALTER TABLE accounts ADD COLUMN disputes BIGINT NOT NULL DEFAULT 0 CHECK (disputes >= 0);
ALTER TABLE accounts ADD COLUMN held BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN auto_reload_threshold BIGINT;
ALTER TABLE accounts ADD COLUMN auto_reload_credits BIGINT;
ALTER TABLE accounts ADD COLUMN auto_reload_armed BIGINT NOT NULL DEFAULT 1;
CREATE INDEX accounts_auto_reload ON accounts(id) WHERE auto_reload_threshold IS NOT NULL AND auto_reload_armed = 1;

ALTER TABLE purchases ADD COLUMN payment_intent TEXT;
ALTER TABLE purchases ADD COLUMN refunded_cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE purchases ADD COLUMN credits_reversed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE purchases ADD COLUMN kind TEXT NOT NULL DEFAULT 'checkout';
CREATE INDEX purchases_payment_intent ON purchases(payment_intent);

-- One row per provider dispute: opened once, closed once.
CREATE TABLE disputes (
    id           TEXT PRIMARY KEY,
    purchase_id  TEXT NOT NULL REFERENCES purchases(id),
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    status       TEXT NOT NULL CHECK (status IN ('open', 'won', 'lost')),
    opened_at    BIGINT NOT NULL,
    closed_at    BIGINT
);

ALTER TABLE delivery_urls ADD COLUMN errored_at BIGINT;
CREATE INDEX delivery_urls_errored_unloaded ON delivery_urls(expires_at)
    WHERE errored_at IS NOT NULL AND failed_at IS NULL AND uses = 0;
