//! The evaluator's integer arithmetic: the accumulator's row additions, the clipped
//! activation and the dense layer, in a scalar form and in AVX2 and AVX-512 forms
//! chosen at run time ([`Kernel::detect`]).
//!
//! Integer sums are exact and wrap the same way in every form, so every form returns the
//! scalar form's result bit for bit (`tests` hold them to it on random data). Values:
//! the accumulator is `i16` (wrapping), the activation clips it to `0..=QA`, the dense
//! layer multiplies `i16` activations by `i16` weights into `i32` sums.

/// The activation's top: a unit's value 1.0 is `QA` in integers.
pub const QA: i16 = 127;

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

    /// `acc[i] += row[i]` (wrapping), for equal lengths.
    pub fn add(self, acc: &mut [i16], row: &[i16]) {
        assert_eq!(acc.len(), row.len(), "kernel add: lengths");
        match self {
            Kernel::Scalar => scalar::add(acc, row),
            // SAFETY: `Avx2` and `Avx512` come only from `available`, which checked the
            // CPU for them (or from a caller who did, as the tests do).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::add_avx2(acc, row) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::add_avx512(acc, row) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::add(acc, row),
        }
    }

    /// `acc[i] -= row[i]` (wrapping), for equal lengths.
    pub fn sub(self, acc: &mut [i16], row: &[i16]) {
        assert_eq!(acc.len(), row.len(), "kernel sub: lengths");
        match self {
            Kernel::Scalar => scalar::sub(acc, row),
            // SAFETY: see `add`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::sub_avx2(acc, row) },
            // SAFETY: see `add`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::sub_avx512(acc, row) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::sub(acc, row),
        }
    }

    /// `out[i] = clamp(x[i], 0, QA)`.
    pub fn crelu(self, x: &[i16], out: &mut [i16]) {
        assert_eq!(x.len(), out.len(), "kernel crelu: lengths");
        match self {
            Kernel::Scalar => scalar::crelu(x, out),
            // SAFETY: see `add`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::crelu_avx2(x, out) },
            // SAFETY: see `add`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::crelu_avx512(x, out) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::crelu(x, out),
        }
    }

    /// `out[j] = b[j] + Σ_i x[i] · w[j · n + i]` (wrapping `i32`), `n = x.len()`.
    pub fn dense(self, x: &[i16], w: &[i16], b: &[i32], out: &mut [i32]) {
        assert_eq!(w.len(), x.len() * out.len(), "kernel dense: weights");
        assert_eq!(b.len(), out.len(), "kernel dense: biases");
        match self {
            Kernel::Scalar => scalar::dense(x, w, b, out),
            // SAFETY: see `add`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::dense_avx2(x, w, b, out) },
            // SAFETY: see `add`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::dense_avx512(x, w, b, out) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::dense(x, w, b, out),
        }
    }
}

/// The reference forms.
mod scalar {
    use super::QA;

    pub fn add(acc: &mut [i16], row: &[i16]) {
        for (a, r) in acc.iter_mut().zip(row) {
            *a = a.wrapping_add(*r);
        }
    }

    pub fn sub(acc: &mut [i16], row: &[i16]) {
        for (a, r) in acc.iter_mut().zip(row) {
            *a = a.wrapping_sub(*r);
        }
    }

