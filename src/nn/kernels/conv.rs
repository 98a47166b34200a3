//! The 3×3 convolution as im2col + one matrix product, shared by the fast forward
//! ([`super::fast`]) and the fast training step ([`crate::nn::step::backprop`]).
//!
//! Layout NHWC: a batch is `[positions × cells, channels]`, row-major. The im2col rows
//! `[positions × cells, 9 × cin]` are a precomputed gather of each cell's nine neighbours
//! (wrapping on a torus, zero past the edge otherwise); the weights are `[9 × cin, cout]`
//! (tap-major, then input channel). Products run on the `gemm` crate's AVX2 / AVX-512
//! kernels, chosen at run time, with subnormal floats flushed to zero (`flush_subnormals`).

use super::super::NetShape;

/// What a convolution's output adds before its ReLU, beside its bias.
#[derive(Debug, Clone, Copy)]
pub enum Add<'a> {
    /// Nothing.
    Nothing,
    /// The residual block's input, cell by cell (`[n × cells, c]`).
    Residual(&'a [f32]),
    /// One bias a channel for each position (`[n, c]`): a global pooling bias.
    PerPosition(&'a [f32]),
}

impl Add<'_> {
    /// What row `i` of an output `[n × cells, c]` adds (`None`: nothing).
    pub fn row(&self, i: usize, cells: usize, c: usize) -> Option<&[f32]> {
        match *self {
            Add::Nothing => None,
            Add::Residual(r) => Some(&r[i * c..(i + 1) * c]),
            Add::PerPosition(b) => Some(&b[i / cells * c..(i / cells + 1) * c]),
        }
    }
}

/// Column sums of `x` (`[rows, c]`) added to `out` (`c`).
pub fn add_column_sums(x: &[f32], out: &mut [f32]) {
    let c = out.len();
    for row in x.chunks_exact(c) {
        for (o, &v) in out.iter_mut().zip(row) {
            *o += v;
        }
    }
}

/// The tap that falls off the board (zero padding).
const NONE: u32 = u32::MAX;

/// Each cell's nine 3×3 neighbours on one board.
#[derive(Debug, Clone)]
pub struct Taps {
    /// Cells on the board.
    pub cells: usize,
    /// The board's rows.
    pub height: usize,
    /// The board's columns.
    pub width: usize,
    /// Whether the board is a torus (taps past an edge wrap) rather than zero-padded.
    pub wraps: bool,
    /// `taps[cell × 9 + t]`: the source cell of tap `t` (row-major 3×3), or `NONE`.
    taps: Vec<u32>,
}

impl Taps {
    /// The taps of `shape`'s board: the torus's wrap or zeros past the edge.
    pub fn new(shape: &NetShape) -> Taps {
        let (h, w) = (shape.height as isize, shape.width as isize);
        let mut taps = Vec::with_capacity((h * w) as usize * 9);
        for r in 0..h {
            for c in 0..w {
                for (dr, dc) in (-1..=1).flat_map(|dr| (-1..=1).map(move |dc| (dr, dc))) {
                    let (rr, cc) = (r + dr, c + dc);
                    taps.push(if shape.wraps {
                        (rr.rem_euclid(h) * w + cc.rem_euclid(w)) as u32
                    } else if (0..h).contains(&rr) && (0..w).contains(&cc) {
                        (rr * w + cc) as u32
                    } else {
                        NONE
                    });
                }
            }
        }
        Taps {
            cells: (h * w) as usize,
            height: shape.height,
            width: shape.width,
            wraps: shape.wraps,
            taps,
        }
    }

