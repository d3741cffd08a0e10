//! Passwords handed to a command on its command line, and credential-file lines, found by the
//! syntax of the command or the file rather than by a word naming a password: `mysql -u root
//! -p…` (the value glued to `-p`), `sshpass -p …`, `redis-cli -a …`, `curl -u user:…`, and a
//! `.pgpass` line `host:port:database:user:password`. Stand-ins (`-p$MYSQL_PWD`, `-p<password>`,
//! `-u user:password`) are documentation, not secrets.

use super::{Finding, Findings};

/// Commands whose flag carries a password, and how: `true` when the value is glued to the flag
/// (`-pSECRET`), `false` when it is the next word.
const COMMANDS: &[(&str, &str, bool)] = &[
    ("mysql", "-p", true),
    ("mysqldump", "-p", true),
    ("mysqladmin", "-p", true),
    ("mysqlimport", "-p", true),
    ("mysqlcheck", "-p", true),
    ("mysqlshow", "-p", true),
    ("mariadb", "-p", true),
    ("mariadb-dump", "-p", true),
    ("sshpass", "-p", false),
    ("redis-cli", "-a", false),
    ("docker", "-p", false),
    ("docker", "--password", false),
    ("podman", "-p", false),
    ("podman", "--password", false),
    ("curl", "-u", false),
    ("curl", "--user", false),
];

/// A value that stands for a password in documentation, or is no value at all.
fn stand_in(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.chars().count() < 4
        || value.starts_with(['$', '<', '{', '[', '%', '-'])
        || value.ends_with(['>', '}'])
        || matches!(lower.as_str(), "password" | "passwd" | "pass" | "pwd" | "secret" | "yourpassword" | "your_password" | "mypassword")
        || value.chars().all(|c| c == '*' || c == 'x' || c == 'X')
        || super::entropy::is_placeholder(value)
}

