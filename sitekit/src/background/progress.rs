//! Progress of long work (seeding demo data) shown the same way by both apps: a bar on a
//! terminal, and where there is none (CI logs, `> file`) a plain line every ten seconds and one
//! at the end, so a slow first start never looks hung.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the line log reports.
const EVERY: Duration = Duration::from_secs(10);

/// The average rate of `done` steps in `elapsed`, with at most one decimal.
fn rate(done: u64, elapsed: Duration) -> String {
    let per_sec = done as f64 / elapsed.as_secs_f64().max(1e-3);
    if per_sec >= 100.0 {
        format!("{per_sec:.0}/s")
    } else {
        format!("{per_sec:.1}/s")
    }
}

/// A bar of `len` steps labelled `what` (e.g. "blog users V1+V2+V3").
pub fn bar(len: u64, what: &str) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "seeding {what} {{msg:<20}} [{{bar:40}}] {{pos}}/{{len}} ({{rate}}, eta {{eta}})"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            // indicatif's own `per_sec` prints four decimals and a smoothed rate; this is the
            // average so far, one decimal, as the plain-line log's final rate.
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}", rate(s.pos(), s.elapsed()));
                },
            )
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        return bar;
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    let (watched, what) = (bar.clone(), what.to_owned());
    std::thread::spawn(move || {
        let line = |done: bool| {
            let pos = watched.position();
            let (msg, state) = match done {
                false => (format!(" {}", watched.message()), "after"),
                true => (String::new(), "done in"),
            };
            eprintln!(
                "seeding {what}{msg}: {pos}/{len} ({:.0}%) {state} {:.1} s, {}",
                100.0 * pos as f64 / len.max(1) as f64,
                watched.elapsed().as_secs_f64(),
                rate(pos, watched.elapsed())
            );
        };
        let mut next = Instant::now() + EVERY;
        while !watched.is_finished() {
            std::thread::sleep(Duration::from_millis(200));
            if Instant::now() >= next && !watched.is_finished() {
                line(false);
                next += EVERY;
            }
        }
        line(true);
    });
    bar
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_have_at_most_one_decimal() {
        use std::time::Duration;
        assert_eq!(super::rate(742, Duration::from_millis(400)), "1855/s");
        assert_eq!(super::rate(20, Duration::from_millis(1200)), "16.7/s");
    }
}
