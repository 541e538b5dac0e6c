//! Sequence diagrams of traces: one model, two drawings.
//!
//! 1. [`Diagram::build`] replays a trace's actions from the initial state, as
//!    [`crate::trace::replay`] does, and turns each step into items on the
//!    lifelines of the clients and the store: an arrow for each request a
//!    client sends and for each reply and watch event the server queues; a
//!    note for what a client read, did and now believes, or for what the
//!    server served and deleted; a shaded box for a fault, over the faulted
//!    client and the store.
//! 2. Every item carries the number of the step that drew it, counted from 1
//!    as the trace's step list counts ([`crate::trace::Trace`]'s `Display`),
//!    and both drawings print it first in the item's label (`7: create
//!    /lock/c1-lock-`): one step can draw several arrows and notes, so a
//!    drawing's own counter (Mermaid's `autonumber`) would drift from the list.
//! 3. [`Diagram::mermaid`] writes it as a Mermaid `sequenceDiagram` for the
//!    Markdown trace files; [`Diagram::svg`] draws it as SVG for the HTML
//!    report ([`crate::report`]), laid out here in a monospace font so that
//!    every width is known without a browser.
//!
//! The words are the trace's: the notes are the step's clauses as
//! [`crate::world::World::describe`] wrote them, the arrows the requests and
//! replies as its helpers name them, with the data a create or a setData
//! carries (a vote, a queue item, an unlock request) in a short printable form.

use std::fmt::Write as _;
use std::iter;

use crate::client::ServerMessage;
use crate::recipe::Recipe;

use crate::store::words::{op, result};
use crate::store::{Data, MultiOp, Op, OpResult, Response};
use crate::world::steps::words::sent;
use crate::world::steps::Drawn;
use crate::world::{Action, World, WorldState};

/// A trace as lifelines and what happens between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagram {
    /// The lifelines, left to right: the clients (`c0`, `c1`, ...), then `store`.
    pub participants: Vec<String>,
    /// What happens, top to bottom.
    pub items: Vec<Item>,
}

/// One thing drawn, with the number of the step that drew it (from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Arrow(Arrow),
    /// What happened on one lifeline, a clause a line.
    Note {
        step: usize,
        over: usize,
        lines: Vec<String>,
    },
    /// A fault (or the server's expiring a crashed process's session): a
    /// shaded box over the lifelines `first..=last`, its words inside.
    Fault {
        step: usize,
        first: usize,
        last: usize,
        lines: Vec<String>,
    },
}

/// A message between two lifelines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    pub step: usize,
    pub from: usize,
    pub to: usize,
    pub kind: ArrowKind,
    pub label: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    /// A client's request to the server.
    Request,
    /// The server's reply to a request.
    Reply,
    /// A watch event the server sends.
    Event,
}

impl ArrowKind {
    pub fn name(self) -> &'static str {
        match self {
            ArrowKind::Request => "request",
            ArrowKind::Reply => "reply",
            ArrowKind::Event => "event",
        }
    }
}

impl Item {
    /// The number of the step that drew it.
    pub fn step(&self) -> usize {
        match self {
            Item::Arrow(arrow) => arrow.step,
            Item::Note { step, .. } | Item::Fault { step, .. } => *step,
        }
    }

    /// Its words, a line each (an arrow's is one line).
    pub fn lines(&self) -> Vec<&str> {
        match self {
            Item::Arrow(arrow) => vec![arrow.label.as_str()],
            Item::Note { lines, .. } | Item::Fault { lines, .. } => {
                lines.iter().map(String::as_str).collect()
            }
        }
    }
}

/// The trace as a Mermaid sequence diagram ([`Diagram::mermaid`]).
pub fn mermaid<R: Recipe>(world: &World<R>, actions: &[Action]) -> String {
    Diagram::build(world, actions).mermaid()
}

impl Diagram {
    /// Replays `actions` from the initial state, drawing each step; it stops
    /// where an action is not enabled (a trace that no longer replays).
    pub fn build<R: Recipe>(world: &World<R>, actions: &[Action]) -> Diagram {
        let mut diagram = Diagram {
            participants: (0..world.clients())
                .map(|client| format!("c{client}"))
                .chain(iter::once("store".to_string()))
                .collect(),
            items: Vec::new(),
        };
        // The replay a trace is told from: the same steps, in the same words.
        let replayed = crate::trace::replay(world, actions);
        for (index, step) in replayed.steps.iter().enumerate() {
            let (before, after) = (&replayed.states[index], &replayed.states[index + 1]);
            diagram.step(
                index + 1,
                before,
                &actions[index],
                after,
                &step.text,
                R::data_words,
            );
        }
        diagram
    }

