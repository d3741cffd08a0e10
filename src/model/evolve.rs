//! The typed fields of evolving facts, in one place: their types, the record a writer sets
//! (`Evolving`) and changes (`EvolvingPatch`), their names on the wire, their bounds, and which of
//! them are free text. A memory may say what shape of fact it holds, which slot (thread) its value
//! lives on, and what it depends on; what is *current* is never stored: it is derived on read from
//! the thread's dated values (see `crate::evolve`). The parsers, the guards, the checks, the limits
//! and the LLM schema read these lists instead of naming the fields again.

use serde::{Deserialize, Serialize};

use super::Memory;

/// A `thread`, `area` entry or `dependsOn.thread` label, in bytes (ASCII).
pub const LABEL_MAX_CHARS: usize = 96;
pub const LABEL_MAX_SEGMENTS: usize = 4;
pub const AREA_MAX: usize = 3;
pub const VALUE_MAX_CHARS: usize = 1000;
/// A verbatim phrase may be a whole error log or recipe line.
pub const SIGNATURE_MAX_CHARS: usize = 4000;

/// The evolving fields' names as `add`, `update`, imports and the package's types spell them.
pub const FIELDS: [&str; 10] = ["shape", "thread", "value", "corrects", "dependsOn", "consequent", "area", "signature", "pin", "confidence"];

/// The evolving fields that hold free text (stated values, a verbatim phrase): quoted, never
/// rewritten, bounded, and guarded for secrets as the content is. Labels are not here: they are
/// normalized to lowercase words and cannot carry a secret's shape whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextField {
    Value,
    Corrects,
    Consequent,
    Signature,
}

impl TextField {
    pub const ALL: [TextField; 4] = [TextField::Value, TextField::Corrects, TextField::Consequent, TextField::Signature];

    /// The wire name (one of `FIELDS`).
    pub fn name(self) -> &'static str {
        match self {
            TextField::Value => "value",
            TextField::Corrects => "corrects",
            TextField::Consequent => "consequent",
            TextField::Signature => "signature",
        }
    }

    pub fn max_chars(self) -> usize {
        match self {
            TextField::Value | TextField::Corrects | TextField::Consequent => VALUE_MAX_CHARS,
            TextField::Signature => SIGNATURE_MAX_CHARS,
        }
    }
}

/// The evolving-fact fields a writer may set; derived states are never here.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evolving {
    pub shape: Option<Shape>,
    pub thread: Option<String>,
    pub value: Option<String>,
    /// A value on the same thread stated by mistake ("sorry, I misspoke"): never held, it leaves
    /// the thread's history (see `crate::evolve::derive`).
    pub corrects: Option<String>,
    pub depends_on: Option<DependsOn>,
    pub consequent: Option<String>,
    pub area: Vec<String>,
    pub signature: Option<String>,
    pub pin: Option<Pin>,
    pub confidence: Option<f64>,
}

impl Evolving {
    pub fn text_mut(&mut self, field: TextField) -> &mut Option<String> {
        match field {
            TextField::Value => &mut self.value,
            TextField::Corrects => &mut self.corrects,
            TextField::Consequent => &mut self.consequent,
            TextField::Signature => &mut self.signature,
        }
    }

    /// Sets these fields on a memory being created (`pin` left out: active).
    pub fn set_on(self, m: &mut Memory) {
        let Evolving { shape, thread, value, corrects, depends_on, consequent, area, signature, pin, confidence } = self;
        m.shape = shape;
        m.thread = thread;
        m.value = value;
        m.corrects = corrects;
        m.depends_on = depends_on;
        m.consequent = consequent;
        m.area = area;
        m.signature = signature;
        m.pin = pin.unwrap_or_default();
        m.confidence = confidence;
    }
}

/// What `update` changes of the evolving-fact fields; `None` leaves a field, `Some(None)` clears it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvolvingPatch {
    pub shape: Option<Option<Shape>>,
    pub thread: Option<Option<String>>,
    pub value: Option<Option<String>>,
    pub corrects: Option<Option<String>>,
    pub depends_on: Option<Option<DependsOn>>,
    pub consequent: Option<Option<String>>,
    pub area: Option<Vec<String>>,
    pub signature: Option<Option<String>>,
    pub pin: Option<Pin>,
    pub confidence: Option<Option<f64>>,
}

impl EvolvingPatch {
    pub fn text_mut(&mut self, field: TextField) -> &mut Option<Option<String>> {
        match field {
            TextField::Value => &mut self.value,
            TextField::Corrects => &mut self.corrects,
            TextField::Consequent => &mut self.consequent,
            TextField::Signature => &mut self.signature,
        }
    }
}

impl Memory {
    pub fn evolving_text(&self, field: TextField) -> Option<&str> {
        match field {
            TextField::Value => self.value.as_deref(),
            TextField::Corrects => self.corrects.as_deref(),
            TextField::Consequent => self.consequent.as_deref(),
            TextField::Signature => self.signature.as_deref(),
        }
    }

