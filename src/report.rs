//! The HTML report of a check: one page that opens offline.
//!
//! `zoocheck check ... --report DIR` writes `DIR/index.html`: the version,
//! date and command it is of; the verdict table (the columns of the table
//! `check` prints, with each property's kind and meaning, verdicts coloured)
//! and a legend of its columns; then each counterexample, witness asked for
//! and unproven path, with its description, its numbered steps, under each
//! step what it changed in the state (a line diff of [`crate::trace::in_full`]),
//! the last state, and its sequence diagram drawn inline as SVG
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

use crate::check::{Judgement, Limit, Outcome, Routed, Shows};
use crate::diagram::escape;
use crate::properties::termination::DECLARED as TERMINATES;
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

/// The run a report is of, as its head says it: the command line gives
/// these, the page computes none (it reads no clock).
pub struct Invocation {
    /// zoocheck's version (`0.1.0`).
    pub version: &'static str,
    /// When the command ran, in words (`2026-12-02 22:10 UTC`).
    pub date: String,
    /// The command as it was typed (`zoocheck check scenarios/lock --report out`).
    pub command: String,
    /// The properties whose witness `--witness` asked for: a reached
    /// `sometimes` among them is shown with its path, as a counterexample is.
    pub witnesses: Vec<String>,
    /// The faults `--through` asked the paths shown to strike, in words
    /// (`lose_reply@c1 and pause`); empty if it asked for none.
    pub through: String,
}