    /// The store's lifeline: the last.
    pub fn store(&self) -> usize {
        self.participants.len() - 1
    }

    pub fn arrows(&self) -> impl Iterator<Item = &Arrow> {
        self.items.iter().filter_map(|item| match item {
            Item::Arrow(arrow) => Some(arrow),
            _ => None,
        })
    }

    /// Draws step number `step`, whose words are `text`.
    fn step<S, L>(
        &mut self,
        step: usize,
        before: &WorldState<S, L>,
        action: &Action,
        after: &WorldState<S, L>,
        text: &str,
        words: DataWords,
    ) {
        let store = self.store();
        let client = action.client();
        match (action.drawn(), client) {
            (Drawn::Client, Some(c)) => {
                // The step's clauses, but the requests it sent, which are
                // arrows instead.
                let prefix = format!("c{c} ");
                let lines: Vec<String> = text
                    .split("; ")
                    .filter(|clause| !clause.starts_with("sends "))
                    .map(|clause| clause.strip_prefix(&prefix).unwrap_or(clause).to_string())
                    .collect();
                if !lines.is_empty() {
                    self.items.push(Item::Note {
                        step,
                        over: c,
                        lines,
                    });
                }
                for request in sent(before, after, c) {
                    self.items.push(Item::Arrow(Arrow {
                        step,
                        from: c,
                        to: store,
                        kind: ArrowKind::Request,
                        label: request_label(&request.op, words),
                    }));
                }
            }
            (Drawn::Served, Some(c)) => {
                // What was served (the first clause says it with the reply,
                // which is an arrow here), then what else the server did.
                let served = before.net.links[c]
                    .up
                    .front()
                    .map(|request| request_label(&request.op, words))
                    .unwrap_or_default();
                let lines = iter::once(format!("serves c{c}: {served}"))
                    .chain(text.split("; ").skip(1).map(str::to_string))
                    .collect();
                self.items.push(Item::Note {
                    step,
                    over: store,
                    lines,
                });
                // An ensemble's client waiting for its write or sync hears
                // nothing yet (the server's `Apply` draws the reply).
                let answered = after.net.wait(c).is_none();
                let reply = after.net.links[c].down.back().filter(|_| answered);
                if let Some(ServerMessage::Reply { result: r, .. }) = reply {
                    self.items.push(Item::Arrow(Arrow {
                        step,
                        from: store,
                        to: c,
                        kind: ArrowKind::Reply,
                        label: reply_label(r, words),
                    }));
                }
                self.notifications(step, before, after, Some(c), words);
            }
            // A step drawn over a client that names none is drawn struck.
            (Drawn::Struck, _) | (Drawn::Client | Drawn::Served, None) => {
                self.items.push(Item::Fault {
                    step,
                    first: client.unwrap_or(store),
                    last: store,
                    lines: text.split("; ").map(str::to_string).collect(),
                });
                self.notifications(step, before, after, None, words);
            }
        }
    }

    /// An arrow for each watch event the server queued in this step.
    fn notifications<S, L>(
        &mut self,
        step: usize,
        before: &WorldState<S, L>,
        after: &WorldState<S, L>,
        served: Option<usize>,
        words: DataWords,
    ) {
        let store = self.store();
        for (c, (was, is)) in before.net.links.iter().zip(&after.net.links).enumerate() {
            // A server action only appends to links; the served client's link
            // gained its reply last, after any events.
            let gained = is.down.len().saturating_sub(was.down.len());
            let events = if Some(c) == served {
                gained.saturating_sub(1)
            } else {
                gained
            };
            for message in is.down.iter().skip(is.down.len() - gained).take(events) {
                match message {
                    ServerMessage::Notification(event) => self.items.push(Item::Arrow(Arrow {
                        step,
                        from: store,
                        to: c,
                        kind: ArrowKind::Event,
                        label: format!("{} {}", event.kind.name(), event.path),
                    })),
                    // A server answering the write or sync it has now
                    // applied (`Apply`).
                    ServerMessage::Reply { result, .. } => self.items.push(Item::Arrow(Arrow {
                        step,
                        from: store,
                        to: c,
                        kind: ArrowKind::Reply,
                        label: reply_label(result, words),
                    })),
                }
            }
        }
    }
}