    /// The rows of `[n × cells, cin]` that im2col row `row` reads, tap by tap (`None`
    /// past the edge).
    pub fn sources(&self, row: usize) -> impl Iterator<Item = Option<usize>> + '_ {
        let (base, cell) = (row - row % self.cells, row % self.cells);
        (self.taps[cell * 9..cell * 9 + 9].iter())
            .map(move |&t| (t != NONE).then(|| base + t as usize))
    }

    /// The source rows of the `R` im2col rows from `r0`, tap by tap: `src[t][i]` is the
    /// row that row `r0 + i` reads at tap `t`, or `zero` past the edge and for the rows
    /// from `r0 + n` on (a tile's padding).
    pub fn tile_sources<const R: usize>(
        &self,
        r0: usize,
        n: usize,
        zero: usize,
    ) -> [[usize; R]; 9] {
        let mut src = [[zero; R]; 9];
        for i in 0..n.min(R) {
            for (tap, s) in src.iter_mut().zip(self.sources(r0 + i)) {
                tap[i] = s.unwrap_or(zero);
            }
        }
        src
    }

    /// The im2col rows of `x` (`[n × cells, cin]`) into `cols` (`[n × cells, 9 × cin]`).
    pub fn gather(&self, x: &[f32], cin: usize, cols: &mut [f32]) {
        let k = 9 * cin;
        for (src, dst) in x
            .chunks_exact(self.cells * cin)
            .zip(cols.chunks_exact_mut(self.cells * k))
        {
            for (row, taps) in dst.chunks_exact_mut(k).zip(self.taps.chunks_exact(9)) {
                for (slot, &tap) in row.chunks_exact_mut(cin).zip(taps) {
                    if tap == NONE {
                        slot.fill(0.0);
                    } else {
                        let at = tap as usize * cin;
                        slot.copy_from_slice(&src[at..at + cin]);
                    }
                }
            }
        }
    }

    /// The adjoint of [`Taps::gather`]: adds to each cell of `dx` (`[n × cells, cin]`)
    /// the im2col gradients `dcols` of every tap that read it.
    pub fn scatter(&self, dcols: &[f32], cin: usize, dx: &mut [f32]) {
        let k = 9 * cin;
        for (src, dst) in dcols
            .chunks_exact(self.cells * k)
            .zip(dx.chunks_exact_mut(self.cells * cin))
        {
            for (row, taps) in src.chunks_exact(k).zip(self.taps.chunks_exact(9)) {
                for (slot, &tap) in row.chunks_exact(cin).zip(taps) {
                    if tap != NONE {
                        let at = tap as usize * cin;
                        for (d, &g) in dst[at..at + cin].iter_mut().zip(slot) {
                            *d += g;
                        }
                    }
                }
            }
        }
    }
}

/// A row-major matrix operand, read as itself or transposed.
#[derive(Clone, Copy)]
pub enum Op<'a> {
    /// `[rows, cols]` as stored.
    N(&'a [f32]),
    /// The transpose of a stored `[cols, rows]` matrix.
    T(&'a [f32]),
}

impl<'a> Op<'a> {
    /// (data, column stride, row stride) of this operand read as `[rows, cols]`.
    fn strides(self, rows: usize, cols: usize) -> (&'a [f32], isize, isize) {
        match self {
            Op::N(a) => (a, 1, cols as isize),
            Op::T(a) => (a, rows as isize, 1),
        }
    }
}

/// `dst[m × n] (+)= lhs[m × k] · rhs[k × n]`, row-major; added to `dst` when
/// `accumulate`, else overwriting it.
pub fn matmul(dst: &mut [f32], lhs: Op, rhs: Op, m: usize, k: usize, n: usize, accumulate: bool) {
    flush_subnormals();
    let (l, l_cs, l_rs) = lhs.strides(m, k);
    let (r, r_cs, r_rs) = rhs.strides(k, n);
    assert!(dst.len() >= m * n && l.len() >= m * k && r.len() >= k * n);
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: the asserts above keep every access inside the three slices; the strides
    // describe row-major matrices (or their transposes) of exactly those sizes.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            l.as_ptr(),
            l_cs,
            l_rs,
            r.as_ptr(),
            r_cs,
            r_rs,
            if accumulate { 1.0 } else { 0.0 },
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Sets the calling thread to treat subnormal floats as zero and to flush subnormal
/// results to zero (x86-64: MXCSR's DAZ and FTZ bits; AArch64: FPCR's FZ bit), once per
/// thread. Every product of the forward and the training step runs through [`matmul`]
/// or the in-place convolution ([`super::direct`]), which call it first, so every
/// thread doing network arithmetic gets it, and so do the element-wise passes
/// it runs after. Without it a network whose dead channels' weights decay below
/// `f32::MIN_POSITIVE` slows down several times over, each such operand taking a
/// microcode assist (docs/performance.md, "Network inference"). Values that small
/// change no output that matters.
pub(super) fn flush_subnormals() {
    thread_local!(static FLUSHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    if FLUSHING.get() {
        return;
    }
    FLUSHING.set(true);
    #[cfg(target_arch = "x86_64")]
    {
        let mut csr: u32 = 0;
        // SAFETY: stmxcsr/ldmxcsr read and write this thread's SSE control register
        // through a valid local; setting DAZ (bit 6) and FTZ (bit 15) changes only how
        // subnormal floats are read and written.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
            csr |= (1 << 6) | (1 << 15);
            std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags));
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: reads and writes this thread's floating-point control register; the
        // FZ bit (24) only flushes subnormal values to zero.
        unsafe {
            let mut fpcr: u64;
            std::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags));
            fpcr |= 1 << 24;
            std::arch::asm!("msr fpcr, {}", in(reg) fpcr, options(nomem, nostack, preserves_flags));
        }
    }
}

