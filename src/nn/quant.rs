//! The int8 forward's 3×3 convolution, on AVX-512 VNNI (`vpdpbusd`: 64 products of an
//! unsigned and a signed byte, summed in fours into sixteen 32-bit lanes, per
//! instruction).
//!
//! - **Weights** are quantized once, when the network is built: per output channel,
//!   symmetric, `w ≈ scale[o] · q` with `q` in `[-127, 127]`, laid out `[k / 4, cout, 4]`
//!   so that one 64-byte load holds four consecutive products for sixteen channels.
//! - **Activations** are quantized per im2col row as the product runs: a row (one
//!   cell's 3×3 neighbourhood) is non-negative (the trunk's convolutions read ReLU
//!   outputs), so `x ≈ s · u` with `u` in `[0, 255]` and `s = max(row) / 255`. The
//!   forward's rows are quantized straight from the cells ([`QConv::product_cells`]:
//!   each cell's largest value found once, no float im2col rows written and read back),
//!   to the same bytes as from gathered rows ([`QConv::product`]).
//! - The product sums `u · q` exactly in 32 bits, then scales by `s · scale[o]`.
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

/// A 3×3 convolution's weights quantized for [`QConv::product`].
#[derive(Debug, Clone)]
pub struct QConv {
    /// Products per output (`9 × cin`), padded to a multiple of 4.
    k: usize,
    /// The real number of products per output.
    k_real: usize,
    /// Output channels, padded to a multiple of 32.
    cout_pad: usize,
    cout: usize,
    /// `[k / 4, cout_pad, 4]` signed bytes.
    w: Vec<i8>,
    /// Per output channel (padded with zeros).
    scale: Vec<f32>,
}

impl QConv {
    /// Quantizes weights in the products' layout `[k, cout]` (see
    /// [`super::conv::to_gemm_layout`]).
    pub fn new(w: &[f32], k: usize, cout: usize) -> QConv {
        let (k_pad, cout_pad) = (k.div_ceil(4) * 4, cout.div_ceil(32) * 32);
        let mut scale = vec![0.0f32; cout_pad];
        for (o, s) in scale.iter_mut().enumerate().take(cout) {
            let max = (0..k).map(|i| w[i * cout + o].abs()).fold(0.0f32, f32::max);
            *s = max / 127.0;
        }
        let mut q = vec![0i8; k_pad * cout_pad];
        for i in 0..k {
            for o in 0..cout {
                if scale[o] > 0.0 {
                    let v = (w[i * cout + o] / scale[o]).round().clamp(-127.0, 127.0);
                    q[((i / 4) * cout_pad + o) * 4 + i % 4] = v as i8;
                }
            }
        }
        QConv {
            k: k_pad,
            k_real: k,
            cout_pad,
            cout,
            w: q,
            scale,
        }
    }

