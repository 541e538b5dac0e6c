//! `check` and `simulate`: each scenario's verdicts as a table (or JSON),
//! its counterexamples, what it covered, and the exit code.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use zoocheck::check::{Judgement, Limit, Outcome, Routed, Shows, Through, Verdict};
use zoocheck::properties::termination::TERMINATES;
use zoocheck::report::{Checked, Destination};
use zoocheck::scenario::{Scenario, ScenarioError};
use zoocheck::simulate::SimulateOptions;
use zoocheck::text::{quoted, shorten};
use zoocheck::trace::{self};

use crate::cli::list::plural;
use crate::cli::load::load;
use crate::cli::traces::TraceWriter;
use crate::{UsageError, EXIT_INCOMPLETE};

/// What `run` does with each scenario, with the options that matter to
/// its report.
#[derive(Clone, Copy)]
pub(crate) enum Mode<'a> {
    Check {
        /// The properties `--witness` asks to see a shortest run of.
        witness: &'a [String],
        /// The faults `--through` asks those runs to strike.
        through: &'a [Through],
        /// `--coverage`.
        coverage: bool,
    },
    Simulate {
        options: SimulateOptions,
        /// The one property `--reproduce` asks about.
        reproduce: Option<&'a str>,
    },
}

#[derive(Serialize)]
struct JsonScenario<'a> {
    scenario: &'a str,
    file: &'a Path,
    /// The variant `--variants` ran it under (every client's), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<String>,
    /// Whether its file's expectations judge it (not under another variant).
    judged: bool,
    mode: &'static str,
    /// The walks a simulation took.
    walks: Option<u64>,
    unique_states: usize,
    states: usize,
    /// The deepest path explored (or the longest walk), in steps.
    max_depth: usize,
    seconds: f64,
    complete: bool,
    /// The limit the search stopped at, if it did.
    stopped: Option<&'static str>,
    as_expected: bool,
    panic: Option<&'a str>,
    properties: Vec<JsonProperty>,
    /// A check's coverage: each recipe phase and budgeted fault kind with
    /// whether the search entered (injected) it.
    coverage: Option<JsonCoverage<'a>>,
}

#[derive(Serialize)]
struct JsonCoverage<'a> {
    phases: Vec<JsonCovered<'a>>,
    faults: Vec<JsonCovered<'a>>,
}

#[derive(Serialize)]
struct JsonCovered<'a> {
    name: &'a str,
    covered: bool,
}

#[derive(Serialize)]
struct JsonProperty {
    name: &'static str,
    expected: &'static str,
    /// The recipe's default, which the scenario did not state.
    #[serde(skip_serializing_if = "is_false")]
    expected_by_default: bool,
    actual: &'static str,
    proven: bool,
    as_expected: bool,
    seed: Option<u64>,
    /// The counterexample's length, for a violated property.
    steps: Option<usize>,
    /// Whether that counterexample is known to be a shortest one.
    shortest: Option<bool>,
    /// A simulation's counterexample: its walk's length before shrinking,
    /// and whether shrinking ended before its limit of steps.
    shrunk_from: Option<usize>,
    shrunk_complete: Option<bool>,
    /// Under `--through`, for a trace searched for: `through` (it strikes
    /// them), `around` (none does: every state searched) or `around?` (none
    /// found before a limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    through: Option<&'static str>,
    /// `unproven` where `trace` is the path an unproven verdict rests on
    /// (a likely loop, a `holds?` of `terminates`), not a proof.
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'static str>,
    trace: Option<Vec<String>>,
}

/// What `check` and `simulate` are asked: the files, how to answer, and
/// the variants to answer them under (`--variants`).
pub(crate) struct Asked<'a> {
    pub paths: &'a [PathBuf],
    pub json: bool,
    pub trace_out: Option<&'a Path>,
    pub report: Option<&'a Path>,
    /// `--variants`: each scenario is asked once per variant named, side by
    /// side, in place of its file's variants.
    pub variants: Option<&'a str>,
}

