"""Minimal Rust symbol demangler (legacy _ZN..E and v0 _R...). Standard library only."""
import re

_LEG_ESC = {'$SP$': '@', '$BP$': '*', '$RF$': '&', '$LT$': '<', '$GT$': '>', '$LP$': '(', '$RP$': ')', '$C$': ','}

def _leg_ident(s):
    if s.startswith('_$'):
        s = s[1:]
    out = []; i = 0
    while i < len(s):
        if s[i] == '$':
            j = s.find('$', i + 1)
            if j < 0: out.append(s[i:]); break
            tok = s[i:j + 1]
            if tok in _LEG_ESC: out.append(_LEG_ESC[tok])
            elif tok.startswith('$u'):
                try: out.append(chr(int(tok[2:-1], 16)))
                except ValueError: out.append(tok)
            else: out.append(tok)
            i = j + 1
        elif s.startswith('..', i):
            out.append('::'); i += 2
        else:
            out.append(s[i]); i += 1
    return ''.join(out)

def demangle_legacy(sym):
    s = sym
    if s.startswith('__ZN'): s = s[1:]
    if not s.startswith('_ZN'): return None
    i = 3; parts = []
    while i < len(s) and s[i] != 'E':
        m = re.match(r'\d+', s[i:])
        if not m: return None
        n = int(m.group()); i += len(m.group())
        parts.append(s[i:i + n]); i += n
    if parts and re.fullmatch(r'h[0-9a-f]{16}', parts[-1]): parts = parts[:-1]
    return '::'.join(_leg_ident(p) for p in parts)

BASIC = dict(a='i8', b='bool', c='char', d='f64', e='str', f='f32', h='u8', i='isize', j='usize',
             l='i32', m='u32', n='i128', o='u128', s='i16', t='u16', u='()', v='...', x='i64', y='u64',
             z='!', p='_')

