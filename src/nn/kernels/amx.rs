//! The bf16 3×3 convolution on AMX tiles (Intel's Advanced Matrix Extensions, from
//! Sapphire Rapids on): `tdpbf16ps` multiplies a 16 × 32 tile of bfloat16 activations by
//! a 32 × 16 tile of bfloat16 weights into a 16 × 16 tile of float sums, 8,192
//! multiply-adds an instruction where an AVX-512 FMA does 16.
//!
//! - **Weights** are rounded to bfloat16 once, when the network is built, and laid out
//!   as the tiles the product loads: per tap, 32 input channels and 16 output channels,
//!   16 rows of 16 pairs of consecutive input channels (AMX's pair layout).
//! - **Activations** are rounded to bfloat16 once per cell (32 channels a 64-byte tile
//!   row, the input channels padded with zeros to a multiple of 32) into boards with a
//!   border of one cell (zeros, or a torus's wrapped cells): a tap's 16 rows of a tile
//!   are then 16 consecutive cells, which the tile loads where they lie. Copying each
//!   tile's rows from their cells instead took 20% of the engine's time.
//! - Each pass computes 32 consecutive padded cells × 32 output channels in four
//!   accumulator tiles (the border's cells computed and dropped): per tap and 32 input
//!   channels, two activation tiles and two weight tiles loaded, four products.
//!
//! The same numbers as [`super::bf16`]'s product (bfloat16 operands, float sums), so
//! `bf16` on a CPU with AMX computes what it does elsewhere, in another order. Linux
//! lends a process the tiles' 8 KiB of state only on request (`arch_prctl`), which
//! [`available`] makes once.

#[cfg(target_arch = "x86_64")]
use super::bf16::round32;
use super::bf16::to_bf16;
use super::conv::Taps;
use std::cell::RefCell;

/// Rows a tile, and channels a tile row (64 bytes of bfloat16).
const TILE: usize = 16;
const CH: usize = 32;
/// Rows a pass, and output channels a pass: two tiles each.
const ROWS: usize = 2 * TILE;
const COUT: usize = 2 * TILE;

/// Whether the CPU has AMX with bf16 (and AVX-512 BF16, which rounds the activations)
/// and the OS let this process use the tiles.
pub fn available() -> bool {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *OK.get_or_init(|| cpu_has_amx() && os::request_tiles())
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        false
    }
}

/// CPUID leaf 7: AMX-BF16 (EDX bit 22) and AMX-TILE (bit 24), with what
/// [`super::bf16::available`] needs (AVX-512 F and BF16).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn cpu_has_amx() -> bool {
    use std::arch::x86_64::__cpuid_count;
    if __cpuid_count(0, 0).eax < 7 {
        return false;
    }
    let edx = __cpuid_count(7, 0).edx;
    edx >> 22 & 1 == 1 && edx >> 24 & 1 == 1 && super::bf16::available()
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod os {
    /// `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`: asks Linux (5.16 on) to
    /// save and restore this process's tile data; true when it agreed.
    pub fn request_tiles() -> bool {
        const SYS_ARCH_PRCTL: i64 = 158;
        const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
        const XFEATURE_XTILEDATA: i64 = 18;
        let ret: i64;
        // SAFETY: the system call reads its two integer arguments and changes only
        // which register state the kernel saves for this process.
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") SYS_ARCH_PRCTL => ret,
                in("rdi") ARCH_REQ_XCOMP_PERM,
                in("rsi") XFEATURE_XTILEDATA,
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
        ret == 0
    }
}

/// 32 bfloat16s: one tile row.
type Row = [u16; CH];

/// A 3×3 convolution's weights in bfloat16 tiles for [`AConv::product_cells`].
#[derive(Debug, Clone)]
pub struct AConv {
    cin: usize,
    /// Tile rows a cell: input channels / 32, rounded up.
    chunks: usize,
    cout: usize,
    /// Output channels, padded to a multiple of [`COUT`].
    cout_pad: usize,
    /// Tiles `[9, chunks, cout_pad / 16]`, each 16 rows of 16 pairs.
    w: Vec<Row>,
}

thread_local! {
    /// Each thread's padded cells ([`Padded`]), reused across calls.
    static CELLS: RefCell<Vec<Row>> = const { RefCell::new(Vec::new()) };
}

