//! The bf16 forward's 3×3 convolution, on AVX-512 BF16 (`vdpbf16ps`: 32 products of
//! bfloat16 pairs, summed in twos into sixteen 32-bit float lanes, per instruction).
//!
//! - **Weights** are rounded to bfloat16 (8 significant bits, the float's range) once,
//!   when the network is built, laid out `[k / 2, cout, 2]` so that one 64-byte load
//!   holds two consecutive products for sixteen channels.
//! - **Activations** are rounded to bfloat16 per im2col row as the product runs. Unlike
//!   int8 ([`super::quant`]) no scale is shared: a small value keeps its 8 bits beside a
//!   large one, and any sign is allowed, so the stem's convolution runs in bf16 too.
//! - The products are summed in 32-bit floats.
//!
//! Twice the multiply-adds of an fp32 FMA per instruction, half of int8's.

use super::quant::ROWS;
#[cfg(target_arch = "x86_64")]
use super::quant::store_tile;

/// Whether the CPU has what the bf16 convolution needs (AVX-512 F and BF16).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `x` rounded to the nearest bfloat16 (ties to even), as its 16 bits.
pub(super) fn to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    (b.wrapping_add(round) >> 16) as u16
}

/// 32 floats rounded to bfloat16 (ties to even) into `out`, on AVX-512 BF16.
///
/// # Safety
/// The CPU must have AVX-512 F and BF16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
pub(super) unsafe fn round32(x: &[f32; 32], out: &mut [u16; 32]) {
    use std::arch::x86_64::*;
    // SAFETY: 32 floats read, 32 bfloat16s written.
    unsafe {
        let v = _mm512_cvtne2ps_pbh(
            _mm512_loadu_ps(x.as_ptr().add(16)),
            _mm512_loadu_ps(x.as_ptr()),
        );
        _mm512_storeu_si512(
            out.as_mut_ptr().cast(),
            std::mem::transmute::<__m512bh, __m512i>(v),
        );
    }
}

/// A 3×3 convolution's weights in bfloat16 for [`BConv::product`].
#[derive(Debug, Clone)]
pub struct BConv {
    /// Products per output (`9 × cin`), padded to a multiple of 32.
    k: usize,
    /// The real number of products per output.
    k_real: usize,
    /// Output channels, padded to a multiple of 32.
    cout_pad: usize,
    cout: usize,
    /// `[k / 2, cout_pad, 2]` bfloat16s.
    w: Vec<u16>,
}

impl BConv {
    /// Rounds weights in the products' layout `[k, cout]` (see
    /// [`super::conv::to_gemm_layout`]).
    pub fn new(w: &[f32], k: usize, cout: usize) -> BConv {
        let (k_pad, cout_pad) = (k.div_ceil(32) * 32, cout.div_ceil(32) * 32);
        let mut b = vec![0u16; k_pad * cout_pad];
        for i in 0..k {
            for o in 0..cout {
                b[((i / 2) * cout_pad + o) * 2 + i % 2] = to_bf16(w[i * cout + o]);
            }
        }
        BConv {
            k: k_pad,
            k_real: k,
            cout_pad,
            cout,
            w: b,
        }
    }