class _V0:
    def __init__(self, s):
        self.s = s; self.i = 0; self.depth = 0
    def peek(self): return self.s[self.i] if self.i < len(self.s) else ''
    def next(self):
        c = self.s[self.i]; self.i += 1; return c
    def eat(self, c):
        if self.peek() == c: self.i += 1; return True
        return False
    def b62(self):
        if self.eat('_'): return 0
        x = 0
        while True:
            c = self.next()
            if c == '_': return x + 1
            if c.isdigit(): v = ord(c) - 48
            elif c.islower(): v = ord(c) - 97 + 10
            elif c.isupper(): v = ord(c) - 65 + 36
            else: raise ValueError('b62')
            x = x * 62 + v
    def disamb(self):
        if self.eat('s'): return self.b62() + 1
        return 0
    def dec(self):
        m = re.match(r'\d+', self.s[self.i:])
        if not m: raise ValueError('dec')
        self.i += len(m.group()); return int(m.group())
    def ident(self):
        self.disamb()
        return self.uident()
    def uident(self):
        puny = self.eat('u')
        n = self.dec(); self.eat('_')
        r = self.s[self.i:self.i + n]; self.i += n
        if puny:
            try:
                if '_' in r:
                    a, b = r.rsplit('_', 1); r = (a + '-' + b).encode().decode('punycode')
                else: r = r.encode().decode('punycode')
            except Exception: pass
        return r
    def backref(self, fn):
        pos = self.b62()
        if pos >= self.i: raise ValueError('backref')
        save = self.i; self.i = pos
        self.depth += 1
        if self.depth > 200: raise ValueError('deep')
        r = fn(); self.depth -= 1
        self.i = save; return r
    def path(self):
        c = self.next()
        if c == 'C':
            return self.ident()
        if c == 'M':
            self.disamb(); self.path(); t = self.type_()
            return '<' + t + '>'
        if c == 'X':
            self.disamb(); self.path(); t = self.type_(); tr = self.path()
            return '<' + t + ' as ' + tr + '>'
        if c == 'Y':
            t = self.type_(); tr = self.path()
            return '<' + t + ' as ' + tr + '>'
        if c == 'N':
            ns = self.next(); p = self.path(); idt = self.ident()
            if ns.isupper():
                nm = {'C': 'closure', 'S': 'shim'}.get(ns, ns)
                return p + '::{' + nm + (':' + idt if idt else '') + '}'
            return p + '::' + idt if idt else p
        if c == 'I':
            p = self.path(); args = []
            while not self.eat('E'): args.append(self.garg())
            args = [a for a in args if a is not None]
            return p + ('<' + ', '.join(args) + '>' if args else '')
        if c == 'B':
            return self.backref(self.path)
        raise ValueError('path ' + c)
    def garg(self):
        if self.eat('L'): self.b62(); return None
        if self.eat('K'): return self.const()
        return self.type_()
    def const(self):
        if self.eat('B'): return self.backref(self.const)
        if self.eat('p'): return '_'
        c = self.peek()
        if c in 'hmyjtoalsxnib c' and c != ' ':
            self.next(); neg = self.eat('n'); h = ''
            while not self.eat('_'): h += self.next()
            v = int(h, 16) if h else 0
            if c == 'b': return 'true' if v else 'false'
            if c == 'c': return repr(chr(v))
            return ('-' if neg else '') + str(v)
        if c == 'e':
            self.next(); h = ''
            while not self.eat('_'): h += self.next()
            try: return '"' + bytes.fromhex(h).decode() + '"'
            except Exception: return '"?"'
        if c in 'RQ':
            self.next(); return '&' + self.const()
        if c in 'AT':
            self.next(); xs = []
            while not self.eat('E'): xs.append(self.const())
            return ('[' if c == 'A' else '(') + ', '.join(xs) + (']' if c == 'A' else ')')
        if c == 'V':
            self.next(); p = self.path(); k = self.next()
            if k == 'U': return p
            xs = []
            while not self.eat('E'):
                if k == 'S': self.disamb(); self.uident()
                xs.append(self.const())
            return p + '{..}'
        raise ValueError('const ' + c)
    def type_(self):
        c = self.peek()
        if c in BASIC and c.islower():
            self.next(); return BASIC[c]
        if c in 'CMXYNI': return self.path()
        self.next()
        if c == 'B': return self.backref(self.type_)
        if c == 'A':
            t = self.type_(); n = self.const(); return '[' + t + '; ' + n + ']'
        if c == 'S': return '[' + self.type_() + ']'
        if c == 'T':
            xs = []
            while not self.eat('E'): xs.append(self.type_())
            return '(' + ', '.join(xs) + (',)' if len(xs) == 1 else ')')
        if c in 'RQ':
            if self.peek() == 'L': self.next(); self.b62()
            return ('&' if c == 'R' else '&mut ') + self.type_()
        if c in 'PO':
            return ('*const ' if c == 'P' else '*mut ') + self.type_()
        if c == 'F':
            if self.eat('G'): self.b62()
            self.eat('U')
            if self.eat('K'):
                if not self.eat('C'): self.uident()
            xs = []
            while not self.eat('E'): xs.append(self.type_())
            r = self.type_(); return 'fn(' + ', '.join(xs) + ') -> ' + r
        if c == 'D':
            if self.eat('G'): self.b62()
            xs = []
            while not self.eat('E'):
                p = self.path()
                while self.eat('p'): self.uident(); self.type_()
                xs.append(p)
            if self.eat('L'): self.b62()
            return 'dyn ' + ' + '.join(xs)
        if c == 'W':  # pattern types (rare)
            return self.type_()
        raise ValueError('type ' + c)

def demangle_v0(sym):
    s = sym
    if s.startswith('__R'): s = s[1:]
    if not s.startswith('_R'): return None
    body = s[2:]
    body = re.split(r'[.$]', body, 1)[0] if ('.' in body) else body
    p = _V0(body)
    if p.peek().isdigit(): p.dec()
    try:
        return p.path()
    except Exception:
        return None

def demangle(sym):
    base = sym
    if base.startswith('_ZN') or base.startswith('__ZN'):
        m = re.match(r'_?_ZN.*?E(?=$|\.)', base)
        r = demangle_legacy(m.group() if m else base)
        if r: return r
    if base.startswith('_R') or base.startswith('__R'):
        r = demangle_v0(base)
        if r: return r
    return sym
