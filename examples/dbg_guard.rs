fn main() {
    let path = std::env::args().nth(1).unwrap();
    let want: Vec<usize> = std::env::args().skip(2).map(|a| a.parse().unwrap()).collect();
    for (i, line) in std::fs::read_to_string(path).unwrap().lines().enumerate() {
        if !want.contains(&(i + 1)) {
            continue;
        }
        let start = line.find("\"text\": \"").unwrap() + 9;
        let raw: String = serde_json::from_str(&line[start - 1..line.len() - 1]).unwrap();
        let text = raw.replace("[[", "").replace("]]", "");
        println!("{}: {}", i + 1, raw);
        for f in engram::internals::guard::find_secrets(&text) {
            println!("    {} {:?}", f.kind, &text[f.start..f.end]);
        }
    }
}
