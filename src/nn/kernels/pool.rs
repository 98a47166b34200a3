//! The global pooling bias's arithmetic (KataGo's global pooling), shared by the fast
//! forward ([`super::fast`]) and the fast training step ([`crate::nn::step::backprop`]).
//!
//! A block with one pools its input `x` (`[n × cells, c]`, NHWC) per position and
//! channel, the mean then the maximum over the board (`[n, 2c]`); a dense layer
//! (`[2c, c]`, bias `[c]`) turns that into one bias a channel for each position, which
//! the block's first convolution adds before its ReLU ([`super::conv::Add::PerPosition`]).

use super::conv::{Op, add_column_sums, matmul};

/// Each position's per-channel means, then maxima, over the board of `x`
/// (`[n × cells, c]`), into `out` (`[n, 2c]`); where `argmax` is given (`[n, c]`), the
/// first cell holding each maximum.
pub fn global_pool(x: &[f32], cells: usize, c: usize, out: &mut [f32], argmax: Option<&mut [u32]>) {
    let mut argmax = argmax.map(|a| a.chunks_exact_mut(c));
    for (map, o) in x.chunks_exact(cells * c).zip(out.chunks_exact_mut(2 * c)) {
        let (mean, max) = o.split_at_mut(c);
        mean.fill(0.0);
        max.fill(f32::NEG_INFINITY);
        let mut at = argmax.as_mut().and_then(|a| a.next());
        for (cell, row) in map.chunks_exact(c).enumerate() {
            for k in 0..c {
                mean[k] += row[k];
                if row[k] > max[k] {
                    max[k] = row[k];
                    if let Some(at) = at.as_deref_mut() {
                        at[k] = cell as u32;
                    }
                }
            }
        }
        mean.iter_mut().for_each(|v| *v /= cells as f32);
    }
}

/// The bias of `n` positions (`[n, c]`, into `bias`) from their pooled inputs
/// `pooled` (`[n, 2c]`) and the dense layer `w` (`[2c, c]`), `b` (`[c]`).
pub fn bias(pooled: &[f32], w: &[f32], b: &[f32], n: usize, bias: &mut [f32]) {
    let c = b.len();
    matmul(bias, Op::N(pooled), Op::N(w), n, 2 * c, c, false);
    for row in bias[..n * c].chunks_exact_mut(c) {
        row.iter_mut().zip(b).for_each(|(v, &b)| *v += b);
    }
}

/// One block's pooling in a training step, kept from its forward for its backward.
#[derive(Debug, Default)]
pub struct Pooled {
    /// `[n, 2c]` the pooled input.
    pub pooled: Vec<f32>,
    /// `[n, c]` the cell of each maximum.
    pub argmax: Vec<u32>,
    /// `[n, c]` the bias.
    pub bias: Vec<f32>,
}

impl Pooled {
    /// The forward on `x` (`[n × cells, c]`) with the dense layer `w` (`[2c, c]`), `b`.
    pub fn forward(&mut self, x: &[f32], cells: usize, w: &[f32], b: &[f32]) {
        let c = b.len();
        let n = x.len() / (cells * c);
        self.pooled.resize(n * 2 * c, 0.0);
        self.argmax.resize(n * c, 0);
        self.bias.resize(n * c, 0.0);
        global_pool(x, cells, c, &mut self.pooled, Some(&mut self.argmax));
        bias(&self.pooled, w, b, n, &mut self.bias);
    }

    /// The backward from `dh` (`[n × cells, c]`, the loss's gradient by the sum the
    /// bias was added to): the dense layer's gradients added to `dw` (`[2c, c]`) and
    /// `db` (`[c]`), and the gradient by the pooled input spread back over the board
    /// and added to `dx` (`[n × cells, c]`): a mean's to every cell, a maximum's to its
    /// cell.
    pub fn backward(
        &self,
        dh: &[f32],
        cells: usize,
        w: &[f32],
        dw: &mut [f32],
        db: &mut [f32],
        dx: &mut [f32],
    ) {
        let c = db.len();
        let n = dh.len() / (cells * c);
        // dbias: each position's sum over the board.
        let mut dbias = vec![0.0f32; n * c];
        for (map, d) in dh.chunks_exact(cells * c).zip(dbias.chunks_exact_mut(c)) {
            add_column_sums(map, d);
        }
        matmul(dw, Op::T(&self.pooled), Op::N(&dbias), 2 * c, n, c, true);
        add_column_sums(&dbias, db);
        let mut dpooled = vec![0.0f32; n * 2 * c];
        matmul(&mut dpooled, Op::N(&dbias), Op::T(w), n, c, 2 * c, false);
        let maps = dx
            .chunks_exact_mut(cells * c)
            .zip(dpooled.chunks_exact(2 * c));
        for ((map, dp), at) in maps.zip(self.argmax.chunks_exact(c)) {
            let (dmean, dmax) = dp.split_at(c);
            for row in map.chunks_exact_mut(c) {
                row.iter_mut()
                    .zip(dmean)
                    .for_each(|(v, &d)| *v += d / cells as f32);
            }
            for k in 0..c {
                map[at[k] as usize * c + k] += dmax[k];
            }
        }
    }
}
