//! Progress reporting shared by long jobs: an indicatif bar when stderr is a terminal,
//! a plain line every tenth of the way when it is not (logs, CI), nothing when quiet.
//! Safe to advance from many threads at once.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar or progress lines for one job (see the module documentation).
pub struct Progress {
    label: String,
    total: u64,
    done: AtomicU64,
    bar: Option<ProgressBar>,
    plain: bool,
}

impl Progress {
    /// `unit` names what is counted ("games", "steps").
    pub fn new(label: impl Into<String>, total: u64, unit: &str, enabled: bool) -> Progress {
        let label = label.into();
        let terminal = std::io::stderr().is_terminal();
        let bar = (enabled && terminal).then(|| {
            let style = ProgressStyle::with_template(&format!(
                "{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{elapsed}}, eta {{eta}})"
            ))
            .expect("a valid template")
            .progress_chars("=> ");
            ProgressBar::new(total)
                .with_style(style)
                .with_prefix(label.clone())
        });
        Progress {
            label,
            total,
            done: AtomicU64::new(0),
            bar,
            plain: enabled && !terminal,
        }
    }

    /// One more item done.
    pub fn inc(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(bar) = &self.bar {
            bar.inc(1);
        } else if self.plain
            && (done * 10 / self.total.max(1)) > ((done - 1) * 10 / self.total.max(1))
        {
            eprintln!("{}: {done}/{}", self.label, self.total);
        }
    }

    /// Removes the bar (the caller prints the summary).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
