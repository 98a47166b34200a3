//! The evaluator's integer arithmetic: the accumulator's row additions, the clipped
//! activation and the dense layer, in a scalar form and in AVX2 and AVX-512 forms
//! chosen at run time ([`Kernel::detect`]).
//!
//! Integer sums are exact and wrap the same way in every form, so every form returns the
//! scalar form's result bit for bit (`tests` hold them to it on random data). Values:
//! the accumulator is `i16` (wrapping), the activation clips it to `0..=qa` (a unit's
//! value 1.0, the evaluator's scale), the dense layer multiplies `i16` activations by
//! `i16` weights into `i32` sums.

/// The activation's top new evaluators are quantised at: a unit's value 1.0 is `QA` in
/// integers. It is also the largest scale a bundle may name: the accumulator then holds
/// unit values of magnitude up to 128 before its `i16` wraps, and a dense sum stays far
/// within `i32`. (Bundles written before it name 127, and run at 127.)
pub const QA: i16 = 255;

/// The scales an evaluator may run at: a unit's value 1.0 from 1 to [`QA`].
pub const SCALES: std::ops::RangeInclusive<i16> = 1..=QA;

/// One form of the arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust, one value at a time: the reference.
    Scalar,
    /// 16 lanes of `i16` (x86-64 with AVX2).
    Avx2,
    /// 32 lanes of `i16` (x86-64 with AVX-512 F and BW).
    Avx512,
}

impl Kernel {
    /// The widest form this CPU runs.
    pub fn detect() -> Kernel {
        Kernel::available().pop().unwrap_or(Kernel::Scalar)
    }

    /// Every form this CPU runs, narrowest first (the scalar one always).
    pub fn available() -> Vec<Kernel> {
        let mut out = vec![Kernel::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                out.push(Kernel::Avx2);
            }
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
            {
                out.push(Kernel::Avx512);
            }
        }
        out
    }

    /// The form's name, as the bench prints it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// `out = base + Σ table rows of added − Σ table rows of removed` (wrapping), a row
    /// `out.len()` long (row `f` is `table[f · len ..][.. len]`): an accumulator moved
    /// from an ancestor's in one pass, held in registers across the rows.
    pub fn moved(
        self,
        out: &mut [i16],
        base: &[i16],
        table: &[i16],
        added: &[u32],
        removed: &[u32],
    ) {
        let h = out.len();
        assert_eq!(base.len(), h, "kernel moved: lengths");
        let rows = table.len() / h.max(1);
        assert!(
            (added.iter().chain(removed)).all(|&f| (f as usize) < rows),
            "kernel moved: a row past the table"
        );
        match self {
            Kernel::Scalar => scalar::moved(out, base, table, added, removed),
            // SAFETY: `Avx2` and `Avx512` come only from `available`, which checked the
            // CPU for them (or from a caller who did, as the tests do); every row lies
            // within `table` (checked above).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::moved_avx2(out, base, table, added, removed) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::moved_avx512(out, base, table, added, removed) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::moved(out, base, table, added, removed),
        }
    }

    /// `out[i] = clamp(x[i], 0, top)`.
    pub fn crelu(self, x: &[i16], top: i16, out: &mut [i16]) {
        assert_eq!(x.len(), out.len(), "kernel crelu: lengths");
        match self {
            Kernel::Scalar => scalar::crelu(x, top, out),
            // SAFETY: see `moved`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::crelu_avx2(x, top, out) },
            // SAFETY: see `moved`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::crelu_avx512(x, top, out) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::crelu(x, top, out),
        }
    }

    /// The dense weights `w` (`[outputs, inputs]`, a row an output) laid out for this
    /// form's [`Kernel::dense`]: as they are for the scalar form; for the vector forms,
    /// by pairs of inputs, each pair's weights for every output side by side (outputs
    /// padded to a register's width, inputs to an even count, with zeros), so that a
    /// pair of nonzero inputs adds to a register of outputs in one multiply-add.
    pub fn dense_layout(self, w: &[i16], inputs: usize, outputs: usize) -> Vec<i16> {
        assert_eq!(w.len(), inputs * outputs, "kernel dense layout: weights");
        if self == Kernel::Scalar {
            return w.to_vec();
        }
        let padded = self.padded_outputs(outputs);
        let mut out = vec![0; inputs.div_ceil(2) * padded * 2];
        for j in 0..outputs {
            for i in 0..inputs {
                out[((i / 2) * padded + j) * 2 + i % 2] = w[j * inputs + i];
            }
        }
        out
    }

    /// `outputs` rounded up to whole registers of the form's `i32` outputs (8 for AVX2,
    /// 16 for AVX-512; the scalar form's "register" is one output).
    fn padded_outputs(self, outputs: usize) -> usize {
        let width = match self {
            Kernel::Scalar => 1,
            Kernel::Avx2 => 8,
            Kernel::Avx512 => 16,
        };
        outputs.div_ceil(width) * width
    }

    /// `out[j] = b[j] + Σ_i x[i] · w[j · n + i]` (wrapping `i32`), `n = x.len()`, with
    /// `w` in [`Kernel::dense_layout`]'s form for this kernel. The vector forms skip the
    /// pairs of inputs that are both zero (most, after the clipped activation).
    pub fn dense(self, x: &[i16], w: &[i16], b: &[i32], out: &mut [i32]) {
        let want = match self {
            Kernel::Scalar => x.len() * out.len(),
            _ => x.len().div_ceil(2) * self.padded_outputs(out.len()) * 2,
        };
        assert_eq!(w.len(), want, "kernel dense: weights");
        assert_eq!(b.len(), out.len(), "kernel dense: biases");
        match self {
            Kernel::Scalar => scalar::dense(x, w, b, out),
            // SAFETY: see `moved`; the weights' length was checked against the layout.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::dense_avx2(x, w, b, out) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::dense_avx512(x, w, b, out) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("no vector forms here"),
        }
    }
}

