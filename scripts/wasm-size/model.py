import bisect, collections, re
import wasmparse as W, demangle as DM, attrib as AT, decode as DC

class Func:
    __slots__ = ('idx', 'raw', 'name', 'crate', 'mods', 'kind', 'size', 'bstart', 'bsize', 'calls', 'drefs', 'cnt', 'tconsts')

class Module:
    def __init__(self, path, tight=True):
        self.tight = tight
        d = self.d = open(path, 'rb').read()
        self.secs = W.parse(d)
        sec = lambda i: next((s for s in self.secs if s['id'] == i), None)
        self.nimp = W.imports_count(d, sec(2)) if sec(2) else 0
        nsec = next((s for s in self.secs if s['custom'] == 'name'), None)
        names = W.func_names(d, nsec) if nsec else {}
        # data
        self.segs = W.data_segments(d, sec(11)) if sec(11) else []
        act = [s for s in self.segs if s['offset'] is not None]
        self.data_lo = min(s['offset'] for s in act); self.data_hi = max(s['offset'] + s['size'] for s in act)
        img = bytearray(self.data_hi - self.data_lo)
        for s in act:
            o = s['offset'] - self.data_lo; img[o:o + s['size']] = d[s['start']:s['start'] + s['size']]
        self.img = bytes(img)
        # functions
        self.funcs = []
        self.table, _ = W.elements(d, sec(9)) if sec(9) else ({}, set())
        tmax = max(self.table) if self.table else 0
        for k, (e, tot, bs, sz) in enumerate(W.code_bodies(d, sec(10))):
            f = Func(); f.idx = self.nimp + k
            f.raw = names.get(f.idx, 'func[%d]' % f.idx); f.name = DM.demangle(f.raw)
            f.crate, f.mods, f.kind = AT.owner(f.name)
            f.size = tot; f.bstart = bs; f.bsize = sz
            f.tconsts = set()
            f.calls, f.drefs, f.cnt = DC.scan(d, bs, sz, self.data_lo, self.data_hi, None, tmax, f.tconsts)
            self.funcs.append(f)
        self.byidx = {f.idx: f for f in self.funcs}
        self.imp_names = {i: names.get(i, '') for i in range(self.nimp)}
        self.exports = W.exports(d, sec(7)) if sec(7) else []
        self.start = None
        s8 = sec(8)
        if s8: self.start, _ = W.uleb(d, s8['start'])
        self._build_data_graph()
        # functions the model cannot reach (fn pointers stored in ways not modelled) become extra roots
        self.extra_roots = set()
        rf, _ = self.reach()
        self.extra_roots = set(f.idx for f in self.funcs if f.idx not in rf)

    def fname(self, idx):
        f = self.byidx.get(idx)
        return f.name if f else DM.demangle(self.imp_names.get(idx, ''))

    def word(self, addr):
        o = addr - self.data_lo
        return int.from_bytes(self.img[o:o + 4], 'little')

    def _build_data_graph(self):
        lo, hi = self.data_lo, self.data_hi
        refs = set()
        for f in self.funcs: refs.update(f.drefs)
        code_refs = set(refs)
        dptr = {}   # aligned word addr -> target
        img = self.img
        for o in range(0, len(img) - 3, 4):
            v = int.from_bytes(img[o:o + 4], 'little')
            if lo <= v < hi:
                dptr[lo + o] = v
                if v % 4 == 0: refs.add(v)   # unaligned targets are byte strings: no boundary
        for s in self.segs:
            if s['offset'] is not None: refs.add(s['offset'])
        self.bounds = sorted(refs)
        self.code_refs = code_refs
        self.dptr = dptr
        nb = len(self.bounds)
        self.chunk_end = [self.bounds[i + 1] if i + 1 < nb else hi for i in range(nb)]
        # vtables
        tmax = max(self.table) if self.table else 0
        self.vtables = {}   # chunk id -> list of func idx
        for ci, a in enumerate(self.bounds):
            e = self.chunk_end[ci]
            if a % 4 or e - a < 16: continue
            w0, w1, w2 = self.word(a), self.word(a + 4), self.word(a + 8)
            if w2 not in (1, 2, 4, 8, 16, 32, 64, 128) or w1 % w2: continue
            if w0 != 0:
                f = self.table.get(w0)
                if f is None or 'drop_in_place' not in self.fname(f): continue
            fs = [self.table[w0]] if w0 else []
            p = a + 12; ok = 0
            while p + 4 <= e:
                w = self.word(p)
                if w in self.table: fs.append(self.table[w]); ok += 1
                elif w != 0 and not (lo <= w < hi): break
                p += 4
            if ok == 0: continue
            self.vtables[ci] = fs
        # classify chunks: 'sorted' lookup tables (unicode ranges etc.) carry no pointers
        self.chunk_sorted = set()
        for ci, a in enumerate(self.bounds):
            e = self.chunk_end[ci]
            if e - a < 64: continue
            p0 = (a + 3) & ~3
            ws = [self.word(p) for p in range(p0, e - 3, 4)]
            inc = sum(1 for x, y in zip(ws, ws[1:]) if y >= x)
            if inc >= 0.8 * (len(ws) - 1): self.chunk_sorted.add(ci)
        # chunk -> chunk edges
        self.chunk_out = collections.defaultdict(set)
        nptr = collections.Counter(self.chunk_of(a) for a in dptr)
        def ptrful(ci):
            if ci in self.vtables: return True
            if ci in self.chunk_sorted: return False
            sz = self.chunk_end[ci] - self.bounds[ci]
            if self.tight: return sz <= 256 or (sz <= 1024 and nptr[ci] * 4 >= 0.25 * sz)
            return sz <= 256 or nptr[ci] * 4 >= 0.25 * sz
        self.chunk_ptrful = ptrful
        for a, v in dptr.items():
            ca = self.chunk_of(a)
            if not ptrful(ca): continue
            self.chunk_out[ca].add(self.chunk_of(v))
        notfn = set()
        for a, v in dptr.items():
            L = self.word(a + 4) if a + 8 <= hi else 0
            if 0 < L < 65536 and v + L <= hi:
                bs = img[v - lo:v - lo + L]
                try: txt = bs.decode('utf-8')
                except UnicodeDecodeError: continue
                if sum(1 for ch in txt if ch.isprintable() or ch in '\n\t') >= 0.9 * len(txt):
                    notfn.add(a + 4)
                    if txt.endswith('.rs'): notfn.add(a + 8); notfn.add(a + 12)
        # every 4-aligned data word that is a valid table index -> potential fn-pointer edge (strict model)
        self.chunk_tab = collections.defaultdict(set)
        for o in range(0, len(img) - 3, 4):
            v = int.from_bytes(img[o:o + 4], 'little')
            if v in self.table:
                ci = self.chunk_of(lo + o)
                if ci in self.vtables: pass
                elif self.chunk_end[ci] - self.bounds[ci] > 1024 or not ptrful(ci): continue
                # lengths of &str (ptr,len) and line/col of panic Locations are not fn ptrs
                elif (lo + o) in notfn: continue
                if True:
                    self.chunk_tab[ci].add(self.table[v])
        self.in_vtable = set()
        for fs in self.vtables.values(): self.in_vtable.update(fs)

    def chunk_of(self, addr):
        return bisect.bisect_right(self.bounds, addr) - 1

    def roots(self, table_funcs_in_vtables_are_roots=False, strict=False):
        r = set(i for (_, k, i) in self.exports if k == 0)
        if self.start is not None: r.add(self.start)
        if strict: return r | self.extra_roots
        for f in self.table.values():
            if table_funcs_in_vtables_are_roots or f not in self.in_vtable: r.add(f)
        return r

    def reach(self, removed=frozenset(), vt_roots=False, strict='hybrid'):
        """returns (set of reachable funcs, set of reachable chunks).
        strict=True: roots are exports only; table functions are reached through any i32.const / data word equal
        to their table index (over-approximation of fn-pointer uses, so savings are conservative).
        strict='hybrid' (default): like True, but i32.const in code only reaches table functions that are not
        members of a detected Rust vtable (vtable members are reached via the vtable's data address).
        strict=False: every table function not found in a detected vtable is a root."""
        seenf = set(); seenc = set(); table = self.table
        stack = [('f', x) for x in self.roots(vt_roots, strict) if x not in removed]
        while stack:
            k, x = stack.pop()
            if k == 'f':
                if x in seenf or x in removed: continue
                seenf.add(x)
                f = self.byidx.get(x)
                if not f: continue
                for c in f.calls:
                    if c not in seenf and c not in removed: stack.append(('f', c))
                if strict:
                    for v in f.tconsts:
                        c = table[v]
                        if strict == 'hybrid' and c in self.in_vtable: continue
                        if c not in seenf and c not in removed: stack.append(('f', c))
                for a in f.drefs:
                    c = self.chunk_of(a)
                    if c not in seenc: stack.append(('c', c))
            else:
                if x in seenc: continue
                seenc.add(x)
                for c in self.chunk_out.get(x, ()):
                    if c not in seenc: stack.append(('c', c))
                for fi in (self.chunk_tab.get(x, ()) if strict else self.vtables.get(x, ())):
                    if fi not in seenf and fi not in removed: stack.append(('f', fi))
        return seenf, seenc

    def bytes_of(self, fset, cset):
        cb = sum(self.byidx[i].size for i in fset if i in self.byidx)
        db = sum(self.chunk_end[c] - self.bounds[c] for c in cset)
        return cb, db
