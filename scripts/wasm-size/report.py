"""Size report for a Rust-built wasm module (uses model.py etc.).  Usage: probe.py WASM [--needed Op,Op,..] [--top N]"""
import sys, zlib, re, collections, argparse, hashlib

NEEDED_DEFAULT = ('Gather,Cast,Mul,MatMul,Add,Sub,Div,Pow,Sqrt,ReduceMean,Softmax,Erf,Transpose,Reshape,Shape,'
                  'Unsqueeze,Concat,Slice,Constant,Where,Equal,Expand,ConstantOfShape,Not,And')
# a more tolerant set (other ops commonly found in exported BERT/MiniLM graphs)
NEEDED_EXTRA = 'Squeeze,Identity,Tanh,Sigmoid,Relu,Neg,Range,Less,Greater,Or,Min,Max,ReduceSum,LayerNormalization,Gelu,Flatten,Split,Gemm,Clip,Abs,Exp,Log,Sign,Floor,Ceil,Round,Reciprocal'

FAMILIES = [  # (family, regex on demangled name) first match wins; only for tract*/rustfft crates
    ('conv/cnn/im2col/deconv', r'::cnn::|[Cc]onv(?!ert)|[Ii]m2col|[Dd]econv|::patches::|Patcher|conv_qlinear'),
    ('pooling', r'[Pp]ool'),
    ('rnn/lstm/gru/scan', r'::rec::|[Ll]stm|LSTM|gru_cell|[Gg]ru\b|Gru[A-Z]|::gru|[Rr]nn|::scan::|Scan\b|Scan[A-Z<]|scan_'),
    ('nms', r'[Nn]on_?[Mm]ax_?[Ss]uppression'),
    ('fft/stft/dft', r'rustfft|::fft::|[Ss]tft|[Dd]ft\b|Fft|::fft'),
    ('resize/upsample/grid', r'[Rr]esize|[Uu]psample|[Gg]rid_?[Ss]ample'),
    ('random/multinomial', r'::random|Random|[Mm]ultinomial|rand_chacha|Philox|philox'),
    ('onnx-ml (trees, category..)', r'::ml::|[Tt]ree_?[Ee]nsemble|[Cc]ategory_?[Mm]apper|[Ll]inear_?[Cc]lassifier|[Aa]rray_?[Ff]eature|DirectLookup|ReverseLookup'),
    ('quantized (q-linear, block-quant)', r'::quant|Quant|[Qq][Ll]inear|QSum|q_sum|[Mm]at_?[Mm]ul_?[Ii]nteger|[Bb]lock_?[Qq]uant|[Qq]4_0|Q2_0|q20t|[Dd]equant|LookupTable|QParams|::qmatmul|QMatMul|OptSimpleMatMulPack'),
    ('topk/nonzero/scatter/pad/onehot/compress/eye/trilu/lrn/tile', r'[Tt]opk|[Nn]on_?[Zz]ero|[Ss]catter|::pad::|Pad\b|Pad as|[Oo]ne_?[Hh]ot|[Cc]ompress|[Ee]ye_?[Ll]ike|[Tt]rilu|[Ll]rn\b|Lrn|::lrn|[Tt]ile\b|DynTile|::tile::'),
    ('einsum (MatMul path, needed)', r'[Ee]in_?[Ss]um|::einsum'),
    ('comparison ops (only Equal needed)', r'::comparison::|Comp(GT|LT|GTE|LTE|NE|Eq)\b'),
]
NOT_NEEDED_FAMILIES = {f for f, _ in FAMILIES[:10]}


def gz(b):
    return len(zlib.compress(b, 9))


def human(n):
    return '%.1f' % (n / 1024) + 'K' if n < 1024 * 1024 else '%.2fM' % (n / 1048576)


def dtype_class(c):
    """rough element-type guess for one instantiation from its opcode mix (ints are not separable reliably:
    8-bit loads are also used for enum tags/bools)"""
    import decode as DC
    if c[DC.C_F16K] and c[DC.C_M16]: return 'f16'
    if c[DC.C_F64] + c[DC.C_SIMD_F64] and c[DC.C_F64] + c[DC.C_SIMD_F64] >= c[DC.C_F32] + c[DC.C_SIMD_F32]: return 'f64'
    if c[DC.C_F32] + c[DC.C_SIMD_F32]: return 'f32'
    if c[DC.C_M16] or c[DC.C_SIMD_I16]: return 'i16/u16'
    return 'int/bool/TDim/String/other'