    /// `y[r, o] = Σ_i cols[r, i] · w[i, o]` for `rows` rows of `cols` (`[rows, k]`
    /// floats, the im2col rows), into `y` (`[rows, cout]`), in bf16 with float sums.
    pub fn product(&self, cols: &[f32], rows: usize, y: &mut [f32]) {
        assert!(cols.len() >= rows * self.k_real && y.len() >= rows * self.cout);
        #[cfg(target_arch = "x86_64")]
        {
            assert!(available(), "the bf16 convolution needs AVX-512 BF16");
            // SAFETY: the CPU has AVX-512 F and BF16 (asserted above), and the asserts
            // keep every access inside `cols`, `y` and the weights.
            unsafe { self.product_bf16(cols, rows, y) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("the bf16 convolution runs on x86-64 only");
    }

    /// The product on AVX-512 BF16.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BF16.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn product_bf16(&self, cols: &[f32], rows: usize, y: &mut [f32]) {
        let (k, kr) = (self.k, self.k_real);
        let mut q = vec![0u16; ROWS * k];
        for r0 in (0..rows).step_by(ROWS) {
            let n = (rows - r0).min(ROWS);
            for i in 0..n {
                let row = &cols[(r0 + i) * kr..(r0 + i + 1) * kr];
                let qi = &mut q[i * k..(i + 1) * k];
                let chunks = row.chunks_exact(32);
                let done = kr - chunks.remainder().len();
                for (c, out) in chunks.zip(qi.as_chunks_mut::<32>().0) {
                    // SAFETY: the CPU has AVX-512 F and BF16 (this function's features).
                    unsafe { round32(c.try_into().expect("32 floats"), out) };
                }
                for (o, &x) in qi[done..kr].iter_mut().zip(&row[done..]) {
                    *o = to_bf16(x);
                }
                qi[kr..].fill(0);
            }
            q[n * k..].fill(0);
            for p in 0..self.cout_pad / 32 {
                // SAFETY: as above.
                unsafe { self.tile(&q, n, p, &mut y[r0 * self.cout..]) };
            }
        }
    }

    /// Output channels `32 p..32 p + 32` of `n <= ROWS` rounded rows (`q` holds `ROWS`
    /// rows; those past `n` are zeros).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BF16.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn tile(&self, q: &[u16], n: usize, p: usize, y: &mut [f32]) {
        use std::arch::x86_64::*;
        let (k, cout_pad) = (self.k, self.cout_pad);
        assert!(q.len() >= ROWS * k && self.w.len() >= (k / 2) * cout_pad * 2);
        let (q, w) = (q.as_ptr(), self.w.as_ptr());
        let z = _mm512_setzero_ps();
        let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
        let (mut c0, mut c1, mut c2, mut c3) = (z, z, z, z);
        for j in 0..k / 2 {
            // SAFETY: the assert above: `j < k / 2` and `32 p + 32 <= cout_pad`, and each
            // row of `q` holds `k` values.
            unsafe {
                let at = w.add((j * cout_pad + p * 32) * 2);
                let (w0, w1): (__m512bh, __m512bh) = (
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(at.cast())),
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(at.add(32).cast())),
                );
                let x = |i: usize| -> __m512bh {
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(
                        q.add(i * k + 2 * j).cast::<i32>().read_unaligned(),
                    ))
                };
                let (x0, x1, x2, x3) = (x(0), x(1), x(2), x(3));
                a0 = _mm512_dpbf16_ps(a0, x0, w0);
                c0 = _mm512_dpbf16_ps(c0, x0, w1);
                a1 = _mm512_dpbf16_ps(a1, x1, w0);
                c1 = _mm512_dpbf16_ps(c1, x1, w1);
                a2 = _mm512_dpbf16_ps(a2, x2, w0);
                c2 = _mm512_dpbf16_ps(c2, x2, w1);
                a3 = _mm512_dpbf16_ps(a3, x3, w0);
                c3 = _mm512_dpbf16_ps(c3, x3, w1);
            }
        }
        let acc = [[a0, c0], [a1, c1], [a2, c2], [a3, c3]];
        // SAFETY: AVX-512 F is enabled.
        unsafe { store_tile(&acc, n, p, self.cout, y, |_, _, ab| ab) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_to_bf16_keeps_eight_significant_bits() {
        assert_eq!(to_bf16(1.0), 0x3f80);
        assert_eq!(to_bf16(-2.0), 0xc000);
        // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even one, 1.
        assert_eq!(to_bf16(1.0 + 1.0 / 256.0), 0x3f80);
        assert_eq!(to_bf16(1.0 + 3.0 / 256.0), 0x3f82);
    }

    #[test]
    fn the_bf16_product_is_close_to_the_float_one() {
        if !available() {
            return;
        }
        let (rows, k, cout) = (7, 9 * 5, 20);
        let w: Vec<f32> = (0..k * cout)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 80.0)
            .collect();
        let x: Vec<f32> = (0..rows * k)
            .map(|i| ((i * 13 % 29) as f32 - 9.0) / 9.0)
            .collect();
        let b = BConv::new(&w, k, cout);
        let mut y = vec![0.0; rows * cout];
        b.product(&x, rows, &mut y);
        for r in 0..rows {
            for o in 0..cout {
                let exact: f32 = (0..k).map(|i| x[r * k + i] * w[i * cout + o]).sum();
                let size: f32 = (0..k).map(|i| (x[r * k + i] * w[i * cout + o]).abs()).sum();
                let got = y[r * cout + o];
                // Within 0.5% of the products' total size (2^-9 on each side).
                assert!(
                    (exact - got).abs() < 0.005 * size,
                    "{exact} vs {got} ({size})"
                );
            }
        }
    }
}
