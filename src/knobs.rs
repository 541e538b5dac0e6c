//! Knobs: the settings a recipe's variants are made of. A recipe declares
//! its knobs once, in one struct ([`knobs!`]), each with its key, its
//! meaning and its values; a named variant is a preset of them (a constant
//! of that struct, listed in [`crate::catalogued::Catalogued::VARIANTS`]).
//! A scenario names a variant and may turn any knob (`[knobs]`, per client
//! in `[[client]]`), so that a variant differing from another in one
//! setting is a line of a scenario file, not a new type and a rebuild.
//!
//! A recipe whose variants are not (yet) settings of separate knobs keeps
//! its enum of variants: it implements [`Knobs`] with no knob, and its
//! variants are presets nothing can turn.

use std::fmt;

/// One knob as a scenario names it: its key, what it means, and each value
/// it takes with what that value means.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub key: &'static str,
    pub meaning: &'static str,
    pub values: &'static [(&'static str, &'static str)],
}

impl Knob {
    /// The value called `name`, as the declaration spells it.
    pub fn value(&self, name: &str) -> Option<&'static str> {
        (self.values.iter())
            .map(|(value, _)| *value)
            .find(|value| *value == name)
    }

    /// The values' names, in order.
    pub fn value_names(&self) -> Vec<&'static str> {
        self.values.iter().map(|(value, _)| *value).collect()
    }
}

/// A recipe's settings: a value per knob. Every value of every knob can be
/// set, whatever the others are; a recipe documents (and tests) what a
/// combination its presets do not use means.
pub trait Knobs: Copy + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// Each knob, in the order `list` and a scenario's words give them.
    const KNOBS: &'static [Knob];

    /// Turns knob `key` to `value`; both are names [`Knobs::KNOBS`]
    /// declares, or it is an error saying so.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String>;

    /// The value knob `key` has, by its name (`None` for no such knob).
    fn get(&self, key: &str) -> Option<&'static str>;
}

/// The type of a knob's value: named values, each with what it means.
pub trait KnobValue: Copy + PartialEq + fmt::Debug {
    const VALUES: &'static [(&'static str, &'static str)];
    fn name(self) -> &'static str;
    fn from_name(name: &str) -> Option<Self>;
}

/// A switch: its meaning is the knob's.
impl KnobValue for bool {
    const VALUES: &'static [(&'static str, &'static str)] = &[("true", "on"), ("false", "off")];

    fn name(self) -> &'static str {
        if self {
            "true"
        } else {
            "false"
        }
    }

    fn from_name(name: &str) -> Option<bool> {
        match name {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

/// Declares an enum whose values a knob takes, each with its name and what
/// it means:
///
/// ```
/// zoocheck::knob_value! {
///     /// Which lower node a waiter watches.
///     pub enum WaitsOn {
///         /// the next one down
///         Next = "next",
///         /// the lowest one
///         Lowest = "lowest",
///     }
/// }
/// use zoocheck::knobs::KnobValue;
/// assert_eq!(WaitsOn::from_name("lowest"), Some(WaitsOn::Lowest));
/// assert_eq!(WaitsOn::VALUES[0], ("next", "the next one down"));
/// ```
#[macro_export]
macro_rules! knob_value {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $( #[doc = $meaning:literal] $value:ident = $key:literal ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( #[doc = $meaning] $value ),+
        }

        impl $crate::knobs::KnobValue for $name {
            const VALUES: &'static [(&'static str, &'static str)] =
                &[$( ($key, $crate::knobs::trim($meaning)) ),+];

            fn name(self) -> &'static str {
                match self {
                    $( $name::$value => $key ),+
                }
            }

            fn from_name(name: &str) -> Option<$name> {
                match name {
                    $( $key => Some($name::$value), )+
                    _ => None,
                }
            }
        }
    };
}

/// Declares a recipe's knobs: a struct with a field per knob (its doc
/// comment is the knob's meaning, its type a [`KnobValue`]) and its
/// [`Knobs`] implementation. Presets are constants of the struct.
///
/// ```
/// zoocheck::knobs! {
///     /// A toy recipe's settings.
///     pub struct Settings {
///         /// Put a GUID in the node's name.
///         guid: bool,
///     }
/// }
/// use zoocheck::knobs::Knobs;
/// let mut settings = Settings { guid: true };
/// settings.set("guid", "false").unwrap();
/// assert_eq!(settings.get("guid"), Some("false"));
/// assert!(settings.set("guid", "maybe").is_err());
/// assert_eq!(Settings::KNOBS[0].meaning, "Put a GUID in the node's name.");
/// ```
#[macro_export]
macro_rules! knobs {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $( $(#[doc = $meaning:literal])+ $knob:ident: $type:ty ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis struct $name {
            $( $(#[doc = $meaning])+ pub $knob: $type ),+
        }

        impl $crate::knobs::Knobs for $name {
            const KNOBS: &'static [$crate::knobs::Knob] = &[$(
                $crate::knobs::Knob {
                    key: stringify!($knob),
                    meaning: $crate::knobs::trim(concat!($($meaning, "\n"),+)),
                    values: <$type as $crate::knobs::KnobValue>::VALUES,
                }
            ),+];

            fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
                use $crate::knobs::KnobValue;
                match key {
                    $( stringify!($knob) => {
                        self.$knob = KnobValue::from_name(value).ok_or_else(|| {
                            $crate::knobs::unknown_value(key, value, <$type>::VALUES)
                        })?;
                        Ok(())
                    } )+
                    _ => Err($crate::knobs::unknown_knob(key, Self::KNOBS)),
                }
            }

            fn get(&self, key: &str) -> Option<&'static str> {
                use $crate::knobs::KnobValue;
                match key {
                    $( stringify!($knob) => Some(self.$knob.name()), )+
                    _ => None,
                }
            }
        }
    };
}

