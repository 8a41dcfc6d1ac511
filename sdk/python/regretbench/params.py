"""Policy parameters: declarations, coercion and checks, as internal/params.

The rules are the Go SDK's, so that bench, the Go SDK and this package
agree on every value: integral floats are accepted as ints and ints as
floats, nothing else is converted; bounds apply to float and int
parameters; a float must be finite. Both are checked against the same
vectors, sdk/testdata/params/vectors.json.
"""

import json
import math
from dataclasses import dataclass, field
from typing import Any, List, Optional

FLOAT, INT, BOOL, STRING = "float", "int", "bool", "string"
TYPES = (FLOAT, INT, BOOL, STRING)


class ParamError(ValueError):
    """A parameter value or declaration that cannot be used."""


@dataclass(frozen=True)
class Bound:
    """One end of a parameter's range; exclusive excludes value itself."""
    value: float
    exclusive: bool = False


def inclusive(v):
    """A bound that admits v: min=inclusive(2) is '>= 2'."""
    return Bound(float(v), False)


def exclusive(v):
    """A bound that excludes v: min=exclusive(0) is '> 0'."""
    return Bound(float(v), True)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _typename(v):
    return {bool: "bool", int: "int", float: "float", str: "string"}.get(type(v), type(v).__name__)


def coerce(typ, v):
    """v converted to the Python type of typ (float, int, bool or str).

    As Go's params.Coerce: an int is accepted as a float, an integral
    float below 2^53 as an int; anything else of the wrong type is a
    ParamError saying what is wanted and what was given.
    """
    if typ == FLOAT:
        if isinstance(v, float):
            return v
        if _is_int(v):
            return float(v)
    elif typ == INT:
        if _is_int(v):
            if not -(1 << 63) <= v < (1 << 63):
                raise ParamError("want int, got int %d: out of the int64 range" % v)
            return v
        if isinstance(v, float) and math.isfinite(v) and v == math.trunc(v) and abs(v) < 2.0 ** 53:
            return int(v)
    elif typ == BOOL:
        if isinstance(v, bool):
            return v
    elif typ == STRING:
        if isinstance(v, str):
            return v
    else:
        raise ParamError("unknown parameter type %r" % (typ,))
    return _fail(typ, v)


def _fail(typ, v):
    raise ParamError("want %s, got %s %r" % (typ, _typename(v), v))


def _fmt(x):
    """A number as Go's fmt %v prints it: 2, 0.5, 123456, 1e+06, 1e-05.

    An int as is; a float in its shortest round-trip digits, with an
    exponent (at least two digits) when it is below -4 or at least 6,
    as strconv.FormatFloat(x, 'g', -1, 64).
    """
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, int):
        return "%d" % x
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0:
        return sign + "0"
    # repr is the shortest string that reads back as x: its digits and
    # exponent are Go's shortest too.
    mant, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + (int(exp) if exp else 0)  # digits before the point, of whole+frac
    point -= len(whole + frac) - len((whole + frac).lstrip("0"))
    digits = digits.rstrip("0")
    e = point - 1
    if e < -4 or e >= 6:
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return "%s%se%s%02d" % (sign, m, "-" if e < 0 else "+", abs(e))
    if point <= 0:
        return sign + "0." + "0" * -point + digits
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return sign + digits[:point] + "." + digits[point:]


def _quote(s):
    """A string as Go's strconv.Quote writes it, for the printable ones
    parameters take: in double quotes, with " and \\ escaped."""
    return json.dumps(s, ensure_ascii=False)


def _compare(v, b):
    """-1, 0 or +1: v (float or int) against bound b, ints exactly."""
    if isinstance(v, float):
        return (v > b) - (v < b)
    if _is_int(v):
        # Python compares ints with floats exactly, also beyond 2^53.
        return (v > b) - (v < b)
    return 0


