//! The dashboard of a signed-in person (docs/accounts.md): balance and its
//! dollar value, 30 days of usage as a chart, API keys (create with chosen
//! scopes, shown once; revoke), partner secrets (create under a key, shown
//! once; revoke), recent signed delivery URLs, and the credits page with
//! the four packs and past purchases. Every form is CSRF-protected.

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use minijinja::context;
use serde::Serialize;

use super::flash;
use super::web::{self, FormFields};
use crate::auth::{ApiKey, Scope, Scopes};
use crate::billing::{CREDITS_PER_DOLLAR, PACKS};
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::store::{Account, DayUsage, NewKey, StoreError, now_millis};

const DAY_MS: i64 = 86_400_000;
const CHART_DAYS: i64 = 30;

#[derive(Serialize)]
struct KeyRow {
    id: String,
    name: String,
    prefix: String,
    scopes: String,
    rate_limit: i64,
    created: String,
    /// "never", "just now", "3 minutes ago", … or a date.
    last_used: String,
    /// The exact time, for the cell's title; empty when never used.
    last_used_at: String,
    revoked: bool,
}

#[derive(Serialize)]
struct PartnerRow {
    id: String,
    key_name: String,
    created: String,
    revoked: bool,
}

#[derive(Serialize)]
struct UrlRow {
    url: Option<String>,
    vehicle: String,
    size: String,
    created: String,
    expires: String,
    uses: String,
    state: &'static str,
}

#[derive(Serialize)]
struct Bar {
    label: String,
    credits: i64,
    images: i64,
    /// Bar height, 0 to 100.
    height: f64,
    x: f64,
}

#[derive(Serialize, Default)]
struct Totals {
    requests: i64,
    images: i64,
    cache_hit_rate: Option<String>,
    credits_spent: i64,
}

/// What a dashboard render shows once (a new key or partner secret).
#[derive(Default)]
pub struct Once {
    new_key: Option<(String, String)>,
    new_partner: Option<(String, String)>,
    error: Option<String>,
}

fn at(ms: i64) -> Option<time::OffsetDateTime> {
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000)).ok()
}

/// `Nov 22`: a day of the chart.
pub fn day_label(ms: i64) -> String {
    at(ms)
        .and_then(|t| {
            t.format(time::macros::format_description!(
                "[month repr:short] [day]"
            ))
            .ok()
        })
        .unwrap_or_default()
}

/// `Nov 22 2026 14:05 UTC`: when something happened.
pub fn when(ms: i64) -> String {
    at(ms)
        .and_then(|t| {
            t.format(time::macros::format_description!(
                "[month repr:short] [day] [year] [hour]:[minute] UTC"
            ))
            .ok()
        })
        .unwrap_or_default()
}

/// How long before `now` the moment `ms` was, in words: "just now",
/// "3 minutes ago", "5 hours ago", "2 days ago"; past a week, the date.
pub fn ago(ms: i64, now: i64) -> String {
    let secs = (now - ms).max(0) / 1000;
    let plural = |n: i64, unit: &str| format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" });
    match secs {
        0..60 => "just now".to_owned(),
        60..3_600 => plural(secs / 60, "minute"),
        3_600..86_400 => plural(secs / 3_600, "hour"),
        86_400..604_800 => plural(secs / 86_400, "day"),
        _ => when(ms),
    }
}

/// 30 bars, one a day ending today, scaled to the busiest day.
fn chart(days: &[DayUsage], today: i64) -> (Vec<Bar>, Totals) {
    let max = days
        .iter()
        .map(|d| d.credits_spent)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut totals = Totals::default();
    let mut hits = 0;
    let bars = (0..CHART_DAYS)
        .map(|i| {
            let day = today - (CHART_DAYS - 1) + i;
            let d = days
                .iter()
                .find(|d| d.day == day)
                .cloned()
                .unwrap_or_default();
            totals.requests += d.requests;
            totals.images += d.images;
            totals.credits_spent += d.credits_spent;
            hits += d.cache_hits;
            Bar {
                label: day_label(day * DAY_MS),
                credits: d.credits_spent,
                images: d.images,
                height: (d.credits_spent.max(0) as f64 / max as f64 * 100.0).round(),
                x: i as f64 * 10.0,
            }
        })
        .collect();
    if totals.images > 0 {
        totals.cache_hit_rate = Some(format!(
            "{:.0}%",
            hits as f64 / totals.images as f64 * 100.0
        ));
    }
    (bars, totals)
}

