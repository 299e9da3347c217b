//! What a remote render node and the control plane say to each other over
//! HTTP (`/api/nodes/v1/…`, docs/render-nodes.md). The node authenticates
//! with its node token (`Authorization: Bearer vis_node_…`).

use serde::{Deserialize, Serialize};

use crate::RenderJob;

/// Where the node API lives under the control plane's base URL.
pub const NODE_API: &str = "/api/nodes/v1";

/// `POST /register` and `POST /heartbeat`: who the node is and what it has
/// in hand. The heartbeat renews the leases of `in_flight`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeReport {
    /// Renders the node runs at once.
    pub slots: u32,
    /// The GPU adapter (or `llvmpipe` for the CPU fallback).
    pub adapter: String,
    /// Ids of the jobs the node is rendering now.
    #[serde(default)]
    pub in_flight: Vec<String>,
}

/// The control plane's answer to a register or heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeOrders {
    /// The node's name (`control-plane nodes add NAME`).
    pub name: String,
    /// Finish what is in hand and take nothing more (`nodes drain`).
    pub draining: bool,
    /// Send a heartbeat at least this often.
    pub heartbeat_secs: u64,
    /// A job's lease lasts this long past the last heartbeat naming it.
    pub lease_secs: u64,
}

/// `POST /lease`: a job for the node (200), or nothing within the wait (204).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeasedJob {
    pub id: String,
    /// 1 for the first attempt; a job whose node died is leased again.
    pub attempt: u32,
    pub job: RenderJob,
    /// More queued jobs of the same vehicle and revision, leased with this
    /// one when the node asked for a batch (`/lease?batch=N`, at most N
    /// jobs in all): draw them from one mesh, after this one, and upload
    /// each as it is drawn. Absent for a node that asked for one job.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batch: Vec<LeasedJob>,
}

impl LeasedJob {
    /// This job and the rest of its batch, in drawing order.
    pub fn jobs(&self) -> impl Iterator<Item = &LeasedJob> {
        std::iter::once(self).chain(self.batch.iter())
    }
}

/// `POST /jobs/{id}/failure`: why the node could not render the job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobFailure {
    pub error: String,
}