impl AConv {
    /// The weights in the products' layout `[9 × cin, cout]` (see
    /// [`super::conv::to_gemm_layout`]).
    pub fn new(w: &[f32], k: usize, cout: usize) -> AConv {
        assert_eq!(k % 9, 0, "a 3×3 convolution's products come in nine taps");
        let cin = k / 9;
        let (chunks, cout_pad) = (cin.div_ceil(CH), cout.div_ceil(COUT) * COUT);
        let blocks = cout_pad / TILE;
        let mut tiles = vec![[0u16; CH]; 9 * chunks * blocks * TILE];
        for t in 0..9 {
            for c in 0..cin {
                for o in 0..cout {
                    let (j, kk, e) = (c / CH, c % CH / 2, c % 2);
                    let tile = (t * chunks + j) * blocks + o / TILE;
                    tiles[tile * TILE + kk][(o % TILE) * 2 + e] =
                        to_bf16(w[(t * cin + c) * cout + o]);
                }
            }
        }
        AConv {
            cin,
            chunks,
            cout,
            cout_pad,
            w: tiles,
        }
    }

    /// `y[r, o] = Σ_t Σ_c x[src(r, t), c] · w[t, c, o]` for `rows` rows of `x`
    /// (`[rows, cin]`, whole boards), each row's nine sources given by `taps`, into `y`
    /// (`[rows, cout]`), in bf16 with float sums.
    pub fn product_cells(&self, x: &[f32], taps: &Taps, rows: usize, y: &mut [f32]) {
        assert!(x.len() >= rows * self.cin && y.len() >= rows * self.cout);
        assert_eq!(
            rows % taps.cells,
            0,
            "the AMX convolution takes whole boards"
        );
        assert!(
            available(),
            "the AMX convolution needs AMX-BF16 and the OS's leave"
        );
        if rows == 0 {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        CELLS.with(|cells| {
            let cells = &mut *cells.borrow_mut();
            let pad = Padded::new(taps, self.chunks, rows / taps.cells);
            pad.fill(x, self.cin, cells);
            let mut c = [[0.0f32; COUT]; ROWS];
            // SAFETY: `available` checked AMX and the OS's leave; the tiles are
            // configured before any other tile instruction and released at the end.
            unsafe { tiles::configure() };
            for b in 0..pad.boards {
                for k in 0..pad.passes {
                    // Padded rows `q0..q0 + 32` of board `b`, from its first cell on.
                    let q0 = b * pad.size + pad.first + k * ROWS;
                    for p in 0..self.cout_pad / COUT {
                        // SAFETY: as above; `Padded::new` sized `cells` for every tile the
                        // passes read, and `product` loads whole tiles of `self.w`.
                        unsafe { self.product(cells, &pad, q0, p, &mut c) };
                        let m = (self.cout - COUT * p).min(COUT);
                        for (i, ci) in c.iter().enumerate() {
                            if let Some(cell) = pad.cell(k * ROWS + i) {
                                let at = ((b * taps.cells + cell) * self.cout) + COUT * p;
                                y[at..at + m].copy_from_slice(&ci[..m]);
                            }
                        }
                    }
                }
            }
            // SAFETY: as above.
            unsafe { tiles::release() };
        });
    }

    /// Output channels `32 p..32 p + 32` of the 32 padded rows from `q0`, into `c`.
    ///
    /// # Safety
    /// The CPU must have AMX-BF16 and this thread's tiles be configured
    /// ([`tiles::configure`]).
    #[cfg(target_arch = "x86_64")]
    unsafe fn product(
        &self,
        cells: &[Row],
        pad: &Padded,
        q0: usize,
        p: usize,
        c: &mut [[f32; COUT]; ROWS],
    ) {
        let (chunks, blocks, pw) = (self.chunks, self.cout_pad / TILE, pad.width);
        assert!(q0 > pw && (q0 + ROWS + pw + 1) * chunks <= cells.len());
        assert!(self.w.len() == 9 * chunks * blocks * TILE && 2 * p + 1 < blocks);
        let stride = size_of::<Row>() * chunks;
        // SAFETY: every tile read lies in `cells` (rows `q0 - pw - 1..q0 + 32 + pw + 1`,
        // the assert) or `self.w` (the assert), and `c` holds the four tiles written.
        unsafe {
            tiles::zero();
            for t in 0..9 {
                // Tap `t` reads the cell `t / 3 - 1` rows and `t % 3 - 1` columns away.
                let q = q0 + (t / 3) * pw + t % 3 - pw - 1;
                for j in 0..chunks {
                    let a0 = cells.as_ptr().add(q * chunks + j);
                    let a1 = a0.add(TILE * chunks);
                    let b0 = self
                        .w
                        .as_ptr()
                        .add(((t * chunks + j) * blocks + 2 * p) * TILE);
                    tiles::multiply(a0, a1, stride, b0, b0.add(TILE));
                }
            }
            tiles::store(c);
        }
    }
}

/// Boards laid out with a border of one cell all round (zeros, or the wrapped cells of a
/// torus), so that a tap's 16 rows of a tile are 16 consecutive padded cells: the tile
/// loads them where they lie. Each pass computes 32 consecutive padded cells from a
/// board's first; those on the border are computed and dropped.
struct Padded {
    boards: usize,
    height: usize,
    /// Padded columns, and cells a padded board.
    width: usize,
    size: usize,
    /// The padded index of a board's first cell, and the passes that cover its last.
    first: usize,
    passes: usize,
    chunks: usize,
    wraps: bool,
}

impl Padded {
    fn new(taps: &Taps, chunks: usize, boards: usize) -> Padded {
        let (h, w) = (taps.height, taps.width);
        let width = w + 2;
        let first = width + 1;
        Padded {
            boards,
            height: h,
            width,
            size: (h + 2) * width,
            first,
            passes: ((h - 1) * width + w).div_ceil(ROWS),
            chunks,
            wraps: taps.wraps,
        }
    }

