//! The sequence diagrams of counterexamples (`src/diagram.rs`): every arrow
//! and note carries the number of its step in the trace's step list, in the
//! model and in both drawings; labels are the trace's words and the data
//! written, never Rust's debugging text; faults sit in their shaded boxes
//! over the lifelines they concern; and the SVG escapes what it shows.

use std::path::Path;

use zoocheck::check::Verdict;
use zoocheck::diagram::{
    escape, no_words, payload, reply_label, request_label, wrap, Arrow, ArrowKind, DataWords,
    Diagram, Item,
};
use zoocheck::models::queue::Queue;
use zoocheck::recipe::Recipe;
use zoocheck::scenario::Scenario;
use zoocheck::store::{data, CreateMode, MultiOp, Op, Path as ZnodePath, Response, Stat};
use zoocheck::trace::Trace;

/// One scenario of each recipe that has counterexamples, small enough to
/// check in a moment: the ones the sweeps below draw.
const REPRESENTATIVE: [&str; 14] = [
    "barrier/loss_is_gone_lose_reply",
    "configuration/one_shot_2_writes",
    "double_barrier/count_all_2_clients",
    "election/careless_resign_2_clients",
    "lock/guid_pause_expire",
    "lock/no_guid_lose_reply",
    "membership/persistent_crash",
    "priority_queue/stale_batch_1_consumer",
    "queue/exactly_once_consumer_crash",
    "queue/guid_lose_reply",
    "revocable_lock/ignore_while_waiting_revoke",
    "semaphore/check_then_create_3_clients",
    "shared_lock/guid_pause_expire",
    "two_phase_commit/reference_crash",
];

fn load(name: &str) -> Scenario {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    Scenario::load(&root.join(format!("{name}.toml")), &root).unwrap_or_else(|e| panic!("{e}"))
}

/// Each counterexample of the scenario with its diagram.
fn counterexamples(scenario: &Scenario) -> Vec<(&'static str, Trace, Diagram)> {
    let outcome = scenario.check(&Default::default());
    let found: Vec<_> = outcome
        .properties
        .into_iter()
        .filter(|property| property.actual == Verdict::Violated)
        .map(|property| {
            let trace = property.trace.expect("a violated property has a trace");
            let diagram = scenario.world().diagram(&trace.actions);
            (property.name, trace, diagram)
        })
        .collect();
    assert!(!found.is_empty(), "{}: no counterexample", scenario.name);
    found
}

fn pause_expire_mutual_exclusion() -> (Trace, Diagram) {
    let scenario = load("lock/guid_pause_expire");
    let (_, trace, diagram) = counterexamples(&scenario)
        .into_iter()
        .find(|(name, _, _)| *name == "mutual_exclusion")
        .expect("mutual_exclusion is violated");
    (trace, diagram)
}

/// The values of `attribute` in each element of `svg` whose class starts
/// with `class`, in order.
fn attributes(svg: &str, class: &str, attribute: &str) -> Vec<String> {
    svg.split(&format!("class=\"{class}"))
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').expect("a closed tag")];
            let start = tag
                .find(&format!(" {attribute}=\""))
                .unwrap_or_else(|| panic!("no {attribute} in {tag}"))
                + attribute.len()
                + 3;
            tag[start..start + tag[start..].find('"').unwrap()].to_string()
        })
        .collect()
}