    /// `y[r, o] = Σ_i cols[r, i] · w[i, o]` for `rows` rows of non-negative `cols`
    /// (`[rows, k]` floats, the im2col rows), into `y` (`[rows, cout]`), in int8.
    pub fn product(&self, cols: &[f32], rows: usize, y: &mut [f32]) {
        assert!(cols.len() >= rows * self.k_real && y.len() >= rows * self.cout);
        #[cfg(target_arch = "x86_64")]
        {
            assert!(available(), "the int8 convolution needs AVX-512 VNNI");
            let kr = self.k_real;
            let fill = |r: usize, out: &mut [u8]| {
                let row = &cols[r * kr..(r + 1) * kr];
                // SAFETY: AVX-512 F and BW (asserted above); `out` holds `kr` bytes.
                let max = unsafe { row_max(row) };
                if max > 0.0 {
                    unsafe { quantize(row, 255.0 / max, out) };
                }
                max
            };
            // SAFETY: the CPU has AVX-512 F, BW and VNNI (asserted above), and the
            // asserts keep every access inside `cols`, `y` and the weights.
            unsafe { self.product_vnni(rows, y, fill) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("the int8 convolution runs on x86-64 only");
    }

    /// The same product with the im2col rows read straight from the cells: `x`
    /// (`[rows, cin]`, non-negative) and the board's `taps`, with no float rows in
    /// between. Each row is quantized exactly as [`QConv::product`] quantizes it.
    pub fn product_cells(&self, x: &[f32], taps: &Taps, rows: usize, y: &mut [f32]) {
        let cin = self.k_real / 9;
        assert!(x.len() >= rows * cin && y.len() >= rows * self.cout && self.k_real == 9 * cin);
        #[cfg(target_arch = "x86_64")]
        {
            assert!(available(), "the int8 convolution needs AVX-512 VNNI");
            // The largest value of each cell, once: a row's largest is its taps'.
            // SAFETY: the CPU has AVX-512 F (asserted above).
            let most: Vec<f32> = (x[..rows * cin].chunks_exact(cin))
                .map(|c| unsafe { row_max(c) })
                .collect();
            let fill = |r: usize, out: &mut [u8]| {
                let max = (taps.sources(r).flatten()).fold(0.0f32, |m, s| m.max(most[s]));
                if max > 0.0 {
                    for (slot, src) in out.chunks_exact_mut(cin).zip(taps.sources(r)) {
                        match src {
                            // SAFETY: AVX-512 F and BW (asserted above); `slot` holds
                            // `cin` bytes.
                            Some(s) => unsafe {
                                quantize(&x[s * cin..(s + 1) * cin], 255.0 / max, slot)
                            },
                            None => slot.fill(0),
                        }
                    }
                }
                max
            };
            // SAFETY: the CPU has AVX-512 F, BW and VNNI (asserted above), and `fill`
            // writes inside the row it is given.
            unsafe { self.product_vnni(rows, y, fill) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("the int8 convolution runs on x86-64 only");
    }

    /// The product of `rows` rows, each quantized by `fill(r, out)` into `out` (`k_real`
    /// bytes, the rest zeros) and returning its largest value (0: a row of zeros,
    /// `out` left untouched).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn product_vnni(
        &self,
        rows: usize,
        y: &mut [f32],
        mut fill: impl FnMut(usize, &mut [u8]) -> f32,
    ) {
        let (k, kr) = (self.k, self.k_real);
        // Up to ROWS rows at a time share each weight load.
        let mut q = vec![0u8; ROWS * k];
        let mut scales = [0.0f32; ROWS];
        for r0 in (0..rows).step_by(ROWS) {
            let n = (rows - r0).min(ROWS);
            for i in 0..n {
                let qi = &mut q[i * k..(i + 1) * k];
                let max = fill(r0 + i, &mut qi[..kr]);
                scales[i] = max / 255.0;
                if max <= 0.0 {
                    qi.fill(0);
                }
            }
            q[n * k..].fill(0);
            for p in 0..self.cout_pad / 32 {
                // SAFETY: as above, and VNNI is enabled.
                unsafe { self.tile(&q, n, &scales, p, &mut y[r0 * self.cout..]) };
            }
        }
    }

    /// Output channels `32 p..32 p + 32` of `n <= ROWS` quantized rows (`q` holds
    /// `ROWS` rows; those past `n` are zeros). Fixed sizes keep the eight accumulators
    /// in registers.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile(&self, q: &[u8], n: usize, scales: &[f32; ROWS], p: usize, y: &mut [f32]) {
        use std::arch::x86_64::*;
        let (k, cout_pad) = (self.k, self.cout_pad);
        assert!(q.len() >= ROWS * k && self.w.len() >= (k / 4) * cout_pad * 4);
        let (q, w) = (q.as_ptr(), self.w.as_ptr());
        let z = _mm512_setzero_si512();
        let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
        let (mut c0, mut c1, mut c2, mut c3) = (z, z, z, z);
        for j in 0..k / 4 {
            // SAFETY: the assert above: `j < k / 4` and `32 p + 32 <= cout_pad`, and each
            // row of `q` holds `k` bytes.
            unsafe {
                let at = w.add((j * cout_pad + p * 32) * 4);
                let (w0, w1) = (
                    _mm512_loadu_si512(at.cast()),
                    _mm512_loadu_si512(at.add(64).cast()),
                );
                let x = |i: usize| {
                    _mm512_set1_epi32(q.add(i * k + 4 * j).cast::<i32>().read_unaligned())
                };
                let (x0, x1, x2, x3) = (x(0), x(1), x(2), x(3));
                a0 = _mm512_dpbusd_epi32(a0, x0, w0);
                c0 = _mm512_dpbusd_epi32(c0, x0, w1);
                a1 = _mm512_dpbusd_epi32(a1, x1, w0);
                c1 = _mm512_dpbusd_epi32(c1, x1, w1);
                a2 = _mm512_dpbusd_epi32(a2, x2, w0);
                c2 = _mm512_dpbusd_epi32(c2, x2, w1);
                a3 = _mm512_dpbusd_epi32(a3, x3, w0);
                c3 = _mm512_dpbusd_epi32(c3, x3, w1);
            }
        }
        let acc = [[a0, c0], [a1, c1], [a2, c2], [a3, c3]];
        // SAFETY: `scale` has `cout_pad >= o0 + 16` entries.
        let finish = |i: usize, o0: usize, ab: __m512i| unsafe {
            let sc = _mm512_mul_ps(
                _mm512_loadu_ps(self.scale.as_ptr().add(o0)),
                _mm512_set1_ps(scales[i]),
            );
            _mm512_mul_ps(_mm512_cvtepi32_ps(ab), sc)
        };
        // SAFETY: AVX-512 F is enabled.
        unsafe { store_tile(&acc, n, p, self.cout, y, finish) };
    }
}

/// Rows that share each weight load (4 rows × 32 channels: 8 accumulators).
pub(super) const ROWS: usize = 4;

/// Writes a tile's accumulators into `y` (rows of `cout`): `acc[i][b]` holds row `i`'s
/// output channels `32 p + 16 b ..` (those past `cout` dropped), which `finish(i, 32 p
/// + 16 b, acc[i][b])` turns into floats; rows past `n` are padding.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn store_tile<A: Copy>(
    acc: &[[A; 2]; ROWS],
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

    #[test]
    fn reading_the_cells_is_the_product_of_the_gathered_rows_exactly() {
        if !available() {
            return;
        }
        // Two boards with edges (zeros past them) and one that wraps.
        let ataxx = crate::games::ataxx::Ataxx::standard();
        let infexion = crate::games::infexion::Board::new();
        let shapes = [
            super::super::NetShape::for_game(&ataxx, 1, 8, 8),
            super::super::NetShape::for_game(&infexion, 1, 8, 8),
        ];
        for shape in &shapes {
            let taps = Taps::new(shape);
            let (cin, cout, n) = (12, 40, 3);
            let rows = n * taps.cells;
            let w: Vec<f32> = (0..9 * cin * cout)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 80.0)
                .collect();
            // Non-negative, with whole cells of zeros (rows of zeros at the edges).
            let x: Vec<f32> = (0..rows * cin)
                .map(|i| {
                    if (i / cin) % 5 == 0 {
                        0.0
                    } else {
                        (i * 13 % 29) as f32 / 9.0
                    }
                })
                .collect();
            let q = QConv::new(&w, 9 * cin, cout);
            let mut cols = vec![0.0; rows * 9 * cin];
            taps.gather(&x, cin, &mut cols);
            let (mut from_rows, mut from_cells) = (vec![0.0; rows * cout], vec![1.0; rows * cout]);
            q.product(&cols, rows, &mut from_rows);
            q.product_cells(&x, &taps, rows, &mut from_cells);
            assert_eq!(from_rows, from_cells, "{}", shape.game);
        }
    }

    #[test]
    fn the_int8_product_is_close_to_the_float_one() {
        if !available() {
            return;
        }
        let (rows, k, cout) = (7, 9 * 5, 20);
        let w: Vec<f32> = (0..k * cout)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 80.0)
            .collect();
        let x: Vec<f32> = (0..rows * k).map(|i| (i * 13 % 29) as f32 / 9.0).collect();
        let q = QConv::new(&w, k, cout);
        let mut y = vec![0.0; rows * cout];
        q.product(&x, rows, &mut y);
        for r in 0..rows {
            for o in 0..cout {
                let exact: f32 = (0..k).map(|i| x[r * k + i] * w[i * cout + o]).sum();
                let size: f32 = (0..k).map(|i| (x[r * k + i] * w[i * cout + o]).abs()).sum();
                let got = y[r * cout + o];
                // Within 1% of the products' total size (8-bit steps on both sides).
                assert!(
                    (exact - got).abs() < 0.01 * size,
                    "{exact} vs {got} ({size})"
                );
            }
        }
    }
}
