"""Attribute a demangled Rust name to (crate, module path)."""
import re
STD = {'core', 'alloc', 'std', 'compiler_builtins', 'dlmalloc', 'rustc_demangle', 'panic_abort', 'panic_unwind',
       'std_detect', 'addr2line', 'gimli', 'miniz_oxide', 'object', 'adler2', 'memchr_std'}
PRIMS = {'i8', 'i16', 'i32', 'i64', 'i128', 'isize', 'u8', 'u16', 'u32', 'u64', 'u128', 'usize', 'f32', 'f64',
         'bool', 'char', 'str', '()', '!', '_'}

def split_top(s, sep='::'):
    """split at depth-0 separators, respecting <> () [] {} and '->'"""
    out = []; depth = 0; cur = 0; i = 0; n = len(s)
    while i < n:
        c = s[i]
        if c in '<([{': depth += 1
        elif c == '>' and i > 0 and s[i - 1] == '-': pass
        elif c in '>)]}': depth -= 1
        elif depth == 0 and s.startswith(sep, i):
            out.append(s[cur:i]); i += len(sep); cur = i; continue
        i += 1
    out.append(s[cur:])
    return out

def strip_generics(seg):
    j = seg.find('<')
    return seg if j <= 0 else seg[:j]

def type_path(t):
    """return list of path segments (generic args stripped) of a type string, or None"""
    t = t.strip()
    while True:
        for p in ('&mut ', '&', '*const ', '*mut ', 'dyn ', 'mut '):
            if t.startswith(p): t = t[len(p):].strip(); break
        else: break
    if t.startswith('[') or t.startswith('('):
        inner = t[1:-1]
        parts = split_top(inner, ';') if t.startswith('[') else split_top(inner, ',')
        for p in parts:
            r = type_path(p)
            if r: return r
        return None
    if t.startswith('<'):
        return qualified(t)[0]
    segs = [strip_generics(x) for x in split_top(t)]
    if len(segs) == 1 and (segs[0] in PRIMS or len(segs[0]) <= 2 or segs[0][:1].isupper()):
        return None
    return segs

def qualified(t):
    """'<A as B>::rest' -> (path segs of chosen owner, 'A'/'B' choice)"""
    segs = split_top(t)
    head = segs[0]
    if not (head.startswith('<') and head.endswith('>')):
        return type_path(head), 'A'
    inner = head[1:-1]
    ab = split_top(inner, ' as ')
    A = type_path(ab[0])
    B = type_path(ab[1]) if len(ab) > 1 else None
    ca = A[0] if A else None; cb = B[0] if B else None
    if A and ca not in STD: return A, 'A'
    if B and cb not in STD: return B, 'B'
    if A: return A, 'A'
    if B: return B, 'B'
    return None, None

def find_drop_arg(name):
    k = name.find('drop_in_place<')
    if k < 0: return None
    s = name[k + len('drop_in_place<'):]
    depth = 1; i = 0
    while i < len(s) and depth:
        c = s[i]
        if c == '<': depth += 1
        elif c == '>' and not (i > 0 and s[i - 1] == '-'): depth -= 1
        i += 1
    return s[:i - 1]

def owner(name):
    """returns (crate, modpath list, kind) kind in {'fn','impl','drop','other'}"""
    if not name or name[0] not in '<_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ':
        return ('?', [], 'other')
    segs = split_top(name)
    if len(segs) >= 3 and segs[0] == 'core' and segs[1] == 'ptr' and segs[2].startswith('drop_in_place'):
        arg = find_drop_arg(name)
        if arg:
            for m in re.finditer(r'(?:^|(?<=[<,\s&\[(*]))([A-Za-z_][A-Za-z0-9_]*)::', arg):
                if m.group(1) not in STD:
                    p = [strip_generics(x) for x in split_top(arg[m.start():])]
                    return (p[0], modpart(p), 'drop')
        p = type_path(arg) if arg else None
        if p: return (p[0], modpart(p), 'drop')
        return ('core', ['ptr'], 'drop')
    if name.startswith('<'):
        p, _ = qualified(name)
        if p: return (p[0], modpart(p), 'impl')
        return ('?', [], 'impl')
    if '::' not in name:
        if name.startswith(('__wbindgen', '__wbg', '__externref')) or re.search(r'_[0-9a-f]{16}$', name):
            return ('<wasm-bindgen glue>', [], 'other')
        return ('<unmangled>', [], 'other')
    segs = [strip_generics(x) for x in segs]
    # impl-block path inside: e.g. half::num_traits::<impl X for Y>::abs
    clean = []
    for x in segs:
        if x.startswith('<impl') or x.startswith('{{') or x.startswith('{'): break
        clean.append(x)
    return (clean[0] if clean else segs[0], modpart(clean[:-1] if len(clean) == len(segs) else clean), 'fn')

def modpart(p):
    """module segments after the crate: lowercase segments, stop at first Type-like segment"""
    out = []
    for x in p[1:]:
        if not x or x[0].isupper() or x.startswith('{') or x.startswith('<'): break
        out.append(x)
    return out
