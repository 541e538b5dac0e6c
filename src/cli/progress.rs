//! Progress while a search or a simulation runs: a bar on a terminal, a
//! line now and then otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use zoocheck::check::Progress;
use zoocheck::simulate::WalkProgress;

/// The spinner on standard error while a scenario runs, on a terminal.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Away from a terminal (a CI log), a line every [`progress_every`] instead:
/// the scenario running and when the last line was printed.
static LINES: Mutex<(String, Option<Instant>)> = Mutex::new((String::new(), None));

/// How often a progress line is printed away from a terminal: five seconds,
/// or `ZOOCHECK_PROGRESS_EVERY` seconds.
fn progress_every() -> Duration {
    std::env::var("ZOOCHECK_PROGRESS_EVERY")
        .ok()
        .and_then(|text| crate::seconds(&text).ok())
        .unwrap_or(Duration::from_secs(5))
}

pub(crate) fn set_progress_name(name: &str) {
    let mut lines = LINES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *lines = (name.to_string(), Some(Instant::now()));
}

/// Shows `message` as the spinner's, or as a line when one is due; either
/// names the scenario running.
pub(crate) fn progress(message: String) {
    if std::io::stderr().is_terminal() {
        let name = LINES
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0
            .clone();
        let message = format!("{name}: {message}");
        let mut bar = BAR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
            );
            bar
        });
        bar.set_message(message);
        bar.tick();
        return;
    }
    let mut lines = LINES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (name, last) = &mut *lines;
    if last.is_none_or(|last| last.elapsed() >= progress_every()) {
        eprintln!("zoocheck: {name}: {message}");
        *last = Some(Instant::now());
    }
}

pub(crate) fn show_progress(progress_now: &Progress) {
    let seconds = progress_now.elapsed.as_secs_f64().max(1e-9);
    let memory = progress_now
        .memory
        .map(|bytes| format!(", {}", zoocheck::memory::human(bytes)))
        .unwrap_or_default();
    progress(format!(
        "{} states, {} unique, deepest path {}, {:.0} states/s{memory}, {:.0} s",
        progress_now.states,
        progress_now.unique_states,
        progress_now.max_depth,
        progress_now.states as f64 / seconds,
        seconds
    ));
}

pub(crate) fn show_walks(walks: &WalkProgress) {
    if walks.walks % 100 != 0 {
        return;
    }
    let eta = walks
        .eta()
        .map(|left| format!(", about {} left", human_duration(left)))
        .unwrap_or_default();
    progress(format!(
        "{} of {} walks, {} steps, {:.0} steps/s{eta}",
        walks.walks,
        walks.runs,
        walks.steps,
        walks.steps as f64 / walks.elapsed.as_secs_f64().max(1e-9)
    ));
}

/// A time to wait, as a person says it: `40 s`, `12 min`, `3.5 h`.
fn human_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

pub(crate) fn finish_progress() {
    let bar = BAR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}