/// What [`Knobs`] a recipe has whose variants are an enum: none. Its
/// variants are presets that nothing turns.
#[macro_export]
macro_rules! no_knobs {
    ($variant:ty) => {
        impl $crate::knobs::Knobs for $variant {
            const KNOBS: &'static [$crate::knobs::Knob] = &[];

            fn set(&mut self, key: &str, _value: &str) -> Result<(), String> {
                Err($crate::knobs::unknown_knob(key, Self::KNOBS))
            }

            fn get(&self, _key: &str) -> Option<&'static str> {
                None
            }
        }
    };
}

/// The error for a knob a recipe does not have.
pub fn unknown_knob(key: &str, knobs: &[Knob]) -> String {
    if knobs.is_empty() {
        return format!("unknown knob `{key}`: this recipe has no knobs (its variants are fixed)");
    }
    let keys: Vec<&str> = knobs.iter().map(|knob| knob.key).collect();
    format!("unknown knob {}", crate::text::expected_one_of(key, &keys))
}

/// The error for a value a knob does not take.
pub fn unknown_value(key: &str, value: &str, values: &[(&str, &str)]) -> String {
    let names: Vec<&str> = values.iter().map(|(name, _)| *name).collect();
    format!(
        "knob `{key}` has no value {}",
        crate::text::expected_one_of(value, &names)
    )
}

/// A doc comment's text as one line: the leading space rustdoc keeps and
/// the line breaks between its lines gone. At compile time, so that a knob's
/// declaration is a constant.
pub const fn trim(text: &'static str) -> &'static str {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut end = bytes.len();
    while start < end && bytes[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let (_, rest) = bytes.split_at(start);
    let (kept, _) = rest.split_at(end - start);
    match std::str::from_utf8(kept) {
        Ok(kept) => kept,
        Err(_) => text,
    }
}

/// A knob's meaning as one paragraph: its doc lines joined by spaces.
pub fn paragraph(meaning: &str) -> String {
    meaning.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The settings `knobs` has that `base` has not, as `key=value` words, in
/// the declaration's order.
pub fn differences<K: Knobs>(knobs: &K, base: &K) -> Vec<(&'static str, &'static str)> {
    (K::KNOBS.iter())
        .filter_map(|knob| {
            let value = knobs.get(knob.key)?;
            (base.get(knob.key) != Some(value)).then_some((knob.key, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::knob_value! {
        /// How a toy waits.
        enum Wait {
            /// on the next node
            Next = "next",
            /// on the lowest
            Lowest = "lowest",
        }
    }

    crate::knobs! {
        /// A toy's settings.
        struct Toy {
            /// Put a GUID in names,
            /// across two lines.
            guid: bool,
            /// Which node to watch.
            wait: Wait,
        }
    }

    const REFERENCE: Toy = Toy {
        guid: true,
        wait: Wait::Next,
    };

    #[test]
    fn a_knob_is_declared_with_its_values_and_meaning() {
        assert_eq!(Toy::KNOBS.len(), 2);
        assert_eq!(Toy::KNOBS[0].key, "guid");
        assert_eq!(
            paragraph(Toy::KNOBS[0].meaning),
            "Put a GUID in names, across two lines."
        );
        assert_eq!(Toy::KNOBS[1].value_names(), ["next", "lowest"]);
        assert_eq!(Toy::KNOBS[1].values[1], ("lowest", "on the lowest"));
    }

    #[test]
    fn a_knob_is_turned_by_name_and_refuses_what_it_does_not_take() {
        let mut toy = REFERENCE;
        toy.set("wait", "lowest").unwrap();
        assert_eq!(toy.wait, Wait::Lowest);
        assert_eq!(differences(&toy, &REFERENCE), [("wait", "lowest")]);
        assert_eq!(
            toy.set("wait", "lowst").unwrap_err(),
            "knob `wait` has no value \"lowst\"; did you mean \"lowest\"? expected one of next, lowest"
        );
        let unknown = toy.set("guids", "true").unwrap_err();
        assert!(unknown.starts_with("unknown knob \"guids\""), "{unknown}");
        assert_eq!(toy.get("guids"), None);
        assert_eq!(toy.wait, Wait::Lowest, "a refused value changes nothing");
    }
}