pub(crate) fn run(
    asked: Asked,
    mode: Mode,
    mut check: impl FnMut(&Scenario) -> (Outcome, String),
) -> Result<ExitCode, UsageError> {
    let Asked {
        paths,
        json,
        trace_out,
        report,
        variants,
    } = asked;
    if let Mode::Check {
        witness, through, ..
    } = mode
    {
        let steered = !witness.is_empty() || json || trace_out.is_some() || report.is_some();
        if !through.is_empty() && !steered {
            return Err(UsageError(
                "--through steers the runs --witness shows, --json, --trace-out and --report give; expected one of them beside it".into(),
            ));
        }
    }
    let (mut scenarios, mut refused) = load(paths)?;
    if let Some(list) = variants {
        scenarios = side_by_side(scenarios, list, &mut refused);
    }
    if scenarios.is_empty() {
        // Nothing to check: the errors are the whole answer.
        let mut refused = refused.into_iter();
        let first = refused.next().expect("load refuses or loads each file");
        for error in refused {
            eprintln!("zoocheck: {error}");
        }
        return Err(UsageError(first.to_string()));
    }
    properties_named(&scenarios, mode)?;
    for error in &refused {
        eprintln!("zoocheck: {error}");
    }
    let mut traces = TraceWriter::new(trace_out)?;
    // Checked before the search, which may be long, and written after it.
    let report = report.map(Destination::prepare).transpose()?;
    let mut judgements = Vec::new();
    let mut outcomes = Vec::new();
    let mut commands = Vec::new();
    let columns = Columns::fit(&scenarios);
    if !json && variants.is_none() {
        print_header(mode, columns);
    }
    for (i, scenario) in scenarios.iter().enumerate() {
        let (outcome, mut found_by) = check(scenario);
        if let Some(column) = &scenario.column {
            found_by = format!(
                "{found_by} --variants {}",
                shell_word(&column.tuning.to_string())
            );
        }
        judgements.push(if scenario.judged() {
            outcome.judgement()
        } else {
            unjudged(&outcome)
        });
        traces.write(scenario, &outcome, &found_by)?;
        outcomes.push(outcome);
        commands.push(found_by);
        if json {
            continue;
        }
        if variants.is_none() {
            print_rows(scenario, &outcomes[i], mode, columns);
            continue;
        }
        let last_column = (scenarios.get(i + 1)).is_none_or(|next| next.file != scenario.file);
        if last_column {
            let first = (0..=i)
                .rev()
                .take_while(|j| scenarios[*j].file == scenario.file)
                .last()
                .unwrap_or(i);
            print_columns(&scenarios[first..=i], &outcomes[first..=i], mode);
        }
    }
    // `--reproduce`: only whether the walks found that one property counts.
    if let Mode::Simulate {
        reproduce: Some(property),
        ..
    } = mode
    {
        if !json {
            outln!("");
        }
        judgements = scenarios
            .iter()
            .zip(&outcomes)
            .map(|(scenario, outcome)| reproduced(scenario, outcome, property, json))
            .collect();
    }
    if json {
        let json_out: Vec<JsonScenario> = scenarios
            .iter()
            .zip(&outcomes)
            .map(|(scenario, outcome)| json_scenario(scenario, outcome, mode))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&json_out)?);
    }
    let asked = match variants {
        Some(_) => {
            let mut files: Vec<&Path> = scenarios.iter().map(|s| s.file.as_path()).collect();
            files.dedup();
            format!(
                "{} under {}",
                plural(files.len(), "scenario"),
                plural(scenarios.len() / files.len().max(1), "variant")
            )
        }
        None => plural(scenarios.len(), "scenario"),
    };
    let summary = Summary::of(&judgements, &asked, mode);
    if let Some(destination) = report {
        let (witnesses, through) = match mode {
            Mode::Check {
                witness, through, ..
            } => {
                let faults: Vec<String> = through.iter().map(Through::to_string).collect();
                (witness.to_vec(), faults.join(" and "))
            }
            Mode::Simulate { .. } => (Vec::new(), String::new()),
        };
        write_report(
            destination,
            &scenarios,
            &outcomes,
            &commands,
            &refused,
            &summary.line,
            (witnesses, through),
        )?;
    }
    if !json && !summary.reproducing {
        outln!("");
        outln!("{}", summary.line);
        if !refused.is_empty() {
            outln!(
                "{} refused (see the errors above)",
                plural(refused.len(), "file")
            );
        }
    }
    Ok(summary.exit_code(!refused.is_empty()))
}

