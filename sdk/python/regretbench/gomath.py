"""Go's math.Log, bit for bit, for Python twins of Go policies.

Python's math.log is the C library's, which rounds differently from Go's
math.Log in about one case in three. This is Go's algorithm
(src/math/log.go, the same operations as log_amd64.s), from FreeBSD's
e_log.c; every operation is an IEEE double operation, as in Go.
"""

import math
import struct


def _f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


_LN2HI = _f64(0x3FE62E42FEE00000)
_LN2LO = _f64(0x3DEA39EF35793C76)
_L1 = _f64(0x3FE5555555555593)
_L2 = _f64(0x3FD999999997FA04)
_L3 = _f64(0x3FD2492494229359)
_L4 = _f64(0x3FCC71C51D8E78AF)
_L5 = _f64(0x3FC7466496CB03DE)
_L6 = _f64(0x3FC39A09D078C69F)
_L7 = _f64(0x3FC2F112DF3E5244)
_HSQRT2 = 7.07106781186547524401e-01  # sqrt(2)/2


def log(x):
    """Natural logarithm of x, rounded exactly as Go's math.Log."""
    if x != x or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    f1, ki = math.frexp(x)
    if f1 < _HSQRT2:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_L1 + s4 * (_L3 + s4 * (_L5 + s4 * _L7)))
    t2 = s4 * (_L2 + s4 * (_L4 + s4 * _L6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2HI - ((hfsq - (s * (hfsq + r) + k * _LN2LO)) - f)