/// `GET /dashboard`: with the show-once cookie a create form set
/// (`flash.rs`), the new key or partner secret once; the cookie is deleted.
pub async fn page(State(state): State<HttpState>, headers: HeaderMap) -> Response {
    let account = match web::require_signed_in(&state, &headers, "/dashboard").await {
        Ok(a) => a,
        Err(redirect) => return redirect,
    };
    let sealed = web::cookie(&headers, flash::COOKIE);
    let shown = sealed
        .zip(web::cookie(&headers, web::SESSION_COOKIE))
        .and_then(|(value, session)| flash::open(&state.web, session, value, now_millis()));
    let once = match shown {
        Some(flash::Shown::Key { name, key }) => Once {
            new_key: Some((name, key)),
            ..Once::default()
        },
        Some(flash::Shown::Partner { id, secret }) => Once {
            new_partner: Some((id, secret)),
            ..Once::default()
        },
        None => Once::default(),
    };
    let r = show(&state, &headers, &account, StatusCode::OK, once).await;
    if sealed.is_some() {
        web::with_cookies(r, &[flash::clear_cookie(&state.web)])
    } else {
        r
    }
}

/// The 303 after a create form: to the dashboard, which shows `shown` once
/// (post/redirect/get: a reload creates nothing, and no secret is in a URL).
fn show_once_after_redirect(
    state: &HttpState,
    headers: &HeaderMap,
    shown: flash::Shown,
    anchor: &str,
) -> Response {
    let to = format!("/dashboard#{anchor}");
    match web::cookie(headers, web::SESSION_COOKIE) {
        Some(session) => {
            let value = flash::seal(&state.web, session, shown, now_millis());
            web::with_cookies(
                web::see_other(&to),
                &[flash::set_cookie(&state.web, &value)],
            )
        }
        // Signed in without a session cookie cannot happen; show nothing.
        None => web::see_other(&to),
    }
}

async fn show(
    state: &HttpState,
    headers: &HeaderMap,
    account: &Account,
    status: StatusCode,
    once: Once,
) -> Response {
    match gather(state, account).await {
        Ok(ctx) => {
            let ctx = context! {
                operator => super::operator::is_operator(state, account).await,
                // A web sign-up whose email is not verified yet (docs/accounts.md).
                unverified => state.store.is_unverified(&account.id).await.unwrap_or(false),
                free_credits => crate::billing::FREE_CREDITS,
                verify_within => crate::people::lifetime_words(state.signup.verify_link_secs),
                dash_tab => "overview",
                new_key => once.new_key.as_ref().map(|(name, key)| context! { name, key }),
                new_partner => once.new_partner.as_ref().map(|(id, secret)| context! { id, secret }),
                form_error => once.error,
                ..ctx
            };
            web::render(
                state,
                headers,
                status,
                "dashboard.html",
                "account",
                Some(account),
                ctx,
            )
        }
        Err(e) => e.into_response(),
    }
}

