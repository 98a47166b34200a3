//! The int8 forward's 3×3 convolution, on AVX-512 VNNI (`vpdpbusd`: 64 products of an
//! unsigned and a signed byte, summed in fours into sixteen 32-bit lanes, per
//! instruction).
//!
//! - **Weights** are quantized once, when the network is built: per tap and output
//!   channel, symmetric, `w ≈ scale[t, o] · q` with `q` in `[-127, 127]`, laid out
//!   `[9 · cin / 4, cout, 4]` so that one 64-byte load holds four consecutive products
//!   for sixteen channels.
//! - **Activations** are quantized once per cell as the product runs: a cell's
//!   channels are non-negative (the trunk's convolutions read ReLU outputs), so
//!   `x ≈ s · u` with `u` in `[0, 255]` and `s = max(cell) / 255`. No im2col rows are
//!   written: each row's nine taps read their cells in place.
//! - The product sums `u · q` exactly in 32 bits a tap at a time, then adds it to a
//!   float accumulator scaled by the tap's cell's `s` and `scale[t, o]`.
//!
//! Which convolutions run it is [`super::forward`]'s choice.

use super::conv::Taps;

/// Whether the CPU has what the int8 convolution needs (AVX-512 F, BW and VNNI).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A 3×3 convolution's weights quantized for [`QConv::product_cells`].
#[derive(Debug, Clone)]
pub struct QConv {
    /// Input channels.
    cin: usize,
    /// Input channels padded to a multiple of 4: bytes a cell, and products a tap.
    cin4: usize,
    /// Output channels, padded to a multiple of 32.
    cout_pad: usize,
    cout: usize,
    /// `[9 × cin4 / 4, cout_pad, 4]` signed bytes.
    w: Vec<i8>,
    /// `[9, cout_pad]`: per tap and output channel (padded with zeros).
    scale: Vec<f32>,
}

impl QConv {
    /// Quantizes weights in the products' layout `[9 × cin, cout]` (see
    /// [`super::conv::to_gemm_layout`]), each tap and output channel to its own scale.
    pub fn new(w: &[f32], k: usize, cout: usize) -> QConv {
        assert_eq!(k % 9, 0, "a 3×3 convolution's products come in nine taps");
        let cin = k / 9;
        let (cin4, cout_pad) = (cin.div_ceil(4) * 4, cout.div_ceil(32) * 32);
        let mut scale = vec![0.0f32; 9 * cout_pad];
        let mut q = vec![0i8; 9 * cin4 * cout_pad];
        for t in 0..9 {
            for o in 0..cout {
                let at = |c: usize| w[(t * cin + c) * cout + o];
                let max = (0..cin).map(|c| at(c).abs()).fold(0.0f32, f32::max);
                scale[t * cout_pad + o] = max / 127.0;
                if max > 0.0 {
                    for c in 0..cin {
                        let v = (at(c) * 127.0 / max).round().clamp(-127.0, 127.0);
                        let i = t * cin4 + c;
                        q[((i / 4) * cout_pad + o) * 4 + i % 4] = v as i8;
                    }
                }
            }
        }
        QConv {
            cin,
            cin4,
            cout_pad,
            cout,
            w: q,
            scale,
        }
    }