/// The report as one HTML page: `summary` is the line the command printed
/// under its table, `refused` the files it refused (each error in words),
/// `run` the command it is of.
pub fn html(checked: &[Checked], summary: &str, refused: &[String], run: &Invocation) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(GENERATOR);
    out.push_str("\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>zoocheck: {}</title>", escape(summary));
    out.push_str(STYLE);
    out.push_str("</head>\n<body>\n<h1>zoocheck check</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"run\">zoocheck {}, {}: <code>{}</code></p>",
        escape(run.version),
        escape(&run.date),
        escape(&run.command)
    );

    // The traces shown below, in the table's order, so that the table links
    // to them.
    let mut shown: Vec<Shown> = Vec::new();
    let _ = writeln!(out, "<p class=\"summary\">{}</p>", escape(summary));
    out.push_str("<table class=\"verdicts\">\n<thead><tr><th>scenario</th><th>property</th><th>kind</th><th>expected</th><th>actual</th><th class=\"number\">unique states</th><th class=\"number\">deepest</th><th class=\"number\">steps</th><th class=\"number\">seconds</th><th>meaning</th></tr></thead>\n<tbody>\n");
    let mut notes = Vec::new();
    for entry in checked {
        let outcome = entry.outcome;
        let declared = entry.scenario.recipe().properties();
        for property in &outcome.properties {
            let promise = (declared.iter().chain([&TERMINATES]))
                .find(|declared| declared.name == property.name);
            let kind = match promise {
                Some(promise) if promise.name == TERMINATES.name => "liveness",
                Some(promise) if promise.always => "always",
                Some(_) => "sometimes",
                None => "",
            };
            let meaning = promise.map(|promise| promise.meaning).unwrap_or_default();
            let (class, mark) = match property.judgement() {
                Judgement::Met => ("met", ""),
                Judgement::NotMet => ("not-met", " NOT AS EXPECTED"),
                Judgement::Unproven if property.as_expected() => ("unproven", ""),
                Judgement::Unproven => ("unproven", " none found in the part searched"),
            };
            let asked = |name: &str| run.witnesses.iter().any(|asked| asked == name);
            let steps = match property.path() {
                Some((_, Shows::Witness)) if !asked(property.name) => "-".to_string(),
                Some((trace, shows)) => {
                    let kind = match shows {
                        Shows::Counterexample => Kind::Counterexample(property.name),
                        Shows::Witness => Kind::Witness(property.name),
                        Shows::Unproven => Kind::Unproven(property.name, property.shown()),
                    };
                    let index = push(
                        &mut shown,
                        entry,
                        kind,
                        trace,
                        (property.through, &run.through),
                    );
                    let star = match shows {
                        Shows::Counterexample if !trace.shortest => "*",
                        _ => "",
                    };
                    format!(
                        "<a href=\"#{}\">{}{star}</a>",
                        shown[index].id,
                        trace.steps.len()
                    )
                }
                None => "-".to_string(),
            };
            let _ = writeln!(
                out,
                "<tr class=\"{class}\"><td>{}</td><td>{}</td><td>{kind}</td><td>{}</td><td>{}<span class=\"mark\">{mark}</span></td><td class=\"number\">{}</td><td class=\"number\">{}</td><td class=\"number\">{steps}</td><td class=\"number\">{:.2}</td><td class=\"meaning\">{}</td></tr>",
                escape(&entry.scenario.name),
                escape(property.name),
                badge(property.expected.verdict, &property.expected.shown()),
                badge(property.actual, &property.shown()),
                outcome.unique_states,
                outcome.max_depth,
                outcome.elapsed.as_secs_f64(),
                escape(meaning)
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
                let index = push(&mut shown, entry, Kind::Panic, trace, (None, ""));
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
    out.push_str(LEGEND);
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
        out.push_str("<h2>Counterexamples and witnesses</h2>\n");
        out.push_str("<p class=\"legend\">Under each step, what it changed in the state: <del>lines it took away</del> and <ins>lines it brought</ins>, in the words of the last state below, with what is in flight on each link and the faults spent. In each diagram the clients and the store are lifelines; solid arrows are requests, dashed arrows replies, dotted blue arrows watch events, shaded boxes faults. Every arrow and note begins with the number of its step in the list above it.</p>\n");
    }
    for item in &shown {
        section(&mut out, item);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// A verdict as the table shows it, coloured by what it is.
fn badge(verdict: crate::check::Verdict, shown: &str) -> String {
    format!(
        "<span class=\"verdict v-{}\">{}</span>",
        verdict.name(),
        escape(shown)
    )
}

/// What each column and colour of the table means.
const LEGEND: &str = "<dl class=\"columns\">\n\
<dt>kind</dt><dd><em>always</em>: true in every state reached (a counterexample breaks it); <em>sometimes</em>: true in some state reached (a witness shows one); <em>liveness</em>: every fair run ends, judged on whole runs.</dd>\n\
<dt>expected</dt><dd>what the scenario's <code>[expect]</code> asks, or the recipe's default where it asks nothing (marked <em>(default)</em>).</dd>\n\
<dt>actual</dt><dd>the verdict: <span class=\"verdict v-holds\">holds</span> and <span class=\"verdict v-reached\">reached</span>, <span class=\"verdict v-violated\">violated</span>, <span class=\"verdict v-unreached\">unreached</span>; a <em>?</em> marks one the search did not prove (it stopped at a limit, or a loop is likely but unproven). A row in red is not as expected, one in yellow unproven.</dd>\n\
<dt>unique states, deepest</dt><dd>the distinct states the search saw (after its reductions) and its deepest path, in steps.</dd>\n\
<dt>steps</dt><dd>the length of the path shown below, a link to it; <em>*</em> where it is not known to be the shortest.</dd>\n\
<dt>seconds</dt><dd>the whole check of the scenario, counterexample searches included.</dd>\n\
</dl>\n";

enum Kind {
    Counterexample(&'static str),
    /// A reached `sometimes`, shown because `--witness` asked for it.
    Witness(&'static str),
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
    /// How it stands to the faults `--through` asked for, if it did.
    through: Option<Routed>,
    /// Those faults, in words.
    through_words: &'a str,
}

/// Adds a trace to show and answers its index.
fn push<'a>(
    shown: &mut Vec<Shown<'a>>,
    entry: &Checked<'a>,
    kind: Kind,
    trace: &'a Trace,
    (through, through_words): (Option<Routed>, &'a str),
) -> usize {
    shown.push(Shown {
        id: format!("trace-{}", shown.len() + 1),
        scenario: entry.scenario,
        found_by: entry.found_by,
        kind,
        trace,
        through,
        through_words,
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
        Kind::Witness(property) => {
            let plural = if steps == 1 { "" } else { "s" };
            let _ = writeln!(
                out,
                "<h3>{scenario}: a witness that {} is reached, in {steps} step{plural}</h3>",
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
    let faults = &shown.through_words;
    let routed = match shown.through {
        Some(Routed::Through) => format!("through {faults}: the shortest path that strikes what it names before its discovery"),
        Some(Routed::Around { searched_all: true }) => {
            format!("no path goes through {faults} first: this is the shortest of all")
        }
        Some(Routed::Around {
            searched_all: false,
        }) => format!(
            "none through {faults} was found before the search for one stopped at a limit: this is the shortest of all"
        ),
        None => String::new(),
    };
    if !routed.is_empty() {
        remarks.push(&routed);
    }
    if !trace.replays {
        remarks.push("DOES NOT REPLAY");
    }
    if !remarks.is_empty() {
        let _ = writeln!(out, "<p class=\"remark\">{}</p>", remarks.join("; "));
    }
    for paragraph in reflowed(&shown.scenario.description) {
        let _ = writeln!(out, "<p class=\"description\">{}</p>", escape(&paragraph));
    }
    let _ = writeln!(
        out,
        "<p class=\"found\">Found by <code>zoocheck {}</code>.</p>",
        escape(shown.found_by)
    );
    let world = shown.scenario.world();
    let pictures = world.pictures(&trace.actions);
    out.push_str("<ol class=\"steps\">\n");
    for (index, step) in trace.steps.iter().enumerate() {
        let _ = write!(
            out,
            "<li><span class=\"step\">{}</span>",
            escape(&step.text)
        );
        if let [before, after] = pictures.get(index..index + 2).unwrap_or_default() {
            let changes = crate::text::changed_lines(before, after);
            if !changes.is_empty() {
                out.push_str("<div class=\"change\">");
                for (added, line) in changes {
                    let tag = if added { "ins" } else { "del" };
                    let _ = write!(out, "<{tag}>{}</{tag}>", escape(line));
                }
                out.push_str("</div>");
            }
        }
        out.push_str("</li>\n");
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
    let diagram = world.diagram(&trace.actions);
    out.push_str("<div class=\"diagram\">\n");
    out.push_str(&diagram.svg());
    out.push_str("</div>\n</section>\n");
}

/// A scenario's description as paragraphs: its lines joined, a blank line
/// between paragraphs (a TOML string wraps where its author's editor did).
fn reflowed(description: &str) -> Vec<String> {
    let mut paragraphs = vec![String::new()];
    for line in description.lines().map(str::trim) {
        let last = paragraphs.last_mut().expect("one paragraph at least");
        match (line.is_empty(), last.is_empty()) {
            (true, false) => paragraphs.push(String::new()),
            (true, true) => {}
            (false, true) => last.push_str(line),
            (false, false) => {
                last.push(' ');
                last.push_str(line);
            }
        }
    }
    paragraphs.retain(|paragraph| !paragraph.is_empty());
    paragraphs
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
.run { color: #52606d; }
.run code { color: #1f2933; }
td.meaning { max-width: 30em; font-size: 0.95em; color: #3e4c59; }
.verdict { padding: 0.05em 0.4em; border-radius: 0.3em; white-space: nowrap; }
.v-holds, .v-reached { background: #d6f5dd; color: #14532d; }
.v-violated { background: #fdd8d8; color: #8a1c1c; }
.v-unreached { background: #e4e7eb; color: #3e4c59; }
dl.columns { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1em; max-width: 70em; font-size: 0.9em; color: #3e4c59; }
dl.columns dt { font-weight: bold; }
dl.columns dd { margin: 0; }
div.change { margin: 0.1em 0 0.35em 0; }
div.change ins, div.change del { display: block; white-space: pre-wrap; text-decoration: none; padding: 0 0.4em; }
.legend ins, .legend del { text-decoration: none; padding: 0 0.2em; }
.legend ins { background: #e6f6ea; color: #14532d; }
.legend del { background: #fbe9e9; color: #8a1c1c; }
div.change ins { background: #e6f6ea; color: #14532d; }
div.change ins::before { content: "+ "; }
div.change del { background: #fbe9e9; color: #8a1c1c; }
div.change del::before { content: "- "; }
</style>
"#;
