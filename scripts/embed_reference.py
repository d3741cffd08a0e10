#!/usr/bin/env python3
"""Writes tests/fixtures/embed_reference.json: reference word-piece ids and sentence vectors for the local
embedder's exactness tests (tests/embedder.rs).

The reference is computed independently of the Rust code: onnxruntime runs the *unmodified* model.onnx
(no gather-first rewrite), the Python `tokenizers` binding reads the same tokenizer.json, and pooling is
sentence-transformers' mean pooling + L2 normalization, one text at a time (so no padding is involved).

    bash scripts/fetch-models.sh
    pip install onnxruntime tokenizers numpy
    python3 scripts/embed_reference.py            # ENGRAM_MODEL_DIR overrides <repo>/models

Vectors are rounded to 6 significant digits to keep the fixture small; the test's cosine threshold
(0.999) is far looser than that rounding.
"""

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

REPO = Path(__file__).resolve().parent.parent
MODEL_DIR = Path(os.environ.get("ENGRAM_MODEL_DIR", REPO / "models"))
OUT = REPO / "tests" / "fixtures" / "embed_reference.json"
MAX_TOKENS = 256

LONG_ENGLISH = " ".join(
    [
        "Memory in an agent is not a single store but a set of habits: what to keep, when to revisit it,",
        "and how to let old facts fade when newer ones contradict them. A user who moved from Paris to Lyon",
        "in March should not be greeted with Parisian weather in June, yet the fact that they once lived",
        "in Paris remains useful when they ask about the restaurants they used to like.",
    ]
    * 5
)
LONG_CJK = "记忆不是一个简单的仓库，而是一套习惯：保留什么，何时回顾，以及如何让旧的事实在新的事实出现时逐渐淡去。" * 6

# (text, note). Texts whose tokenization has no word piece besides [CLS]/[SEP] are expected to be rejected
# by embed() with InvalidInput; their vector is null in the fixture.
CASES = [
    ("hello", "one word"),
    ("Memory", "one word, capitalized"),
    ("a", "one letter"),
    ("?", "one punctuation mark"),
    ("The cat sat on the mat.", "sentence"),
    ("I prefer dark roast coffee in the morning.", "sentence"),
    ("The user's favourite programming language is Rust.", "sentence, apostrophe"),
    ("Meeting with Alice moved to Thursday at 3pm.", "sentence, time"),
    ('She said: "don\'t forget the milk!"', "quotes"),
    ("What did I eat for dinner last Tuesday?", "question"),
    ("Remind me to call mom tomorrow.", "sentence"),
    ("The quick brown fox jumps over the lazy dog.", "pangram"),
    ("Café crème brûlée à la française", "accents"),
    ("Ångström, naïve façade, coöperate, jalapeño", "accents"),
    ("Straße und übermäßig große Bäume", "German"),
    ("¿Dónde está la biblioteca? ¡Aquí!", "Spanish"),
    ("Cafe\u0301 au lait", "combining accent (decomposed)"),
    ("我喜欢在早上喝咖啡。", "Chinese"),
    ("東京は日本の首都です。", "Japanese"),
    ("안녕하세요, 만나서 반갑습니다.", "Korean"),
    ("Привет, как дела?", "Russian"),
    ("مرحبا بالعالم", "Arabic"),
    ("नमस्ते दुनिया", "Hindi"),
    ("Καλημέρα κόσμε", "Greek"),
    ("สวัสดีครับ", "Thai"),
    ("I'm going to 北京 next week für Urlaub", "mixed scripts"),
    ("ＡＢＣ１２３ full width", "full-width forms"),
    ("I love pizza 🍕🍕 and sushi 🍣", "emoji"),
    ("😀😃😄", "emoji only"),
    ("👨‍👩‍👧‍👦 family emoji with ZWJ", "emoji ZWJ sequence"),
    ("🇫🇷🇯🇵 flags", "regional indicators"),
    ('fn main() { println!("Hello, world!"); }', "code: Rust"),
    ("SELECT * FROM users WHERE id = 42;", "code: SQL"),
    ("const x = arr.map((v) => v * 2).filter(Boolean);", "code: JavaScript"),
    ("def f(x):\n    return x**2 + 1\n", "code: Python, newlines"),
    ('{"key": [1, 2, 3], "nested": {"a": null}}', "JSON"),
    ("# Title\n- item **bold** _it_", "Markdown"),
    ("3.14159", "number"),
    ("The invoice total was $1,234.56 on 2024-03-15.", "money, date"),
    ("Call +1 (555) 012-3456 ext. 789", "phone number"),
    ("0x7fffffff 1e-9 42 007", "numeric literals"),
    ("https://example.com/path?query=1&b=two#frag", "URL"),
    ("contact me at jane.doe@example.org", "e-mail address"),
    ("iPhone MacBook PostgreSQL NASA", "mixed case"),
    ("!!!???...---", "punctuation run"),
    ("∑ x² ≤ ∞ → ∀ε>0", "math symbols"),
    ("   leading and trailing spaces   ", "surrounding spaces"),
    ("line one\nline two\tcolumn\r\nline three", "tabs and newlines"),
    ("hello\u0000world\u0007", "control characters inside"),
    ("zero\u200bwidth\u200djoiner", "zero-width characters"),
    ("supercalifragilisticexpialidocious", "long unknown word"),
    ("antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis", "long words"),
    ("a " * 254, "exactly 256 word pieces with [CLS]/[SEP]"),
    ("a " * 255, "257 word pieces: truncated by one"),
    (LONG_ENGLISH, "long English paragraph, truncated at 256"),
    (LONG_CJK, "long Chinese text, truncated at 256"),
    ("🙂 " * 300, "300 emoji, truncated at 256"),
    ("", "empty: InvalidInput"),
    ("   \t\n  ", "whitespace only: InvalidInput"),
    ("\u0000\u0001\u200b", "only characters the tokenizer drops: InvalidInput"),
]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    model_path, tokenizer_path = MODEL_DIR / "model.onnx", MODEL_DIR / "tokenizer.json"
    if not model_path.exists() or not tokenizer_path.exists():
        print(f"model files missing in {MODEL_DIR}: run scripts/fetch-models.sh", file=sys.stderr)
        return 1

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])

    cases = []
    for text, note in CASES:
        enc = tokenizer.encode(text)
        ids = list(enc.ids)
        vector = None
        if len(ids) > 2:
            feeds = {
                "input_ids": np.array([ids], dtype=np.int64),
                "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
            }
            hidden = session.run(["last_hidden_state"], feeds)[0][0]  # [seq, dims]
            mask = np.array(enc.attention_mask, dtype=np.float32)[:, None]
            mean = (hidden * mask).sum(axis=0) / max(mask.sum(), 1e-9)
            unit = mean / max(np.linalg.norm(mean), 1e-12)
            vector = [float(f"{x:.6g}") for x in unit.tolist()]
        cases.append({"note": note, "text": text, "ids": ids, "vector": vector})

    fixture = {
        "about": "Reference for tests/embedder.rs, written by scripts/embed_reference.py (onnxruntime "
        + ort.__version__
        + "). vector null = embed() must reject the text with InvalidInput.",
        "model_sha256": sha256(model_path),
        "tokenizer_sha256": sha256(tokenizer_path),
        "max_tokens": MAX_TOKENS,
        "dims": 384,
        "cases": cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUT.relative_to(REPO)} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
