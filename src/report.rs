//! The HTML report of a check: one page that opens offline.
//!
//! `zoocheck check ... --report DIR` writes `DIR/index.html`: the verdict
//! table (the columns of the table `check` prints), then each counterexample
//! with its numbered steps and its sequence diagram drawn inline as SVG
//! ([`crate::diagram::Diagram::svg`]). The page loads nothing (no script, no
//! font, no style sheet from elsewhere), and every text in it is escaped.
//!
//! A report directory holds one report: [`Destination::prepare`] refuses a
//! path that is a file, and an `index.html` that zoocheck did not write (it
//! says so in its `generator` meta tag), before the search starts; an older
//! report is replaced, as `--trace-out` replaces a trace of the same question.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::check::{Judgement, Limit, Outcome, Shows};
use crate::diagram::escape;
use crate::scenario::Scenario;
use crate::trace::Trace;

/// The tag that marks a page as zoocheck's, so that a later report may replace it.
pub const GENERATOR: &str = r#"<meta name="generator" content="zoocheck">"#;

/// The report's file in its directory.
pub const INDEX: &str = "index.html";

/// One scenario checked: what the report shows of it.
pub struct Checked<'a> {
    pub scenario: &'a Scenario,
    pub outcome: &'a Outcome,
    /// The command that checked it (`check scenarios/lock/x.toml`).
    pub found_by: &'a str,
}

/// Where a report is written: `DIR/index.html`.
#[derive(Clone, Debug)]
pub struct Destination {
    pub index: PathBuf,
    /// Whether an earlier report is there, to be replaced.
    pub replaces: bool,
}

impl Destination {
    /// Makes `dir` (and its parents) if need be and checks that its
    /// `index.html`, if any, is an earlier report: the error says which path
    /// is wrong and why.
    pub fn prepare(dir: &Path) -> Result<Destination, String> {
        if dir.exists() && !dir.is_dir() {
            return Err(format!(
                "{}: not a directory; --report wants a directory to write {INDEX} in",
                dir.display()
            ));
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let index = dir.join(INDEX);
        let replaces = Destination::is_earlier_report(&index)?;
        Ok(Destination { index, replaces })
    }

    /// Writes `html` as the report, checking again that what it replaces
    /// (if anything) is a report: the search may have taken hours.
    pub fn write(&self, html: &str) -> Result<(), String> {
        Destination::is_earlier_report(&self.index)?;
        std::fs::write(&self.index, html).map_err(|e| format!("{}: {e}", self.index.display()))
    }

    /// Whether `index` is a report zoocheck wrote (false if it does not
    /// exist); an error if it is anything else.
    fn is_earlier_report(index: &Path) -> Result<bool, String> {
        let Ok(metadata) = std::fs::symlink_metadata(index) else {
            return Ok(false);
        };
        let foreign = || {
            format!(
                "{} exists and zoocheck did not write it: not replacing it (move it away, or give --report another directory)",
                index.display()
            )
        };
        if !metadata.is_file() {
            return Err(foreign());
        }
        // The generator tag is in the head, at the start.
        let mut head = Vec::new();
        std::fs::File::open(index)
            .and_then(|file| file.take(4096).read_to_end(&mut head))
            .map_err(|e| format!("{}: {e}", index.display()))?;
        if String::from_utf8_lossy(&head).contains(GENERATOR) {
            Ok(true)
        } else {
            Err(foreign())
        }
    }
}

/// The report as one HTML page: `summary` is the line the command printed
/// under its table, `refused` the files it refused (each error in words).
pub fn html(checked: &[Checked], summary: &str, refused: &[String]) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(GENERATOR);
    out.push_str("\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>zoocheck: {}</title>", escape(summary));
    out.push_str(STYLE);
    out.push_str("</head>\n<body>\n<h1>zoocheck check</h1>\n");