    /// Padded cells the buffer holds: the boards, then what the last pass reads past them.
    fn len(&self) -> usize {
        (self.boards - 1) * self.size + self.first + self.passes * ROWS + self.width + 1
    }

    /// The board's cell at padded offset `i` from its first cell, if it is not border.
    fn cell(&self, i: usize) -> Option<usize> {
        let q = self.first + i;
        let (r, c) = (q / self.width, q % self.width);
        ((1..=self.height).contains(&r) && (1..self.width - 1).contains(&c))
            .then(|| (r - 1) * (self.width - 2) + c - 1)
    }

    /// `x`'s cells (`[boards × cells, cin]`) rounded to bfloat16 into `cells`, with the
    /// borders.
    #[cfg(target_arch = "x86_64")]
    fn fill(&self, x: &[f32], cin: usize, cells: &mut Vec<Row>) {
        let (h, w, ch) = (self.height, self.width - 2, self.chunks);
        cells.clear();
        cells.resize(self.len() * ch, [0; CH]);
        for (b, board) in x.chunks_exact(h * w * cin).take(self.boards).enumerate() {
            let at = |r: usize, c: usize| (b * self.size + r * self.width + c) * ch;
            for (i, cell) in board.chunks_exact(cin).enumerate() {
                let q = at(i / w + 1, i % w + 1);
                // SAFETY: `available` checked AVX-512 F and BF16.
                unsafe { round_cell(cell, &mut cells[q..q + ch]) };
            }
            if self.wraps {
                // The border: the cells across the torus (the corners too).
                for r in 0..h + 2 {
                    for c in 0..w + 2 {
                        if (1..=h).contains(&r) && (1..=w).contains(&c) {
                            continue;
                        }
                        let from = at((r + h - 1) % h + 1, (c + w - 1) % w + 1);
                        cells.copy_within(from..from + ch, at(r, c));
                    }
                }
            }
        }
    }
}

/// `cell`'s channels rounded to bfloat16 into its tile rows `out` (zeros past `cin`).
///
/// # Safety
/// The CPU must have AVX-512 F and BF16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn round_cell(cell: &[f32], out: &mut [Row]) {
    for (j, row) in out.iter_mut().enumerate() {
        let part = &cell[(j * CH).min(cell.len())..((j + 1) * CH).min(cell.len())];
        if let Ok(whole) = <&[f32; CH]>::try_from(part) {
            // SAFETY: the CPU has AVX-512 F and BF16 (this function's features).
            unsafe { round32(whole, row) };
        } else {
            *row = [0; CH];
            for (o, &v) in row.iter_mut().zip(part) {
                *o = to_bf16(v);
            }
        }
    }
}

/// The tile instructions, each in its own `asm!` block: the compiler never touches the
/// tile registers, so they keep their contents between blocks.
#[cfg(target_arch = "x86_64")]
mod tiles {
    use super::{COUT, ROWS, Row, TILE};
    use std::arch::asm;

    /// Palette 1, tiles 0-7 of 16 rows × 64 bytes: tmm0-3 the sums (two rows of tiles ×
    /// two of output channels), tmm4-5 the activations, tmm6-7 the weights.
    #[repr(C, align(64))]
    struct Config([u8; 64]);

    const CONFIG: Config = {
        let mut c = [0u8; 64];
        c[0] = 1;
        let mut t = 0;
        while t < 8 {
            c[16 + 2 * t] = 64;
            c[48 + t] = TILE as u8;
            t += 1;
        }
        Config(c)
    };