def op_registry(m):
    """(op name, builder func idx, registering function) from tract_onnx register_all_ops const triples"""
    import decode as DC
    out = []
    for f in m.funcs:
        if not re.search(r'register_all_ops$', f.name) or not f.crate.startswith('tract_onnx'): continue
        ac = []
        DC.scan(m.d, f.bstart, f.bsize, m.data_lo, m.data_hi, ac, 0, set())
        for a, b, c in zip(ac, ac[1:], ac[2:]):
            if m.data_lo <= a < m.data_hi and 0 < b < 64 and c in m.table:
                s = m.img[a - m.data_lo:a - m.data_lo + b]
                if re.fullmatch(rb'[A-Za-z][A-Za-z0-9_]*', s):
                    out.append((s.decode(), m.table[c], f.name))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('wasm', nargs='?', default='target/wasm/wasm32-unknown-unknown/release/engram.wasm')
    ap.add_argument('--needed', default=NEEDED_DEFAULT)
    ap.add_argument('--top', type=int, default=40)
    ap.add_argument('--no-scenarios', action='store_true')
    ap.add_argument('--why', action='append', help='regex on demangled name: print a retaining path from the roots '
                    '(repeatable); with --scenario AB the needed-ops registry + no-nnef-ctor removal is applied first')
    ap.add_argument('--scenario', default='', help="'' (baseline) or 'AB'")
    args = ap.parse_args()
    import model, wasmparse as W
    m = model.Module(args.wasm)
    if args.why:
        return why(m, args)
    d = m.d
    P = print

    # ---------------- sections
    P('# SECTIONS  file=%d bytes  gzip-9=%d' % (len(d), gz(d)))
    shipped = bytearray(d[:8])
    for s in m.secs:
        nm = W.SECNAMES.get(s['id'], '?') + ('(%s)' % s['custom'] if s['custom'] else '')
        raw = d[s['start'] - s['hdr']:s['start'] + s['size']]
        P('  %-32s %10d  %5.1f%%  gz %9d' % (nm, s['size'], 100 * s['size'] / len(d), gz(raw)))
        if s['id'] != 0: shipped += raw
    P('  module without custom sections: %d bytes, gzip-9 %d (wasm-bindgen output also drops describe fns)'
      % (len(shipped), gz(bytes(shipped))))

    funcs = m.funcs
    total = sum(f.size for f in funcs)
    code_gz = gz(b''.join(d[f.bstart:f.bstart + f.bsize] for f in funcs))
    P('\n# CODE  %d functions, %d bytes, gzip-9 of all bodies %d' % (len(funcs), total, code_gz))

    # ---------------- crates
    byc = collections.defaultdict(list)
    for f in funcs: byc[f.crate].append(f)
    rows = []
    for c, fs in byc.items():
        rows.append((sum(f.size for f in fs), c, len(fs), fs))
    rows.sort(key=lambda r: -r[0])
    P('\n# CRATES (owner = crate of the self type / trait impl / drop_in_place target / path)')
    P('  %-28s %9s %6s %6s %9s %6s' % ('crate', 'bytes', '%', 'fns', 'gz-9', 'gz%'))
    gzsum = 0
    crate_gz = {}
    for b, c, n, fs in rows:
        g = gz(b''.join(d[f.bstart:f.bstart + f.bsize] for f in fs))
        crate_gz[c] = g; gzsum += g
    for b, c, n, fs in rows[:30]:
        P('  %-28s %9d %5.1f%% %6d %9d %5.1f%%' % (c[:28], b, 100 * b / total, n, crate_gz[c], 100 * crate_gz[c] / gzsum))
    P('  (sum of per-crate gz = %d; whole-code gz = %d)' % (gzsum, code_gz))

    # ---------------- modules
    P('\n# MODULES of big crates (crate::m1::m2; top 15 each)')
    for c in ['tract_core', 'tract_data', 'tract_hir', 'tract_linalg', 'tract_onnx', 'tract_onnx_opl', 'tract_nnef',
              'ndarray', 'core', 'tokenizers', 'engram', 'regex_automata']:
        if c not in byc: continue
        M = collections.Counter(); N = collections.Counter()
        for f in byc[c]:
            k = '::'.join(f.mods[:3] if f.mods[:1] == ['ops'] else f.mods[:2]) or '(root)'
            M[k] += f.size; N[k] += 1
        P('  ' + c + ': ' + ', '.join('%s %s/%d' % (k, human(v), N[k]) for k, v in M.most_common(15)))

    # ---------------- largest functions
    P('\n# LARGEST FUNCTIONS')
    for f in sorted(funcs, key=lambda f: -f.size)[:args.top]:
        P('  %7d  %s' % (f.size, f.name[:150]))

    # ---------------- monomorphisation / duplicates
    G = collections.defaultdict(list)
    for f in funcs: G[f.name].append(f)
    P('\n# GENERIC INSTANTIATION GROUPS (same demangled name, different hash)')
    big = sorted(G.items(), key=lambda kv: -sum(f.size for f in kv[1]))
    multi = sum(sum(f.size for f in fs) for n, fs in G.items() if len(fs) > 1)
    P('  bytes in names with >1 instantiation: %d (%.1f%%)' % (multi, 100 * multi / total))
    for n, fs in big[:25]:
        P('  %4d x %8d  %s' % (len(fs), sum(f.size for f in fs), n[:130]))
    H = collections.defaultdict(list)
    for f in funcs: H[hashlib.sha1(d[f.bstart:f.bstart + f.bsize]).digest()].append(f)
    dup = sum(f.size for fs in H.values() for f in fs[1:])
    P('  byte-identical function bodies (foldable by wasm-opt duplicate-function-elimination): %d bytes in %d extra copies'
      % (dup, sum(len(fs) - 1 for fs in H.values())))

    # ---------------- datum types
    P('\n# DATUM-TYPE FINGERPRINT (tract*/ndarray groups with >=5 instantiations; class from opcode mix)')
    DT = collections.Counter(); DTn = collections.Counter(); gb = 0
    for n, fs in G.items():
        if len(fs) < 5 or not (fs[0].crate.startswith('tract') or fs[0].crate == 'ndarray'): continue
        for f in fs:
            k = dtype_class(f.cnt); DT[k] += f.size; DTn[k] += 1; gb += f.size
    P('  total %d bytes; ' % gb + ', '.join('%s %d (%d fns)' % (k, v, DTn[k]) for k, v in DT.most_common()))
    f16n = [f for f in funcs if re.search(r'\bf16\b|half::|_f16\b|F16', f.name)]
    P('  names mentioning f16/half: %d fns, %d bytes' % (len(f16n), sum(f.size for f in f16n)))
    allf16 = [f for f in funcs if dtype_class(f.cnt) == 'f16' and f.crate.startswith(('tract', 'ndarray', 'half'))]
    P('  tract/ndarray fns containing an inlined f16 path (f16 consts + 16-bit loads; incl. multi-type dispatchers): %d fns, %d bytes'
      % (len(allf16), sum(f.size for f in allf16)))

    # ---------------- op families (name based)
    P('\n# OP FAMILIES (name-based, tract*/rustfft crates; first matching family)')
    FamB = collections.Counter(); FamN = collections.Counter(); FamG = collections.defaultdict(list)
    for f in funcs:
        if not (f.crate.startswith('tract') or f.crate == 'rustfft'): continue
        for fam, rx in FAMILIES:
            if re.search(rx, f.name):
                FamB[fam] += f.size; FamN[fam] += 1; FamG[fam].append(f); break
    nn = 0; nng = []
    for fam, _ in FAMILIES:
        g = gz(b''.join(d[f.bstart:f.bstart + f.bsize] for f in FamG[fam])) if FamG[fam] else 0
        P('  %-58s %9d %5d fns  gz %8d%s' % (fam, FamB[fam], FamN[fam], g, '  *not needed*' if fam in NOT_NEEDED_FAMILIES else ''))
        if fam in NOT_NEEDED_FAMILIES: nn += FamB[fam]; nng += FamG[fam]
    P('  not-needed families total: %d bytes, gz %d' % (nn, gz(b''.join(d[f.bstart:f.bstart + f.bsize] for f in nng))))
    other = [('regex (regex*, fancy_regex, aho_corasick)', ('regex', 'regex_automata', 'regex_syntax', 'fancy_regex', 'aho_corasick')),
             ('unicode tables/normalisation', ('unicode_normalization_alignments', 'unicode_segmentation', 'unicode_categories', 'unicode_normalization')),
             ('serde/json', ('serde', 'serde_core', 'serde_json', 'erased_serde')),
             ('wasm-bindgen glue+js_sys', ('<wasm-bindgen glue>', 'wasm_bindgen', 'js_sys', 'wasm_bindgen_futures')),
             ('tract_nnef', ('tract_nnef',)), ('rustfft', ('rustfft', 'transpose', 'primal_check', 'strength_reduce')),
             ('protobuf (prost)', ('prost',)), ('anyhow/downcast/dyn_clone', ('anyhow', 'downcast_rs', 'dyn_clone', 'dyn_hash'))]
    for lab, cs in other:
        fs = [f for f in funcs if f.crate in cs]
        P('  %-58s %9d %5d fns  gz %8d' % (lab, sum(f.size for f in fs), len(fs), gz(b''.join(d[f.bstart:f.bstart + f.bsize] for f in fs))))

    # ---------------- data
    P('\n# DATA  segments: ' + ', '.join('@%s %d' % (hex(s['offset']) if s['offset'] is not None else 'passive', s['size']) for s in m.segs))
    refby = collections.defaultdict(collections.Counter)
    for f in funcs:
        for a in set(f.drefs): refby[m.chunk_of(a)][f.crate] += 1
    # propagate ownership through data->data pointers (one level)
    owner = {}
    for ci in range(len(m.bounds)):
        if refby[ci]: owner[ci] = refby[ci].most_common(1)[0][0]
    for _ in range(2):   # propagate through modelled data->data pointers, then (weaker) through any pointer
        for ci, outs in list(m.chunk_out.items()):
            if ci in owner:
                for t in outs: owner.setdefault(t, owner[ci])
    direct = dict(owner)
    for a, v in m.dptr.items():
        ca = m.chunk_of(a)
        if ca in direct: owner.setdefault(m.chunk_of(v), direct[ca])
    DB = collections.Counter()
    for ci in range(len(m.bounds)): DB[owner.get(ci, '?')] += m.chunk_end[ci] - m.bounds[ci]
    P('  data bytes by referencing crate: ' + ', '.join('%s %d' % kv for kv in DB.most_common(14)))
    P('  largest data objects (boundaries = referenced addresses):')
    L = sorted(range(len(m.bounds)), key=lambda ci: -(m.chunk_end[ci] - m.bounds[ci]))
    for ci in L[:15]:
        a = m.bounds[ci]; sz = m.chunk_end[ci] - a
        raw = m.img[a - m.data_lo:a - m.data_lo + sz]
        strs = re.findall(rb'[ -~]{5,}', raw)[:3]
        P('   %7d @%s %-16s %s' % (sz, hex(a), owner.get(ci, '?')[:16], (b' | '.join(s[:40] for s in strs) or raw[:24].hex().encode()).decode('ascii', 'replace')))

    # ---------------- SIMD / inlining evidence
    import decode as DC
    sb = collections.Counter(); sa = collections.Counter()
    for f in funcs:
        sa[f.crate] += f.size
        if f.cnt[DC.C_SIMD]: sb[f.crate] += f.size
    P('\n# SIMD128: bytes in functions containing v128 ops: %d of %d; by crate: ' % (sum(sb.values()), total)
      + ', '.join('%s %d/%d' % (c, sb[c], sa[c]) for c, _ in sb.most_common(8)))
    P('  functions > 20 KB: %d, %d bytes; > 5 KB: %d, %d bytes' % (
        sum(1 for f in funcs if f.size > 20480), sum(f.size for f in funcs if f.size > 20480),
        sum(1 for f in funcs if f.size > 5120), sum(f.size for f in funcs if f.size > 5120)))

    if args.no_scenarios: return
    # ---------------- reachability scenarios
    import model as MD
    P('\n# REACHABILITY SCENARIOS: bytes that become unreachable (call graph + vtables + fn-pointer consts).')
    P('  tight = data->data pointers only followed from small pointer-bearing objects (primary estimate);')
    P('  loose = also through big unicode/regex tables (spurious edges -> lower bound). gz = gzip-9 of live code bodies.')
    for tight in (True, False):
        mm = m if tight else MD.Module(args.wasm, tight=False)
        run_scenarios(mm, args, tight, P)