    // The traces shown below, in the table's order, so that the table links
    // to them.
    let mut shown: Vec<Shown> = Vec::new();
    let _ = writeln!(out, "<p class=\"summary\">{}</p>", escape(summary));
    out.push_str("<table class=\"verdicts\">\n<thead><tr><th>scenario</th><th>property</th><th>expected</th><th>actual</th><th class=\"number\">unique states</th><th class=\"number\">deepest</th><th class=\"number\">steps</th><th class=\"number\">seconds</th></tr></thead>\n<tbody>\n");
    let mut notes = Vec::new();
    for entry in checked {
        let outcome = entry.outcome;
        for property in &outcome.properties {
            let (class, mark) = match property.judgement() {
                Judgement::Met => ("met", ""),
                Judgement::NotMet => ("not-met", " NOT AS EXPECTED"),
                Judgement::Unproven if property.as_expected() => ("unproven", ""),
                Judgement::Unproven => ("unproven", " none found in the part searched"),
            };
            let steps = match property.path() {
                Some((trace, shows @ (Shows::Counterexample | Shows::Unproven))) => {
                    let kind = if shows == Shows::Unproven {
                        Kind::Unproven(property.name, property.shown())
                    } else {
                        Kind::Counterexample(property.name)
                    };
                    let index = push(&mut shown, entry, kind, trace);
                    let star = if trace.shortest || shows == Shows::Unproven {
                        ""
                    } else {
                        "*"
                    };
                    format!(
                        "<a href=\"#{}\">{}{star}</a>",
                        shown[index].id,
                        trace.steps.len()
                    )
                }
                _ => "-".to_string(),
            };
            let _ = writeln!(
                out,
                "<tr class=\"{class}\"><td>{}</td><td>{}</td><td>{}</td><td>{}<span class=\"mark\">{mark}</span></td><td class=\"number\">{}</td><td class=\"number\">{}</td><td class=\"number\">{steps}</td><td class=\"number\">{:.2}</td></tr>",
                escape(&entry.scenario.name),
                escape(property.name),
                property.expected.shown(),
                escape(&property.shown()),
                outcome.unique_states,
                outcome.max_depth,
                outcome.elapsed.as_secs_f64()
            );
        }
        if let Some(note) = crate::check::termination::note(outcome) {
            notes.push(format!(
                "{}: {}",
                escape(&entry.scenario.name),
                escape(&note)
            ));
        }
        if let Some(limit) = outcome.stopped {
            let advice = if limit == Limit::Memory {
                format!(
                    "{} at {} unique states",
                    limit.describe(),
                    outcome.unique_states
                )
            } else {
                limit.describe().to_string()
            };
            notes.push(format!(
                "{}: {advice}: a verdict marked ? is unproven.",
                escape(&entry.scenario.name)
            ));
        }
        if let Some(panic) = &outcome.panic {
            let mut note = format!(
                "THE MODEL PANICKED in {}: {}",
                escape(&entry.scenario.name),
                escape(&panic.message)
            );
            if let Some(trace) = &panic.trace {
                let index = push(&mut shown, entry, Kind::Panic, trace);
                let _ = write!(
                    note,
                    " (<a href=\"#{}\">after {} steps</a>)",
                    shown[index].id,
                    trace.steps.len()
                );
            }
            notes.push(note);
        }
    }
    out.push_str("</tbody>\n</table>\n");
    let unshortened = shown
        .iter()
        .any(|shown| matches!(shown.kind, Kind::Counterexample(_)) && !shown.trace.shortest);
    if unshortened {
        notes.push("* a counterexample not known to be the shortest: the search for it stopped at a limit.".to_string());
    }
    for note in &notes {
        let _ = writeln!(out, "<p class=\"table-note\">{note}</p>");
    }
    if !refused.is_empty() {
        out.push_str("<h2>Files refused</h2>\n<ul class=\"refused\">\n");
        for error in refused {
            let _ = writeln!(out, "<li>{}</li>", escape(error));
        }
        out.push_str("</ul>\n");
    }

    if !shown.is_empty() {
        out.push_str("<h2>Counterexamples</h2>\n");
        out.push_str("<p class=\"legend\">In each diagram the clients and the store are lifelines; solid arrows are requests, dashed arrows replies, dotted blue arrows watch events, shaded boxes faults. Every arrow and note begins with the number of its step in the list above it.</p>\n");
    }
    for item in &shown {
        section(&mut out, item);
    }
    out.push_str("</body>\n</html>\n");
    out
}