#[test]
fn arrows_carry_the_numbers_of_their_steps() {
    let (trace, diagram) = pause_expire_mutual_exclusion();
    assert_eq!(trace.steps.len(), 12);
    assert_eq!(diagram.participants, ["c0", "c1", "store"]);
    let (c0, c1, store) = (0, 1, 2);
    let arrow = |step, from, to, kind, label: &str| Arrow {
        step,
        from,
        to,
        kind,
        label: label.to_string(),
    };
    use ArrowKind::{Reply, Request};
    let expected = [
        arrow(
            1,
            c0,
            store,
            Request,
            "create /lock/c0-lock- (ephemeral sequential)",
        ),
        arrow(2, store, c0, Reply, "created /lock/c0-lock-0000000000"),
        arrow(3, c0, store, Request, "getChildren /lock"),
        arrow(4, store, c0, Reply, "children [c0-lock-0000000000]"),
        arrow(
            6,
            c1,
            store,
            Request,
            "create /lock/c1-lock- (ephemeral sequential)",
        ),
        arrow(7, store, c1, Reply, "created /lock/c1-lock-0000000001"),
        arrow(8, c1, store, Request, "getChildren /lock"),
        arrow(11, store, c1, Reply, "children [c1-lock-0000000001]"),
    ];
    let arrows: Vec<Arrow> = diagram.arrows().cloned().collect();
    assert_eq!(arrows, expected);
    // Every step is drawn, in order.
    let steps: Vec<usize> = diagram.items.iter().map(Item::step).collect();
    assert!(steps.windows(2).all(|pair| pair[0] <= pair[1]), "{steps:?}");
    let mut drawn = steps.clone();
    drawn.dedup();
    assert_eq!(drawn, (1..=12).collect::<Vec<_>>());

    // Mermaid: the same arrows, each numbered in its label, in order.
    let mermaid = diagram.mermaid();
    let lines: Vec<&str> = mermaid
        .lines()
        .filter(|line| line.contains("-)") || line.contains("-->>"))
        .map(str::trim)
        .collect();
    let names = ["c0", "c1", "store"];
    let wanted: Vec<String> = expected
        .iter()
        .map(|a| {
            let line = if a.kind == Request { "-)" } else { "--)" };
            format!(
                "{}{line}{}: {}: {}",
                names[a.from], names[a.to], a.step, a.label
            )
        })
        .collect();
    assert_eq!(lines, wanted, "{mermaid}");
    assert!(!mermaid.contains("autonumber"));
    assert!(
        mermaid.contains("    Note over c1: 12: reads reply children [c1-lock-0000000001]<br/>"),
        "{mermaid}"
    );

    // SVG: the same arrows, numbered, counted in data-arrows.
    let svg = diagram.svg();
    assert!(svg.starts_with("<svg "), "{svg}");
    assert!(svg.contains(" data-arrows=\"8\""), "{svg}");
    let steps = attributes(&svg, "arrow ", "data-step");
    assert_eq!(steps, ["1", "2", "3", "4", "6", "7", "8", "11"]);
    let ends: Vec<(String, String)> = attributes(&svg, "arrow ", "data-from")
        .into_iter()
        .zip(attributes(&svg, "arrow ", "data-to"))
        .collect();
    let wanted_ends: Vec<(String, String)> = expected
        .iter()
        .map(|a| (a.from.to_string(), a.to.to_string()))
        .collect();
    assert_eq!(ends, wanted_ends);
    for a in &expected {
        assert!(
            svg.contains(&format!(">{}: {}</text>", a.step, escape(&a.label))),
            "arrow {} is labelled with its number:\n{svg}",
            a.step
        );
    }
}

#[test]
fn each_arrow_belongs_to_the_step_its_number_names() {
    for name in REPRESENTATIVE {
        let scenario = load(name);
        for (property, trace, diagram) in counterexamples(&scenario) {
            let store = diagram.store();
            assert_eq!(
                diagram.participants.len(),
                usize::from(scenario.clients) + 1
            );
            for arrow in diagram.arrows() {
                let text = &trace.steps[arrow.step - 1].text;
                let what = format!("{name} {property} step {}: {text}", arrow.step);
                match arrow.kind {
                    // A request is sent by the client whose step it is.
                    ArrowKind::Request => {
                        assert_eq!(arrow.to, store, "{what}");
                        let client = format!("c{} ", arrow.from);
                        assert!(text.starts_with(&client), "{what}");
                        assert!(
                            text.contains("; sends ") || text.contains("reconnects"),
                            "{what}"
                        );
                    }
                    // A reply comes when the server serves its client.
                    ArrowKind::Reply => {
                        assert_eq!(arrow.from, store, "{what}");
                        let served = format!("server serves c{}: ", arrow.to);
                        assert!(text.starts_with(&served), "{what}");
                    }
                    // An event comes from the server's or a fault's step.
                    ArrowKind::Event => {
                        assert_eq!(arrow.from, store, "{what}");
                        assert!(
                            text.starts_with("server ") || text.starts_with("FAULT: "),
                            "{what}"
                        );
                        let path = arrow.label.split(' ').nth(1).expect("a path");
                        assert!(text.contains(path), "{what}: {}", arrow.label);
                    }
                }
            }
            // Both drawings number the same arrows.
            let svg = diagram.svg();
            let numbers: Vec<String> = diagram.arrows().map(|a| a.step.to_string()).collect();
            assert_eq!(attributes(&svg, "arrow ", "data-step"), numbers, "{name}");
            assert!(svg.contains(&format!(" data-arrows=\"{}\"", numbers.len())));
            let mermaid = diagram.mermaid();
            let mermaid_numbers: Vec<String> = mermaid
                .lines()
                .filter(|line| line.contains(")store: ") || line.contains("store-"))
                .map(|line| {
                    let label = line.split_once(": ").expect("a label").1;
                    label.split_once(": ").expect("a number").0.to_string()
                })
                .collect();
            assert_eq!(mermaid_numbers, numbers, "{name}:\n{mermaid}");
        }
    }
}