def run_scenarios(m, args, tight, P):
    d = m.d; funcs = m.funcs
    reg = op_registry(m)
    needed = set(args.needed.split(','))
    if tight:
        P('  onnx registry: %d op names, %d builder fns; needed ops missing from registry: %s'
          % (len(reg), len({b for _, b, _ in reg}), sorted(needed - {n for n, _, _ in reg}) or 'none'))
    P('  [%s model] unmodelled fns kept as extra roots: %d fns %d bytes'
      % ('tight' if tight else 'loose', len(m.extra_roots), sum(m.byidx[i].size for i in m.extra_roots)))
    base_f, base_c = m.reach()
    base_code, base_data = m.bytes_of(base_f, base_c)
    base_gz = gz(b''.join(d[f.bstart:f.bstart + f.bsize] for f in funcs if f.idx in base_f))

    def builders_for(keep):
        keepb = {b for n, b, _ in reg if n in keep}
        return {b for n, b, _ in reg if b not in keepb}

    def ctors(rx):
        return {f.idx for f in funcs if f.name.endswith('__ctor') and re.match(rx, f.name)}
    ops = builders_for(needed); ops2 = builders_for(needed | set(NEEDED_EXTRA.split(',')))
    nnef = ctors(r'tract_nnef::')
    more = ctors(r'tract_core::ops::cnn|tract_core::(transform|batchify|lanes|runtime)::')
    mmm = ctors(r'tract_linalg::generic::mmm')
    tok = {f.idx for f in funcs if f.crate == 'tokenizers'}
    scen = [('A  onnx registry = needed ops only', ops),
            ('A2 same, tolerant op list (+%d ops)' % len(NEEDED_EXTRA.split(',')), ops2),
            ('B  drop tract_nnef "patch" transform ctor', nnef),
            ('A+B', ops | nnef),
            ('A2+B', ops2 | nnef),
            ('A+B + core cnn/transform ctors', ops | nnef | more),
            ('A+B + ... + linalg generic mmm ctors', ops | nnef | more | mmm),
            ('T  tokenizers crate removed (upper bound)', tok),
            ('A+B+T', ops | nnef | tok)]
    if not tight: scen = [s for s in scen if s[0] in ('A  onnx registry = needed ops only', 'B  drop tract_nnef "patch" transform ctor', 'A+B', 'A+B+T')]
    for lab, rem in scen:
        rf, rc = m.reach(frozenset(rem))
        cb, db = m.bytes_of(rf, rc)
        g = gz(b''.join(d[f.bstart:f.bstart + f.bsize] for f in funcs if f.idx in rf))
        dead = collections.Counter()
        for f in funcs:
            if f.idx in base_f and f.idx not in rf: dead[f.crate] += f.size
        P('  %-40s code -%8d (%4.1f%%) data -%7d  code-gz -%7d (%4.1f%%)'
          % (lab, base_code - cb, 100 * (base_code - cb) / base_code, base_data - db, base_gz - g, 100 * (base_gz - g) / base_gz))
        P('      dead: ' + ', '.join('%s %d' % kv for kv in dead.most_common(7)))
    if tight:
        P('  registered op names: ' + ' '.join(sorted({n for n, _, _ in reg})))