/// Weights stored `[cout, cin, taps]` (a convolution's `[out, in, kh, kw]`, or a dense
/// layer's `[out, in]` with one tap) in the products' layout `[taps × cin, cout]`
/// (tap-major, then input channel).
pub fn to_gemm_layout(t: &[f32], cout: usize, cin: usize, taps: usize) -> Vec<f32> {
    let mut w = vec![0.0; taps * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            for k in 0..taps {
                w[(k * cin + i) * cout + o] = t[(o * cin + i) * taps + k];
            }
        }
    }
    w
}

/// The inverse of [`to_gemm_layout`].
pub fn from_gemm_layout(w: &[f32], cout: usize, cin: usize, taps: usize) -> Vec<f32> {
    let mut t = vec![0.0; taps * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            for k in 0..taps {
                t[(o * cin + i) * taps + k] = w[(k * cin + i) * cout + o];
            }
        }
    }
    t
}

/// Makes `v` exactly `len` long (its contents are for the caller to overwrite).
pub fn sized(v: &mut Vec<f32>, len: usize) -> &mut [f32] {
    v.resize(len, 0.0);
    &mut v[..len]
}

/// Cases for the tests of the 3×3 products that read cells in place: three positions of
/// a board with edges (Ataxx: zeros past them) and of one that wraps (Infexion), with
/// each of `cins` input channels and [`CASE_COUT`] output channels.
#[cfg(test)]
pub(crate) mod cases {
    use super::Taps;

    /// Output channels: one whole panel of 32 and one padded.
    pub const CASE_COUT: usize = 40;

    /// One case: the game, its taps, the input channels and the weights `[9 × cin, 40]`.
    pub struct Case {
        pub game: String,
        pub taps: Taps,
        pub cin: usize,
        pub w: Vec<f32>,
    }

    impl Case {
        /// The rows of three positions.
        pub fn rows(&self) -> usize {
            3 * self.taps.cells
        }

        /// Each output `[rows, 40]` of `x` (`[rows, cin]`) in floats through im2col: the
        /// exact value and the sum of its products' magnitudes.
        pub fn exact(&self, x: &[f32]) -> Vec<(f32, f32)> {
            let (k, rows) = (9 * self.cin, self.rows());
            let mut cols = vec![0.0; rows * k];
            self.taps.gather(x, self.cin, &mut cols);
            let mut out = Vec::with_capacity(rows * CASE_COUT);
            for row in cols.chunks_exact(k) {
                for o in 0..CASE_COUT {
                    let terms = (0..k).map(|i| row[i] * self.w[i * CASE_COUT + o]);
                    out.push((terms.clone().sum(), terms.map(f32::abs).sum()));
                }
            }
            out
        }

        /// Asserts `close(exact, size, got)` for every output `got` of `y` (`[rows, 40]`)
        /// against [`Case::exact`]'s for `x`.
        pub fn assert_each(&self, x: &[f32], y: &[f32], close: impl Fn(f32, f32, f32) -> bool) {
            for ((exact, size), &got) in self.exact(x).into_iter().zip(y) {
                assert!(
                    close(exact, size, got),
                    "{} cin {}: {exact} vs {got} ({size})",
                    self.game,
                    self.cin
                );
            }
        }
    }

    /// Every case for `cins`.
    pub fn all(cins: [usize; 2]) -> Vec<Case> {
        let ataxx = crate::games::ataxx::Ataxx::standard();
        let infexion = crate::games::infexion::Board::new();
        let shapes = [
            crate::nn::NetShape::for_game(&ataxx, 1, 8, 8),
            crate::nn::NetShape::for_game(&infexion, 1, 8, 8),
        ];
        (shapes.iter())
            .flat_map(|s| cins.map(|cin| (s, cin)))
            .map(|(shape, cin)| Case {
                game: shape.game.clone(),
                taps: Taps::new(shape),
                cin,
                w: (0..9 * cin * CASE_COUT)
                    .map(|i| ((i * 37 % 101) as f32 - 50.0) / 80.0)
                    .collect(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Op, matmul};
    use std::hint::black_box;

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn products_flush_subnormals_to_zero() {
        // A fresh thread, so the default floating-point mode holds until the product.
        std::thread::spawn(|| {
            let tiny = black_box(1e-20_f32);
            assert!(
                tiny * tiny > 0.0,
                "by default 1e-40 is a subnormal, not zero"
            );
            let mut dst = [1.0_f32];
            matmul(&mut dst, Op::N(&[tiny]), Op::N(&[tiny]), 1, 1, 1, false);
            assert_eq!(dst, [0.0], "a subnormal product is flushed to zero");
            assert_eq!(
                black_box(tiny) * black_box(tiny),
                0.0,
                "and so is the thread's arithmetic after it"
            );
            let mut dst = [1.0_f32];
            matmul(&mut dst, Op::N(&[1e-39]), Op::N(&[1e30]), 1, 1, 1, false);
            assert_eq!(dst, [0.0], "a subnormal operand reads as zero");
        })
        .join()
        .unwrap();
    }
}
