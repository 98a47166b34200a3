//! The float 3×3 convolution read in place, on AVX-512 F: each output row's nine taps
//! read their cells where they lie, so no im2col rows are written. Copying those rows
//! (nine times the activations they are gathered from) took a tenth of the engine's
//! time.
//!
//! - **Weights** stay floats in the products' layout `[9 × cin, cout]`, the output
//!   channels padded with zeros to a multiple of 32.
//! - **Tiles** of 7 rows × 32 output channels: fourteen accumulators in registers; for
//!   each tap and input channel, two weight loads, seven broadcasts of the rows' cells
//!   and fourteen fused multiply-adds.
//!
//! Where the CPU lacks AVX-512 the fast forward runs im2col and one matrix product
//! ([`super::conv`]), the reference this kernel is tested against.

use super::conv::Taps;
use super::quant::store_tile;

/// Rows a tile: a 7×7 board's cells in seven tiles (14 accumulators).
const ROWS: usize = 7;

/// Whether the CPU has what the in-place convolution needs (AVX-512 F).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A 3×3 convolution's float weights laid out for [`DConv::product_cells`].
#[derive(Debug, Clone)]
pub struct DConv {
    cin: usize,
    cout: usize,
    /// Output channels, padded to a multiple of 32.
    cout_pad: usize,
    /// `[9 × cin, cout_pad]`.
    w: Vec<f32>,
    /// One cell of zeros: what a tap past the edge reads.
    zeros: Vec<f32>,
}

impl DConv {
    /// The weights in the products' layout `[9 × cin, cout]` (see
    /// [`super::conv::to_gemm_layout`]).
    pub fn new(w: &[f32], k: usize, cout: usize) -> DConv {
        assert_eq!(k % 9, 0, "a 3×3 convolution's products come in nine taps");
        let cin = k / 9;
        let cout_pad = cout.div_ceil(32) * 32;
        let mut padded = vec![0.0f32; k * cout_pad];
        for (dst, src) in padded.chunks_exact_mut(cout_pad).zip(w.chunks_exact(cout)) {
            dst[..cout].copy_from_slice(src);
        }
        DConv {
            cin,
            cout,
            cout_pad,
            w: padded,
            zeros: vec![0.0; cin],
        }
    }

    /// `y[r, o] = Σ_t Σ_c x[src(r, t), c] · w[t, c, o]` for `rows` rows of `x`
    /// (`[rows, cin]`), each row's nine sources given by `taps`, into `y` (`[rows, cout]`).
    pub fn product_cells(&self, x: &[f32], taps: &Taps, rows: usize, y: &mut [f32]) {
        assert!(x.len() >= rows * self.cin && y.len() >= rows * self.cout);
        super::conv::flush_subnormals();
        #[cfg(target_arch = "x86_64")]
        {
            assert!(available(), "the in-place convolution needs AVX-512 F");
            for r0 in (0..rows).step_by(ROWS) {
                let n = (rows - r0).min(ROWS);
                // `rows` stands for the zero cell.
                let src = taps
                    .tile_sources::<ROWS>(r0, n, rows)
                    .map(|tap| tap.map(|c| self.cell(x, rows, c)));
                for p in 0..self.cout_pad / 32 {
                    // SAFETY: the CPU has AVX-512 F (asserted above); every source is a
                    // whole cell of `x` or `zeros`, and `y` holds the tile's rows.
                    unsafe { self.tile(&src, n, p, &mut y[r0 * self.cout..]) };
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("the in-place convolution runs on x86-64 only");
    }

    /// Cell `c` of `x` (`[rows, cin]`), or the zero cell for `c == rows`.
    fn cell<'a>(&'a self, x: &'a [f32], rows: usize, c: usize) -> &'a [f32] {
        if c == rows {
            &self.zeros
        } else {
            &x[c * self.cin..(c + 1) * self.cin]
        }
    }

    /// Output channels `32 p..32 p + 32` of `n <= ROWS` rows whose taps read the cells
    /// `src` (rows past `n` read the zero cell).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn tile(&self, src: &[[&[f32]; ROWS]; 9], n: usize, p: usize, y: &mut [f32]) {
        use std::arch::x86_64::*;
        let (cin, cout_pad) = (self.cin, self.cout_pad);
        assert!(src.iter().flatten().all(|s| s.len() == cin));
        assert!(self.w.len() == 9 * cin * cout_pad && 32 * p + 32 <= cout_pad);
        let z = _mm512_setzero_ps();
        let mut acc = [[z; 2]; ROWS];
        let w = self.w.as_ptr();
        for (t, tap) in src.iter().enumerate() {
            let cells = (*tap).map(|s| s.as_ptr());
            for c in 0..cin {
                // SAFETY: the asserts above: weight row `t cin + c` holds `cout_pad`
                // floats from `32 p`, and each source cell holds `cin` floats.
                unsafe {
                    let at = w.add((t * cin + c) * cout_pad + 32 * p);
                    let (w0, w1) = (_mm512_loadu_ps(at), _mm512_loadu_ps(at.add(16)));
                    // Each row by a constant index, so that the accumulators stay in
                    // registers.
                    macro_rules! rows {
                        ($($i:literal)*) => {$(
                            let x = _mm512_set1_ps(*cells[$i].add(c));
                            acc[$i][0] = _mm512_fmadd_ps(x, w0, acc[$i][0]);
                            acc[$i][1] = _mm512_fmadd_ps(x, w1, acc[$i][1]);
                        )*};
                    }
                    rows!(0 1 2 3 4 5 6);
                }
            }
        }
        // SAFETY: AVX-512 F is enabled.
        unsafe { store_tile(&acc, n, p, self.cout, y, |_, _, v| v) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::kernels::conv::cases::{self, CASE_COUT};

    #[test]
    fn the_in_place_product_is_the_im2col_one() {
        if !available() {
            return;
        }
        // 12 input channels, and 5 (the stem's few planes).
        for case in cases::all([12, 5]) {
            let (cin, rows) = (case.cin, case.rows());
            let x: Vec<f32> = (0..rows * cin)
                .map(|i| (i * 13 % 29) as f32 / 9.0 - 1.0)
                .collect();
            let mut y = vec![f32::NAN; rows * CASE_COUT];
            DConv::new(&case.w, 9 * cin, CASE_COUT).product_cells(&x, &case.taps, rows, &mut y);
            case.assert_each(&x, &y, |exact, _, got| {
                (exact - got).abs() <= 1e-4 * (1.0 + exact.abs())
            });
        }
    }
}