def why(m, args):
    from collections import deque
    rem = set()
    if args.scenario == 'AB':
        reg = op_registry(m); needed = set(args.needed.split(','))
        keepb = {b for n, b, _ in reg if n in needed}
        rem = {b for n, b, _ in reg if b not in keepb} | {f.idx for f in m.funcs if f.name.startswith('tract_nnef::') and f.name.endswith('__ctor')}
    for pat in args.why:
        par = {('f', r): None for r in m.roots(strict=True) if r not in rem}
        q = deque(par); hit = None
        while q and not hit:
            node = q.popleft(); k, x = node
            if k == 'f':
                f = m.byidx.get(x)
                if f is None: continue
                if re.search(pat, f.name): hit = node; break
                nxt = [('f', c) for c in f.calls] + [('f', m.table[v]) for v in f.tconsts if m.table[v] not in m.in_vtable] \
                    + [('c', m.chunk_of(a)) for a in f.drefs]
            else:
                nxt = [('c', c) for c in m.chunk_out.get(x, ())] + [('f', c) for c in m.chunk_tab.get(x, ())]
            for n in nxt:
                if n[0] == 'f' and n[1] in rem: continue
                if n not in par: par[n] = node; q.append(n)
        print('== why', pat, '' if hit else '-> unreachable')
        path = []
        while hit: path.append(hit); hit = par[hit]
        for k, x in reversed(path):
            if k == 'f': print('   fn  ', ('[unmodelled root] ' if x in m.extra_roots else '') + m.fname(x)[:160])
            else: print('   data', hex(m.bounds[x]), m.chunk_end[x] - m.bounds[x], 'bytes', '(vtable)' if x in m.vtables else '')


if __name__ == '__main__':
    main()
