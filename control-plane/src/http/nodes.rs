//! The render-node API (`/api/nodes/v1/…`, docs/render-nodes.md): remote
//! render nodes register, heartbeat, lease jobs by long poll, upload the
//! source render and report failures. A node authenticates with the token
//! `control-plane nodes add` printed (`Authorization: Bearer vis_node_…`);
//! only its SHA-256 is stored, and a token is never logged.
//!
//! This API is for the operator's nodes, not for clients: it is not in the
//! public OpenAPI document, and it carries no CORS headers.

use std::time::Duration;

use axum::Router;
use axum::extract::{FromRequestParts, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{post, put};
use bytes::Bytes;
use serde::Deserialize;
use vis_protocol::nodes::{JobFailure, LeasedJob, NODE_API, NodeOrders, NodeReport};

use crate::http::error::ApiError;
use crate::http::extract::{ApiJson, read_body};
use crate::http::state::HttpState;
use crate::renders::worker::{render_job, store_source};
use crate::store::NodeRecord;

/// The longest a lease request waits for a job.
const MAX_WAIT: Duration = Duration::from_secs(25);
/// A source render upload: a 1024x1024 RGBA PNG is at most about 4 MiB.
const MAX_SOURCE_BYTES: usize = 16 * 1024 * 1024;
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
/// Every node token starts with this.
pub const NODE_TOKEN_PREFIX: &str = "vis_node_";

/// The node API's routes, under [`NODE_API`].
pub fn router() -> Router<crate::http::state::HttpState> {
    Router::new()
        .route(&format!("{NODE_API}/register"), post(register))
        .route(&format!("{NODE_API}/heartbeat"), post(heartbeat))
        .route(&format!("{NODE_API}/lease"), post(lease))
        .route(&format!("{NODE_API}/jobs/{{id}}/source"), put(upload))
        .route(&format!("{NODE_API}/jobs/{{id}}/failure"), post(failure))
}

/// The node a request's token names (401 otherwise).
pub struct Node(pub NodeRecord);

impl FromRequestParts<HttpState> for Node {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &HttpState) -> Result<Self, ApiError> {
        let token = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .filter(|t| t.starts_with(NODE_TOKEN_PREFIX))
            .ok_or_else(|| {
                ApiError::Unauthorized(
                    "A node token is required: send Authorization: Bearer <NODE_TOKEN> \
                     (control-plane nodes add prints it)."
                        .into(),
                )
            })?;
        let hash = crate::auth::hash_hex(token.as_bytes());
        match state.store.node_by_token(&hash).await? {
            Some(node) => Ok(Node(node)),
            None => Err(ApiError::Unauthorized(
                "This node token is not valid (unknown, or the node was removed).".into(),
            )),
        }
    }
}

fn orders(state: &HttpState, node: &NodeRecord) -> NodeOrders {
    let config = state.deliverer.dispatcher.config();
    NodeOrders {
        name: node.name.clone(),
        draining: node.state == "draining",
        heartbeat_secs: config.node_heartbeat.as_secs(),
        lease_secs: config.node_lease.as_secs(),
    }
}

fn lease_ms(state: &HttpState) -> i64 {
    i64::try_from(state.deliverer.dispatcher.config().node_lease.as_millis()).unwrap_or(i64::MAX)
}

fn check_report(report: &NodeReport) -> Result<(), ApiError> {
    if report.slots == 0 || report.slots > 256 {
        return Err(ApiError::bad_request(
            "slots",
            "must be an integer from 1 to 256",
        ));
    }
    if report.adapter.is_empty() || report.adapter.len() > 200 {
        return Err(ApiError::bad_request(
            "adapter",
            "must be 1 to 200 characters",
        ));
    }
    if report.in_flight.len() > 256 {
        return Err(ApiError::bad_request("in_flight", "at most 256 job ids"));
    }
    Ok(())
}

/// `POST /register`: a node starting; the same as a heartbeat with nothing
/// in hand.
async fn register(
    State(state): State<HttpState>,
    Node(node): Node,
    ApiJson(report): ApiJson<NodeReport, 16_384>,
) -> Result<Response, ApiError> {
    check_report(&report)?;
    state
        .store
        .node_seen(&node.name, i64::from(report.slots), &report.adapter)
        .await?;
    tracing::info!(node = %node.name, slots = report.slots, adapter = %report.adapter, "render node registered");
    Ok(axum::Json(orders(&state, &node)).into_response())
}

/// `POST /heartbeat`: renews the leases of the jobs in hand.
async fn heartbeat(
    State(state): State<HttpState>,
    Node(node): Node,
    ApiJson(report): ApiJson<NodeReport, 16_384>,
) -> Result<Response, ApiError> {
    check_report(&report)?;
    state
        .store
        .node_seen(&node.name, i64::from(report.slots), &report.adapter)
        .await?;
    let until = crate::store::now_millis() + lease_ms(&state);
    state
        .store
        .renew_leases(&node.lease_owner(), &report.in_flight, until)
        .await?;
    Ok(axum::Json(orders(&state, &node)).into_response())
}

#[derive(Debug, Deserialize)]
struct LeaseQuery {
    /// Milliseconds to wait for a job (long poll), at most 25 s.
    wait_ms: Option<u64>,
    /// The most jobs to lease at once: the first job and queued jobs of its
    /// vehicle and revision (1 when absent, as nodes before batches ask).
    batch: Option<usize>,
}

