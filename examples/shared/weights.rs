//! What the trainers of the engine's small linear models share: their command line (files to fit
//! on, files to report, `--write` or `--check`) and the committed weights file (`[w0, w1, …]`),
//! written or checked against a retrain.

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

/// How far a retrained weight may drift from the committed one before `--check` fails: the vector
/// features come from the embedder, whose last digits may differ between machines.
const DRIFT: f64 = 0.05;

/// `FIT.jsonl… [--report OTHER.jsonl…] [--write | --check]`.
pub struct Command {
    pub fit: Vec<String>,
    pub report: Vec<String>,
    pub write: bool,
    pub check: bool,
}

pub fn command(usage: &str) -> AnyResult<Command> {
    let mut c = Command { fit: Vec::new(), report: Vec::new(), write: false, check: false };
    let mut reporting = false;
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--write" => c.write = true,
            "--check" => c.check = true,
            "--report" => reporting = true,
            f if f.starts_with("--") => return Err(usage.into()),
            f if reporting => c.report.push(f.to_string()),
            f => c.fit.push(f.to_string()),
        }
    }
    if c.fit.is_empty() {
        return Err(usage.into());
    }
    Ok(c)
}

fn committed<const N: usize>(path: &str) -> AnyResult<[f64; N]> {
    let text = std::fs::read_to_string(path)?;
    let values: Vec<f64> = text.trim().trim_start_matches('[').trim_end_matches(']').split(',').map(|v| v.trim().parse::<f64>()).collect::<Result<_, _>>()?;
    values.try_into().map_err(|v: Vec<f64>| format!("{path} holds {} weights, the model has {N}", v.len()).into())
}

/// `--check`: fails when `w` (what `fitted_on` trains) differs from the committed weights at
/// `path`; `--write`: stores `w` there. `trainer` names the command that rewrites them.
pub fn check_or_write<const N: usize>(c: &Command, path: &str, w: &[f64; N], fitted_on: &str, trainer: &str) -> AnyResult<()> {
    if c.check {
        let old: [f64; N] = committed(path)?;
        let worst = old.iter().zip(w).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        if worst > DRIFT {
            return Err(format!("{path} is not what {fitted_on} trains (a weight moved by {worst:.3}): run {trainer} --write").into());
        }
        println!("{path} matches what {fitted_on} trains (largest difference {worst:.4})");
    }
    if c.write {
        let list: Vec<String> = w.iter().map(|v| format!("{v:.4}")).collect();
        std::fs::write(path, format!("[{}]\n", list.join(", ")))?;
        println!("wrote {path}");
    }
    Ok(())
}