/// The pairs of inputs `pairs` of `x` with a nonzero input, written from `count` on as
/// their index and the pair packed in an `i32` (low half the even input): what the
/// vector forms of [`Kernel::dense`] multiply; returns the new count.
fn nonzero_pairs(
    x: &[i16],
    pairs: std::ops::Range<usize>,
    index: &mut [u32; PAIRS],
    pair: &mut [i32; PAIRS],
    mut count: usize,
) -> usize {
    for p in pairs {
        let lo = x[2 * p] as u16 as u32;
        let hi = x.get(2 * p + 1).map_or(0, |&v| v as u16 as u32);
        index[count] = p as u32;
        pair[count] = (lo | hi << 16) as i32;
        count += usize::from(lo | hi != 0);
    }
    count
}

/// Pairs of inputs [`nonzero_pairs`] looks at a time.
const PAIRS: usize = 64;

/// The reference forms.
mod scalar {
    fn add(acc: &mut [i16], row: &[i16]) {
        for (a, r) in acc.iter_mut().zip(row) {
            *a = a.wrapping_add(*r);
        }
    }

    fn sub(acc: &mut [i16], row: &[i16]) {
        for (a, r) in acc.iter_mut().zip(row) {
            *a = a.wrapping_sub(*r);
        }
    }

    pub fn moved(out: &mut [i16], base: &[i16], table: &[i16], added: &[u32], removed: &[u32]) {
        moved_from(0, out, base, table, added, removed);
    }

    /// [`moved`] on the lanes from `start` only.
    pub fn moved_from(
        start: usize,
        out: &mut [i16],
        base: &[i16],
        table: &[i16],
        added: &[u32],
        removed: &[u32],
    ) {
        let h = out.len();
        let row = |f: u32| &table[f as usize * h..(f as usize + 1) * h];
        out[start..].copy_from_slice(&base[start..]);
        for &f in removed {
            sub(&mut out[start..], &row(f)[start..]);
        }
        for &f in added {
            add(&mut out[start..], &row(f)[start..]);
        }
    }

