import struct
def uleb(d, i):
    r = 0; s = 0
    while True:
        b = d[i]; i += 1
        r |= (b & 0x7f) << s; s += 7
        if b < 0x80: return r, i
def sleb(d, i):
    r = 0; s = 0
    while True:
        b = d[i]; i += 1
        r |= (b & 0x7f) << s; s += 7
        if b < 0x80:
            if b & 0x40: r -= 1 << s
            return r, i
def name(d, i):
    n, i = uleb(d, i); return d[i:i+n].decode('utf-8', 'replace'), i + n

def parse(d):
    assert d[:4] == b'\0asm'
    i = 8; secs = []
    while i < len(d):
        sid = d[i]; i += 1
        sz, j = uleb(d, i)
        hdr = j - i + 1
        cname = None
        if sid == 0:
            cname, _ = name(d, j)
        secs.append(dict(id=sid, start=j, size=sz, hdr=hdr, custom=cname))
        i = j + sz
    return secs

SECNAMES = {0:'custom',1:'type',2:'import',3:'function',4:'table',5:'memory',6:'global',7:'export',8:'start',9:'element',10:'code',11:'data',12:'datacount',13:'tag'}

def imports_count(d, s):
    i = s['start']; n, i = uleb(d, i); nf = 0
    for _ in range(n):
        _, i = name(d, i); _, i = name(d, i)
        k = d[i]; i += 1
        if k == 0: _, i = uleb(d, i); nf += 1
        elif k == 1:
            i += 1; fl, i = uleb(d, i); _, i = uleb(d, i)
            if fl & 1: _, i = uleb(d, i)
        elif k == 2:
            fl, i = uleb(d, i); _, i = uleb(d, i)
            if fl & 1: _, i = uleb(d, i)
        elif k == 3: i += 2
        elif k == 4: i += 1; _, i = uleb(d, i)
    return nf

def code_bodies(d, s):
    i = s['start']; n, i = uleb(d, i); out = []
    for _ in range(n):
        sz, j = uleb(d, i)
        out.append((i, j - i + sz, j, sz))  # entry start, total incl size prefix, body start, body size
        i = j + sz
    return out

def func_names(d, s):
    i = s['start']; end = s['start'] + s['size']
    _, i = name(d, i)
    names = {}
    while i < end:
        sub = d[i]; i += 1
        sz, i = uleb(d, i)
        if sub == 1:
            k = i; n, k = uleb(d, k)
            for _ in range(n):
                idx, k = uleb(d, k); nm, k = name(d, k); names[idx] = nm
        i += sz
    return names

def data_segments(d, s):
    i = s['start']; n, i = uleb(d, i); segs = []
    for _ in range(n):
        fl, i = uleb(d, i); off = None
        if fl == 2: _, i = uleb(d, i)
        if fl in (0, 2):
            op = d[i]; i += 1
            if op == 0x41: off, i = sleb(d, i)
            elif op == 0x42: off, i = sleb(d, i)
            elif op == 0x23: _, i = uleb(d, i)
            assert d[i] == 0x0b; i += 1
        sz, i = uleb(d, i)
        segs.append(dict(offset=off, size=sz, start=i, passive=(fl == 1)))
        i += sz
    return segs

def _const_expr(d, i):
    op = d[i]; i += 1; v = None
    if op in (0x41, 0x42): v, i = sleb(d, i)
    elif op == 0x23: _, i = uleb(d, i)
    elif op == 0xd2: v, i = uleb(d, i)
    elif op == 0xd0: i += 1
    while d[i] != 0x0b: i += 1   # tolerate extended const
    return v, i + 1

def elements(d, s):
    """returns dict table_index -> func index (table 0 active segments) and set of all referenced funcs"""
    i = s['start']; n, i = uleb(d, i); tab = {}; allf = set()
    for _ in range(n):
        fl, i = uleb(d, i); off = None
        if fl & 1 == 0:
            if fl & 2: _, i = uleb(d, i)
            off, i = _const_expr(d, i)
        if fl & 3:
            i += 1  # elemkind / reftype byte
        cnt, i = uleb(d, i); fs = []
        for _ in range(cnt):
            if fl & 4:
                v, i = _const_expr(d, i)
            else:
                v, i = uleb(d, i)
            fs.append(v)
        for k, f in enumerate(fs):
            if f is None: continue
            allf.add(f)
            if off is not None: tab[off + k] = f
    return tab, allf

def exports(d, s):
    i = s['start']; n, i = uleb(d, i); out = []
    for _ in range(n):
        nm, i = name(d, i); k = d[i]; i += 1; idx, i = uleb(d, i)
        out.append((nm, k, idx))
    return out
