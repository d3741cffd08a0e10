#!/usr/bin/env python3
"""Where does the size go in a Rust-built wasm module?  Python 3 standard library only.

usage:  python3 probe.py MODULE.wasm                 full report (sections, crates, modules, largest fns,
                                                     generic instantiations, datum types, op families, data,
                                                     reachability "what if" scenarios with gzip-9 deltas)
        python3 probe.py MODULE.wasm --no-scenarios  skip the (slower) reachability part
        python3 probe.py MODULE.wasm --why REGEX [--scenario AB]   print a path that keeps a function alive
        --needed Op,Op,...  ONNX ops to keep in scenario A (default: BERT sentence-embedding set)

Needs the `name` custom section.  Helper modules (same directory): wasmparse.py (sections), demangle.py
(legacy + v0 Rust demangler), decode.py (instruction scanner), attrib.py (crate/module owner of a symbol),
model.py (call graph + vtable/data-pointer graph, reachability), report.py (the report).
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report
report.main()
