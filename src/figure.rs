//! Figures: an SVG written with its PNG beside it, rasterised with `resvg` and the
//! DejaVu Sans font embedded in the binary (no system fonts needed), and the legend box
//! every chart ends with. Below every layer that draws (`arena`'s ladder, `report`'s
//! learning curves and Elo over training).

use std::path::{Path, PathBuf};

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;

/// Draws `chart`'s series labels at its lower right, on a white box, and finishes the
/// drawing on `root`.
pub fn finish<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    mut chart: ChartContext<'a, DB, CT>,
    root: &DrawingArea<DB, Shift>,
) -> anyhow::Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("plotting: {e}");
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// Writes `svg` at `out` and its PNG beside it (same name, `.png`; feature `png`, on by
/// default); returns the PNG's path if one was written.
pub fn save_svg(svg: &str, out: &Path) -> anyhow::Result<Option<PathBuf>> {
    crate::framing::write_atomic(out, svg.as_bytes())?;
    write_png(svg, out)
}

/// Writes the PNG of `svg` beside `out`; returns its path.
#[cfg(feature = "png")]
fn write_png(svg: &str, out: &Path) -> anyhow::Result<Option<PathBuf>> {
    let png = out.with_extension("png");
    let bytes = rasterise(svg)?;
    crate::framing::write_atomic(&png, &bytes)?;
    Ok(Some(png))
}

/// A build without the `png` feature writes the SVG only.
#[cfg(not(feature = "png"))]
fn write_png(_svg: &str, _out: &Path) -> anyhow::Result<Option<PathBuf>> {
    Ok(None)
}

/// The PNG bytes of an SVG, with text in the embedded DejaVu Sans.
#[cfg(feature = "png")]
pub fn rasterise(svg: &str) -> anyhow::Result<Vec<u8>> {
    use resvg::{tiny_skia, usvg};
    let mut opt = usvg::Options::default();
    let fonts = opt.fontdb_mut();
    fonts.load_font_data(dejavu::sans::regular().to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    opt.font_family = "DejaVu Sans".into();
    let tree =
        usvg::Tree::from_str(svg, &opt).map_err(|e| anyhow::anyhow!("reading the SVG: {e}"))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| anyhow::anyhow!("an empty image"))?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| anyhow::anyhow!("encoding the PNG: {e}"))
}