/// Refuses a `--reproduce` property some scenario does not have, and a
/// `--witness` property no scenario has (a typo): the usage error says so.
fn properties_named(scenarios: &[Scenario], mode: Mode) -> Result<(), UsageError> {
    if let Mode::Simulate {
        reproduce: Some(property),
        ..
    } = mode
    {
        for scenario in scenarios {
            if !scenario.expect.iter().any(|(name, _)| *name == property) {
                let known: Vec<&str> = scenario.expect.iter().map(|(name, _)| *name).collect();
                return Err(UsageError(format!(
                    "--reproduce {}: not a property of {}; expected one of {}",
                    quoted(property, 60),
                    scenario.name,
                    known.join(", ")
                )));
            }
        }
    }
    if let Mode::Check { through, .. } = mode {
        // An aimed fault a scenario does not aim is a typo, or a question
        // for another scenario: either way, not an answer of "none".
        for through in through {
            for scenario in scenarios {
                through
                    .charges(&scenario.budget)
                    .map_err(|message| UsageError(format!("{}: {message}", scenario.name)))?;
            }
        }
    }
    if let Mode::Check { witness, .. } = mode {
        // A scenario without the property shows no run of it; a property no
        // scenario has is a typo. Every scenario judges `terminates`.
        for property in witness {
            let has = |scenario: &Scenario| {
                property == TERMINATES || scenario.expect.iter().any(|(name, _)| name == property)
            };
            if !scenarios.iter().any(has) {
                let mut known: Vec<&str> =
                    scenarios[0].expect.iter().map(|(name, _)| *name).collect();
                known.push(TERMINATES);
                return Err(UsageError(format!(
                    "--witness {}: not a property of {}; expected one of {}",
                    quoted(property, 60),
                    if scenarios.len() == 1 {
                        scenarios[0].name.clone()
                    } else {
                        "any scenario given".to_string()
                    },
                    known.join(", ")
                )));
            }
        }
    }
    Ok(())
}

/// The line that ends a run, and its exit code.
struct Summary {
    line: String,
    not_met: usize,
    unproven: usize,
    simulating: bool,
    /// `--reproduce`, whose one line per scenario is the whole answer.
    reproducing: bool,
}

impl Summary {
    fn of(judgements: &[Judgement], checked: &str, mode: Mode) -> Summary {
        let not_met = judgements
            .iter()
            .filter(|j| **j == Judgement::NotMet)
            .count();
        let unproven = judgements
            .iter()
            .filter(|j| **j == Judgement::Unproven)
            .count();
        let simulating = matches!(mode, Mode::Simulate { .. });
        let reproducing = matches!(
            mode,
            Mode::Simulate {
                reproduce: Some(_),
                ..
            }
        );
        let summary = if not_met > 0 {
            format!("{checked}: SOME EXPECTATIONS NOT MET")
        } else if simulating {
            format!("{checked}: no unexpected violation; a simulation proves nothing (verdicts marked ? are unproven)")
        } else if unproven > 0 {
            format!(
                "{checked}: INCOMPLETE: no expectation contradicted, but {unproven} {} unproven verdicts (marked ?)",
                if unproven == 1 { "has" } else { "have" }
            )
        } else {
            format!("{checked}: every expectation met")
        };
        Summary {
            line: summary,
            not_met,
            unproven,
            simulating,
            reproducing,
        }
    }

    /// 1 for an expectation proven wrong, 2 for a refused file, 3 for an
    /// unproven verdict of a check, else 0.
    fn exit_code(&self, refused: bool) -> ExitCode {
        if self.not_met > 0 {
            ExitCode::from(1)
        } else if refused {
            ExitCode::from(2)
        } else if self.unproven > 0 && !self.simulating {
            ExitCode::from(EXIT_INCOMPLETE)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// The command line as typed, `zoocheck` first, each argument quoted for a
/// POSIX shell where it needs to be, so that it can be pasted back.
fn typed_command() -> String {
    let quoted = std::env::args().skip(1).map(|argument| {
        let plain = !argument.is_empty()
            && (argument.chars()).all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
        match plain {
            true => argument,
            false => format!("'{}'", argument.replace('\'', r"'\''")),
        }
    });
    std::iter::once("zoocheck".to_string())
        .chain(quoted)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Now, to the minute, in UTC: `2026-12-02 22:10 UTC`.
fn utc_now() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_secs())
        .unwrap_or_default();
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        of_day / 3600,
        of_day % 3600 / 60
    )
}

/// The date `days` days after 1970-01-01, in the proleptic Gregorian
/// calendar (the civil-from-days method: 400-year eras of 146,097 days, and
/// years that begin in March so that a leap day ends one).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let shifted = days + 719_468;
    let era = shifted / 146_097;
    let of_era = shifted % 146_097;
    let year_of_era = (of_era - of_era / 1460 + of_era / 36_524 - of_era / 146_096) / 365;
    let day_of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod date_tests {
    use super::civil_from_days;

    #[test]
    fn days_since_1970_are_civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        // 2000 was a leap year (divisible by 400), 2100 will not be.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(47_540), (2100, 2, 28));
        assert_eq!(civil_from_days(47_541), (2100, 3, 1));
        assert_eq!(civil_from_days(20_789), (2026, 12, 2));
    }
}

