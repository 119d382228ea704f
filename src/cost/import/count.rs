//! The counting thread: on the bulk path, the rollup sums of the responses the writer stored are
//! counted here rather than on the writer, the one thread the import waits for (on the bench's
//! 900,000 responses the counting was a tenth of its time). The thread also frees what was written
//! (four strings a response), on either path. The row path counts each batch with the same
//! [`count`], on the writer, inside the batch's transaction.

use super::batch::Pending;
use crate::cost::usage::{NameId, Sums, Tally};
use std::sync::mpsc;

/// What the writer sends the counting thread, in the order it wrote.
pub(super) enum ToCounter {
    /// A batch the bulk path wrote: each response it stored, as (file, record), with its cost.
    Stored {
        batch: Vec<Pending>,
        stored: Vec<(usize, usize)>,
        costs: Vec<Option<f64>>,
    },
    /// A batch the row path wrote and counted itself: only to be freed.
    Written(Vec<Pending>),
    /// The sums of everything sent before, for the end of a bulk transaction; counting starts
    /// again from nothing.
    Take(mpsc::Sender<Tally>),
}

/// Counts and frees what arrives until the writer hangs up.
pub(super) fn run(from_writer: mpsc::Receiver<ToCounter>) {
    let mut tally = Tally::default();
    for message in from_writer {
        match message {
            ToCounter::Stored { batch, stored, costs } => count(&mut tally, &batch, &stored, &costs),
            ToCounter::Written(batch) => drop(batch),
            ToCounter::Take(reply) => {
                // A writer that stopped waiting has failed already; the sums go with it.
                let _ = reply.send(std::mem::take(&mut tally));
            }
        }
    }
}

/// Adds the stored responses of `batch`, as (file, record) with their costs, to `tally`: per session
/// group (`usage_rollup`), then per hour (`usage_hourly`).
pub(super) fn count(tally: &mut Tally, batch: &[Pending], stored: &[(usize, usize)], costs: &[Option<f64>]) {
    let names: Vec<(NameId, Vec<NameId>)> = batch
        .iter()
        .map(|p| (tally.name(&p.project), p.grouped.models.iter().map(|m| tally.name(m)).collect()))
        .collect();
    let mut sessions: Vec<Vec<Sums>> = batch.iter().map(|p| vec![Sums::default(); p.grouped.sessions.len()]).collect();
    for (&(file, i), &cost) in stored.iter().zip(costs) {
        let p = &batch[file];
        let record = &p.scan.records[i];
        let group = p.grouped.rows[i].session as usize;
        sessions[file][group].count(&record.usage, cost, &record.ts);
        let (project, models) = &names[file];
        let model = models[p.grouped.sessions[group].model];
        tally.count_hour(*project, model, &record.usage, cost, &record.ts);
    }
    for (p, sums) in batch.iter().zip(&sessions) {
        for (g, s) in p.grouped.sessions.iter().zip(sums) {
            tally.add_session(&g.day, &p.project, &g.session, &p.grouped.models[g.model], s);
        }
    }
}

/// The sums counted so far, asked of the thread behind `to_counter`; `None` if it has stopped.
pub(super) fn take(to_counter: &mpsc::Sender<ToCounter>) -> Option<Tally> {
    let (reply, answer) = mpsc::channel();
    to_counter.send(ToCounter::Take(reply)).ok()?;
    answer.recv().ok()
}