    pub fn crelu(x: &[i16], top: i16, out: &mut [i16]) {
        for (o, v) in out.iter_mut().zip(x) {
            *o = (*v).clamp(0, top);
        }
    }

    pub fn dot(x: &[i16], w: &[i16]) -> i32 {
        (x.iter().zip(w)).fold(0i32, |s, (a, b)| s.wrapping_add(*a as i32 * *b as i32))
    }

    pub fn dense(x: &[i16], w: &[i16], b: &[i32], out: &mut [i32]) {
        let n = x.len();
        for (j, o) in out.iter_mut().enumerate() {
            *o = b[j].wrapping_add(dot(x, &w[j * n..(j + 1) * n]));
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random(rng: &mut Rng, n: usize, range: i64) -> Vec<i16> {
        (0..n)
            .map(|_| (rng.below(2 * range as usize + 1) as i64 - range) as i16)
            .collect()
    }

    /// Every form this CPU runs returns the scalar form's values exactly, on lengths
    /// with and without a tail, and on sums that wrap.
    #[test]
    fn every_simd_form_equals_the_scalar_form_bit_for_bit() {
        let mut rng = Rng::new(7);
        for kernel in Kernel::available() {
            for len in [1, 15, 16, 31, 32, 100, 128, 256, 300, 544] {
                let acc0 = random(&mut rng, len, 32767);
                let row = random(&mut rng, len, 32767);
                // One row added, then taken away again.
                let (mut a, mut s) = (acc0.clone(), acc0.clone());
                kernel.moved(&mut a, &acc0, &row, &[0], &[]);
                Kernel::Scalar.moved(&mut s, &acc0, &row, &[0], &[]);
                assert_eq!(a, s, "{kernel:?} add, {len}");
                let added = a.clone();
                kernel.moved(&mut a, &added, &row, &[], &[0]);
                Kernel::Scalar.moved(&mut s, &added, &row, &[], &[0]);
                assert_eq!(a, s, "{kernel:?} sub, {len}");
                assert_eq!(a, acc0);
                // An accumulator moved by rows of a table, some of them repeated.
                let table = random(&mut rng, len * 9, 32767);
                let (added, removed) = ([3, 0, 8, 3], [5, 1]);
                let (mut m, mut ms) = (vec![0; len], vec![0; len]);
                kernel.moved(&mut m, &acc0, &table, &added, &removed);
                Kernel::Scalar.moved(&mut ms, &acc0, &table, &added, &removed);
                assert_eq!(m, ms, "{kernel:?} moved, {len}");
                let (mut c, mut cs) = (vec![0; len], vec![0; len]);
                for top in [127, QA] {
                    kernel.crelu(&acc0, top, &mut c);
                    Kernel::Scalar.crelu(&acc0, top, &mut cs);
                    assert_eq!(c, cs, "{kernel:?} crelu, {len}, top {top}");
                    assert!(c.iter().all(|v| (0..=top).contains(v)));
                }
                for outs in [1, 3, 16, 17, 32] {
                    let w = random(&mut rng, len * outs, 32767);
                    let b: Vec<i32> = (0..outs)
                        .map(|_| rng.below(1 << 30) as i32 - (1 << 29))
                        .collect();
                    let (mut o, mut os) = (vec![0; outs], vec![0; outs]);
                    let laid = kernel.dense_layout(&w, len, outs);
                    kernel.dense(&c, &laid, &b, &mut o);
                    Kernel::Scalar.dense(&cs, &w, &b, &mut os);
                    assert_eq!(o, os, "{kernel:?} dense, {len}x{outs}");
                    // Inputs over the whole range, none zero: every product and sum.
                    kernel.dense(&acc0, &laid, &b, &mut o);
                    Kernel::Scalar.dense(&acc0, &w, &b, &mut os);
                    assert_eq!(o, os, "{kernel:?} dense, {len}x{outs}, any inputs");
                }
            }
        }
    }
}
