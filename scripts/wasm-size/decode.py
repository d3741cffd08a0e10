"""Wasm function-body scanner: direct calls, ref.func, i32.const values, opcode-class counters."""
from wasmparse import uleb, sleb

# immediate kinds for single-byte opcodes
K_NONE, K_BT, K_IDX, K_BRT, K_CALLI, K_SELT, K_MEM, K_MEM0, K_I32, K_I64, K_F32, K_F64, K_REFNULL = range(13)
KIND = [K_NONE] * 256
for op in (0x02, 0x03, 0x04): KIND[op] = K_BT
for op in (0x0c, 0x0d, 0x10, 0x12, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xd2): KIND[op] = K_IDX
KIND[0x0e] = K_BRT; KIND[0x11] = K_CALLI; KIND[0x13] = K_CALLI; KIND[0x1c] = K_SELT
for op in range(0x28, 0x3f): KIND[op] = K_MEM
KIND[0x3f] = K_MEM0; KIND[0x40] = K_MEM0
KIND[0x41] = K_I32; KIND[0x42] = K_I64; KIND[0x43] = K_F32; KIND[0x44] = K_F64; KIND[0xd0] = K_REFNULL

# counters
C_F32, C_F64, C_I64, C_M8, C_M16, C_SIMD, C_SIMD_F32, C_SIMD_I8, C_SIMD_I16, C_SIMD_F64, C_CALLI, C_F16K, C_N = range(13)
CLS = [-1] * 256
for op in list(range(0x5b, 0x61)) + list(range(0x8b, 0x99)) + [0x2a, 0x38, 0x43, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xbc, 0xbe]: CLS[op] = C_F32
for op in list(range(0x61, 0x67)) + list(range(0x99, 0xa7)) + [0x2b, 0x39, 0x44, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbd, 0xbf]: CLS[op] = C_F64
for op in list(range(0x50, 0x5b)) + list(range(0x79, 0x8b)): CLS[op] = C_I64
for op in (0x2c, 0x2d, 0x30, 0x31, 0x3a, 0x3c): CLS[op] = C_M8
for op in (0x2e, 0x2f, 0x32, 0x33, 0x3b, 0x3d): CLS[op] = C_M16
CLS[0x11] = C_CALLI; CLS[0x13] = C_CALLI

def simd_cls(sub):
    if 0x60 <= sub <= 0x7b or sub in (0x0e, 0x0f, 0x15, 0x16, 0x17, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x62, 0x63, 0x64, 0x65, 0x66): return C_SIMD_I8
    if 0x7c <= sub <= 0x9f or sub in (0x10, 0x18, 0x19, 0x1a): return C_SIMD_I16
    if 0xe0 <= sub <= 0xeb or sub in (0x13, 0x1f, 0x20, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0xf8, 0xf9, 0xfa, 0xfb, 0x5e, 0x67, 0x68, 0x69, 0x6a): return C_SIMD_F32
    if 0xec <= sub <= 0xf7 or sub in (0x14, 0x21, 0x22, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x5f, 0x94, 0x95, 0x74, 0x75, 0x7a, 0x7e, 0xfc, 0xfd, 0xfe, 0xff): return C_SIMD_F64
    return C_SIMD

# an i32.const followed by one of these is arithmetic / an address / a size, not a function pointer
NONPTR_NEXT = frozenset(list(range(0x45, 0xc5)) + list(range(0x28, 0x36)) + [0x3a, 0x3b, 0x04, 0x0d, 0x0e, 0x40, 0xfc, 0xfd, 0xfe])

SIMD_MEM = set(range(0, 12)) | {92, 93}
SIMD_LANE = set(range(21, 35))
SIMD_MEMLANE = set(range(84, 92))

def scan(d, start, size, data_lo, data_hi, allconsts=None, table_hi=0, tconsts=None):
    """returns (calls list, data-address consts list, counters list).
    data-address refs include i32.const values and load/store offsets inside [data_lo, data_hi).
    If allconsts is a list, every i32.const value is appended to it in order."""
    end = start + size
    i = start
    n, i = uleb(d, i)
    for _ in range(n):
        _, i = uleb(d, i)
        t = d[i]; i += 1
        if t in (0x63, 0x64): _, i = sleb(d, i)
    calls = []; consts = []; cnt = [0] * C_N
    kind = KIND; cls = CLS; pend = 0; nonptr = NONPTR_NEXT
    while i < end:
        op = d[i]; i += 1
        if pend:
            if op not in nonptr: tconsts.add(pend)
            pend = 0
        c = cls[op]
        if c >= 0: cnt[c] += 1
        k = kind[op]
        if k == K_NONE:
            if op == 0xfc:
                sub, i = uleb(d, i)
                if sub == 8: _, i = uleb(d, i); i += 1
                elif sub in (9, 13, 15, 16, 17): _, i = uleb(d, i)
                elif sub in (10, 12, 14): _, i = uleb(d, i); _, i = uleb(d, i)
                elif sub == 11: i += 1
            elif op == 0xfd:
                sub, i = uleb(d, i)
                cnt[C_SIMD] += 1
                sc = simd_cls(sub)
                if sc != C_SIMD: cnt[sc] += 1
                if sub in SIMD_MEM: _, i = uleb(d, i); _, i = uleb(d, i)
                elif sub == 12 or sub == 13: i += 16
                elif sub in SIMD_LANE: i += 1
                elif sub in SIMD_MEMLANE: _, i = uleb(d, i); _, i = uleb(d, i); i += 1
            elif op == 0xfe:
                sub, i = uleb(d, i)
                if sub == 3: i += 1
                else: _, i = uleb(d, i); _, i = uleb(d, i)
            continue
        if k == K_IDX:
            v, i = uleb(d, i)
            if op == 0x10 or op == 0x12 or op == 0xd2: calls.append(v)
        elif k == K_MEM:
            _, i = uleb(d, i); v, i = uleb(d, i)
            if v >= data_lo and v < data_hi: consts.append(v)
        elif k == K_I32:
            v, i = sleb(d, i)
            v &= 0xffffffff
            if data_lo <= v < data_hi: consts.append(v)
            if allconsts is not None: allconsts.append(v)
            if 0 < v <= table_hi: pend = v   # decided by the next opcode (fn-pointer-like use or not)
            if v == 0x7c00 or v == 0x3c00: cnt[C_F16K] += 1   # f16 exponent mask / 1.0f16
        elif k == K_BT:
            b = d[i]
            if b == 0x40 or b >= 0x6f: i += 1
            else: _, i = sleb(d, i)
        elif k == K_I64: _, i = sleb(d, i)
        elif k == K_F32: i += 4
        elif k == K_F64: i += 8
        elif k == K_BRT:
            m, i = uleb(d, i)
            for _ in range(m + 1): _, i = uleb(d, i)
        elif k == K_CALLI: _, i = uleb(d, i); _, i = uleb(d, i)
        elif k == K_MEM0: i += 1
        elif k == K_SELT:
            m, i = uleb(d, i); i += m
        elif k == K_REFNULL: i += 1
    if pend: tconsts.add(pend)
    if i != end: raise ValueError('decode overrun %d' % (i - end))
    return calls, consts, cnt
