//! How sure the offline author is of a memory: a base per rule, lowered for each thing it had to
//! guess. Each reason lowered is also said in words (`doubts`), so a reader knows what to check.

/// The evidence a memory was authored on.
#[derive(Clone, Debug, Default)]
pub struct Evidence {
    /// The rule's own reliability (a colon-delimited verbatim phrase is surer than an inverse copula).
    pub base: f64,
    pub doubts: Vec<(f64, String)>,
}

impl Evidence {
    pub fn new(base: f64) -> Evidence {
        Evidence { base, doubts: Vec::new() }
    }

    /// Lowers the confidence by `by`, saying why.
    pub fn doubt(&mut self, by: f64, why: impl Into<String>) {
        self.doubts.push((by, why.into()));
    }

    /// The confidence (0.05–0.95: rules are never certain, never worthless) and the reasons.
    pub fn finish(self) -> (f64, Vec<String>) {
        let c = self.doubts.iter().fold(self.base, |c, (by, _)| c - by);
        ((c.clamp(0.05, 0.95) * 100.0).round() / 100.0, self.doubts.into_iter().map(|(_, w)| w).collect())
    }
}

/// Words that make a statement tentative.
pub const HEDGES: &[&str] = &["i think", "maybe", "probably", "might", "i guess", "not sure", "perhaps", "possibly", "i believe", "i suppose", "kind of", "sort of"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubts_lower_and_clamp() {
        let mut e = Evidence::new(0.8);
        e.doubt(0.2, "hedged");
        let (c, why) = e.finish();
        assert!((c - 0.6).abs() < 1e-9);
        assert_eq!(why, vec!["hedged"]);
        let mut e = Evidence::new(0.3);
        e.doubt(0.9, "x");
        assert_eq!(e.finish().0, 0.05);
        assert_eq!(Evidence::new(2.0).finish().0, 0.95);
    }
}