/// A node's data in its recipe's words, if the recipe gives it a meaning
/// ([`Recipe::data_words`]).
pub type DataWords = fn(&[u8]) -> Option<String>;

/// Data no recipe gives a meaning.
pub fn no_words(_bytes: &[u8]) -> Option<String> {
    None
}

/// A request as an arrow says it: the trace's words, with the data it writes.
pub fn request_label(request: &Op, words: DataWords) -> String {
    match request {
        Op::Create { data, .. } | Op::SetData { data, .. } => {
            with_payload(op(request), data, words)
        }
        Op::Multi(ops) => {
            let ops: Vec<String> = ops.iter().map(|op| multi_op_label(op, words)).collect();
            format!("multi [{}]", ops.join(", "))
        }
        _ => op(request),
    }
}

fn multi_op_label(multi: &MultiOp, words: DataWords) -> String {
    match multi {
        MultiOp::Create { path, data, mode } => request_label(
            &Op::Create {
                path: path.clone(),
                data: data.clone(),
                mode: *mode,
            },
            words,
        ),
        MultiOp::Delete { path, version } => op(&Op::Delete {
            path: path.clone(),
            version: *version,
        }),
        MultiOp::SetData {
            path,
            data,
            version,
        } => request_label(
            &Op::SetData {
                path: path.clone(),
                data: data.clone(),
                version: *version,
            },
            words,
        ),
        MultiOp::Check { path, version } => format!("check {path} version {version}"),
    }
}

/// A reply as an arrow says it: the trace's words, with the data a getData read.
pub fn reply_label(reply: &OpResult, words: DataWords) -> String {
    match reply {
        Ok(Response::Data { data, .. }) => match payload(data, words) {
            Some(payload) => format!("data {payload}"),
            None => "data, empty".to_string(),
        },
        _ => result(reply),
    }
}

fn with_payload(label: String, data: &Data, words: DataWords) -> String {
    match payload(data, words) {
        Some(payload) => format!("{label} {payload}"),
        None => label,
    }
}

/// The most characters of a node's data a label shows.
const PAYLOAD_CHARS_MAX: usize = 24;

/// A node's data in a short printable form: in the recipe's `words` if it
/// has some (a queue item as `item c0.1`), printable text quoted
/// (`"commit"`, `"unlock"`), anything else by its length; nothing for no data.
pub fn payload(data: &Data, words: DataWords) -> Option<String> {
    let bytes = data.as_deref().filter(|bytes| !bytes.is_empty())?;
    if let Some(said) = words(bytes) {
        return Some(said);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if text.chars().all(|c| c.is_ascii_graphic() || c == ' ') => {
            let shown: String = text.chars().take(PAYLOAD_CHARS_MAX).collect();
            let more = if shown.len() < text.len() { "..." } else { "" };
            Some(format!("\"{shown}{more}\""))
        }
        _ => Some(format!("{} bytes", bytes.len())),
    }
}

// ------------------------------------------------------------------ Mermaid

impl Diagram {
    /// The diagram in Mermaid's `sequenceDiagram` syntax: requests are solid
    /// arrows, replies dotted ones, watch events dotted with a head, faults
    /// shaded boxes.
    pub fn mermaid(&self) -> String {
        let mut out = String::from("sequenceDiagram\n");
        for participant in &self.participants {
            let _ = writeln!(out, "    participant {participant}");
        }
        for item in &self.items {
            match item {
                Item::Arrow(arrow) => {
                    let line = match arrow.kind {
                        ArrowKind::Request => "-)",
                        ArrowKind::Reply => "--)",
                        ArrowKind::Event => "-->>",
                    };
                    let _ = writeln!(
                        out,
                        "    {}{line}{}: {}: {}",
                        self.participants[arrow.from],
                        self.participants[arrow.to],
                        arrow.step,
                        mermaid_text(&arrow.label)
                    );
                }
                Item::Note { step, over, lines } => {
                    let _ = writeln!(
                        out,
                        "    Note over {}: {step}: {}",
                        self.participants[*over],
                        mermaid_lines(lines)
                    );
                }
                Item::Fault {
                    step,
                    first,
                    last,
                    lines,
                } => {
                    let over = if first == last {
                        self.participants[*first].clone()
                    } else {
                        format!("{},{}", self.participants[*first], self.participants[*last])
                    };
                    out.push_str("    rect rgb(255, 225, 225)\n");
                    let _ = writeln!(
                        out,
                        "    Note over {over}: {step}: {}",
                        mermaid_lines(lines)
                    );
                    out.push_str("    end\n");
                }
            }
        }
        out
    }
}

