//! Batch norm and ReLU in the training step: the batch's moments, the statistics and
//! the normalisation they give, and the backward through both.

use super::super::super::kernels::conv::Add;
use super::super::super::network::BN_EPSILON as EPSILON;

/// A batch norm's scale (γ) and shift (β).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Norm {
    /// The scale γ, per channel.
    pub gamma: Vec<f32>,
    /// The shift β, per channel.
    pub beta: Vec<f32>,
}

/// A batch norm's batch statistics: mean and biased variance per channel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Mean per channel.
    pub mean: Vec<f32>,
    /// Biased variance per channel.
    pub var: Vec<f32>,
}

/// Per-channel `[Σx, Σx²]` of `x` (`[rows, c]`) into `sums` (`2c`).
pub(super) fn moments(x: &[f32], c: usize, sums: &mut Vec<f64>) {
    sums.clear();
    sums.resize(2 * c, 0.0);
    let (s1, s2) = sums.split_at_mut(c);
    for row in x.chunks_exact(c) {
        for ((a, b), &v) in s1.iter_mut().zip(s2.iter_mut()).zip(row) {
            *a += v as f64;
            *b += (v as f64) * (v as f64);
        }
    }
}

/// `y = relu(z · scale + shift + add)` per channel, `z` and `y` `[n × cells, c]`.
pub(super) fn normalise(
    z: &[f32],
    (scale, shift): (&[f32], &[f32]),
    add: Add,
    cells: usize,
    y: &mut [f32],
) {
    let c = scale.len();
    for (i, (yr, zr)) in y.chunks_exact_mut(c).zip(z.chunks_exact(c)).enumerate() {
        let extra = add.row(i, cells, c);
        for k in 0..c {
            let v = zr[k] * scale[k] + shift[k] + extra.map_or(0.0, |e| e[k]);
            yr[k] = v.max(0.0);
        }
    }
}

/// The backward through a ReLU whose output was `y`, in place on `dy`; then the per-channel
/// `[Σ dy, Σ dy · z]` into `sums` (x̂ follows from `z` once the sums are in).
pub(super) fn relu_back(dy: &mut [f32], y: &[f32], z: &[f32], c: usize, sums: &mut Vec<f64>) {
    sums.clear();
    sums.resize(2 * c, 0.0);
    let (s1, s2) = sums.split_at_mut(c);
    for ((dr, yr), zr) in dy
        .chunks_exact_mut(c)
        .zip(y.chunks_exact(c))
        .zip(z.chunks_exact(c))
    {
        for k in 0..c {
            if yr[k] <= 0.0 {
                dr[k] = 0.0;
            }
            s1[k] += dr[k] as f64;
            s2[k] += (dr[k] * zr[k]) as f64;
        }
    }
}

/// Per-channel statistics, and `(scale, shift)` of the normalisation, from summed moments.
pub(super) fn batch_stats(sums: &[f64], rows: usize, norm: &Norm) -> (Stats, Vec<f32>, Vec<f32>) {
    let c = norm.gamma.len();
    let mut stats = Stats::default();
    let (mut scale, mut shift) = (Vec::with_capacity(c), Vec::with_capacity(c));
    for k in 0..c {
        let mean = sums[k] / rows as f64;
        let var = (sums[c + k] / rows as f64 - mean * mean).max(0.0);
        let s = norm.gamma[k] as f64 / (var + EPSILON).sqrt();
        stats.mean.push(mean as f32);
        stats.var.push(var as f32);
        scale.push(s as f32);
        shift.push((norm.beta[k] as f64 - mean * s) as f32);
    }
    (stats, scale, shift)
}

/// The backward through batch norm, per channel: `dz = a · dy + b · z + c`, from the
/// summed `[Σ dy, Σ dy·z]`; also sets the norm's `dγ`, `dβ`.
pub(super) fn norm_back(
    sums: &[f64],
    rows: usize,
    norm: &Norm,
    stats: &Stats,
    grad: &mut Norm,
) -> [Vec<f32>; 3] {
    let c = norm.gamma.len();
    let m = rows as f64;
    let (mut a, mut b, mut cc) = (vec![0.0; c], vec![0.0; c], vec![0.0; c]);
    for k in 0..c {
        let mean = stats.mean[k] as f64;
        let inv = 1.0 / (stats.var[k] as f64 + EPSILON).sqrt();
        let dbeta = sums[k];
        // Σ dy · x̂ = inv · (Σ dy·z − mean · Σ dy)
        let dgamma = inv * (sums[c + k] - mean * dbeta);
        grad.gamma[k] = dgamma as f32;
        grad.beta[k] = dbeta as f32;
        let s = norm.gamma[k] as f64 * inv;
        a[k] = s as f32;
        b[k] = (-s * dgamma * inv / m) as f32;
        cc[k] = (-s * dbeta / m + s * dgamma * inv * mean / m) as f32;
    }
    [a, b, cc]
}

/// `dz = a · dy + b · z + c`, per channel, in place on `dy`.
pub(super) fn apply_norm_back(dy: &mut [f32], z: &[f32], coef: &[Vec<f32>; 3]) {
    let [a, b, c] = coef;
    let n = a.len();
    for (dr, zr) in dy.chunks_exact_mut(n).zip(z.chunks_exact(n)) {
        for k in 0..n {
            dr[k] = a[k] * dr[k] + b[k] * zr[k] + c[k];
        }
    }
}