    /// `y[r, o] = Σ_t Σ_c x[src(r, t), c] · w[t, c, o]` for `rows` rows of non-negative
    /// `x` (`[rows, cin]`), each row's nine sources given by `taps`, into `y`
    /// (`[rows, cout]`), in int8: each cell is quantized once to its own scale, and the
    /// product is summed in 32 bits a tap at a time, then scaled by the cell's and the
    /// tap's weight scales into floats.
    pub fn product_cells(&self, x: &[f32], taps: &Taps, rows: usize, y: &mut [f32]) {
        let cin = self.cin;
        assert!(x.len() >= rows * cin && y.len() >= rows * self.cout);
        #[cfg(target_arch = "x86_64")]
        {
            assert!(available(), "the int8 convolution needs AVX-512 VNNI");
            // Each cell once, then a zero cell for the taps past the edge.
            let mut q = vec![0u8; (rows + 1) * self.cin4];
            let mut scales = vec![0.0f32; rows + 1];
            for ((cell, qc), s) in (x[..rows * cin].chunks_exact(cin))
                .zip(q.chunks_exact_mut(self.cin4))
                .zip(&mut scales)
            {
                // SAFETY: the CPU has AVX-512 F and BW (asserted above); `qc` holds
                // `cin4 >= cin` bytes.
                let max = unsafe { row_max(cell) };
                if max > 0.0 {
                    // SAFETY: as for `row_max`.
                    unsafe { quantize(cell, 255.0 / max, qc) };
                    *s = max / 255.0;
                }
            }
            // SAFETY: the CPU has AVX-512 F, BW and VNNI (asserted above); every source
            // is a cell of `q`.
            unsafe { self.product_vnni(&q, &scales, taps, rows, y) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("the int8 convolution runs on x86-64 only");
    }

    /// The product on AVX-512 VNNI.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW and VNNI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn product_vnni(
        &self,
        q: &[u8],
        scales: &[f32],
        taps: &Taps,
        rows: usize,
        y: &mut [f32],
    ) {
        // Up to ROWS rows at a time share each weight load; `rows` is the zero cell.
        for r0 in (0..rows).step_by(ROWS) {
            let n = (rows - r0).min(ROWS);
            let src = taps.tile_sources::<ROWS>(r0, n, rows);
            for p in 0..self.cout_pad / 32 {
                // SAFETY: as above; `src` holds cells of `q` and `scales`.
                unsafe { self.tile(q, scales, &src, n, p, &mut y[r0 * self.cout..]) };
            }
        }
    }

    /// Output channels `32 p..32 p + 32` of `n <= ROWS` rows whose taps read the cells
    /// `src` of `q` (rows past `n` read the zero cell). Fixed sizes keep the sixteen
    /// accumulators in registers.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW and VNNI (the bounds are asserted).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile(
        &self,
        q: &[u8],
        scales: &[f32],
        src: &[[usize; ROWS]; 9],
        n: usize,
        p: usize,
        y: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let (cin4, cout_pad) = (self.cin4, self.cout_pad);
        let cells = q.len() / cin4;
        assert!(src.iter().flatten().all(|&c| c < cells) && scales.len() >= cells);
        assert!(self.w.len() >= 9 * cin4 * cout_pad && 32 * p + 32 <= cout_pad);
        let (qp, w) = (q.as_ptr(), self.w.as_ptr());
        let z = _mm512_setzero_ps();
        let mut f = [[z; 2]; ROWS];
        for (t, tap) in src.iter().enumerate() {
            let zi = _mm512_setzero_si512();
            let (mut a0, mut a1, mut a2, mut a3) = (zi, zi, zi, zi);
            let (mut c0, mut c1, mut c2, mut c3) = (zi, zi, zi, zi);
            // SAFETY: the asserts above: every source cell holds `cin4` bytes of `q`,
            // and the weights' rows `t cin4 / 4 ..` hold `cout_pad × 4` bytes each.
            unsafe {
                let cell = |i: usize| qp.add(tap[i] * cin4);
                let (s0, s1, s2, s3) = (cell(0), cell(1), cell(2), cell(3));
                for jj in 0..cin4 / 4 {
                    let at = w.add(((t * cin4 / 4 + jj) * cout_pad + p * 32) * 4);
                    let (w0, w1) = (
                        _mm512_loadu_si512(at.cast()),
                        _mm512_loadu_si512(at.add(64).cast()),
                    );
                    let x = |s: *const u8| {
                        _mm512_set1_epi32(s.add(4 * jj).cast::<i32>().read_unaligned())
                    };
                    let (x0, x1, x2, x3) = (x(s0), x(s1), x(s2), x(s3));
                    a0 = _mm512_dpbusd_epi32(a0, x0, w0);
                    c0 = _mm512_dpbusd_epi32(c0, x0, w1);
                    a1 = _mm512_dpbusd_epi32(a1, x1, w0);
                    c1 = _mm512_dpbusd_epi32(c1, x1, w1);
                    a2 = _mm512_dpbusd_epi32(a2, x2, w0);
                    c2 = _mm512_dpbusd_epi32(c2, x2, w1);
                    a3 = _mm512_dpbusd_epi32(a3, x3, w0);
                    c3 = _mm512_dpbusd_epi32(c3, x3, w1);
                }
                let ws = self.scale.as_ptr().add(t * cout_pad + p * 32);
                let (ws0, ws1) = (_mm512_loadu_ps(ws), _mm512_loadu_ps(ws.add(16)));
                let acc = [[a0, c0], [a1, c1], [a2, c2], [a3, c3]];
                for (i, (fi, ai)) in f.iter_mut().zip(acc).enumerate() {
                    let s = _mm512_set1_ps(*scales.get_unchecked(tap[i]));
                    fi[0] =
                        _mm512_fmadd_ps(_mm512_cvtepi32_ps(ai[0]), _mm512_mul_ps(ws0, s), fi[0]);
                    fi[1] =
                        _mm512_fmadd_ps(_mm512_cvtepi32_ps(ai[1]), _mm512_mul_ps(ws1, s), fi[1]);
                }
            }
        }
        // SAFETY: AVX-512 F is enabled.
        unsafe { store_tile(&f, n, p, self.cout, y, |_, _, v| v) };
    }
}