/// `--report DIR`: the verdicts and counterexamples as one HTML page.
fn write_report(
    destination: Destination,
    scenarios: &[Scenario],
    outcomes: &[Outcome],
    commands: &[String],
    refused: &[ScenarioError],
    summary: &str,
    (witnesses, through): (Vec<String>, String),
) -> Result<(), UsageError> {
    let checked: Vec<Checked> = scenarios
        .iter()
        .zip(outcomes)
        .zip(commands)
        .map(|((scenario, outcome), found_by)| Checked {
            scenario,
            outcome,
            found_by,
        })
        .collect();
    let refused: Vec<String> = refused.iter().map(|error| error.to_string()).collect();
    let run = zoocheck::report::Invocation {
        version: env!("CARGO_PKG_VERSION"),
        date: utc_now(),
        command: typed_command(),
        witnesses,
        through,
    };
    destination.write(&zoocheck::report::html(&checked, &summary, &refused, &run))?;
    if destination.replaces {
        eprintln!("note: replacing {}", destination.index.display());
    }
    eprintln!("wrote {}", destination.index.display());
    Ok(())
}

/// `--reproduce`: whether a walk found the one property asked about, said in
/// one line; only that counts.
fn reproduced(scenario: &Scenario, outcome: &Outcome, property: &str, json: bool) -> Judgement {
    let found = outcome
        .properties
        .iter()
        .find(|p| p.name == property)
        .expect("checked against the scenario's properties");
    let verb = match found.actual {
        Verdict::Violated | Verdict::Holds => "violates",
        Verdict::Reached | Verdict::Unreached => "reaches",
    };
    match (&found.trace, found.seed) {
        (Some(trace), Some(seed)) => {
            let expected = if !scenario.judged() {
                "under a variant the file does not judge"
            } else if found.as_expected() {
                "as the scenario expects"
            } else {
                "NOT as the scenario expects"
            };
            if !json {
                let steps = match found.shrunk {
                    Some(shrunk) => {
                        format!("{} steps, shrunk to {}", shrunk.from, trace.steps.len())
                    }
                    None => format!("{} steps", trace.steps.len()),
                };
                outln!(
                    "reproduced: the walk with seed {seed} {verb} {property} of {} in {steps} ({expected})",
                    scenario.name
                );
            }
            Judgement::Met
        }
        _ => {
            if !json {
                outln!(
                    "not reproduced: no walk {verb} {property} of {}",
                    scenario.name
                );
            }
            Judgement::NotMet
        }
    }
}

fn json_scenario<'a>(scenario: &'a Scenario, outcome: &'a Outcome, mode: Mode) -> JsonScenario<'a> {
    JsonScenario {
        scenario: &scenario.name,
        file: &scenario.file,
        variant: (scenario.column.as_ref()).map(|column| column.tuning.to_string()),
        judged: scenario.judged(),
        mode: match mode {
            Mode::Check { .. } => "check",
            Mode::Simulate { .. } => "simulate",
        },
        walks: matches!(mode, Mode::Simulate { .. }).then_some(outcome.walks),
        unique_states: outcome.unique_states,
        states: outcome.states,
        max_depth: outcome.max_depth,
        seconds: outcome.elapsed.as_secs_f64(),
        complete: outcome.complete(),
        stopped: outcome.stopped.map(Limit::name),
        as_expected: outcome.as_expected(),
        panic: outcome.panic.as_ref().map(|panic| panic.message.as_str()),
        properties: outcome
            .properties
            .iter()
            .map(|p| {
                let path = p.path().filter(|(_, shows)| *shows != Shows::Witness);
                let shown = path.map(|(trace, _)| trace);
                JsonProperty {
                    name: p.name,
                    expected: p.expected.name(),
                    expected_by_default: p.expected.by_default,
                    actual: p.actual.name(),
                    proven: p.proven,
                    as_expected: p.as_expected(),
                    seed: p.seed,
                    steps: shown.map(|t| t.steps.len()),
                    shortest: shown.map(|t| t.shortest),
                    shrunk_from: p.shrunk.map(|shrunk| shrunk.from),
                    shrunk_complete: p.shrunk.map(|shrunk| shrunk.complete),
                    through: p.through.map(routed_name),
                    path: path
                        .filter(|(_, shows)| *shows == Shows::Unproven)
                        .map(|_| "unproven"),
                    trace: shown.map(|t| t.steps.iter().map(|s| s.text.clone()).collect()),
                }
            })
            .collect(),
        coverage: outcome.coverage.as_ref().map(|coverage| {
            let covered = |items: &'a [(&'static str, bool)]| {
                items
                    .iter()
                    .map(|&(name, covered)| JsonCovered { name, covered })
                    .collect()
            };
            JsonCoverage {
                phases: covered(&coverage.phases),
                faults: covered(&coverage.faults),
            }
        }),
    }
}

