//! `control-plane payments`: money after the sale, from the operator's side
//! (docs/billing.md, "After the sale"). Refunds and disputes of sandbox
//! purchases behave like Stripe's: the command signs the event Stripe would
//! send (`charge.refunded`, `charge.dispute.created`/`closed`) with the
//! sandbox's webhook secret, verifies it, and applies it through the
//! webhook's own code (`http::billing::apply_verified`), so replays and
//! duplicates are handled exactly as they are for a real provider. A Stripe
//! purchase is refunded in Stripe's dashboard; its webhook does the rest.

use serde_json::json;

use super::{CliError, account, email_arg, say};
use crate::billing::{Ledger, pack};
use crate::config::{Config, Secret};
use crate::payments::PaymentProvider;
use crate::payments::sandbox::SandboxProvider;
use crate::store::{BudgetStore, PaymentStore, SqlStore, Store};

#[derive(Debug, clap::Subcommand)]
pub enum PaymentsCmd {
    /// Refund a sandbox purchase (all of it, or --cents in total so far);
    /// its unspent credits are taken back, the rest is owed.
    Refund {
        #[arg(long)]
        purchase: String,
        /// The total refunded so far, in cents (Stripe's `amount_refunded`);
        /// default: the whole payment.
        #[arg(long)]
        cents: Option<i64>,
    },
    /// Open a dispute of a sandbox purchase (the account's keys freeze), or
    /// close it with --outcome won (unfrozen) or lost (taken back, then
    /// unfrozen).
    Dispute {
        #[arg(long)]
        purchase: String,
        #[arg(long, value_parser = ["won", "lost"])]
        outcome: Option<String>,
    },
    /// Turn auto-reload on (--below N --pack P: buy the pack of P credits
    /// with the saved payment method when the balance falls below N) or off
    /// (--off).
    AutoReload {
        #[arg(long)]
        email: String,
        #[arg(long)]
        below: Option<i64>,
        #[arg(long)]
        pack: Option<i64>,
        #[arg(long)]
        off: bool,
    },
    /// An account's standing: balance, credits owed, open disputes.
    Standing {
        #[arg(long)]
        email: String,
    },
}

pub async fn run(
    store: &SqlStore,
    ledger: &Ledger,
    config: &Config,
    cmd: PaymentsCmd,
    as_json: bool,
) -> Result<String, CliError> {
    match cmd {
        PaymentsCmd::Refund { purchase, cents } => {
            let (sandbox, purchase) = sandbox_purchase(store, config, &purchase).await?;
            let cents = cents.unwrap_or(purchase.amount_cents);
            if !(1..=purchase.amount_cents).contains(&cents) {
                return Err(CliError::Usage(format!(
                    "--cents: between 1 and the payment's {} cents",
                    purchase.amount_cents
                )));
            }
            let now = crate::ratelimit::now_secs() as i64;
            let (body, signature) =
                sandbox.refund_event(&purchase.id, purchase.amount_cents, cents, now);
            apply(store, ledger, &sandbox, &body, &signature, as_json).await
        }
        PaymentsCmd::Dispute { purchase, outcome } => {
            let (sandbox, purchase) = sandbox_purchase(store, config, &purchase).await?;
            let now = crate::ratelimit::now_secs() as i64;
            let (body, signature) =
                sandbox.dispute_event(&purchase.id, purchase.amount_cents, outcome.as_deref(), now);
            apply(store, ledger, &sandbox, &body, &signature, as_json).await
        }
        PaymentsCmd::AutoReload {
            email,
            below,
            pack: credits,
            off,
        } => {
            let account = account(store, &email_arg(&email)?).await?;
            let setting = match (off, below, credits) {
                (true, None, None) => None,
                (false, Some(below), Some(credits)) => {
                    if below < 1 {
                        return Err(CliError::Usage("--below: at least 1".into()));
                    }
                    if pack(credits).is_none() {
                        return Err(CliError::Usage(
                            "--pack: one of 5000, 10000, 25000, 100000".into(),
                        ));
                    }
                    Some((below, credits))
                }
                _ => {
                    return Err(CliError::Usage(
                        "give --below and --pack, or --off alone".into(),
                    ));
                }
            };
            store.set_auto_reload(&account.id, setting).await?;
            Ok(say(
                as_json,
                json!({ "auto_reload": setting.is_some(), "below": setting.map(|s| s.0), "pack": setting.map(|s| s.1) }),
                &match setting {
                    Some((below, credits)) => format!(
                        "auto-reload on: {credits} credits when the balance falls below {below}"
                    ),
                    None => "auto-reload off".into(),
                },
            ))
        }
        PaymentsCmd::Standing { email } => {
            let account = account(store, &email_arg(&email)?).await?;
            let balance = ledger.balance(&account.id).await?.unwrap_or(0);
            let standing = store.standing(&account.id).await?;
            Ok(say(
                as_json,
                json!({
                    "credits": balance,
                    "owed": standing.owed,
                    "disputes": standing.disputes,
                    "frozen": standing.disputes > 0,
                    "auto_reload": account.auto_reload,
                }),
                &format!(
                    "balance {balance}, owed {}, open disputes {}",
                    standing.owed, standing.disputes
                ),
            ))
        }
    }
}

/// The sandbox (its webhook secret is in the database) and a paid sandbox
/// purchase.
async fn sandbox_purchase(
    store: &SqlStore,
    config: &Config,
    id: &str,
) -> Result<(SandboxProvider, crate::store::Purchase), CliError> {
    let purchase = store
        .purchase_by_id(id)
        .await?
        .ok_or_else(|| CliError::Usage(format!("--purchase: no purchase {id:?}")))?;
    if purchase.provider != "sandbox" {
        return Err(CliError::Usage(format!(
            "--purchase: {id} was paid through {}; refund or answer its dispute there, and its webhook takes the credits back",
            purchase.provider
        )));
    }
    if purchase.status != "paid" {
        return Err(CliError::Usage(format!("--purchase: {id} is not paid")));
    }
    let hook = store
        .setting("sandbox_webhook_secret")
        .await?
        .ok_or_else(|| {
            CliError::Usage("the sandbox provider has never run on this database".into())
        })?;
    let sandbox = SandboxProvider::new(
        config.base_url.clone(),
        Secret::new(hook),
        Secret::new(Vec::new()),
    );
    Ok((sandbox, purchase))
}

/// Verifies the signed event as the webhook would and applies it.
async fn apply(
    store: &SqlStore,
    ledger: &Ledger,
    sandbox: &SandboxProvider,
    body: &[u8],
    signature: &str,
    as_json: bool,
) -> Result<String, CliError> {
    let now = crate::ratelimit::now_secs() as i64;
    let event = sandbox
        .verify_webhook(Some(signature), body, now)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let outcome =
        crate::http::billing::apply_verified(ledger, store as &dyn Store, "sandbox", &event)
            .await?;
    let detail = match &outcome {
        crate::store::PaymentOutcome::Reversed { taken, owed, .. }
        | crate::store::PaymentOutcome::DisputeClosed { taken, owed, .. } => {
            json!({ "outcome": outcome.as_str(), "taken": taken, "owed": owed })
        }
        _ => json!({ "outcome": outcome.as_str() }),
    };
    let text = format!("{detail}");
    Ok(say(as_json, detail, &text))
}