/// Rows that share each weight load (4 rows × 32 channels: 8 accumulators).
pub(super) const ROWS: usize = 4;

/// Writes a tile's accumulators into `y` (rows of `cout`): `acc[i][b]` holds row `i`'s
/// output channels `32 p + 16 b ..` (those past `cout` dropped), which `finish(i, 32 p
/// + 16 b, acc[i][b])` turns into floats; rows past `n` are padding.
///
/// # Safety
/// The CPU must have AVX-512 F (and whatever `finish` is compiled for).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn store_tile<A: Copy, const R: usize>(
    acc: &[[A; 2]; R],
    n: usize,
    p: usize,
    cout: usize,
    y: &mut [f32],
    finish: impl Fn(usize, usize, A) -> std::arch::x86_64::__m512,
) {
    use std::arch::x86_64::*;
    let mut out = [0.0f32; 16];
    for (i, pair) in acc.iter().enumerate().take(n) {
        let yr = &mut y[i * cout..(i + 1) * cout];
        for (b, &ab) in pair.iter().enumerate() {
            let o0 = p * 32 + b * 16;
            let m = cout.saturating_sub(o0).min(16);
            if m == 0 {
                continue;
            }
            // SAFETY: `out` holds 16 floats.
            unsafe { _mm512_storeu_ps(out.as_mut_ptr(), finish(i, o0, ab)) };
            yr[o0..o0 + m].copy_from_slice(&out[..m]);
        }
    }
}

/// The largest value of `row` (0 for an empty or non-positive row).
///
/// # Safety
/// The CPU must have AVX-512 F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn row_max(row: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let chunks = row.chunks_exact(16);
    let tail = chunks.remainder().iter().copied().fold(0.0f32, f32::max);
    let mut m = _mm512_setzero_ps();
    for c in chunks {
        // SAFETY: `c` holds 16 floats.
        m = _mm512_max_ps(m, unsafe { _mm512_loadu_ps(c.as_ptr()) });
    }
    _mm512_reduce_max_ps(m).max(tail)
}

/// `out[i] = round(row[i] · inv)` as bytes, saturating at 0 and 255.
///
/// # Safety
/// The CPU must have AVX-512 F and BW, and `out` must be at least as long as `row`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn quantize(row: &[f32], inv: f32, out: &mut [u8]) {
    use std::arch::x86_64::*;
    let scale = _mm512_set1_ps(inv);
    let chunks = row.chunks_exact(16);
    let done = row.len() - chunks.remainder().len();
    for (i, c) in chunks.enumerate() {
        // SAFETY: `c` holds 16 floats and `out[16 i..16 i + 16]` lies inside `out`
        // (`out.len() >= row.len()`).
        unsafe {
            let v = _mm512_max_ps(
                _mm512_mul_ps(_mm512_loadu_ps(c.as_ptr()), scale),
                _mm512_setzero_ps(),
            );
            let n = _mm512_cvtps_epu32(v); // rounds to nearest
            _mm_storeu_si128(
                out.as_mut_ptr().add(16 * i).cast(),
                _mm512_cvtusepi32_epi8(n),
            );
        }
    }
    for (q, &x) in out[done..row.len()].iter_mut().zip(&row[done..]) {
        *q = (x * inv).round().clamp(0.0, 255.0) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::kernels::conv::cases::{self, CASE_COUT};

    #[test]
    fn the_int8_product_is_close_to_the_float_one() {
        if !available() {
            return;
        }
        // 12 channels fill whole groups of four bytes, 10 do not.
        for case in cases::all([12, 10]) {
            let (cin, rows) = (case.cin, case.rows());
            // Non-negative, with whole cells of zeros.
            let x: Vec<f32> = (0..rows * cin)
                .map(|i| {
                    if (i / cin) % 5 == 0 {
                        0.0
                    } else {
                        (i * 13 % 29) as f32 / 9.0
                    }
                })
                .collect();
            let mut y = vec![1.0; rows * CASE_COUT];
            QConv::new(&case.w, 9 * cin, CASE_COUT).product_cells(&x, &case.taps, rows, &mut y);
            // Within 1% of the products' total size (8-bit steps on both sides).
            case.assert_each(&x, &y, |exact, size, got| {
                (exact - got).abs() <= 0.01 * size
            });
        }
    }
}