/// The widths of the table's name columns and its expected column: as wide
/// as the longest scenario and property names and expectations to be
/// printed (`reached (default)`), so that long ones keep it aligned.
#[derive(Clone, Copy)]
struct Columns {
    scenario: usize,
    property: usize,
    expected: usize,
}

impl Columns {
    fn fit(scenarios: &[Scenario]) -> Columns {
        let longest = |lengths: &mut dyn Iterator<Item = usize>, header: &str| {
            lengths.max().unwrap_or(0).max(header.len())
        };
        Columns {
            scenario: longest(&mut scenarios.iter().map(|s| s.name.len()), "scenario"),
            property: longest(
                &mut scenarios
                    .iter()
                    .flat_map(|s| s.expect.iter().map(|(name, _)| name.len())),
                "property",
            ),
            expected: longest(
                &mut scenarios.iter().flat_map(|s| {
                    (s.expect.iter().map(|(_, expected)| expected.shown().len())).chain([s
                        .termination
                        .expected
                        .shown()
                        .len()])
                }),
                "expected",
            )
            .max(10),
        }
    }
}

fn print_header(mode: Mode, columns: Columns) {
    let Columns {
        scenario: sw,
        property: pw,
        expected: ew,
    } = columns;
    match mode {
        Mode::Check { .. } => outln!(
            "{:<sw$} {:<pw$} {:<ew$} {:<10} {:>10} {:>7} {:>5} {:>8} {:>10}",
            "scenario",
            "property",
            "expected",
            "actual",
            "unique",
            "deepest",
            "steps",
            "seconds",
            "states/s"
        ),
        Mode::Simulate { .. } => outln!(
            "{:<sw$} {:<pw$} {:<ew$} {:<10} {:>10} {:>7} {:>5} {:>8} {:>10}",
            "scenario",
            "property",
            "expected",
            "actual",
            "walked",
            "longest",
            "steps",
            "seconds",
            "steps/s"
        ),
    }
}

fn print_rows(scenario: &Scenario, outcome: &Outcome, mode: Mode, columns: Columns) {
    let Columns {
        scenario: sw,
        property: pw,
        expected: ew,
    } = columns;
    let seconds = outcome.elapsed.as_secs_f64();
    let counted = match mode {
        Mode::Check { .. } => outcome.unique_states,
        Mode::Simulate { .. } => outcome.states,
    };
    let rate = if seconds > 0.0 {
        counted as f64 / seconds
    } else {
        0.0
    };
    for property in &outcome.properties {
        let mark = match property.judgement() {
            Judgement::Met => "",
            Judgement::NotMet => "  <- NOT AS EXPECTED",
            Judgement::Unproven if property.as_expected() => "",
            Judgement::Unproven => "  <- none found in the part searched",
        };
        // The counterexample's length (a simulation's: where its walk found
        // it), starred where a check could not find the shortest.
        let steps = property
            .trace
            .as_ref()
            .filter(|_| property.actual == Verdict::Violated)
            .map_or("-".to_string(), |trace| {
                let star = if trace.shortest || !matches!(mode, Mode::Check { .. }) {
                    ""
                } else {
                    "*"
                };
                format!("{}{star}", trace.steps.len())
            });
        outln!(
            "{:<sw$} {:<pw$} {:<ew$} {:<10} {:>10} {:>7} {:>5} {:>8.2} {:>10.0}{mark}",
            scenario.name,
            property.name,
            property.expected.shown(),
            property.shown(),
            counted,
            outcome.max_depth,
            steps,
            seconds,
            rate
        );
    }
    print_notes(scenario, outcome, mode);
}