    pub fn crelu(x: &[i16], out: &mut [i16]) {
        for (o, v) in out.iter_mut().zip(x) {
            *o = (*v).clamp(0, QA);
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
mod x86 {
    use std::arch::x86_64::*;

    use super::{QA, scalar};

    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn add_avx2(acc: &mut [i16], row: &[i16]) {
        let n = acc.len() / 16 * 16;
        for i in (0..n).step_by(16) {
            // SAFETY: `i + 16 <= n <= len` for both slices (equal lengths); unaligned loads.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                let r = _mm256_loadu_si256(row.as_ptr().add(i).cast());
                _mm256_storeu_si256(acc.as_mut_ptr().add(i).cast(), _mm256_add_epi16(a, r));
            }
        }
        scalar::add(&mut acc[n..], &row[n..]);
    }

    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn sub_avx2(acc: &mut [i16], row: &[i16]) {
        let n = acc.len() / 16 * 16;
        for i in (0..n).step_by(16) {
            // SAFETY: as in `add_avx2`.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                let r = _mm256_loadu_si256(row.as_ptr().add(i).cast());
                _mm256_storeu_si256(acc.as_mut_ptr().add(i).cast(), _mm256_sub_epi16(a, r));
            }
        }
        scalar::sub(&mut acc[n..], &row[n..]);
    }

    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn crelu_avx2(x: &[i16], out: &mut [i16]) {
        let n = x.len() / 16 * 16;
        let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA));
        for i in (0..n).step_by(16) {
            // SAFETY: as in `add_avx2`.
            unsafe {
                let v = _mm256_loadu_si256(x.as_ptr().add(i).cast());
                let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), v);
            }
        }
        scalar::crelu(&x[n..], &mut out[n..]);
    }

    /// # Safety
    /// The CPU must have AVX2; `w.len() == x.len() * out.len()`, `b.len() == out.len()`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn dense_avx2(x: &[i16], w: &[i16], b: &[i32], out: &mut [i32]) {
        let len = x.len();
        let n = len / 16 * 16;
        for (j, o) in out.iter_mut().enumerate() {
            let row = &w[j * len..(j + 1) * len];
            let mut sum = _mm256_setzero_si256();
            for i in (0..n).step_by(16) {
                // SAFETY: `i + 16 <= n <= len` for `x` and `row`; unaligned loads.
                unsafe {
                    let a = _mm256_loadu_si256(x.as_ptr().add(i).cast());
                    let c = _mm256_loadu_si256(row.as_ptr().add(i).cast());
                    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(a, c));
                }
            }
            let mut lanes = [0i32; 8];
            // SAFETY: `lanes` holds 8 `i32`, 32 bytes.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
            let s = lanes.iter().fold(0i32, |s, v| s.wrapping_add(*v));
            *o = b[j]
                .wrapping_add(s)
                .wrapping_add(scalar::dot(&x[n..], &row[n..]));
        }
    }

    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn add_avx512(acc: &mut [i16], row: &[i16]) {
        let n = acc.len() / 32 * 32;
        for i in (0..n).step_by(32) {
            // SAFETY: `i + 32 <= n <= len` for both slices; unaligned loads.
            unsafe {
                let a = _mm512_loadu_si512(acc.as_ptr().add(i).cast());
                let r = _mm512_loadu_si512(row.as_ptr().add(i).cast());
                _mm512_storeu_si512(acc.as_mut_ptr().add(i).cast(), _mm512_add_epi16(a, r));
            }
        }
        scalar::add(&mut acc[n..], &row[n..]);
    }

    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn sub_avx512(acc: &mut [i16], row: &[i16]) {
        let n = acc.len() / 32 * 32;
        for i in (0..n).step_by(32) {
            // SAFETY: as in `add_avx512`.
            unsafe {
                let a = _mm512_loadu_si512(acc.as_ptr().add(i).cast());
                let r = _mm512_loadu_si512(row.as_ptr().add(i).cast());
                _mm512_storeu_si512(acc.as_mut_ptr().add(i).cast(), _mm512_sub_epi16(a, r));
            }
        }
        scalar::sub(&mut acc[n..], &row[n..]);
    }

    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn crelu_avx512(x: &[i16], out: &mut [i16]) {
        let n = x.len() / 32 * 32;
        let (zero, top) = (_mm512_setzero_si512(), _mm512_set1_epi16(QA));
        for i in (0..n).step_by(32) {
            // SAFETY: as in `add_avx512`.
            unsafe {
                let v = _mm512_loadu_si512(x.as_ptr().add(i).cast());
                let v = _mm512_min_epi16(_mm512_max_epi16(v, zero), top);
                _mm512_storeu_si512(out.as_mut_ptr().add(i).cast(), v);
            }
        }
        scalar::crelu(&x[n..], &mut out[n..]);
    }

    /// # Safety
    /// The CPU must have AVX-512 F and BW; shapes as in `dense_avx2`.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn dense_avx512(x: &[i16], w: &[i16], b: &[i32], out: &mut [i32]) {
        let len = x.len();
        let n = len / 32 * 32;
        for (j, o) in out.iter_mut().enumerate() {
            let row = &w[j * len..(j + 1) * len];
            let mut sum = _mm512_setzero_si512();
            for i in (0..n).step_by(32) {
                // SAFETY: `i + 32 <= n <= len` for `x` and `row`; unaligned loads.
                unsafe {
                    let a = _mm512_loadu_si512(x.as_ptr().add(i).cast());
                    let c = _mm512_loadu_si512(row.as_ptr().add(i).cast());
                    sum = _mm512_add_epi32(sum, _mm512_madd_epi16(a, c));
                }
            }
            let s = _mm512_reduce_add_epi32(sum);
            *o = b[j]
                .wrapping_add(s)
                .wrapping_add(scalar::dot(&x[n..], &row[n..]));
        }
    }
}

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
            for len in [1, 15, 16, 31, 32, 100, 128, 256] {
                let acc0 = random(&mut rng, len, 32767);
                let row = random(&mut rng, len, 32767);
                let (mut a, mut s) = (acc0.clone(), acc0.clone());
                kernel.add(&mut a, &row);
                Kernel::Scalar.add(&mut s, &row);
                assert_eq!(a, s, "{kernel:?} add, {len}");
                kernel.sub(&mut a, &row);
                Kernel::Scalar.sub(&mut s, &row);
                assert_eq!(a, s, "{kernel:?} sub, {len}");
                assert_eq!(a, acc0);
                let (mut c, mut cs) = (vec![0; len], vec![0; len]);
                kernel.crelu(&acc0, &mut c);
                Kernel::Scalar.crelu(&acc0, &mut cs);
                assert_eq!(c, cs, "{kernel:?} crelu, {len}");
                for outs in [1, 3, 32] {
                    let w = random(&mut rng, len * outs, 32767);
                    let b: Vec<i32> = (0..outs)
                        .map(|_| rng.below(1 << 30) as i32 - (1 << 29))
                        .collect();
                    let (mut o, mut os) = (vec![0; outs], vec![0; outs]);
                    kernel.dense(&c, &w, &b, &mut o);
                    Kernel::Scalar.dense(&cs, &w, &b, &mut os);
                    assert_eq!(o, os, "{kernel:?} dense, {len}x{outs}");
                }
            }
        }
    }
}