async fn gather(state: &HttpState, account: &Account) -> Result<minijinja::Value, ApiError> {
    let now = now_millis();
    let today = now.div_euclid(DAY_MS);
    let since = (today - (CHART_DAYS - 1)) * DAY_MS;
    let balance = state
        .deliverer
        .ledger
        .balance(&account.id)
        .await?
        .unwrap_or(0);
    let keys = state.store.keys_of_account(&account.id).await?;
    let partners = state.store.partners_of_account(&account.id).await?;
    let days = state.store.usage_by_day(&account.id, since).await?;
    let urls = state.store.recent_delivery_urls(&account.id, 10).await?;
    let (bars, totals) = chart(&days, today);
    let key_name = |id: &Option<String>| {
        keys.iter()
            .find(|k| Some(&k.id) == id.as_ref())
            .map(|k| k.name.clone())
            .unwrap_or_else(|| "(no key)".into())
    };
    let partner_rows: Vec<PartnerRow> = partners
        .iter()
        .map(|p| PartnerRow {
            id: p.id.clone(),
            key_name: key_name(&p.key_id),
            created: when(p.created_at),
            revoked: p.revoked_at.is_some(),
        })
        .collect();
    let key_rows: Vec<KeyRow> = keys
        .iter()
        .map(|k| KeyRow {
            id: k.id.clone(),
            name: k.name.clone(),
            prefix: k.display_prefix.clone(),
            scopes: k.scopes.clone(),
            rate_limit: k.rate_limit_per_minute,
            created: when(k.created_at),
            last_used: k
                .last_used_at
                .map_or_else(|| "never".to_owned(), |t| ago(t, now)),
            last_used_at: k.last_used_at.map(when).unwrap_or_default(),
            revoked: k.revoked_at.is_some(),
        })
        .collect();
    let url_rows: Vec<UrlRow> = urls
        .iter()
        .map(|u| {
            let live = u.failed_at.is_none()
                && !u.key_revoked
                && u.expires_at > now
                && (u.max_uses == 0 || u.uses < u.max_uses);
            let state_label = if u.key_revoked {
                "revoked"
            } else if u.failed_at.is_some() {
                "refunded"
            } else if u.expires_at <= now {
                "expired"
            } else if !live {
                "used up"
            } else {
                "live"
            };
            UrlRow {
                url: live
                    .then(|| state.urls.token_of(&u.id))
                    .flatten()
                    .map(|t| format!("{}/api/v1/delivery/{t}", state.base_url)),
                vehicle: u.variant.replace('|', " · "),
                size: format!("{}×{} {}", u.width, u.height, u.format),
                created: when(u.created_at),
                expires: when(u.expires_at),
                uses: if u.max_uses == 0 {
                    format!("{} loads", u.uses)
                } else {
                    format!("{} of {}", u.uses, u.max_uses)
                },
                state: state_label,
            }
        })
        .collect();
    let scopes: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
    let default_scopes = Scopes::new_key_default().names();
    Ok(context! {
        balance => balance,
        balance_usd => format!("{:.2}", balance as f64 / CREDITS_PER_DOLLAR as f64),
        has_payment_method => account.has_payment_method,
        bars, totals,
        chart_from => day_label(since), chart_to => day_label(now),
        keys => key_rows,
        live_keys => keys.iter().filter(|k| k.revoked_at.is_none()).map(|k| context! { id => k.id, name => k.name }).collect::<Vec<_>>(),
        partners => partner_rows,
        urls => url_rows,
        scopes, default_scopes,
    })
}