/// Under a scenario's rows: what its counterexamples, coverage, loops,
/// witnesses, a panic and a limit say.
fn print_notes(scenario: &Scenario, outcome: &Outcome, mode: Mode) {
    let unshortened = outcome.properties.iter().any(|property| {
        property.actual == Verdict::Violated
            && property.trace.as_ref().is_some_and(|trace| !trace.shortest)
    });
    if unshortened && matches!(mode, Mode::Check { .. }) {
        outln!("  (* a counterexample not known to be the shortest: the search for it stopped at a limit)");
    }
    if let Mode::Simulate { options, .. } = mode {
        for property in &outcome.properties {
            let (Some(trace), Some(seed)) = (&property.trace, property.seed) else {
                continue;
            };
            let what = match property.actual {
                Verdict::Violated => format!("counterexample to {}", property.name),
                _ if !property.as_expected() => format!(
                    "{} reached, which the scenario expects {}",
                    property.name,
                    property.expected.name()
                ),
                _ => continue,
            };
            outln!(
                "  {what} ({}; walk seed {seed}); reproduce the walk with:\n    zoocheck simulate {}{} --seed {seed} --runs 1 --max-depth {} --reproduce {}",
                shrunk_steps(trace, property.shrunk),
                scenario.file.display(),
                variant_flag(scenario),
                options.max_depth,
                property.name
            );
        }
        if outcome.walks < options.runs {
            outln!(
                "  (stopped at the first walk to find something unexpected, seed {}: {} of {} walks taken)",
                options.seed.wrapping_add(outcome.walks - 1),
                outcome.walks,
                options.runs
            );
        }
    }
    if let Mode::Check {
        witness,
        through,
        coverage,
    } = mode
    {
        print_coverage(outcome, coverage);
        if let Some(note) = zoocheck::check::termination::note(outcome) {
            outln!("  {note}");
        }
        for name in witness {
            print_witness(scenario, outcome, name, through);
        }
    }
    if let Some(panic) = &outcome.panic {
        outln!(
            "  THE MODEL PANICKED in {}: {}",
            scenario.name,
            shorten(&panic.message, 500)
        );
        if let Some(trace) = &panic.trace {
            outln!(
                "  after {} steps (the trace file replays them)",
                trace.steps.len()
            );
        }
    }
    match (outcome.stopped, mode) {
        (Some(Limit::Memory), Mode::Check { .. }) => outln!(
            "  ({} at {} unique states: a `?` verdict is unproven; to go further, give it more memory with --max-memory, ask with fewer clients or faults, or walk the space with `zoocheck simulate`)",
            Limit::Memory.describe(),
            outcome.unique_states
        ),
        (Some(limit), Mode::Check { .. }) => outln!(
            "  ({}: a `?` verdict is unproven)",
            limit.describe()
        ),
        _ => {}
    }
}

/// Each scenario asked once per variant `list` names, in place of its
/// file's; a scenario whose recipe has no such variant is refused.
fn side_by_side(
    scenarios: Vec<Scenario>,
    list: &str,
    refused: &mut Vec<ScenarioError>,
) -> Vec<Scenario> {
    let mut columns = Vec::new();
    for scenario in scenarios {
        match scenario.variants_named(list) {
            Ok(tunings) => columns.extend(tunings.into_iter().map(|tuning| scenario.under(tuning))),
            Err(message) => refused.push(ScenarioError {
                file: scenario.file.clone(),
                key: "--variants".to_string(),
                message,
            }),
        }
    }
    columns
}

/// A column's judgement when the file's expectations are not its own: a
/// panic fails, an unproven verdict is unproven, the rest is only shown.
fn unjudged(outcome: &Outcome) -> Judgement {
    if outcome.panic.is_some() {
        Judgement::NotMet
    } else if outcome.properties.iter().any(|property| !property.proven) && !outcome.complete() {
        Judgement::Unproven
    } else {
        Judgement::Met
    }
}

/// ` --variants V` for a scenario asked under a variant its file does not
/// name, so that a command printed for it asks the same; else nothing.
fn variant_flag(scenario: &Scenario) -> String {
    scenario.column.as_ref().map_or(String::new(), |column| {
        format!(" --variants {}", shell_word(&column.tuning.to_string()))
    })
}

/// A word as a shell reads it: quoted if it holds a space.
fn shell_word(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-=,.".contains(c))
    {
        word.to_string()
    } else {
        format!("'{word}'")
    }
}