/// Mermaid reads `;` and `#` as syntax: keep them out of messages.
fn mermaid_text(text: &str) -> String {
    text.replace(';', ",").replace('#', "").replace('\n', " ")
}

fn mermaid_lines(lines: &[String]) -> String {
    let lines: Vec<String> = lines.iter().map(|line| mermaid_text(line)).collect();
    lines.join("<br/>")
}

// ---------------------------------------------------------------------- SVG

/// The font size, and the width of a character of the monospace font at it
/// (a little above DejaVu Sans Mono's and Liberation Mono's 7.2 pixels, so
/// that a box holds its text in either).
const FONT_PX: f64 = 12.0;
const CHAR_PX: f64 = 7.3;
const LINE_PX: f64 = 16.0;
/// The widest note, in characters: longer lines wrap.
const NOTE_CHARS_MAX: usize = 46;
/// The space between two lifelines, at least and at most.
const GAP_MIN_PX: f64 = 230.0;
const GAP_MAX_PX: f64 = 380.0;
/// Around a note's text; between two items; around the whole drawing.
const PAD_PX: f64 = 8.0;
const ROW_GAP_PX: f64 = 10.0;
const MARGIN_PX: f64 = 16.0;
const HEAD_PX: f64 = 30.0;

/// An item placed: its top, its height, its wrapped lines, and how far it
/// reaches left and right (lifeline 0 at x = 0).
struct Placed {
    top: f64,
    height: f64,
    lines: Vec<String>,
    left: f64,
    right: f64,
}

impl Diagram {
    /// The diagram drawn as a standalone SVG element (inline in HTML as it
    /// is): each arrow a `<g class="arrow ...">` with its step number in
    /// `data-step`, and the number of arrows in the element's `data-arrows`,
    /// so that a browser's rendering can be counted against it.
    pub fn svg(&self) -> String {
        let x = |lifeline: usize, gap: f64| lifeline as f64 * gap;
        let gap = self.lifeline_gap();
        let label_chars = |arrow: &Arrow| {
            let span = arrow.from.abs_diff(arrow.to).max(1) as f64 * gap - 2.0 * PAD_PX;
            ((span / CHAR_PX) as usize).max(16)
        };

        // Place every item, top to bottom.
        let mut placed = Vec::with_capacity(self.items.len());
        let mut y = HEAD_PX + 2.0 * ROW_GAP_PX;
        for item in &self.items {
            let step = item.step();
            let (lines, left, right, height) = match item {
                Item::Arrow(arrow) => {
                    let lines = wrap(&format!("{step}: {}", arrow.label), label_chars(arrow));
                    let (a, b) = (x(arrow.from, gap), x(arrow.to, gap));
                    let half = text_px(&lines) / 2.0;
                    let middle = (a + b) / 2.0;
                    let height = lines.len() as f64 * LINE_PX + 8.0;
                    (
                        lines,
                        a.min(b).min(middle - half),
                        a.max(b).max(middle + half),
                        height,
                    )
                }
                Item::Note { over, lines, .. } => {
                    let lines = wrap_lines(step, lines);
                    let half = text_px(&lines) / 2.0 + PAD_PX;
                    let center = x(*over, gap);
                    let height = lines.len() as f64 * LINE_PX + 2.0 * PAD_PX;
                    (lines, center - half, center + half, height)
                }
                Item::Fault {
                    first, last, lines, ..
                } => {
                    let lines = wrap_lines(step, lines);
                    let half = text_px(&lines) / 2.0 + PAD_PX;
                    let center = (x(*first, gap) + x(*last, gap)) / 2.0;
                    let left = (center - half).min(x(*first, gap)) - 2.0 * PAD_PX;
                    let right = (center + half).max(x(*last, gap)) + 2.0 * PAD_PX;
                    let height = lines.len() as f64 * LINE_PX + 4.0 * PAD_PX;
                    (lines, left, right, height)
                }
            };
            placed.push(Placed {
                top: y,
                height,
                lines,
                left,
                right,
            });
            y += height + ROW_GAP_PX;
        }
        let body_bottom = y + ROW_GAP_PX;

        // The drawing's extent, participants' boxes included.
        let head_half =
            |name: &str| (name.chars().count() as f64 * CHAR_PX + 2.0 * PAD_PX).max(56.0) / 2.0;
        let mut left = 0.0f64;
        let mut right = x(self.store(), gap);
        for (index, name) in self.participants.iter().enumerate() {
            left = left.min(x(index, gap) - head_half(name));
            right = right.max(x(index, gap) + head_half(name));
        }
        for place in &placed {
            left = left.min(place.left);
            right = right.max(place.right);
        }
        let shift = MARGIN_PX - left;
        let width = (right - left + 2.0 * MARGIN_PX).ceil();
        let height = (body_bottom + HEAD_PX + MARGIN_PX).ceil();
        let lx = |lifeline: usize| x(lifeline, gap) + shift;

        let arrows = self.arrows().count();
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="sequence" width="{width}" height="{height}" viewBox="0 0 {width} {height}" data-arrows="{arrows}" font-family="DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace" font-size="{FONT_PX}" role="img">"#
        );
        let _ = writeln!(
            out,
            "<title>{} lifelines, {} steps, {arrows} arrows</title>",
            self.participants.len(),
            self.items.last().map_or(0, Item::step)
        );