enum Kind {
    Counterexample(&'static str),
    /// The path an unproven verdict rests on: the property and its verdict
    /// as shown (`holds?`).
    Unproven(&'static str, String),
    Panic,
}

/// A trace the report shows, under its anchor.
struct Shown<'a> {
    id: String,
    scenario: &'a Scenario,
    found_by: &'a str,
    kind: Kind,
    trace: &'a Trace,
}

/// Adds a trace to show and answers its index.
fn push<'a>(
    shown: &mut Vec<Shown<'a>>,
    entry: &Checked<'a>,
    kind: Kind,
    trace: &'a Trace,
) -> usize {
    shown.push(Shown {
        id: format!("trace-{}", shown.len() + 1),
        scenario: entry.scenario,
        found_by: entry.found_by,
        kind,
        trace,
    });
    shown.len() - 1
}

/// One trace: its heading, the scenario's description, its numbered steps and
/// its diagram.
fn section(out: &mut String, shown: &Shown) {
    let trace = shown.trace;
    let scenario = escape(&shown.scenario.name);
    let _ = writeln!(out, "<section class=\"trace\" id=\"{}\">", shown.id);
    let steps = trace.steps.len();
    match &shown.kind {
        Kind::Counterexample(property) => {
            let plural = if steps == 1 { "" } else { "s" };
            let _ = writeln!(
                out,
                "<h3>{scenario}: {} violated in {steps} step{plural}</h3>",
                escape(property)
            );
        }
        Kind::Unproven(property, verdict) => {
            let _ = writeln!(
                out,
                "<h3>{scenario}: the path behind {} {}, {steps} steps, not a proof</h3>",
                escape(property),
                escape(verdict)
            );
        }
        Kind::Panic => {
            let _ = writeln!(out, "<h3>{scenario}: the model panics at step {steps}</h3>");
        }
    }
    let mut remarks = Vec::new();
    if !trace.shortest && matches!(shown.kind, Kind::Counterexample(_)) {
        remarks.push("not known to be the shortest");
    }
    if !trace.replays {
        remarks.push("DOES NOT REPLAY");
    }
    if !remarks.is_empty() {
        let _ = writeln!(out, "<p class=\"remark\">{}</p>", remarks.join("; "));
    }
    let description = shown.scenario.description.trim();
    if !description.is_empty() {
        let _ = writeln!(out, "<p class=\"description\">{}</p>", escape(description));
    }
    let _ = writeln!(
        out,
        "<p class=\"found\">Found by <code>zoocheck {}</code>.</p>",
        escape(shown.found_by)
    );
    out.push_str("<ol class=\"steps\">\n");
    for step in &trace.steps {
        let _ = writeln!(out, "<li>{}</li>", escape(&step.text));
    }
    out.push_str("</ol>\n");
    if let Some(verdict) = &trace.verdict {
        let _ = writeln!(out, "<p class=\"verdict\">{}</p>", escape(verdict));
    }
    let heading = if trace.quiescent {
        "The last state, where nothing but a fault can happen:"
    } else {
        "The last state:"
    };
    let _ = writeln!(
        out,
        "<p class=\"end\">{heading}</p>\n<pre class=\"last-state\">{}</pre>",
        escape(&trace.last_state)
    );
    let diagram = shown.scenario.world().diagram(&trace.actions);
    out.push_str("<div class=\"diagram\">\n");
    out.push_str(&diagram.svg());
    out.push_str("</div>\n</section>\n");
}

const STYLE: &str = r#"<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em; color: #1f2933; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #d3d9df; }
h3 { margin-bottom: 0.3em; }
table.verdicts { border-collapse: collapse; font-size: 0.9em; }
table.verdicts th, table.verdicts td { border: 1px solid #d3d9df; padding: 0.25em 0.6em; text-align: left; }
table.verdicts th { background: #eef1f4; }
table.verdicts .number { text-align: right; font-variant-numeric: tabular-nums; }
tr.not-met td { background: #ffe1e1; font-weight: bold; }
tr.unproven td { background: #fff6d6; }
p.verdict { font-weight: bold; color: #b42318; }
pre.last-state { background: #f6f8fa; padding: 0.5em 0.8em; }
.mark { color: #b42318; }
.summary { font-weight: bold; }
.table-note, .remark { color: #6b4e00; }
.description { white-space: pre-wrap; max-width: 60em; }
ol.steps { font-family: "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; font-size: 0.85em; padding-left: 3.5em; }
ol.steps li { margin: 0.15em 0; }
.end { font-family: monospace; font-size: 0.85em; color: #6b4e00; }
.diagram { overflow-x: auto; border: 1px solid #d3d9df; padding: 0.5em; background: #ffffff; }
.legend { color: #52606d; max-width: 60em; }
</style>
"#;