/// One scenario's verdicts under each variant, side by side: a row per
/// property with the file's expectation (for its own variant) and a column
/// per variant; then each column's notes.
fn print_columns(columns: &[Scenario], outcomes: &[Outcome], mode: Mode) {
    let first = &columns[0];
    let own = first.subject.variant_words();
    outln!("{}: side by side (its file's variant: {own})", first.name);
    let cell = |outcome: &Outcome, name: &str, judged: bool| {
        let Some(property) = outcome.properties.iter().find(|p| p.name == name) else {
            return "-".to_string();
        };
        let steps = (property.trace.as_ref())
            .filter(|_| property.actual == Verdict::Violated)
            .map(|trace| format!(" ({})", trace.steps.len()))
            .unwrap_or_default();
        let mark = if judged && property.judgement() == Judgement::NotMet {
            " !"
        } else {
            ""
        };
        format!("{}{steps}{mark}", property.shown())
    };
    let names: Vec<&str> = outcomes[0].properties.iter().map(|p| p.name).collect();
    let headers: Vec<String> = (columns.iter())
        .map(|column| {
            let tuning = column.column.as_ref().expect("a column").tuning.to_string();
            if column.judged() {
                format!("{tuning} (file's)")
            } else {
                tuning
            }
        })
        .collect();
    let cells: Vec<Vec<String>> = (columns.iter().zip(outcomes))
        .map(|(column, outcome)| {
            let mut cells: Vec<String> = (names.iter())
                .map(|name| cell(outcome, name, column.judged()))
                .collect();
            let counted = match mode {
                Mode::Check { .. } => outcome.unique_states,
                Mode::Simulate { .. } => outcome.states,
            };
            cells.push(counted.to_string());
            cells.push(format!("{:.2}", outcome.elapsed.as_secs_f64()));
            cells
        })
        .collect();
    let counted = match mode {
        Mode::Check { .. } => "unique states",
        Mode::Simulate { .. } => "states walked",
    };
    let mut rows: Vec<&str> = names.clone();
    rows.extend([counted, "seconds"]);
    let pw = rows
        .iter()
        .map(|row| row.len())
        .max()
        .unwrap_or(0)
        .max("property".len());
    let widths: Vec<usize> = (headers.iter().zip(&cells))
        .map(|(header, cells)| {
            cells
                .iter()
                .map(String::len)
                .chain([header.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut line = format!("  {:<pw$} {:<10}", "property", "expected");
    for (header, width) in headers.iter().zip(&widths) {
        line.push_str(&format!(" {header:<width$}"));
    }
    outln!("{}", line.trim_end());
    for (row, name) in rows.iter().enumerate() {
        let expected = (first.expect.iter())
            .find(|(property, _)| property == name)
            .map(|(_, expected)| expected.name())
            .or_else(|| {
                (*name == zoocheck::properties::termination::TERMINATES)
                    .then(|| first.termination.expected.name())
            })
            .unwrap_or("");
        let mut line = format!("  {name:<pw$} {expected:<10}");
        for (cells, width) in cells.iter().zip(&widths) {
            line.push_str(&format!(" {:<width$}", cells[row]));
        }
        outln!("{}", line.trim_end());
    }
    if (columns.iter().zip(outcomes))
        .any(|(column, outcome)| column.judged() && outcome.judgement() == Judgement::NotMet)
    {
        outln!("  (! not as the file expects for its own variant)");
    }
    for (column, outcome) in columns.iter().zip(outcomes) {
        if has_notes(outcome, mode) {
            let tuning = &column.column.as_ref().expect("a column").tuning;
            outln!("  under {tuning}:");
            print_notes(column, outcome, mode);
        }
    }
}

/// Whether [`print_notes`] has something to say of `outcome`.
fn has_notes(outcome: &Outcome, mode: Mode) -> bool {
    let unshortened = (outcome.properties.iter()).any(|property| {
        property.actual == Verdict::Violated
            && property.trace.as_ref().is_some_and(|trace| !trace.shortest)
    });
    let said = outcome.panic.is_some();
    match mode {
        Mode::Check {
            witness, coverage, ..
        } => {
            said || unshortened
                || outcome.stopped.is_some()
                || !witness.is_empty()
                || coverage
                || zoocheck::check::unreached_why(outcome, zoocheck::check::PhasesNamed::NotEntered)
                    .is_some()
                || zoocheck::check::termination::note(outcome).is_some()
        }
        Mode::Simulate { options, .. } => {
            let told = |property: &&zoocheck::check::PropertyOutcome| {
                property.seed.is_some()
                    && (property.actual == Verdict::Violated || !property.as_expected())
            };
            said || outcome.walks < options.runs || outcome.properties.iter().any(|p| told(&p))
        }
    }
}

/// Under a check's rows: why a `sometimes` went unreached (the phases no
/// client entered), and with `--coverage` everything the search covered.
fn print_coverage(outcome: &Outcome, all: bool) {
    if let Some(why) =
        zoocheck::check::unreached_why(outcome, zoocheck::check::PhasesNamed::NotEntered)
    {
        outln!("  {why}");
    }
    let Some(coverage) = outcome.coverage.as_ref().filter(|_| all) else {
        return;
    };
    let names = zoocheck::check::names_or_none;
    outln!(
        "  phases entered: {}",
        names(&coverage.phases_entered(true))
    );
    outln!(
        "  phases never entered: {}",
        names(&coverage.phases_entered(false))
    );
    if coverage.faults.is_empty() {
        outln!("  faults: none budgeted");
    } else {
        outln!(
            "  faults injected: {}",
            names(&coverage.faults_injected(true))
        );
        outln!(
            "  faults never injected: {}",
            names(&coverage.faults_injected(false))
        );
    }
}

/// `--witness NAME`: the shortest run that shows the property (through the
/// faults `--through` names, where it can), or why none does.
fn print_witness(scenario: &Scenario, outcome: &Outcome, name: &str, through: &[Through]) {
    let Some(property) = outcome.properties.iter().find(|p| p.name == name) else {
        return;
    };
    let faults: Vec<String> = through.iter().map(Through::to_string).collect();
    let faults = faults.join(" and ");
    match property.path() {
        Some((trace, shows)) => {
            let noun = match shows {
                Shows::Witness => "witness",
                Shows::Counterexample | Shows::Unproven => "counterexample",
            };
            let what = match shows {
                Shows::Unproven => format!("{} {name} {}", shows.words(), property.shown()),
                _ => format!("{} {name}", shows.words()),
            };
            let shortest = if shows == Shows::Unproven {
                ", not a proof"
            } else if trace.shortest {
                ""
            } else {
                ", not known to be the shortest"
            };
            let routed = match property.through {
                Some(Routed::Through) => format!(" through {faults}"),
                Some(Routed::Around { searched_all }) => {
                    let unbudgeted: Vec<&str> = (through.iter())
                        .filter(|through| scenario.budget.total(through.kind) == 0)
                        .map(|through| through.kind.name())
                        .collect();
                    let why = match searched_all {
                        _ if !unbudgeted.is_empty() => format!(
                            "the scenario budgets no {}; the shortest of all",
                            unbudgeted.join(" and no ")
                        ),
                        true => format!(
                            "no run strikes {} before the discovery (every state within the depth bound searched); the shortest of all",
                            if through.len() > 1 { "them all" } else { "it" }
                        ),
                        false => "none found before the search for one stopped at a limit; the shortest of all".to_string(),
                    };
                    outln!("\n  no {noun} to {name} goes through {faults}: {why} follows");
                    String::new()
                }
                None => String::new(),
            };
            outln!(
                "\n  {what}{routed} ({} steps{shortest}):",
                trace.steps.len()
            );
            for line in trace.to_string().lines() {
                outln!("  {line}");
            }
        }
        None => outln!("  {name}: no run shows it ({})", property.shown()),
    }
}

fn is_false(flag: &bool) -> bool {
    !flag
}

/// `--through`'s answer in JSON.
fn routed_name(routed: Routed) -> &'static str {
    match routed {
        Routed::Through => "through",
        Routed::Around { searched_all: true } => "around",
        Routed::Around {
            searched_all: false,
        } => "around?",
    }
}

/// A simulated counterexample's length, and its walk's before shrinking:
/// `12 steps, shrunk from 18`.
fn shrunk_steps(trace: &trace::Trace, shrunk: Option<zoocheck::shrink::Shrinking>) -> String {
    let steps = trace.steps.len();
    match shrunk {
        Some(shrunk) if shrunk.complete => format!("{steps} steps, shrunk from {}", shrunk.from),
        Some(shrunk) => format!(
            "{steps} steps, shrunk from {} until the limit of {} steps",
            shrunk.from, shrunk.steps
        ),
        None => format!("{steps} steps"),
    }
}