        // A faint band behind every other step, so that a step's items read
        // as one.
        let mut index = 0;
        while index < placed.len() {
            let step = self.items[index].step();
            let end = (index..placed.len())
                .find(|&later| self.items[later].step() != step)
                .unwrap_or(placed.len());
            if step % 2 == 0 {
                let top = placed[index].top - ROW_GAP_PX / 2.0;
                let bottom = placed[end - 1].top + placed[end - 1].height + ROW_GAP_PX / 2.0;
                let _ = writeln!(
                    out,
                    r##"<rect class="band" x="0" y="{top:.1}" width="{width}" height="{:.1}" fill="#f4f6f8"/>"##,
                    bottom - top
                );
            }
            index = end;
        }

        // Lifelines, and each participant's box at the top and the bottom.
        for (index, name) in self.participants.iter().enumerate() {
            let cx = lx(index);
            let _ = writeln!(
                out,
                r##"<line class="lifeline" x1="{cx:.1}" y1="{HEAD_PX}" x2="{cx:.1}" y2="{body_bottom:.1}" stroke="#9aa5b1" stroke-dasharray="4 4"/>"##
            );
            let (fill, stroke) = if index == self.store() {
                ("#e3ecfa", "#5b7db8")
            } else {
                ("#eaf4e4", "#6a9a52")
            };
            for top in [MARGIN_PX / 2.0, body_bottom] {
                let half = head_half(name);
                let _ = writeln!(
                    out,
                    r#"<g class="participant"><rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" rx="4" fill="{fill}" stroke="{stroke}"/><text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text></g>"#,
                    cx - half,
                    2.0 * half,
                    HEAD_PX - MARGIN_PX / 2.0,
                    top + (HEAD_PX - MARGIN_PX / 2.0) / 2.0 + 4.0,
                    escape(name)
                );
            }
        }