/// Text only Rust's `{:?}` writes.
const DEBUG_TEXT: [&str; 8] = [
    "(\"",
    "\")",
    "Some(",
    "None",
    "Watching(",
    " { ",
    "Arc(",
    "[\"",
];

#[test]
fn labels_are_words_not_debug_text() {
    for name in REPRESENTATIVE {
        let scenario = load(name);
        for (property, trace, diagram) in counterexamples(&scenario) {
            for item in &diagram.items {
                let text = &trace.steps[item.step() - 1].text;
                let what = format!("{name} {property} step {}: {text}", item.step());
                for line in item.lines() {
                    assert!(!line.is_empty(), "{what}");
                    for debug in DEBUG_TEXT {
                        // A note repeats the step's words; the step's words
                        // are the trace's to fix, and must not gain any here.
                        let inherited = !matches!(item, Item::Arrow(_)) && text.contains(debug);
                        assert!(
                            !line.contains(debug) || inherited,
                            "{what}: the diagram writes {debug:?} in {line:?}"
                        );
                    }
                }
                // A client's note is its step's clauses, without the requests
                // it sent (arrows instead).
                if let Item::Note { over, lines, .. } = item {
                    if *over != diagram.store() {
                        let prefix = format!("c{over} ");
                        let clauses: Vec<&str> = text
                            .split("; ")
                            .filter(|clause| !clause.starts_with("sends "))
                            .map(|clause| clause.strip_prefix(&prefix).unwrap_or(clause))
                            .collect();
                        assert_eq!(lines, &clauses, "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn faults_are_boxes_over_the_faulted_client_and_the_store() {
    let (_, diagram) = pause_expire_mutual_exclusion();
    let faults: Vec<&Item> = diagram
        .items
        .iter()
        .filter(|item| matches!(item, Item::Fault { .. }))
        .collect();
    assert_eq!(
        faults,
        [
            &Item::Fault {
                step: 9,
                first: 0,
                last: 2,
                lines: vec!["FAULT: c0 pauses".to_string()],
            },
            &Item::Fault {
                step: 10,
                first: 0,
                last: 2,
                lines: vec![
                    "FAULT: the server expires c0's session while it is paused".to_string(),
                    "deleted /lock/c0-lock-0000000000".to_string(),
                ],
            },
        ]
    );
    let mermaid = diagram.mermaid();
    assert!(
        mermaid.contains(
            "    rect rgb(255, 225, 225)\n    Note over c0,store: 9: FAULT: c0 pauses\n    end\n"
        ),
        "{mermaid}"
    );

    // In the SVG, the shaded box reaches from c0's lifeline to the store's,
    // and the note with the fault's words lies inside it.
    let svg = diagram.svg();
    let number = |text: &str| text.parse::<f64>().unwrap();
    let lifelines: Vec<f64> = attributes(&svg, "lifeline", "x1")
        .iter()
        .map(|x| number(x))
        .collect();
    assert_eq!(lifelines.len(), 3);
    for (index, group) in svg.split("<g class=\"fault\"").skip(1).enumerate() {
        let group = &group[..group.find("</g>").unwrap()];
        let rect = |nth: usize| {
            let tag = format!(" {}", group.split("<rect ").nth(nth).unwrap());
            let get = |name: &str| {
                let start = tag
                    .find(&format!(" {name}=\""))
                    .unwrap_or_else(|| panic!("{tag}"))
                    + name.len()
                    + 3;
                number(&tag[start..start + tag[start..].find('"').unwrap()])
            };
            (get("x"), get("y"), get("width"), get("height"))
        };
        let (bx, by, bw, bh) = rect(1);
        let (nx, ny, nw, nh) = rect(2);
        assert!(
            bx < lifelines[0] && bx + bw > lifelines[2],
            "fault {index}: {group}"
        );
        assert!(
            bx < nx && nx + nw < bx + bw && by < ny && ny + nh < by + bh,
            "fault {index}: its note is inside its box: {group}"
        );
        assert!(
            group.contains(&format!(">{}: FAULT: ", 9 + index)),
            "{group}"
        );
    }
}

#[test]
fn requests_and_replies_show_the_data_they_carry() {
    let path = |text: &str| ZnodePath::new(text);
    // The queue gives its data a meaning; data no recipe reads is text.
    let queue: DataWords = <Queue as Recipe>::data_words;
    let vote = Op::Create {
        path: path("/app/Tx/s_1"),
        data: data(b"commit"),
        mode: CreateMode::Persistent,
    };
    assert_eq!(
        request_label(&vote, no_words),
        "create /app/Tx/s_1 (persistent) \"commit\""
    );
    let item = Op::Create {
        path: path("/queue/queue-"),
        data: data(b"c0.1"),
        mode: CreateMode::PersistentSequential,
    };
    assert_eq!(
        request_label(&item, queue),
        "create /queue/queue- (persistent sequential) item c0.1"
    );
    assert_eq!(
        request_label(&item, no_words),
        "create /queue/queue- (persistent sequential) \"c0.1\""
    );
    let unlock = Op::SetData {
        path: path("/lock/c0-write-0000000000"),
        data: data(b"unlock"),
        version: -1,
    };
    assert_eq!(
        request_label(&unlock, no_words),
        "setData /lock/c0-write-0000000000 \"unlock\""
    );
    let multi = Op::Multi(vec![
        MultiOp::Delete {
            path: path("/queue/queue-0000000000"),
            version: -1,
        },
        MultiOp::Create {
            path: path("/queue/taken-c0.0"),
            data: data(b"c0.0"),
            mode: CreateMode::Persistent,
        },
        MultiOp::Check {
            path: path("/queue"),
            version: 3,
        },
    ]);
    assert_eq!(
        request_label(&multi, queue),
        "multi [delete /queue/queue-0000000000, create /queue/taken-c0.0 (persistent) item c0.0, check /queue version 3]"
    );
    let plain = Op::Create {
        path: path("/lock/c0-lock-"),
        data: None,
        mode: CreateMode::EphemeralSequential,
    };
    assert_eq!(
        request_label(&plain, no_words),
        "create /lock/c0-lock- (ephemeral sequential)"
    );
    let read = Ok(Response::Data {
        data: data(b"abort"),
        stat: Stat::default(),
    });
    assert_eq!(reply_label(&read, no_words), "data \"abort\"");
    let empty = Ok(Response::Data {
        data: None,
        stat: Stat::default(),
    });
    assert_eq!(reply_label(&empty, no_words), "data, empty");

    // Short and printable whatever the bytes.
    assert_eq!(
        payload(&data(&[0xff, 0x00, 0x41]), no_words),
        Some("3 bytes".to_string())
    );
    assert_eq!(
        payload(&data(b"a\nb"), no_words),
        Some("3 bytes".to_string())
    );
    assert_eq!(payload(&data(b""), no_words), None);
    assert_eq!(
        payload(&data(&[b'x'; 100]), no_words),
        Some(format!("\"{}...\"", "x".repeat(24)))
    );

    // And in the diagrams of scenarios that write data.
    let has_label = |scenario: &str, wanted: &str| {
        counterexamples(&load(scenario))
            .iter()
            .any(|(_, _, diagram)| {
                diagram
                    .arrows()
                    .any(|arrow| arrow.kind == ArrowKind::Request && arrow.label.contains(wanted))
            })
    };
    assert!(has_label("queue/guid_lose_reply", " item c0.0"));
    assert!(has_label("two_phase_commit/reference_crash", " \"commit\""));
    assert!(has_label(
        "revocable_lock/ignore_while_waiting_revoke",
        " \"unlock\""
    ));
}

#[test]
fn the_svg_escapes_what_it_shows() {
    let diagram = Diagram {
        participants: vec!["c0".to_string(), "store".to_string()],
        items: vec![
            Item::Note {
                step: 1,
                over: 0,
                lines: vec!["<script>alert('x')</script> & \"more\"".to_string()],
            },
            Item::Arrow(Arrow {
                step: 1,
                from: 0,
                to: 1,
                kind: ArrowKind::Request,
                label: "create /a<b>&c".to_string(),
            }),
        ],
    };
    let svg = diagram.svg();
    assert!(!svg.contains("<script"), "{svg}");
    assert!(!svg.contains("<b>"), "{svg}");
    assert!(
        svg.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"),
        "{svg}"
    );
    assert!(svg.contains("1: create /a&lt;b&gt;&amp;c"), "{svg}");
    assert_eq!(escape("a\u{1b}[31m"), "a\u{fffd}[31m");
    // Mermaid: no `;` or `#`, which it reads as syntax.
    let mermaid = Diagram {
        items: vec![Item::Note {
            step: 1,
            over: 0,
            lines: vec!["a; b #c".to_string()],
        }],
        ..diagram
    }
    .mermaid();
    assert!(mermaid.contains("Note over c0: 1: a, b c\n"), "{mermaid}");
}

#[test]
fn long_lines_wrap_at_spaces_and_inside_long_words() {
    assert_eq!(wrap("ab cd ef", 5), ["ab cd", "ef"]);
    assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
    assert_eq!(wrap("", 5), [""]);
    assert_eq!(wrap("a bcdefg", 3), ["a", "bcd", "efg"]);
    for line in wrap(&"word ".repeat(40), 12) {
        assert!(line.chars().count() <= 12, "{line:?}");
    }
}