/// Reads a form for a signed-in person: the account, or the response.
async fn signed_in_form(
    state: &HttpState,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(Account, FormFields), Response> {
    let form =
        web::read_form(state, headers, body).map_err(|why| web::refusal(state, headers, why))?;
    let account = web::require_signed_in(state, headers, "/dashboard").await?;
    Ok((account, form))
}

/// `POST /dashboard/keys`: a new key with a name and chosen scopes; 303 to
/// the dashboard, which shows it once.
pub async fn create_key(
    State(state): State<HttpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (account, form) = match signed_in_form(&state, &headers, &body).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let name = form.get("name").unwrap_or_default().trim().to_owned();
    let bad = |message: &str| Once {
        error: Some(message.to_owned()),
        ..Once::default()
    };
    if name.is_empty() || name.chars().count() > 80 || name.chars().any(char::is_control) {
        return show(
            &state,
            &headers,
            &account,
            StatusCode::BAD_REQUEST,
            bad("Name the key (1 to 80 characters)."),
        )
        .await;
    }
    let chosen: Vec<&str> = form.all("scope").collect();
    let scopes = match Scopes::parse(&chosen.join(" ")) {
        Ok(s) if !chosen.is_empty() => s,
        _ => {
            return show(
                &state,
                &headers,
                &account,
                StatusCode::BAD_REQUEST,
                bad("Choose at least one scope."),
            )
            .await;
        }
    };
    let key = ApiKey::generate();
    let created = state
        .store
        .create_key(NewKey {
            account_id: account.id.clone(),
            name: name.clone(),
            display_prefix: key.display_prefix(),
            key_hash: key.hash(),
            scopes: scopes.to_string(),
            rate_limit_per_minute: crate::limits::DEFAULT_RATE_LIMIT_PER_MINUTE,
        })
        .await;
    if let Err(e) = created {
        return ApiError::from(e).into_response();
    }
    let shown = flash::Shown::Key {
        name,
        key: key.expose().to_owned(),
    };
    show_once_after_redirect(&state, &headers, shown, "new-key")
}

/// `POST /dashboard/keys/revoke`: revokes one of the account's keys (and
/// with it its delivery URLs and partner secrets).
pub async fn revoke_key(
    State(state): State<HttpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (account, form) = match signed_in_form(&state, &headers, &body).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let id = form.get("key_id").unwrap_or_default();
    match state.store.key_by_id(id).await {
        Ok(Some(key)) if key.account_id == account.id => {
            if let Err(e) = state.store.revoke_key(&key.id).await {
                return ApiError::from(e).into_response();
            }
            web::see_other("/dashboard#keys")
        }
        Ok(_) => not_yours(&state, &headers, "key"),
        Err(e) => ApiError::from(e).into_response(),
    }
}

fn not_yours(state: &HttpState, headers: &HeaderMap, what: &str) -> Response {
    web::notice(
        state,
        headers,
        StatusCode::NOT_FOUND,
        "Not found",
        &format!("Your account has no such {what}. Go back to the dashboard and reload it."),
    )
}

/// `POST /dashboard/partners`: a partner secret under one of the
/// account's live keys; 303 to the dashboard, which shows it once.
pub async fn create_partner(
    State(state): State<HttpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (account, form) = match signed_in_form(&state, &headers, &body).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let key_id = form.get("key_id").unwrap_or_default();
    let owned = matches!(state.store.key_by_id(key_id).await, Ok(Some(k)) if k.account_id == account.id && k.revoked_at.is_none());
    if !owned {
        let once = Once {
            error: Some("Choose one of your live keys for the partner secret.".into()),
            ..Once::default()
        };
        return show(&state, &headers, &account, StatusCode::BAD_REQUEST, once).await;
    }
    let secret = crate::embeds::partners::generate_secret();
    match state.store.create_partner(key_id, &secret).await {
        Ok(partner) => {
            let shown = flash::Shown::Partner {
                id: partner.id,
                secret,
            };
            show_once_after_redirect(&state, &headers, shown, "new-partner")
        }
        Err(StoreError::NotFound(_)) => not_yours(&state, &headers, "live key"),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `POST /dashboard/partners/revoke`.
pub async fn revoke_partner(
    State(state): State<HttpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (account, form) = match signed_in_form(&state, &headers, &body).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let id = form.get("partner_id").unwrap_or_default();
    match state.store.partner_by_id(id).await {
        Ok(Some(p)) if p.account_id == account.id => {
            if let Err(e) = state.store.revoke_partner(&p.id).await {
                return ApiError::from(e).into_response();
            }
            web::see_other("/dashboard#partners")
        }
        Ok(_) => not_yours(&state, &headers, "partner"),
        Err(e) => ApiError::from(e).into_response(),
    }
}

#[derive(Debug, serde::Deserialize)]
pub struct CreditsQuery {
    purchase: Option<String>,
}

#[derive(Serialize)]
struct PackCard {
    credits: i64,
    usd: i64,
    images: i64,
}

#[derive(Serialize)]
struct PurchaseRow {
    credits: i64,
    usd: String,
    status: String,
    created: String,
}

/// `GET /dashboard/credits`: the four packs and past purchases.
pub async fn credits_page(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Query(q): Query<CreditsQuery>,
) -> Response {
    let account = match web::require_signed_in(&state, &headers, "/dashboard/credits").await {
        Ok(a) => a,
        Err(redirect) => return redirect,
    };
    credits(
        &state,
        &headers,
        &account,
        StatusCode::OK,
        q.purchase.as_deref(),
        None,
    )
    .await
}

pub async fn credits(
    state: &HttpState,
    headers: &HeaderMap,
    account: &Account,
    status: StatusCode,
    purchase: Option<&str>,
    error: Option<&str>,
) -> Response {
    let purchases = match state.store.purchases_of(&account.id, 20).await {
        Ok(p) => p,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let balance = match state.deliverer.ledger.balance(&account.id).await {
        Ok(b) => b.unwrap_or(0),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let packs: Vec<PackCard> = PACKS
        .iter()
        .map(|p| PackCard {
            credits: p.credits,
            usd: p.cents / 100,
            images: p.credits,
        })
        .collect();
    let rows: Vec<PurchaseRow> = purchases
        .iter()
        .map(|p| PurchaseRow {
            credits: p.credits,
            usd: format!("{:.2}", p.amount_cents as f64 / 100.0),
            status: if p.status == "paid" {
                "Paid".into()
            } else {
                "Not completed".into()
            },
            created: when(p.created_at),
        })
        .collect();
    let ctx = context! {
        balance => balance,
        balance_usd => format!("{:.2}", balance as f64 / CREDITS_PER_DOLLAR as f64),
        packs, purchases => rows,
        has_payment_method => account.has_payment_method,
        provider => state.payments.name(),
        returned => purchase,
        form_error => error,
        operator => super::operator::is_operator(state, account).await,
        dash_tab => "credits",
    };
    web::render(
        state,
        headers,
        status,
        "credits.html",
        "account",
        Some(account),
        ctx,
    )
}

/// `POST /dashboard/credits`: starts the purchase of a pack and sends the
/// browser to the provider's payment page.
pub async fn buy(State(state): State<HttpState>, headers: HeaderMap, body: Bytes) -> Response {
    let (account, form) = match signed_in_form(&state, &headers, &body).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let credits: Option<i64> = form.get("credits").and_then(|c| c.parse().ok());
    let Some(pack) = credits.and_then(crate::billing::pack) else {
        return self::credits(
            &state,
            &headers,
            &account,
            StatusCode::BAD_REQUEST,
            None,
            Some("Choose one of the four packs."),
        )
        .await;
    };
    match super::billing::start_checkout(&state, &account, pack).await {
        Ok((_, url)) => web::see_other(&url),
        Err(e) => {
            let message = e.to_string();
            self::credits(
                &state,
                &headers,
                &account,
                StatusCode::BAD_GATEWAY,
                None,
                Some(&message),
            )
            .await
        }
    }
}

/// `POST /dashboard/billing-portal`: to the provider's customer portal.
pub async fn portal(State(state): State<HttpState>, headers: HeaderMap, body: Bytes) -> Response {
    let (account, _) = match signed_in_form(&state, &headers, &body).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    match super::billing::open_portal(&state, &account).await {
        Ok(url) => web::see_other(&url),
        Err(e) => {
            let message = e.to_string();
            self::credits(
                &state,
                &headers,
                &account,
                StatusCode::BAD_REQUEST,
                None,
                Some(&message),
            )
            .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_use_reads_as_time_ago_then_a_date() {
        let now = 1_764_000_000_000;
        assert_eq!(ago(now, now), "just now");
        assert_eq!(ago(now - 59_000, now), "just now");
        assert_eq!(ago(now - 60_000, now), "1 minute ago");
        assert_eq!(ago(now - 3 * 60_000, now), "3 minutes ago");
        assert_eq!(ago(now - 2 * 3_600_000, now), "2 hours ago");
        assert_eq!(ago(now - 86_400_000, now), "1 day ago");
        assert_eq!(ago(now - 8 * 86_400_000, now), when(now - 8 * 86_400_000));
        // A clock a little behind another replica's is "just now".
        assert_eq!(ago(now + 5_000, now), "just now");
    }

    #[test]
    fn the_chart_has_thirty_days_scaled_to_the_busiest() {
        let today = 20_000;
        let days = vec![
            DayUsage {
                day: today,
                requests: 4,
                images: 4,
                cache_hits: 3,
                credits_spent: 4,
            },
            DayUsage {
                day: today - 2,
                requests: 2,
                images: 2,
                cache_hits: 1,
                credits_spent: 2,
            },
        ];
        let (bars, totals) = chart(&days, today);
        assert_eq!(bars.len(), 30);
        assert_eq!(bars[29].height, 100.0);
        assert_eq!(bars[27].height, 50.0);
        assert_eq!(bars[0].height, 0.0);
        assert_eq!(totals.credits_spent, 6);
        assert_eq!(totals.cache_hit_rate.as_deref(), Some("67%"));
        assert_eq!(bars[29].label, day_label(today * DAY_MS));
    }

    #[test]
    fn dates_read_as_before() {
        // 2026-11-22 14:05:00 UTC
        let ms = 1_795_356_300_000;
        assert_eq!(day_label(ms), "Nov 22");
        assert_eq!(when(ms), "Nov 22 2026 14:05 UTC");
    }
}
