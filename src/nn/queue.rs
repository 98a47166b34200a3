//! One forward for many searches: an inference queue that gathers the batches of several
//! threads (self-play workers, each with its own games in flight) into one batch, as
//! KataGo's and lc0's self-play feed a GPU.
//!
//! A [`Queue`] owns the network and a thread that runs it. Each worker takes a
//! [`Queue::member`], a [`Net`] whose [`Net::infer`] hands its batch to the queue and
//! waits for its rows. The queue's thread runs a forward as soon as every member is
//! waiting, or the gathered positions reach the batch size, or the first waiting batch
//! has waited [`GATHER_WAIT`] (a member busy elsewhere, with a solver or an opponent's
//! move, holds the others back no longer than that). A member that is dropped stops
//! being waited for.

use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::net::{Batches, Net, Output};

/// The longest a batch waits for the other members' before the forward runs without
/// them.
pub const GATHER_WAIT: Duration = Duration::from_millis(5);

/// A batch waiting for its forward.
struct Request {
    input: Vec<f32>,
    batch: usize,
    reply: SyncSender<Output>,
}

#[derive(Default)]
struct State {
    pending: Vec<Request>,
    /// Positions in `pending`.
    positions: usize,
    /// When the oldest of `pending` arrived.
    since: Option<Instant>,
    /// Members alive.
    members: usize,
    /// The queue is being dropped: run what is pending, then stop.
    closed: bool,
    /// Forwards run and the positions they took.
    forwards: u64,
    evaluated: u64,
}

struct Shared {
    state: Mutex<State>,
    /// Wakes the queue's thread: a batch arrived, a member left, or the queue closes.
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock is held cannot leave `State` half-changed: every change
        // is one field assignment or a push.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The shared forward: its network runs on the queue's own thread.
pub struct Queue {
    shared: Arc<Shared>,
    /// The network members run (without a queue), for [`Queue::member`]'s shape.
    net: Net,
    thread: Option<JoinHandle<()>>,
}

/// A member's hold on the queue: the queue waits for its batch while it lives.
struct Member {
    shared: Arc<Shared>,
}

impl Queue {
    /// A queue running `net` on batches of up to `batch` positions (a forward may be
    /// larger by the last member's batch: no batch is split).
    pub fn start(net: Net, batch: usize) -> anyhow::Result<Queue> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let (runner, s) = (net.clone(), shared.clone());
        let thread = std::thread::Builder::new()
            .name("inference-queue".into())
            .spawn(move || serve(&runner, &s, batch.max(1)))?;
        Ok(Queue {
            shared,
            net,
            thread: Some(thread),
        })
    }

    /// A network for one worker: the same network, its forwards run by the queue.
    pub fn member(&self) -> Net {
        self.shared.lock().members += 1;
        let member = Member {
            shared: self.shared.clone(),
        };
        self.net.clone().sending_to(Arc::new(member))
    }

    /// Forwards run so far and the positions they took.
    pub fn counts(&self) -> (u64, u64) {
        let st = self.shared.lock();
        (st.forwards, st.evaluated)
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Batches for Member {
    fn infer(&self, input: Vec<f32>, batch: usize) -> Output {
        let (reply, answer) = sync_channel(1);
        {
            let mut st = self.shared.lock();
            st.since.get_or_insert_with(Instant::now);
            st.positions += batch;
            st.pending.push(Request {
                input,
                batch,
                reply,
            });
        }
        self.shared.wake.notify_all();
        answer
            .recv()
            .expect("the inference queue's thread stopped (it panicked; see above)")
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.shared.lock().members -= 1;
        self.shared.wake.notify_all();
    }
}

/// The queue's thread: gathers, runs, answers, until the queue closes.
fn serve(net: &Net, shared: &Shared, batch: usize) {
    let (actions, players) = (net.shape.actions(), net.shape.num_players);
    loop {
        let requests = {
            let mut st = shared.lock();
            loop {
                let ready = !st.pending.is_empty()
                    && (st.positions >= batch
                        || st.pending.len() >= st.members
                        || st.closed
                        || st.since.is_some_and(|t| t.elapsed() >= GATHER_WAIT));
                if ready {
                    break;
                }
                if st.pending.is_empty() && st.closed {
                    return;
                }
                st = match st.since {
                    Some(t) => {
                        let left = GATHER_WAIT.saturating_sub(t.elapsed());
                        let woken = shared.wake.wait_timeout(st, left);
                        woken.unwrap_or_else(|e| e.into_inner()).0
                    }
                    None => shared.wake.wait(st).unwrap_or_else(|e| e.into_inner()),
                };
            }
            st.forwards += 1;
            st.evaluated += st.positions as u64;
            st.positions = 0;
            st.since = None;
            std::mem::take(&mut st.pending)
        };
        let total: usize = requests.iter().map(|r| r.batch).sum();
        let mut input = Vec::with_capacity(total * net.shape.input_len());
        for r in &requests {
            input.extend_from_slice(&r.input);
        }
        let out = net.infer(input, total);
        let (mut logits, mut values) = (out.logits.as_slice(), out.values.as_slice());
        for r in requests {
            let (l, rest_l) = logits.split_at(r.batch * actions);
            let (v, rest_v) = values.split_at(r.batch * players);
            (logits, values) = (rest_l, rest_v);
            // A member that gave up waiting (its thread panicked) is no one's loss.
            let _ = r.reply.send(Output {
                logits: l.to_vec(),
                values: v.to_vec(),
            });
        }
    }
}

impl std::fmt::Debug for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("queue::Member")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::infexion::Board;
    use crate::nn::NetShape;
    use crate::rng::Rng;

    #[test]
    fn every_member_gets_its_own_rows_of_a_shared_forward() {
        let net = Net::init(NetShape::for_game(&Board::new(), 1, 8, 8));
        let len = net.shape.input_len();
        let queue = Queue::start(net.clone(), 64).unwrap();
        let requests: Vec<(usize, Vec<f32>)> = (0..12)
            .map(|i| {
                let mut rng = Rng::new(i);
                let batch = 1 + i as usize % 5;
                let input = (0..batch * len).map(|_| rng.below(2) as f32).collect();
                (batch, input)
            })
            .collect();
        std::thread::scope(|scope| {
            for part in requests.chunks(4) {
                let member = queue.member();
                let net = &net;
                scope.spawn(move || {
                    for (batch, input) in part {
                        let got = member.infer(input.clone(), *batch);
                        let want = net.infer(input.clone(), *batch);
                        assert_eq!(got.logits.len(), want.logits.len());
                        assert_eq!(got.values.len(), want.values.len());
                        let close = |a: &[f32], b: &[f32]| {
                            (a.iter().zip(b)).all(|(x, y)| (x - y).abs() <= 1e-4)
                        };
                        assert!(close(&got.logits, &want.logits));
                        assert!(close(&got.values, &want.values));
                    }
                });
            }
        });
        let (forwards, evaluated) = queue.counts();
        assert_eq!(evaluated, requests.iter().map(|r| r.0 as u64).sum::<u64>());
        assert!((1..=12).contains(&forwards), "{forwards}");
    }
}
