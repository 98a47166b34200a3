//! Which forward a network runs: every product in floats, or the residual blocks'
//! 3×3 convolutions in fewer bits, chosen at run time by the CPU's features.
//!
//! The stem (it reads the encoded planes) stays in floats in every forward; the blocks
//! run as [`Forward::plan`] says:
//!
//! - `fp32`: floats ([`super::conv`]), on every CPU: the reference and the fallback.
//! - `int8`: int8 products ([`super::quant`]), with AVX-512 VNNI, but for the first
//!   block, which stays in floats: int8's rounding there is what every later block
//!   amplifies (with it in int8 too, Ataxx's values strayed by 0.027 at the 99th
//!   percentile of real positions, and Infexion kept 98.9% of the best moves), and the
//!   last block, which the heads read.
//! - `bf16`: bfloat16 products, every block, with AVX-512 BF16 ([`super::bf16`]), on AMX
//!   tiles where the CPU has them ([`super::amx`]).
//! - `mixed`: the first half of the blocks in bf16, the rest but the last in int8, with
//!   both.
//!
//! A model agent's search runs [`search`]'s choice: bf16 where AMX runs it, else int8
//! where the CPU has it, else fp32. Self-play runs [`SELF_PLAY`] (int8) where the CPU has
//! it, else fp32. Training, export and every check against burn run fp32.
//! `CONTAGION_FORWARD=NAME` puts every network, searches and self-play alike, on that
//! forward where the CPU has it (so `fp32` keeps searches in floats).

/// The environment variable that picks the forward: one of [`Forward::ALL`]'s names.
pub const FORWARD_ENV: &str = "CONTAGION_FORWARD";

/// A forward's precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forward {
    /// Every product in floats.
    Fp32,
    /// The blocks between the first and the last in int8.
    Int8,
    /// Every block in bf16.
    Bf16,
    /// The first half of the blocks in bf16, the rest but the last in int8.
    Mixed,
}

/// What a model agent's search runs: the fastest forward on this CPU that keeps the
/// float forward's best move in 99% of real positions of every game and its values
/// within 0.02 in 99% of them (experiments/endgame, "The first block in floats" and "Bf16
/// on AMX tiles"): bf16 where AMX multiplies its tiles, else int8 where the CPU has VNNI;
/// `None` where neither runs.
pub fn search() -> Option<Forward> {
    if super::amx::available() {
        Some(Forward::Bf16)
    } else {
        Some(Forward::Int8).filter(|f| f.available())
    }
}

/// What self-play searches on where the CPU has it: int8, whose runs beat float
/// self-play's 0.785 over 800 games between finals; bf16 on AMX, though faster, scored
/// 0.438 against it (experiments/time-to-strength, "Self-play on int8" and "Self-play on
/// bf16 over AMX tiles").
pub const SELF_PLAY: Forward = Forward::Int8;

/// One convolution's product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    /// Floats ([`super::conv::matmul`]).
    Fp32,
    /// Int8 ([`super::quant::QConv`]).
    Int8,
    /// Bfloat16 ([`super::bf16::BConv`]).
    Bf16,
}

impl Forward {
    /// Every forward, in the order the benchmark lists them.
    pub const ALL: [Forward; 4] = [Forward::Fp32, Forward::Int8, Forward::Bf16, Forward::Mixed];

    /// Its name: `fp32`, `int8`, `bf16` or `mixed`.
    pub fn name(self) -> &'static str {
        match self {
            Forward::Fp32 => "fp32",
            Forward::Int8 => "int8",
            Forward::Bf16 => "bf16",
            Forward::Mixed => "mixed",
        }
    }

    /// Whether this CPU runs it.
    pub fn available(self) -> bool {
        match self {
            Forward::Fp32 => true,
            Forward::Int8 => super::quant::available(),
            Forward::Bf16 => super::bf16::available(),
            Forward::Mixed => super::quant::available() && super::bf16::available(),
        }
    }

    /// The product of each of `convs` 3×3 convolutions (the stem, then two a block).
    pub fn plan(self, convs: usize) -> Vec<Product> {
        let blocks = convs.saturating_sub(1) / 2;
        (0..convs)
            .map(|i| {
                let block = i.saturating_sub(1) / 2;
                match self {
                    _ if i == 0 => Product::Fp32,
                    Forward::Bf16 => Product::Bf16,
                    _ if block + 1 >= blocks => Product::Fp32,
                    Forward::Fp32 => Product::Fp32,
                    Forward::Int8 if block == 0 => Product::Fp32,
                    Forward::Int8 => Product::Int8,
                    Forward::Mixed if block < blocks / 2 => Product::Bf16,
                    Forward::Mixed => Product::Int8,
                }
            })
            .collect()
    }
}

/// What [`FORWARD_ENV`] asks for, if it names a forward.
fn asked() -> Option<Forward> {
    static ASKED: std::sync::OnceLock<Option<Forward>> = std::sync::OnceLock::new();
    *ASKED.get_or_init(|| {
        let v = std::env::var(FORWARD_ENV).ok()?.to_ascii_lowercase();
        Forward::ALL.into_iter().find(|f| f.name() == v)
    })
}

/// The forward every network is built with: the one [`FORWARD_ENV`] names where the CPU
/// has it, else fp32.
pub fn everywhere() -> Forward {
    asked_or(None)
}

/// The forward [`FORWARD_ENV`] names, else `otherwise`, where the CPU has it; else fp32.
fn asked_or(otherwise: Option<Forward>) -> Forward {
    asked()
        .or(otherwise)
        .filter(|f| f.available())
        .unwrap_or(Forward::Fp32)
}

/// The forward a model agent's search runs: the one [`FORWARD_ENV`] names where the CPU
/// has it, else [`search`]'s; else fp32.
pub fn for_search() -> Forward {
    asked_or(search())
}

/// The forward self-play searches on: the one [`FORWARD_ENV`] names, else
/// [`SELF_PLAY`], where the CPU has it; else fp32.
pub fn for_self_play() -> Forward {
    asked_or(Some(SELF_PLAY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stem_stays_in_floats_and_the_last_block_but_in_bf16() {
        use Product::*;
        // The stem and four blocks; int8 keeps the first block in floats too.
        assert_eq!(Forward::Fp32.plan(9), vec![Fp32; 9]);
        let int8 = [Fp32, Fp32, Fp32, Int8, Int8, Int8, Int8, Fp32, Fp32];
        assert_eq!(Forward::Int8.plan(9), int8);
        let bf16 = [Fp32, Bf16, Bf16, Bf16, Bf16, Bf16, Bf16, Bf16, Bf16];
        assert_eq!(Forward::Bf16.plan(9), bf16);
        // Three blocks: int8 in the middle one only.
        let int8 = [Fp32, Fp32, Fp32, Int8, Int8, Fp32, Fp32];
        assert_eq!(Forward::Int8.plan(7), int8);
        let mixed = [Fp32, Bf16, Bf16, Bf16, Bf16, Int8, Int8, Fp32, Fp32];
        assert_eq!(Forward::Mixed.plan(9), mixed);
        // Three blocks: one in bf16, one in int8.
        let mixed = [Fp32, Bf16, Bf16, Int8, Int8, Fp32, Fp32];
        assert_eq!(Forward::Mixed.plan(7), mixed);
        // One block: the stem and the last block, all floats but in bf16.
        assert_eq!(Forward::Int8.plan(3), vec![Fp32; 3]);
        assert_eq!(Forward::Bf16.plan(3), [Fp32, Bf16, Bf16]);
    }
}
