//! The AVX2 and AVX-512 forms of the evaluator's arithmetic, each held to the scalar
//! form (the `scalar` module) bit for bit.

use std::arch::x86_64::*;

use super::{PAIRS, nonzero_pairs, scalar};

/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn crelu_avx2(x: &[i16], top: i16, out: &mut [i16]) {
    let n = x.len() / 16 * 16;
    let (zero, hi) = (_mm256_setzero_si256(), _mm256_set1_epi16(top));
    for i in (0..n).step_by(16) {
        // SAFETY: `i + 16 <= n <= len` for both slices (equal lengths); unaligned loads.
        unsafe {
            let v = _mm256_loadu_si256(x.as_ptr().add(i).cast());
            let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), hi);
            _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), v);
        }
    }
    scalar::crelu(&x[n..], top, &mut out[n..]);
}

/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn crelu_avx512(x: &[i16], top: i16, out: &mut [i16]) {
    let n = x.len() / 32 * 32;
    let (zero, hi) = (_mm512_setzero_si512(), _mm512_set1_epi16(top));
    for i in (0..n).step_by(32) {
        // SAFETY: `i + 32 <= n <= len` for both slices (equal lengths); unaligned loads.
        unsafe {
            let v = _mm512_loadu_si512(x.as_ptr().add(i).cast());
            let v = _mm512_min_epi16(_mm512_max_epi16(v, zero), hi);
            _mm512_storeu_si512(out.as_mut_ptr().add(i).cast(), v);
        }
    }
    scalar::crelu(&x[n..], top, &mut out[n..]);
}

/// `Kernel::moved` on one instruction set: `$block::<N>` moves `N` registers of lanes
/// from `start`, held across the rows; `$moved` covers the accumulator by blocks of 8, 4
/// and 1 registers, the scalar form the tail.
macro_rules! moved_form {
    ($moved:ident, $block:ident, $feature:literal, $lanes:literal, $zero:ident, $load:ident,
     $store:ident, $add:ident, $sub:ident) => {
        /// # Safety
        #[doc = concat!("The CPU must have ", $feature, "; `start + ", $lanes, " N <= out.len() == base.len()`,")]
        /// and every row of `added` and `removed` lies within `table`.
        #[target_feature(enable = $feature)]
        unsafe fn $block<const N: usize>(
            start: usize,
            out: &mut [i16],
            base: &[i16],
            table: &[i16],
            added: &[u32],
            removed: &[u32],
        ) {
            let h = out.len();
            // SAFETY: every load and store below lies within `base`, `out` or a row of
            // `table`, by the caller's bounds.
            unsafe {
                let mut r = [$zero(); N];
                for (k, v) in r.iter_mut().enumerate() {
                    *v = $load(base.as_ptr().add(start + $lanes * k).cast());
                }
                for &f in removed {
                    let row = table.as_ptr().add(f as usize * h + start);
                    for (k, v) in r.iter_mut().enumerate() {
                        *v = $sub(*v, $load(row.add($lanes * k).cast()));
                    }
                }
                for &f in added {
                    let row = table.as_ptr().add(f as usize * h + start);
                    for (k, v) in r.iter_mut().enumerate() {
                        *v = $add(*v, $load(row.add($lanes * k).cast()));
                    }
                }
                for (k, v) in r.iter().enumerate() {
                    $store(out.as_mut_ptr().add(start + $lanes * k).cast(), *v);
                }
            }
        }

        /// # Safety
        #[doc = concat!("The CPU must have ", $feature, "; every row of `added` and `removed` lies")]
        /// within `table`.
        #[target_feature(enable = $feature)]
        pub unsafe fn $moved(
            out: &mut [i16],
            base: &[i16],
            table: &[i16],
            added: &[u32],
            removed: &[u32],
        ) {
            let (h, mut start) = (out.len(), 0);
            // SAFETY: each block ends within `h`; the rows as the caller says.
            unsafe {
                while start + 8 * $lanes <= h {
                    $block::<8>(start, out, base, table, added, removed);
                    start += 8 * $lanes;
                }
                if start + 4 * $lanes <= h {
                    $block::<4>(start, out, base, table, added, removed);
                    start += 4 * $lanes;
                }
                while start + $lanes <= h {
                    $block::<1>(start, out, base, table, added, removed);
                    start += $lanes;
                }
            }
            // The scalar form the lanes left, where any are (a walk over every row
            // otherwise, for nothing).
            if start < h {
                scalar::moved_from(start, out, base, table, added, removed);
            }
        }
    };
}

moved_form!(
    moved_avx512,
    moved_block_avx512,
    "avx512f,avx512bw",
    32,
    _mm512_setzero_si512,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_add_epi16,
    _mm512_sub_epi16
);
moved_form!(
    moved_avx2,
    moved_block_avx2,
    "avx2",
    16,
    _mm256_setzero_si256,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_add_epi16,
    _mm256_sub_epi16
);