        for (item, place) in self.items.iter().zip(&placed) {
            match item {
                Item::Arrow(arrow) => {
                    svg_arrow(&mut out, arrow, place, lx(arrow.from), lx(arrow.to))
                }
                Item::Note { step, over, .. } => {
                    let _ = writeln!(out, r#"<g class="note" data-step="{step}">"#);
                    svg_box(&mut out, lx(*over), place, place.top, "#fff8c5", "#c9b458");
                    out.push_str("</g>\n");
                }
                Item::Fault {
                    step, first, last, ..
                } => {
                    let _ = writeln!(out, r#"<g class="fault" data-step="{step}">"#);
                    let _ = writeln!(
                        out,
                        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#ffe1e1" stroke="#d98c8c"/>"##,
                        place.left + shift,
                        place.top,
                        place.right - place.left,
                        place.height
                    );
                    let center = (lx(*first) + lx(*last)) / 2.0;
                    svg_box(
                        &mut out,
                        center,
                        place,
                        place.top + PAD_PX,
                        "#fff4f4",
                        "#c0504d",
                    );
                    out.push_str("</g>\n");
                }
            }
        }
        out.push_str("</svg>\n");
        out
    }

    /// The space between lifelines: enough for the widest label of an arrow
    /// between neighbours on one line, within [`GAP_MIN_PX`] and [`GAP_MAX_PX`].
    fn lifeline_gap(&self) -> f64 {
        let widest = self
            .arrows()
            .map(|arrow| {
                let chars = format!("{}: {}", arrow.step, arrow.label).chars().count();
                chars as f64 * CHAR_PX / arrow.from.abs_diff(arrow.to).max(1) as f64
            })
            .fold(0.0, f64::max);
        (widest + 2.0 * PAD_PX).clamp(GAP_MIN_PX, GAP_MAX_PX)
    }
}

/// A note's box centred on `center`, from `top`, with its lines.
fn svg_box(out: &mut String, center: f64, place: &Placed, top: f64, fill: &str, stroke: &str) {
    let half = text_px(&place.lines) / 2.0 + PAD_PX;
    let height = place.lines.len() as f64 * LINE_PX + 2.0 * PAD_PX;
    let _ = writeln!(
        out,
        r#"<rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{height:.1}" rx="3" fill="{fill}" stroke="{stroke}"/>"#,
        center - half,
        2.0 * half
    );
    let left = center - half + PAD_PX;
    for (index, line) in place.lines.iter().enumerate() {
        let baseline = top + PAD_PX + (index + 1) as f64 * LINE_PX - 4.0;
        let _ = writeln!(
            out,
            r#"<text x="{left:.1}" y="{baseline:.1}" xml:space="preserve">{}</text>"#,
            escape(line)
        );
    }
}

fn svg_arrow(out: &mut String, arrow: &Arrow, place: &Placed, from: f64, to: f64) {
    let (stroke, dash) = match arrow.kind {
        ArrowKind::Request => ("#1f2933", ""),
        ArrowKind::Reply => ("#1f2933", r#" stroke-dasharray="6 4""#),
        ArrowKind::Event => ("#1d5fbf", r#" stroke-dasharray="2 3""#),
    };
    let y = place.top + place.lines.len() as f64 * LINE_PX + 4.0;
    let _ = writeln!(
        out,
        r#"<g class="arrow {}" data-step="{}" data-from="{}" data-to="{}">"#,
        arrow.kind.name(),
        arrow.step,
        arrow.from,
        arrow.to
    );
    let middle = (from + to) / 2.0;
    for (index, line) in place.lines.iter().enumerate() {
        let baseline = place.top + (index + 1) as f64 * LINE_PX - 3.0;
        let _ = writeln!(
            out,
            r#"<text x="{middle:.1}" y="{baseline:.1}" text-anchor="middle" fill="{stroke}" xml:space="preserve">{}</text>"#,
            escape(line)
        );
    }
    // The line stops at the arrowhead's base, so that a dashed line does not
    // blunt its point.
    let direction = if to >= from { 1.0 } else { -1.0 };
    let head = 9.0;
    let _ = writeln!(
        out,
        r#"<line x1="{from:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{stroke}" stroke-width="1.5"{dash}/>"#,
        to - direction * head
    );
    let _ = writeln!(
        out,
        r#"<polygon points="{to:.1},{y:.1} {:.1},{:.1} {:.1},{:.1}" fill="{stroke}"/>"#,
        to - direction * head,
        y - 4.5,
        to - direction * head,
        y + 4.5
    );
    out.push_str("</g>\n");
}

/// A note's lines, the step's number before the first, each wrapped.
fn wrap_lines(step: usize, lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .enumerate()
        .flat_map(|(index, line)| {
            if index == 0 {
                wrap(&format!("{step}: {line}"), NOTE_CHARS_MAX)
            } else {
                wrap(line, NOTE_CHARS_MAX)
            }
        })
        .collect()
}

/// The widest of `lines`, in pixels.
fn text_px(lines: &[String]) -> f64 {
    lines
        .iter()
        .map(|line| line.chars().count())
        .max()
        .unwrap_or(0) as f64
        * CHAR_PX
}

/// `text` in lines of at most `width` characters, broken at spaces where it
/// can be and inside a word longer than a line.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used > 0 && used + 1 + word.len() <= width {
            line.push(' ');
            line.extend(&word);
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > width {
            lines.push(word.drain(..width).collect());
        }
        line.extend(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` safe as XML or HTML text or as an attribute value in double or
/// single quotes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // XML 1.0 allows no other control character.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
