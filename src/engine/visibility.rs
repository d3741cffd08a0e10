//! Which namespaces a read sees: the one it names and, unless the store or the call leaves it out,
//! the shared `default` one. Every read path asks this module, so a tenant's search, recall, thread,
//! context block and links agree on what it may see.

use super::{resolve_namespace, Engram};
use crate::error::Result;
use crate::model::validate::DEFAULT_NAMESPACE;

/// The namespaces a read names: its own (`None`: `default`) and whether the shared `default`
/// namespace is seen with it (`None`: as the store was opened, `EngineOptions::exclude_default`).
/// `Some("acme").into()` and `None.into()` read as they always did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Namespaces<'a> {
    pub namespace: Option<&'a str>,
    pub include_default: Option<bool>,
}

impl<'a> Namespaces<'a> {
    /// `namespace` alone: the shared `default` namespace is not seen, whatever the store's setting.
    pub fn only(namespace: &'a str) -> Self {
        Namespaces { namespace: Some(namespace), include_default: Some(false) }
    }

    /// The same namespace, with the shared one seen or not as the call says (`None`: the store's).
    pub fn include_default(self, include: Option<bool>) -> Self {
        Namespaces { include_default: include, ..self }
    }
}

impl<'a> From<Option<&'a str>> for Namespaces<'a> {
    fn from(namespace: Option<&'a str>) -> Self {
        Namespaces { namespace, include_default: None }
    }
}

impl<'a> From<&'a str> for Namespaces<'a> {
    fn from(namespace: &'a str) -> Self {
        Namespaces { namespace: Some(namespace), include_default: None }
    }
}

/// [`Namespaces`] as a caller's options carry them (`{namespace?, includeDefault?}`), owned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamespaceChoice {
    pub namespace: Option<String>,
    pub include_default: Option<bool>,
}

impl NamespaceChoice {
    pub fn as_namespaces(&self) -> Namespaces<'_> {
        Namespaces { namespace: self.namespace.as_deref(), include_default: self.include_default }
    }
}

impl<'a> From<&'a NamespaceChoice> for Namespaces<'a> {
    fn from(c: &'a NamespaceChoice) -> Self {
        c.as_namespaces()
    }
}

/// A resolved, validated [`Namespaces`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Visible {
    pub(crate) namespace: String,
    shared: bool,
}

impl Visible {
    /// Whether a record of namespace `ns` is visible.
    pub(crate) fn sees(&self, ns: &str) -> bool {
        ns == self.namespace || (self.shared && ns == DEFAULT_NAMESPACE)
    }

    /// The namespaces seen, the read's own first.
    pub(crate) fn all(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.namespace.as_str()).chain((self.shared && self.namespace != DEFAULT_NAMESPACE).then_some(DEFAULT_NAMESPACE))
    }
}

impl Engram {
    /// What a read in `within` sees; an invalid namespace is `InvalidInput`.
    pub(crate) fn visible<'a>(&self, within: impl Into<Namespaces<'a>>) -> Result<Visible> {
        let within = within.into();
        let namespace = resolve_namespace(within.namespace)?;
        Ok(Visible { namespace, shared: within.include_default.unwrap_or(!self.exclude_default) })
    }

    /// What a record written in `namespace` may link to: its namespace, and `default` unless the
    /// store keeps namespaces apart.
    pub(crate) fn visible_from(&self, namespace: &str) -> Visible {
        Visible { namespace: namespace.to_string(), shared: !self.exclude_default }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visible(namespace: &str, shared: bool) -> Visible {
        Visible { namespace: namespace.into(), shared }
    }

    #[test]
    fn the_shared_namespace_is_seen_only_when_asked() {
        assert!(visible("acme", true).sees("acme") && visible("acme", true).sees(DEFAULT_NAMESPACE));
        assert!(visible("acme", false).sees("acme") && !visible("acme", false).sees(DEFAULT_NAMESPACE));
        assert!(!visible("acme", true).sees("globex"));
        assert_eq!(visible("acme", true).all().collect::<Vec<_>>(), ["acme", DEFAULT_NAMESPACE]);
        assert_eq!(visible(DEFAULT_NAMESPACE, true).all().collect::<Vec<_>>(), [DEFAULT_NAMESPACE]);
        assert_eq!(visible("acme", false).all().collect::<Vec<_>>(), ["acme"]);
    }
}