/// `nonzero_pairs` of the block of pairs from `start`, 16 pairs a step.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn nonzero_pairs_avx512(
    x: &[i16],
    start: usize,
    index: &mut [u32; PAIRS],
    pair: &mut [i32; PAIRS],
) -> usize {
    let end = x.len().div_ceil(2).min(start + PAIRS);
    // Whole steps of 16 pairs within `x`.
    let whole = start + (end.min(x.len() / 2) - start) / 16 * 16;
    let (mut count, mut p) = (0, start);
    let mut iota = _mm512_add_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(start as i32),
    );
    while p < whole {
        // SAFETY: `2p + 32 <= x.len()` (`p + 16 <= whole <= x.len() / 2`); the
        // stores at `count <= p - start` end by `p + 16 - start <= PAIRS`.
        unsafe {
            let v = _mm512_loadu_si512(x.as_ptr().add(2 * p).cast());
            let m = _mm512_test_epi32_mask(v, v);
            let packed = _mm512_maskz_compress_epi32(m, v);
            _mm512_storeu_si512(pair.as_mut_ptr().add(count).cast(), packed);
            let at = _mm512_maskz_compress_epi32(m, iota);
            _mm512_storeu_si512(index.as_mut_ptr().add(count).cast(), at);
            count += m.count_ones() as usize;
        }
        iota = _mm512_add_epi32(iota, _mm512_set1_epi32(16));
        p += 16;
    }
    nonzero_pairs(x, p..end, index, pair, count)
}

/// Adds `lanes` (a register's outputs from output `first`) into `out`.
fn add_lanes(out: &mut [i32], first: usize, lanes: &[i32]) {
    for (o, l) in out[first..].iter_mut().zip(lanes) {
        *o = o.wrapping_add(*l);
    }
}

/// # Safety
/// The CPU must have AVX2; `w` in `Kernel::Avx2`'s dense layout for `x` and `out`
/// (its length checked by `Kernel::dense`).
#[target_feature(enable = "avx2")]
pub unsafe fn dense_avx2(x: &[i16], w: &[i16], b: &[i32], out: &mut [i32]) {
    const WIDTH: usize = 8;
    let padded = out.len().div_ceil(WIDTH) * WIDTH;
    out.copy_from_slice(b);
    let (mut index, mut pair) = ([0; PAIRS], [0; PAIRS]);
    let pairs = x.len().div_ceil(2);
    for start in (0..pairs).step_by(PAIRS) {
        let block = start..pairs.min(start + PAIRS);
        let count = nonzero_pairs(x, block, &mut index, &mut pair, 0);
        for first in (0..out.len()).step_by(WIDTH) {
            let mut sum = _mm256_setzero_si256();
            for k in 0..count {
                let at = (index[k] as usize * padded + first) * 2;
                // SAFETY: `at + 2 · WIDTH <= w.len()`: pair `index[k]` is below
                // `x.len().div_ceil(2)` and `first + WIDTH <= padded`.
                unsafe {
                    let c = _mm256_loadu_si256(w.as_ptr().add(at).cast());
                    let a = _mm256_set1_epi32(pair[k]);
                    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(a, c));
                }
            }
            let mut lanes = [0i32; WIDTH];
            // SAFETY: `lanes` holds 8 `i32`, 32 bytes.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
            add_lanes(out, first, &lanes);
        }
    }
}

/// # Safety
/// The CPU must have AVX-512 F and BW; `w` in `Kernel::Avx512`'s dense layout for
/// `x` and `out` (its length checked by `Kernel::dense`).
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn dense_avx512(x: &[i16], w: &[i16], b: &[i32], out: &mut [i32]) {
    const WIDTH: usize = 16;
    let padded = out.len().div_ceil(WIDTH) * WIDTH;
    out.copy_from_slice(b);
    let (mut index, mut pair) = ([0; PAIRS], [0; PAIRS]);
    let pairs = x.len().div_ceil(2);
    for start in (0..pairs).step_by(PAIRS) {
        // SAFETY: the caller's AVX-512.
        let count = unsafe { nonzero_pairs_avx512(x, start, &mut index, &mut pair) };
        for first in (0..out.len()).step_by(WIDTH) {
            let mut sum = _mm512_setzero_si512();
            for k in 0..count {
                let at = (index[k] as usize * padded + first) * 2;
                // SAFETY: as in `dense_avx2`, with 16 outputs a register.
                unsafe {
                    let c = _mm512_loadu_si512(w.as_ptr().add(at).cast());
                    let a = _mm512_set1_epi32(pair[k]);
                    sum = _mm512_add_epi32(sum, _mm512_madd_epi16(a, c));
                }
            }
            let mut lanes = [0i32; WIDTH];
            // SAFETY: `lanes` holds 16 `i32`, 64 bytes.
            unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), sum) };
            add_lanes(out, first, &lanes);
        }
    }
}
