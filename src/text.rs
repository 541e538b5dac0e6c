//! Text for people: what zoocheck reads (files of at most a megabyte, in
//! UTF-8) and how it echoes what it read in errors (shortened, escaped,
//! with the nearest name it knows).

use std::fmt::Write as _;
use std::path::Path as FsPath;

/// The longest error message shown whole.
pub(crate) const MESSAGE_LEN_MAX: usize = 2000;

/// The largest file zoocheck reads (a scenario, a trace).
pub const FILE_LEN_MAX: u64 = 1 << 20;

/// `text` as it may be shown to a person: control characters escaped (no
/// terminal escape code passes through) and at most `max` characters, with
/// how much was left out.
pub fn shorten(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for (offset, c) in text.char_indices() {
        if shown >= max {
            let _ = write!(out, "... ({} more bytes)", text.len() - offset);
            break;
        }
        if c.is_control() && c != '\n' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        shown += 1;
    }
    out
}

/// `text` quoted as Rust writes a string (control characters escaped), at
/// most `max` characters of it, with how much was left out.
pub fn quoted(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((offset, _)) => format!(
            "{:?}... ({} more bytes)",
            &text[..offset],
            text.len() - offset
        ),
        None => format!("{text:?}"),
    }
}

/// Reads a file zoocheck was given: only a regular file (a FIFO or a device
/// would hang or never end), of at most [`FILE_LEN_MAX`] bytes, in UTF-8
/// (else the line and byte offset of the first bad byte).
pub fn read_text(file: &FsPath) -> Result<String, String> {
    use std::io::Read as _;
    let metadata = std::fs::metadata(file).map_err(|error| format!("cannot read: {error}"))?;
    if !metadata.is_file() {
        return Err("not a regular file; expected a file of text".into());
    }
    if metadata.len() > FILE_LEN_MAX {
        return Err(format!(
            "{} bytes; expected at most {FILE_LEN_MAX}",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|opened| opened.take(FILE_LEN_MAX + 1).read_to_end(&mut bytes))
        .map_err(|error| format!("cannot read: {error}"))?;
    if bytes.len() as u64 > FILE_LEN_MAX {
        return Err(format!("grew past {FILE_LEN_MAX} bytes while read"));
    }
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let line = error.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        format!("not UTF-8: an invalid byte at line {line} (byte offset {offset})")
    })
}

pub(crate) fn expected_one_of(found: &str, allowed: &[&str]) -> String {
    let hint = did_you_mean(found, allowed)
        .map(|near| format!("did you mean {near:?}? "))
        .unwrap_or_default();
    format!(
        "{}; {hint}expected one of {}",
        quoted(found, 60),
        allowed.join(", ")
    )
}

/// The name in `known` nearest to `found`, if it is near enough to be a slip
/// (an edit distance of at most a third of its length, and at least 1).
pub fn did_you_mean<'a>(found: &str, known: &[&'a str]) -> Option<&'a str> {
    if found.len() > 100 {
        return None;
    }
    known
        .iter()
        .map(|name| (edit_distance(found, name), *name))
        .filter(|(distance, name)| *distance <= (name.len() / 3).max(1))
        .min()
        .map(|(_, name)| name)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The lines of `before` that `after` lost (`false`) and those it gained
/// (`true`), in their order, from a longest common subsequence of
/// the two: what a step changed in a state in words (a report), or a run in
/// a snapshot (`pin`). Quadratic in the lines, which are a few hundred at
/// most there.
pub fn changed_lines<'a>(before: &'a str, after: &'a str) -> Vec<(bool, &'a str)> {
    let (old, new): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    // common[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut common = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut changes) = (0, 0, Vec::new());
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            (i, j) = (i + 1, j + 1);
        } else if i < old.len() && (j == new.len() || common[i + 1][j] >= common[i][j + 1]) {
            // A line lost before one gained: a rewritten line reads old, then new.
            changes.push((false, old[i]));
            i += 1;
        } else {
            changes.push((true, new[j]));
            j += 1;
        }
    }
    changes
}