/// `POST /lease?wait_ms=N&batch=M`: the oldest queued job (or one whose
/// node died) with up to M - 1 more of its vehicle, waiting up to N ms for
/// one; 204 when none came (or the node drains).
async fn lease(
    State(state): State<HttpState>,
    Node(node): Node,
    Query(q): Query<LeaseQuery>,
) -> Result<Response, ApiError> {
    if node.state != "active" {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let wait = Duration::from_millis(q.wait_ms.unwrap_or(0)).min(MAX_WAIT);
    let deadline = tokio::time::Instant::now() + wait;
    let batch = q.batch.unwrap_or(1).clamp(1, crate::config::MAX_BATCH);
    let dispatcher = &state.deliverer.dispatcher;
    loop {
        let queued = dispatcher.job_queued.notified();
        let records = state
            .store
            .lease_jobs(&node.lease_owner(), lease_ms(&state), batch)
            .await?;
        let mut leased: Vec<LeasedJob> = Vec::with_capacity(records.len());
        for record in records {
            match render_job(&record, dispatcher.config().revision) {
                Ok(job) => {
                    tracing::info!(node = %node.name, job.id = %record.id, job.variant = %record.variant, "job leased to a render node");
                    leased.push(LeasedJob {
                        id: record.id,
                        attempt: u32::try_from(record.attempts).unwrap_or(u32::MAX),
                        job,
                        batch: Vec::new(),
                    });
                }
                Err(e) => {
                    // A row no node could draw: fail it rather than hand it on.
                    state
                        .store
                        .finish_job(&record.id, &node.lease_owner(), Err(&e))
                        .await?;
                    dispatcher.job_finished.notify_waiters();
                }
            }
        }
        let mut leased = leased.into_iter();
        if let Some(mut first) = leased.next() {
            first.batch = leased.collect();
            return Ok(axum::Json(first).into_response());
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
        // Jobs queued by this replica wake us at once; other replicas' jobs
        // and expired leases are found by the next poll.
        tokio::select! {
            () = queued => {}
            () = tokio::time::sleep((deadline - now).min(Duration::from_millis(250))) => {}
        }
    }
}

#[derive(Debug, Deserialize)]
struct UploadQuery {
    /// How long the node took to draw and encode the render, ms.
    render_ms: Option<u64>,
}

/// `PUT /jobs/{id}/source`: the job's source render (PNG); stores it and
/// finishes the job.
async fn upload(
    State(state): State<HttpState>,
    Node(node): Node,
    Path(id): Path<String>,
    Query(q): Query<UploadQuery>,
    req: Request,
) -> Result<Response, ApiError> {
    let record = held_job(&state, &node, &id).await?;
    let png: Bytes = read_body::<MAX_SOURCE_BYTES>(req, false).await?;
    if !png.starts_with(PNG_SIGNATURE) {
        return Err(ApiError::bad_request("body", "must be a PNG image"));
    }
    let dispatcher = &state.deliverer.dispatcher;
    let job = render_job(&record, dispatcher.config().revision).map_err(ApiError::internal)?;
    store_source(state.objects.as_ref(), &job, png)
        .await
        .map_err(|e| ApiError::Unavailable {
            message: e,
            retry_after_secs: Some(1),
        })?;
    let ms = q
        .render_ms
        .and_then(|ms| i64::try_from(ms).ok())
        .unwrap_or_else(|| crate::store::now_millis() - record.created_at);
    finish(&state, &node, &id, Ok(ms)).await?;
    state.metrics.observe_render(ms as f64);
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /jobs/{id}/failure`: the node could not render the job; it fails,
/// and its waiters get a 502 (nothing is charged).
async fn failure(
    State(state): State<HttpState>,
    Node(node): Node,
    Path(id): Path<String>,
    ApiJson(failure): ApiJson<JobFailure, 16_384>,
) -> Result<Response, ApiError> {
    held_job(&state, &node, &id).await?;
    let error: String = failure.error.chars().take(500).collect();
    finish(&state, &node, &id, Err(&error)).await?;
    state.metrics.renders_failed.inc();
    tracing::warn!(node = %node.name, job.id = %id, error = %error, "a render node failed a job");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Ends the job this node holds, wakes its waiters and counts it against
/// the node; 409 when the lease ran out meanwhile.
async fn finish(
    state: &HttpState,
    node: &NodeRecord,
    id: &str,
    outcome: Result<i64, &str>,
) -> Result<(), ApiError> {
    let ok = outcome.is_ok();
    let finished = state
        .store
        .finish_job(id, &node.lease_owner(), outcome)
        .await?;
    state.deliverer.dispatcher.job_finished.notify_waiters();
    if !finished {
        return Err(lost_lease(id));
    }
    state
        .store
        .node_counted(&node.name, &crate::renders::utc_day(), ok)
        .await?;
    Ok(())
}

/// The job `id` while this node holds its lease (404 or 409 otherwise).
async fn held_job(
    state: &HttpState,
    node: &NodeRecord,
    id: &str,
) -> Result<crate::store::JobRecord, ApiError> {
    let record = state
        .store
        .job_by_id(id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no render job {id}")))?;
    if record.lease_owner.as_deref() != Some(node.lease_owner().as_str()) {
        return Err(lost_lease(id));
    }
    Ok(record)
}

fn lost_lease(id: &str) -> ApiError {
    ApiError::Conflict(format!(
        "this node no longer holds the lease of job {id} (it expired and the job went to another node)"
    ))
}

impl crate::http::extract::Described for NodeReport {
    const SHAPE: &'static str =
        "a JSON object with slots and adapter (required) and in_flight (optional)";
    const RULES: &'static [(&'static str, &'static str)] = &[
        ("slots", "an integer from 1 to 256"),
        ("adapter", "a string of 1 to 200 characters"),
        ("in_flight", "an array of job ids"),
    ];
}

impl crate::http::extract::Described for JobFailure {
    const SHAPE: &'static str = "a JSON object with error (required)";
    const RULES: &'static [(&'static str, &'static str)] = &[("error", "a string")];
}