    /// Loads the tile configuration on this thread.
    ///
    /// # Safety
    /// The CPU must have AMX and the kernel must have granted this thread its tile
    /// state.
    pub unsafe fn configure() {
        // SAFETY: the caller checked AMX; the configuration is 64 readable bytes.
        unsafe { asm!("ldtilecfg [{0}]", in(reg) CONFIG.0.as_ptr(), options(nostack, readonly)) };
    }

    /// Returns the tiles to their initial state.
    ///
    /// # Safety
    /// As for [`configure`].
    pub unsafe fn release() {
        // SAFETY: as for `configure`.
        unsafe { asm!("tilerelease", options(nostack, nomem)) };
    }

    /// Zeros the four sums.
    ///
    /// # Safety
    /// The tiles must be configured on this thread ([`configure`]).
    pub unsafe fn zero() {
        // SAFETY: configured tiles.
        unsafe {
            asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                options(nostack, nomem)
            )
        };
    }

    /// Adds `a0 · b0`, `a0 · b1`, `a1 · b0`, `a1 · b1` to the four sums (each pointer a
    /// tile of 16 rows of 64 bytes, the activations' rows `stride` bytes apart, the
    /// weights' 64).
    ///
    /// # Safety
    /// The tiles must be configured on this thread ([`configure`]); `a0`, `a1` must
    /// each point at 16 readable rows `stride` bytes apart, and `b0`, `b1` at 16
    /// readable rows of 64 bytes.
    pub unsafe fn multiply(
        a0: *const Row,
        a1: *const Row,
        stride: usize,
        b0: *const Row,
        b1: *const Row,
    ) {
        // SAFETY: the caller passes whole tiles.
        unsafe {
            asm!(
                "tileloadd tmm4, [{a0} + {sa}*1]",
                "tileloadd tmm5, [{a1} + {sa}*1]",
                "tileloadd tmm6, [{b0} + {s}*1]",
                "tileloadd tmm7, [{b1} + {s}*1]",
                "tdpbf16ps tmm0, tmm4, tmm6",
                "tdpbf16ps tmm1, tmm4, tmm7",
                "tdpbf16ps tmm2, tmm5, tmm6",
                "tdpbf16ps tmm3, tmm5, tmm7",
                a0 = in(reg) a0,
                a1 = in(reg) a1,
                b0 = in(reg) b0,
                b1 = in(reg) b1,
                sa = in(reg) stride,
                s = in(reg) size_of::<Row>(),
                options(nostack, readonly)
            )
        };
    }

    /// Stores the four sums into `c`: 32 rows × [`COUT`] output channels.
    ///
    /// # Safety
    /// The tiles must be configured on this thread ([`configure`]).
    pub unsafe fn store(c: &mut [[f32; COUT]; ROWS]) {
        let p = c.as_mut_ptr().cast::<f32>();
        // SAFETY: each tile is 16 rows of 16 floats at a row stride of `COUT` floats, inside `c`.
        unsafe {
            asm!(
                "tilestored [{c0} + {s}*1], tmm0",
                "tilestored [{c1} + {s}*1], tmm1",
                "tilestored [{c2} + {s}*1], tmm2",
                "tilestored [{c3} + {s}*1], tmm3",
                c0 = in(reg) p,
                c1 = in(reg) p.add(TILE),
                c2 = in(reg) p.add(TILE * COUT),
                c3 = in(reg) p.add(TILE * COUT + TILE),
                s = in(reg) size_of::<[f32; COUT]>(),
                options(nostack)
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::kernels::conv::cases::{self, CASE_COUT};

    #[test]
    fn the_amx_product_is_close_to_the_float_one() {
        if !available() {
            return;
        }
        // 40 input channels (a whole tile row and a padded one), and 5 (the stem's planes).
        for case in cases::all([40, 5]) {
            let (cin, rows) = (case.cin, case.rows());
            let x: Vec<f32> = (0..rows * cin)
                .map(|i| (i * 13 % 29) as f32 / 9.0 - 1.0)
                .collect();
            let mut y = vec![f32::NAN; rows * CASE_COUT];
            let conv = AConv::new(&case.w, 9 * cin, CASE_COUT);
            conv.product_cells(&x, &case.taps, rows, &mut y);
            // No boards: nothing to compute.
            conv.product_cells(&[], &case.taps, 0, &mut []);
            // Within 0.5% of the products' total size (2^-9 on each side).
            case.assert_each(&x, &y, |exact, size, got| {
                (exact - got).abs() < 0.005 * size + 1e-6
            });
        }
    }
}