@dataclass
class Param:
    """A declared policy parameter (sdk.Param in Go).

    name is lower_snake_case; typ one of "float", "int", "bool", "string";
    default of that type; min and max Bounds for numbers (see inclusive and
    exclusive); allowed, when not empty, the only values accepted. bench
    checks a scenario's values against the declaration before it opens any
    session, and the SDK checks them again at Open.
    """
    name: str
    typ: str
    default: Any
    doc: str = ""
    min: Optional[Bound] = None
    max: Optional[Bound] = None
    allowed: List[Any] = field(default_factory=list)

    def range(self):
        """The accepted values as bench prints them: '>= 2', 'in (0, 1]'."""
        parts = []
        lo, hi = self.min, self.max
        if lo is not None and hi is not None:
            parts.append("in %s%s, %s%s" % ("(" if lo.exclusive else "[", _fmt(lo.value),
                                           _fmt(hi.value), ")" if hi.exclusive else "]"))
        elif lo is not None:
            parts.append(("> " if lo.exclusive else ">= ") + _fmt(lo.value))
        elif hi is not None:
            parts.append(("< " if hi.exclusive else "<= ") + _fmt(hi.value))
        if self.allowed:
            vals = [_quote(a) if isinstance(a, str) else
                    ("true" if a is True else "false" if a is False else _fmt(a)) for a in self.allowed]
            parts.append("one of " + ", ".join(vals))
        return " and ".join(parts)

    def check(self, v):
        """Raises ParamError unless v (already coerced) is accepted."""
        if isinstance(v, float) and not math.isfinite(v):
            raise ParamError("want a finite value")
        out = False
        if self.min is not None:
            c = _compare(v, self.min.value)
            out = out or c < 0 or (c == 0 and self.min.exclusive)
        if self.max is not None:
            c = _compare(v, self.max.value)
            out = out or c > 0 or (c == 0 and self.max.exclusive)
        if self.allowed:
            ok = False
            for a in self.allowed:
                try:
                    if coerce(self.typ, a) == v:
                        ok = True
                        break
                except ParamError:
                    pass
            out = out or not ok
        if out:
            raise ParamError("want " + self.range())

    def validate(self):
        """Raises ParamError if the declaration itself cannot be used."""
        if not self.name:
            raise ParamError("parameter with an empty name")
        if self.typ not in TYPES:
            raise ParamError("parameter %r: unknown type %r (want float, int, bool or string)"
                             % (self.name, self.typ))
        if self.min is not None or self.max is not None:
            if self.typ not in (FLOAT, INT):
                raise ParamError("parameter %r: a %s parameter cannot have a min or max" % (self.name, self.typ))
            for b in (self.min, self.max):
                if b is not None and not math.isfinite(b.value):
                    raise ParamError("parameter %r: bound %r: want a finite number" % (self.name, b.value))
            lo, hi = self.min, self.max
            if lo is not None and hi is not None and (
                    lo.value > hi.value or (lo.value == hi.value and (lo.exclusive or hi.exclusive))):
                raise ParamError("parameter %r: empty range %s" % (self.name, Param("", FLOAT, 0.0, min=lo, max=hi).range()))
        for a in self.allowed:
            try:
                v = coerce(self.typ, a)
                Param("", self.typ, a, min=self.min, max=self.max).check(v)
            except ParamError as e:
                raise ParamError("parameter %r: allowed value %r: %s" % (self.name, a, e)) from None
        try:
            v = coerce(self.typ, self.default)
        except ParamError as e:
            raise ParamError("parameter %r: default: %s" % (self.name, e)) from None
        try:
            self.check(v)
        except ParamError as e:
            raise ParamError("parameter %r: default %r: %s" % (self.name, v, e)) from None


def validate_params(decl):
    """Checks every declaration and that names are unique."""
    seen = set()
    for d in decl:
        d.validate()
        if d.name in seen:
            raise ParamError("duplicate parameter %r" % d.name)
        seen.add(d.name)


def resolve(decl, values):
    """A complete dict of parameters: every declared name, defaults filled in.

    values maps names to values as received (from the wire or a test). An
    unknown name, a value of the wrong type or one the parameter does not
    accept is a ParamError naming the parameter, the value and what is
    wanted; every bad value is reported at once, in name order.
    """
    by_name = {d.name: d for d in decl}
    out = {}
    for d in decl:
        try:
            out[d.name] = coerce(d.typ, d.default)
        except ParamError as e:
            raise ParamError("parameter %r: default: %s" % (d.name, e)) from None
    errs = []
    for k in sorted(values):
        d = by_name.get(k)
        if d is None:
            errs.append("unknown parameter %r (known: %s)" % (k, [d.name for d in decl]))
            continue
        try:
            v = coerce(d.typ, values[k])
        except ParamError as e:
            errs.append("parameter %r: %s" % (k, e))
            continue
        try:
            d.check(v)
        except ParamError as e:
            errs.append("parameter %r = %r: %s" % (k, values[k], e))
            continue
        out[k] = v
    if errs:
        raise ParamError("; ".join(errs))
    return out
