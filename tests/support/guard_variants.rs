//! Varied texts around the guard corpus, for tests that compare two ways of running the scanners:
//! each payload as written, inside ordinary sentences (ASCII and not), with its case changed, with
//! zero-width and bidi characters inserted, cut at character boundaries, with its ASCII punctuation
//! swapped for typographic forms, and two payloads joined. Deterministic (a seeded generator).

/// Ordinary sentences the payloads are put into, in several scripts.
const CONTEXT: &[&str] = &[
    "I talked to my sister about the trip to Lisbon yesterday.",
    "Can you remind me what we decided about the budget for Q3?",
    "The meeting moved to 3:30 pm; bring the slides (v2).",
    "Ma sœur a déménagé à Montréal l’été dernier — elle adore ça.",
    "Мы встретились в кафе «Пушкин» в 19:00.",
    "我明天要去北京出差，请提醒我带护照。",
    "東京の天気は晴れです。",
    "회의는 내일 오후 2시에 있습니다.",
    "El número de mi pedido es 12345 y llega el martes.",
    "user: what's up\nassistant: not much",
    "Remember: `npm run build` before deploying, and the token expires in 30 days.",
    "My password manager is great; the PIN pad at the gym is broken.",
];

/// Characters a writer or an attacker puts inside words.
const INSERTS: &[char] = &['\u{200B}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{202E}', '\u{E0041}', 'é', '’', ' ', '-', '\n'];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn boundaries(s: &str) -> Vec<usize> {
    s.char_indices().map(|(i, _)| i).chain([s.len()]).collect()
}

fn alternate_case(s: &str) -> String {
    s.chars().enumerate().flat_map(|(i, c)| if i % 2 == 0 { c.to_uppercase().collect::<Vec<_>>() } else { c.to_lowercase().collect() }).collect()
}

fn typographic(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\'' => '’',
            '"' => '“',
            '`' => '‘',
            ':' => '：',
            ',' => '，',
            c => c,
        })
        .collect()
}

/// The variants of every text in `texts` (the texts themselves first).
pub fn variants(texts: &[String]) -> Vec<String> {
    let mut rng = Rng(0x0DD_BA11);
    let mut out: Vec<String> = texts.to_vec();
    out.extend(CONTEXT.iter().map(|s| s.to_string()));
    for (k, t) in texts.iter().enumerate() {
        let ctx = CONTEXT[k % CONTEXT.len()];
        let other = CONTEXT[(k * 7 + 3) % CONTEXT.len()];
        out.push(format!("{ctx} {t}"));
        out.push(format!("{t} {other}"));
        out.push(format!("{ctx}\n{t}\n{other}"));
        out.push(t.to_uppercase());
        out.push(t.to_lowercase());
        out.push(alternate_case(t));
        out.push(typographic(t));
        out.push(t.replace(' ', "  ").replace('\n', " "));
        let b = boundaries(t);
        for _ in 0..4 {
            let at = b[rng.below(b.len())];
            let mut s = t.clone();
            s.insert(at, INSERTS[rng.below(INSERTS.len())]);
            out.push(s);
        }
        for _ in 0..2 {
            let at = b[rng.below(b.len())];
            out.push(t[..at].to_string());
            out.push(t[at..].to_string());
        }
        let partner = &texts[rng.below(texts.len())];
        out.push(format!("{t} {partner}"));
    }
    out
}