    pub fn evolving_text_mut(&mut self, field: TextField) -> &mut Option<String> {
        match field {
            TextField::Value => &mut self.value,
            TextField::Corrects => &mut self.corrects,
            TextField::Consequent => &mut self.consequent,
            TextField::Signature => &mut self.signature,
        }
    }
}

/// What shape of fact a memory holds.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryShape"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// True once stated and not expected to change (a birthday, a name).
    StableFact,
    /// A slot whose value changes over time (current employer, package manager).
    EvolvingAttribute,
    /// A value that holds because of another thread's value (`dependsOn`).
    ContingentValue,
    /// A value with a stated alternative (`consequent`) if its upstream changes.
    ConditionalValue,
    /// A request to forget a thread's value: everything earlier on the thread is withdrawn.
    Retraction,
    /// Something that happened at a time.
    Event,
}

impl Shape {
    pub const ALL: [Shape; 6] = [Shape::StableFact, Shape::EvolvingAttribute, Shape::ContingentValue, Shape::ConditionalValue, Shape::Retraction, Shape::Event];
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::StableFact => "stable_fact",
            Shape::EvolvingAttribute => "evolving_attribute",
            Shape::ContingentValue => "contingent_value",
            Shape::ConditionalValue => "conditional_value",
            Shape::Retraction => "retraction",
            Shape::Event => "event",
        }
    }
    pub fn parse(s: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// How a memory is held: `pinned` never decays and is lifted to core by consolidation; `deprecated`
/// is kept for history but ranks last.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryPin"))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pin {
    Pinned,
    #[default]
    Active,
    Deprecated,
}

impl Pin {
    pub const ALL: [Pin; 3] = [Pin::Pinned, Pin::Active, Pin::Deprecated];
    pub fn as_str(self) -> &'static str {
        match self {
            Pin::Pinned => "pinned",
            Pin::Active => "active",
            Pin::Deprecated => "deprecated",
        }
    }
    pub fn parse(s: &str) -> Option<Pin> {
        Pin::ALL.into_iter().find(|k| k.as_str() == s)
    }
    pub fn is_active(&self) -> bool {
        *self == Pin::Active
    }
}

/// The thread a value was set by, and the upstream value it was stated under.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DependsOn {
    pub thread: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_field_set() -> Evolving {
        Evolving {
            shape: Some(Shape::ConditionalValue),
            thread: Some("home/city".into()),
            value: Some("Lisbon".into()),
            corrects: Some("Lisbob".into()),
            depends_on: Some(DependsOn { thread: "work/employer".into(), value: Some("Acme".into()) }),
            consequent: Some("Porto".into()),
            area: vec!["home".into()],
            signature: Some("Rua Augusta 12".into()),
            pin: Some(Pin::Pinned),
            confidence: Some(0.5),
        }
    }

    #[test]
    fn the_wire_names_are_exactly_the_stored_record_s_evolving_keys() {
        let keys = |m: &Memory| -> std::collections::BTreeSet<String> { serde_json::to_value(m).expect("serializes").as_object().expect("an object").keys().cloned().collect() };
        let plain = Memory::default();
        let mut evolving = Memory::default();
        every_field_set().set_on(&mut evolving);
        let added: std::collections::BTreeSet<String> = keys(&evolving).difference(&keys(&plain)).cloned().collect();
        assert_eq!(added, FIELDS.iter().map(|f| f.to_string()).collect(), "set_on sets every field, and FIELDS names each as it is stored");
        // And the record reads back as written.
        let back: Memory = serde_json::from_value(serde_json::to_value(&evolving).expect("serializes")).expect("reads back");
        assert_eq!(back, evolving);
    }

    #[test]
    fn text_fields_are_evolving_fields_reached_the_same_way_on_every_record() {
        let mut e = every_field_set();
        let mut m = Memory::default();
        e.clone().set_on(&mut m);
        let mut p = EvolvingPatch::default();
        for f in TextField::ALL {
            assert!(FIELDS.contains(&f.name()), "{}", f.name());
            assert!(f.max_chars() >= 1);
            let stored = m.evolving_text(f).map(str::to_string);
            assert!(stored.is_some(), "{}", f.name());
            assert_eq!(e.text_mut(f).clone(), stored, "{}", f.name());
            assert_eq!(m.evolving_text_mut(f).clone(), stored, "{}", f.name());
            *p.text_mut(f) = Some(stored.clone());
        }
        assert_eq!(
            (p.value.clone(), p.corrects.clone(), p.consequent.clone(), p.signature.clone()),
            (Some(e.value.clone()), Some(e.corrects.clone()), Some(e.consequent.clone()), Some(e.signature.clone()))
        );
    }
}
