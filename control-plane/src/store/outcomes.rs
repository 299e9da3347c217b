//! Outcomes of queued charges, sent back with one cross-thread wake-up per
//! batch.
//!
//! A batch is committed on a thread outside the async runtime (the SQLite
//! ledger writer). Completing each caller's channel from there costs one
//! wake-up of a runtime worker per charge, a futex call on the writer's
//! critical path that profiles showed at a quarter of its time. Instead the
//! writer sends the whole batch's outcomes to one caller still waiting (the
//! leader), and the leader hands the others on from its runtime thread,
//! where waking a task is a push onto a local run queue.
//!
//! Nothing is lost when a caller has gone away: a send to a dropped
//! receiver gives the outcomes back, and the next caller of the batch
//! becomes the leader; a leader dropped after its outcomes arrived hands
//! them on as it drops.

use tokio::sync::oneshot;

use super::StoreError;

/// A charge's outcome: the balance after it, as
/// [`DeliveryStore::charge_delivery`](super::DeliveryStore::charge_delivery)
/// returns it.
pub type Outcome = Result<i64, StoreError>;

/// What one receiver gets: its own outcomes, and the outcomes of others in
/// its batch for it to hand on.
#[derive(Debug)]
struct Handoff {
    own: Vec<Outcome>,
    others: Vec<(ChargeReply, Vec<Outcome>)>,
}

/// Where the outcomes of one submission go: one per charge, in order.
#[derive(Debug)]
pub struct ChargeReply(oneshot::Sender<Handoff>);

/// The waiting side of a [`ChargeReply`]. Await each from a task of its
/// own, as requests do: the outcomes of a batch reach the others only
/// through the one chosen to lead, so a task that held two and awaited one
/// first could wait for ever on the other.
#[derive(Debug)]
pub struct PendingOutcome(oneshot::Receiver<Handoff>);

/// A reply and the outcome it waits for.
pub fn reply_channel() -> (ChargeReply, PendingOutcome) {
    let (tx, rx) = oneshot::channel();
    (ChargeReply(tx), PendingOutcome(rx))
}

/// Sends a batch's outcomes with one wake-up: the first receiver still
/// waiting gets them all and hands the rest on.
pub fn send_all(mut batch: Vec<(ChargeReply, Vec<Outcome>)>) {
    // Leaders are taken from the back: popping is O(1), and the order in
    // which the others are handed on does not matter.
    while let Some((leader, own)) = batch.pop() {
        match leader.0.send(Handoff { own, others: batch }) {
            Ok(()) => return,
            // That caller has gone away: take the others back.
            Err(handoff) => batch = handoff.others,
        }
    }
}

impl PendingOutcome {
    /// Waits for this charge's outcome, handing on any others that came
    /// with it. Err when the sender was dropped without an outcome.
    pub async fn wait(mut self) -> Result<Vec<Outcome>, oneshot::error::RecvError> {
        let Handoff { own, others } = (&mut self.0).await?;
        hand_on(others);
        Ok(own)
    }
}

/// Each of these is a receiver's own outcome: it hands nothing on.
fn hand_on(others: Vec<(ChargeReply, Vec<Outcome>)>) {
    for (reply, outcome) in others {
        let _ = reply.0.send(Handoff {
            own: outcome,
            others: Vec::new(),
        });
    }
}

/// A caller that goes away after it was chosen to lead, before it was
/// polled again, still hands the others on. Closing first means a send
/// racing with this drop either lands before (and is taken here) or fails
/// (and the writer picks another leader).
impl Drop for PendingOutcome {
    fn drop(&mut self) {
        self.0.close();
        if let Ok(handoff) = self.0.try_recv() {
            hand_on(handoff.others);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_waiting_caller_gets_its_own_outcome() {
        let (replies, pending): (Vec<_>, Vec<_>) = (0..5).map(|_| reply_channel()).unzip();
        let mut pending: Vec<_> = pending.into_iter().map(Some).collect();
        // Two callers have gone away, the last one among them (the first
        // leader tried).
        pending[4] = None;
        pending[1] = None;
        send_all(
            replies
                .into_iter()
                .enumerate()
                .map(|(i, r)| (r, vec![Ok(i as i64)]))
                .collect(),
        );
        // Whoever led is waited on first; only then are the others sent.
        let leader = pending[3].take().unwrap();
        assert_eq!(leader.wait().await.unwrap()[0].as_ref().unwrap(), &3);
        for (i, p) in pending.into_iter().enumerate() {
            if let Some(p) = p {
                assert_eq!(p.wait().await.unwrap()[0].as_ref().unwrap(), &(i as i64));
            }
        }
    }

    #[tokio::test]
    async fn a_leader_dropped_unpolled_still_hands_on() {
        let (r1, p1) = reply_channel();
        let (r2, p2) = reply_channel();
        send_all(vec![(r1, vec![Ok(1)]), (r2, vec![Ok(2), Ok(3)])]);
        // p2 leads (taken from the back) and is dropped with the outcomes
        // already in its channel.
        drop(p2);
        assert_eq!(p1.wait().await.unwrap()[0].as_ref().unwrap(), &1);
    }

    #[tokio::test]
    async fn a_dropped_reply_is_an_error_not_a_hang() {
        let (reply, pending) = reply_channel();
        drop(reply);
        assert!(pending.wait().await.is_err());
    }
}
