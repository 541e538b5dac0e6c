//! The words of a verdict: what the search found of a property
//! ([`Verdict`]) and what a scenario expects of it ([`Expected`]).

/// The answer a scenario expects for one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// An `always` property with no counterexample.
    Holds,
    /// An `always` property with a counterexample.
    Violated,
    /// A `sometimes` property with an example.
    Reached,
    /// A `sometimes` property with no example.
    Unreached,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Reached => "reached",
            Verdict::Unreached => "unreached",
        }
    }
}

/// What a scenario expects of one property: a verdict, and whether the
/// search proves it. Most expectations are proven ones (`holds`). An
/// unproven one (`violated?`, `holds?`, ...) is what a search can show but
/// not prove, such as a likely loop on a path that grows to the depth bound
/// (`terminates = "violated?"`), and the verdicts the search could not prove
/// beside it: meeting it is success, and a search that proves it instead is
/// a change the scenario should say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub verdict: Verdict,
    pub proven: bool,
    /// The recipe's default for the property, which the scenario did not
    /// state ([`crate::world::promise::Promise::by_default`]).
    pub by_default: bool,
}

impl Expected {
    pub fn proven(verdict: Verdict) -> Expected {
        Expected {
            verdict,
            proven: true,
            by_default: false,
        }
    }

    /// The recipe's default expectation of a property: `verdict`, proven.
    pub fn by_default(verdict: Verdict) -> Expected {
        Expected {
            by_default: true,
            ..Expected::proven(verdict)
        }
    }

    /// As a table shows it: [`Expected::name`], with `(default)` where the
    /// scenario left it to the recipe's default.
    pub fn shown(self) -> String {
        match self.by_default {
            true => format!("{} (default)", self.name()),
            false => self.name().to_string(),
        }
    }

    /// As a scenario writes it: `holds`, or `holds?` where unproven.
    pub fn name(self) -> &'static str {
        match (self.verdict, self.proven) {
            (verdict, true) => verdict.name(),
            (Verdict::Holds, false) => "holds?",
            (Verdict::Violated, false) => "violated?",
            (Verdict::Reached, false) => "reached?",
            (Verdict::Unreached, false) => "unreached?",
        }
    }

    /// The expectation `text` names among those of an always-property
    /// (`always`) or of a sometimes-property.
    pub fn parse(text: &str, always: bool) -> Option<Expected> {
        let (word, proven) = match text.strip_suffix('?') {
            Some(word) => (word, false),
            None => (text, true),
        };
        let verdict = match word {
            "holds" if always => Verdict::Holds,
            "violated" if always => Verdict::Violated,
            "reached" if !always => Verdict::Reached,
            "unreached" if !always => Verdict::Unreached,
            _ => return None,
        };
        Some(Expected {
            verdict,
            proven,
            by_default: false,
        })
    }
}
