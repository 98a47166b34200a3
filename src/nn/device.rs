//! Where the network runs: the CPU (the fast forward and training step of [`super::kernels::fast`]
//! and [`super::step::backprop`]) or a GPU through burn's wgpu backend (Vulkan, Metal, DX12;
//! feature `wgpu`), where burn's own forward and autodiff run the same module.
//!
//! A run chooses with `train.device`, a command that plays with `--device`
//! ([`set_playing`]). The wgpu device is acquired once per process; a build without the
//! feature, or a machine whose graphics driver offers no adapter, gets a clear error.

use std::sync::OnceLock;

use burn::tensor::Device;
use serde::{Deserialize, Serialize};

/// A device the network can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// The CPU: the hand-written fast paths (burn's `flex` backend underneath).
    #[default]
    Cpu,
    /// A GPU through burn's wgpu backend (feature `wgpu`).
    Wgpu,
}

impl DeviceKind {
    /// Every device's name, as configs and `--device` write it.
    pub const NAMES: &'static [&'static str] = &["cpu", "wgpu"];

    /// The device's name.
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Wgpu => "wgpu",
        }
    }

    /// Reads a device's name.
    pub fn parse(name: &str) -> anyhow::Result<DeviceKind> {
        match name {
            "cpu" => Ok(DeviceKind::Cpu),
            "wgpu" => Ok(DeviceKind::Wgpu),
            _ => anyhow::bail!(
                "unknown device {name:?}: one of {}",
                DeviceKind::NAMES.join(", ")
            ),
        }
    }

    /// burn's device for this kind (without autodiff): the CPU's is [`super::device()`];
    /// the GPU's is acquired on first use and shared by the whole process.
    pub fn burn(self) -> anyhow::Result<Device> {
        match self {
            DeviceKind::Cpu => Ok(super::device()),
            DeviceKind::Wgpu => gpu().map(|g| g.device.clone()),
        }
    }

    /// What runs the network, for logs: `cpu`, or `wgpu (adapter, API)`.
    pub fn describe(self) -> anyhow::Result<String> {
        match self {
            DeviceKind::Cpu => Ok("cpu".into()),
            DeviceKind::Wgpu => gpu().map(|g| format!("wgpu ({})", g.adapter)),
        }
    }
}

impl std::fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The process's GPU: burn's device and the adapter it runs on.
struct Gpu {
    device: Device,
    adapter: String,
}

/// The GPU, acquired once (its error kept, so every caller reports the same one).
fn gpu() -> anyhow::Result<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(acquire)
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e}"))
}

#[cfg(feature = "wgpu")]
fn acquire() -> Result<Gpu, String> {
    let (device, setup) = Device::wgpu_options().init_with_setup().map_err(|e| {
        format!(
            "no GPU for the wgpu device: {e}. It needs a Vulkan, Metal or DX12 driver \
             (on Debian or Ubuntu: the GPU vendor's driver, or `apt install \
             mesa-vulkan-drivers` for Mesa's; docs/gpu.md)"
        )
    })?;
    let info = setup.adapter.get_info();
    let adapter = format!("{}, {:?}", info.name, info.backend);
    Ok(Gpu { device, adapter })
}

#[cfg(not(feature = "wgpu"))]
fn acquire() -> Result<Gpu, String> {
    Err(
        "this contagion was built without the GPU backend: build it with \
         `cargo build --release --features wgpu` (docs/gpu.md)"
            .into(),
    )
}

/// The device the networks of the commands that play run on (`--device`); the CPU
/// unless set.
static PLAYING: OnceLock<DeviceKind> = OnceLock::new();

/// Sets the device for the networks agents play with ([`playing`]), once per process;
/// the GPU is acquired here, so a missing one is reported before any game starts.
pub fn set_playing(kind: DeviceKind) -> anyhow::Result<()> {
    kind.burn()?;
    if PLAYING.set(kind).is_err() && playing() != kind {
        anyhow::bail!("the playing device is already {}", playing());
    }
    Ok(())
}

/// The device agents' networks run on: [`set_playing`]'s, or the CPU.
pub fn playing() -> DeviceKind {
    PLAYING.get().copied().unwrap_or_default()
}

/// The device every network runs on: CUDA with the `cuda` feature, else the CPU.
pub fn device() -> Device {
    #[cfg(feature = "cuda")]
    {
        Device::cuda(0)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Device::flex()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_unknown_ones_are_refused() {
        for &name in DeviceKind::NAMES {
            assert_eq!(DeviceKind::parse(name).unwrap().name(), name);
        }
        let e = DeviceKind::parse("tpu").unwrap_err().to_string();
        assert!(e.contains("cpu, wgpu"), "{e}");
        assert_eq!(DeviceKind::Cpu.describe().unwrap(), "cpu");
    }

    #[cfg(not(feature = "wgpu"))]
    #[test]
    fn without_the_feature_the_gpu_is_a_clear_error() {
        let e = DeviceKind::Wgpu.burn().unwrap_err().to_string();
        assert!(e.contains("--features wgpu"), "{e}");
        assert!(set_playing(DeviceKind::Wgpu).is_err());
        assert_eq!(playing(), DeviceKind::Cpu);
    }
}