/// Words of a line: byte ranges of its runs without whitespace.
fn words(line: &str, base: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
        match (start, c.is_whitespace()) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                out.push((base + s, base + i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The value of a word without the quotes around it.
fn unquoted(text: &str, s: usize, e: usize) -> (usize, usize) {
    let w = &text[s..e];
    let q = w.len() - w.trim_start_matches(['"', '\'']).len();
    let t = w.len() - w.trim_end_matches(['"', '\'', ';']).len();
    if q + t >= w.len() {
        return (s, s);
    }
    (s + q, e - t)
}

fn push(out: &mut Findings, s: usize, e: usize, text: &str) {
    if e > s && !stand_in(&text[s..e]) && !out.overlaps(s, e) {
        out.push(Finding { start: s, end: e, kind: "password" });
    }
}

/// Flags of the commands above, on the line where the command is named.
fn command_flags(text: &str, out: &mut Findings) {
    let mut base = 0;
    for line in text.split('\n') {
        let ws = words(line, base);
        let mut command: Option<&str> = None;
        for (k, &(s, e)) in ws.iter().enumerate() {
            let w = &text[s..e];
            // The command by its name, or its path (`/usr/bin/mysql`).
            let name = w.rsplit('/').next().unwrap_or(w).trim_start_matches(['`', '"', '\'', '(']);
            if let Some(&(c, _, _)) = COMMANDS.iter().find(|(c, _, _)| name.eq_ignore_ascii_case(c)) {
                command = Some(c);
                continue;
            }
            let Some(c) = command else { continue };
            for &(_, flag, glued) in COMMANDS.iter().filter(|(n, _, _)| *n == c) {
                if glued && w.len() > flag.len() && w.starts_with(flag) && !w.starts_with("--") {
                    let at = s + flag.len();
                    // A quoted value may hold spaces: up to its closing quote on the line.
                    let quote = text[at..].chars().next().filter(|c| matches!(c, '"' | '\''));
                    let line_end = base + line.len();
                    let (vs, ve) = match quote.and_then(|q| text[at + 1..line_end].find(q)) {
                        Some(close) => (at + 1, at + 1 + close),
                        None => unquoted(text, at, e),
                    };
                    push(out, vs, ve, text);
                } else if !glued && w == flag {
                    let Some(&(ns, ne)) = ws.get(k + 1) else { continue };
                    let (vs, ve) = unquoted(text, ns, ne);
                    // `curl -u user:password`: the part after the first colon.
                    let (vs, ve) = if c == "curl" {
                        match text[vs..ve].find(':') {
                            Some(i) => (vs + i + 1, ve),
                            None => continue,
                        }
                    } else {
                        (vs, ve)
                    };
                    push(out, vs, ve, text);
                }
            }
        }
        base += line.len() + 1;
    }
}

/// `.pgpass` lines, `host:port:database:user:password`: a word of exactly five fields (the
/// password may hold escaped colons), the port digits or `*`, the host and the user named.
fn pgpass(text: &str, out: &mut Findings) {
    let mut base = 0;
    for line in text.split('\n') {
        for (s, e) in words(line, base) {
            let w = &text[s..e];
            if w.contains("://") || w.bytes().filter(|&b| b == b':').count() < 4 {
                continue;
            }
            let mut fields = w.splitn(5, ':');
            let (Some(host), Some(port), Some(db), Some(user), Some(pass)) = (fields.next(), fields.next(), fields.next(), fields.next(), fields.next()) else { continue };
            let named = |f: &str| f == "*" || (!f.is_empty() && f.bytes().any(|b| b.is_ascii_alphabetic()));
            // A host by name or by IPv4 address.
            let host_ok = named(host) || (host.matches('.').count() == 3 && host.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
            let port_ok = port == "*" || ((1..=5).contains(&port.len()) && port.bytes().all(|b| b.is_ascii_digit()));
            if !(port_ok && host_ok && named(db) && named(user) && user != "*") || pass.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let vs = e - pass.len();
            let (vs, ve) = unquoted(text, vs, e);
            push(out, vs, ve, text);
        }
        base += line.len() + 1;
    }
}

pub fn find(text: &str, out: &mut Findings) {
    // A flag of one of the commands after a space first (most texts have none), then the command's
    // name; both read from COMMANDS, so a command or flag added there is looked for here too.
    let flagged = COMMANDS.iter().any(|&(_, flag, _)| text.match_indices(flag).any(|(i, _)| text[..i].ends_with(char::is_whitespace)));
    if flagged {
        let has = |w: &str| text.as_bytes().windows(w.len()).any(|x| x.eq_ignore_ascii_case(w.as_bytes()));
        if COMMANDS.iter().any(|&(c, _, _)| has(c)) {
            command_flags(text, out);
        }
    }
    if text.bytes().filter(|&b| b == b':').count() >= 4 {
        pgpass(text, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<&str> {
        let mut out = Findings::default();
        find(text, &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn passwords_on_command_lines() {
        assert_eq!(values("run mysql -u root -pXk7!mQ2zL -h 127.0.0.1 shop < dump.sql"), ["Xk7!mQ2zL"]);
        assert_eq!(values("mysqldump -uadmin -p'S3cure pass' shop"), ["S3cure pass"]);
        assert_eq!(values("/usr/bin/mariadb -h db -pBlue#Heron42 crm"), ["Blue#Heron42"]);
        assert_eq!(values("sshpass -p 'Kettle&Tea9' ssh pi@10.0.0.4"), ["Kettle&Tea9"]);
        assert_eq!(values("redis-cli -h cache -a Zr8pLq2mX4 ping"), ["Zr8pLq2mX4"]);
        assert_eq!(values("curl -u deploy:Gx4-Pq9!zR https://ci.example.net/job"), ["Gx4-Pq9!zR"]);
        assert_eq!(values("docker login -u ci -p Wq8LzR2mXv5TnB7k registry.example.com"), ["Wq8LzR2mXv5TnB7k"]);
        // A long flag alone on the line (no short one beside it to open the scan).
        assert_eq!(values("podman login --password Hq7!zR2mXv quay.example.org"), ["Hq7!zR2mXv"]);
        for doc in [
            "mysql -u root -p shop   # prompts for the password",
            "mysql -u root -p$MYSQL_PWD shop",
            "mysql -u root -p<password> shop",
            "curl -u user:password https://api.example.com",
            "python -pXk7 script.py",
            "ls -la /tmp; du -sh",
        ] {
            assert_eq!(values(doc), Vec::<&str>::new(), "{doc}");
        }
    }

    #[test]
    fn pgpass_lines() {
        assert_eq!(values("~/.pgpass line: db.prod.local:5432:*:reporting:Rp7#kLm2Qx"), ["Rp7#kLm2Qx"]);
        assert_eq!(values("localhost:*:*:postgres:Tundra-88"), ["Tundra-88"]);
        assert_eq!(values("192.168.4.20:5432:compta:lecteur:Mistral_2024!"), ["Mistral_2024!"]);
        for benign in ["at 10:30:45:12:99 the job ran", "fe80::1:2:3:4 is link-local", "see https://a:b@c:1/d:e:f", "host:port:db:user:password", "10.0.0.1:5432:db:user:*"] {
            assert_eq!(values(benign), Vec::<&str>::new(), "{benign}");
        }
    }

    #[test]
    fn never_panics_on_cut_inputs() {
        let s = "mysql -pé curl -u a:é sshpass -p 'x a:1:b:c:é redis-cli -a";
        for i in 0..=s.len() {
            if s.is_char_boundary(i) {
                values(&s[..i]);
                values(&s[i..]);
            }
        }
    }
}
