import json
import math
import os
import unittest

import helpers
import regretbench as rb
from regretbench.params import ParamError, coerce, resolve, validate_params

VECTORS = os.path.join(helpers.ROOT, "sdk", "testdata", "params", "vectors.json")


def _value(v):
    """A value of the vectors: JSON's own, or {"float": "NaN" | "+Inf" | "-Inf"}."""
    if isinstance(v, dict):
        return float(v["float"])
    return v


def _param(d):
    bound = lambda b: None if b is None else rb.Bound(float(b["value"]), b.get("exclusive", False))  # noqa: E731
    return rb.Param(d["name"], d["type"], _value(d["default"]), min=bound(d.get("min")),
                    max=bound(d.get("max")), allowed=[_value(a) for a in d.get("allowed", [])])


def _same(got, want):
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want


class SharedVectorsTest(unittest.TestCase):
    """The vectors that the Go rules check too (internal/params/vectors_test.go):
    coerce's conversions and refusals, range's text byte for byte,
    validate_params's refusals, and resolve's parameters (values and types)
    or its errors, every bad value reported in name order."""

    @classmethod
    def setUpClass(cls):
        with open(VECTORS) as f:
            cls.v = json.load(f)

    def assert_error(self, fn, want):
        if want is None:
            fn()
            return
        with self.assertRaises(ParamError) as cm:
            fn()
        self.assertIn(want, str(cm.exception))

    def test_coerce(self):
        for c in self.v["coerce"]:
            with self.subTest(type=c["type"], value=c["value"]):
                if "error" in c:
                    self.assert_error(lambda: coerce(c["type"], _value(c["value"])), c["error"])
                else:
                    got = coerce(c["type"], _value(c["value"]))
                    self.assertTrue(_same(got, _value(c["want"])), "got %r, want %r" % (got, c["want"]))

    def test_range(self):
        for c in self.v["range"]:
            with self.subTest(want=c["want"]):
                p = _param(c["param"])
                p.validate()
                self.assertEqual(p.range(), c["want"])

    def test_validate(self):
        for c in self.v["validate"]:
            with self.subTest(c["name"]):
                self.assert_error(lambda: validate_params([_param(d) for d in c["decl"]]), c.get("error"))

    def test_resolve(self):
        decl = [_param(d) for d in self.v["resolve"]["decl"]]
        validate_params(decl)
        for c in self.v["resolve"]["cases"]:
            with self.subTest(c["name"]):
                values = {k: _value(v) for k, v in c["values"].items()}
                if "errors" not in c:
                    got = resolve(decl, values)
                    self.assertEqual(sorted(got), sorted(c["want"]))
                    for k, w in c["want"].items():
                        self.assertTrue(_same(got[k], _value(w)), "%s = %r, want %r" % (k, got[k], w))
                    continue
                with self.assertRaises(ParamError) as cm:
                    resolve(decl, values)
                parts = str(cm.exception).split("; ")
                self.assertEqual(len(parts), len(c["errors"]), str(cm.exception))
                for part, e in zip(parts, c["errors"]):
                    self.assertTrue("'%s'" % e["param"] in part or '"%s"' % e["param"] in part, part)
                    self.assertIn(e["want"], part)


class CoerceTest(unittest.TestCase):
    def test_table(self):
        # The rules of Go's params.Coerce: ints as floats, integral
        # floats below 2^53 as ints, nothing else converted.
        ok = [
            (rb.FLOAT, 1.5, 1.5), (rb.FLOAT, 2, 2.0), (rb.INT, 3, 3), (rb.INT, 4.0, 4),
            (rb.INT, -(2.0 ** 53) + 1, -(2 ** 53) + 1), (rb.BOOL, True, True), (rb.STRING, "x", "x"),
        ]
        for typ, v, want in ok:
            with self.subTest(typ=typ, v=v):
                got = coerce(typ, v)
                self.assertEqual(got, want)
                self.assertIs(type(got), type(want))
        bad = [(rb.FLOAT, True, "want float, got bool True"), (rb.FLOAT, "1", "want float, got string '1'"),
               (rb.INT, 1.5, "want int, got float 1.5"), (rb.INT, 2.0 ** 53, "want int"),
               (rb.INT, math.inf, "want int"), (rb.INT, True, "want int, got bool"),
               (rb.BOOL, 1, "want bool, got int 1"), (rb.STRING, 3, "want string, got int 3"),
               (rb.INT, 1 << 63, "int64 range"), ("complex", 1, "unknown parameter type")]
        for typ, v, want in bad:
            with self.subTest(typ=typ, v=v):
                with self.assertRaises(ParamError) as cm:
                    coerce(typ, v)
                self.assertIn(want, str(cm.exception))


class RangeTest(unittest.TestCase):
    def test_range_strings(self):
        # As Go's params.Range prints them.
        cases = [
            (dict(min=rb.inclusive(2)), ">= 2"), (dict(min=rb.exclusive(0)), "> 0"),
            (dict(max=rb.inclusive(1)), "<= 1"), (dict(max=rb.exclusive(1.5)), "< 1.5"),
            (dict(min=rb.exclusive(0), max=rb.inclusive(1)), "in (0, 1]"),
            (dict(allowed=[1, 2]), "one of 1, 2"),
        ]
        for kw, want in cases:
            self.assertEqual(rb.Param("p", rb.FLOAT, 1.0, **kw).range(), want)
        self.assertEqual(rb.Param("s", rb.STRING, "a", allowed=["a", "b"]).range(), 'one of "a", "b"')

    def test_check(self):
        p = rb.Param("p", rb.FLOAT, 0.5, min=rb.exclusive(0), max=rb.inclusive(1))
        for v in (0.5, 1.0, 1e-300):
            p.check(v)
        for v, want in ((0.0, "want in (0, 1]"), (1.0000001, "want in (0, 1]"), (math.nan, "finite"),
                        (math.inf, "finite")):
            with self.subTest(v=v):
                with self.assertRaises(ParamError) as cm:
                    p.check(v)
                self.assertIn(want, str(cm.exception))
        # Ints compare exactly with bounds, also beyond 2^53.
        big = rb.Param("n", rb.INT, 0, max=rb.inclusive(2.0 ** 60))
        big.check(2 ** 60)
        with self.assertRaises(ParamError):
            big.check(2 ** 60 + 1)
        allowed = rb.Param("k", rb.INT, 1, allowed=[1, 2.0])
        allowed.check(2)
        with self.assertRaises(ParamError):
            allowed.check(3)

    def test_validate(self):
        bad = [
            (rb.Param("", rb.FLOAT, 0.0), "empty name"),
            (rb.Param("p", "double", 0.0), "unknown type"),
            (rb.Param("p", rb.BOOL, True, min=rb.inclusive(0)), "cannot have a min or max"),
            (rb.Param("p", rb.FLOAT, 0.0, min=rb.inclusive(math.inf)), "finite"),
            (rb.Param("p", rb.FLOAT, 1.0, min=rb.inclusive(2), max=rb.inclusive(1)), "empty range"),
            (rb.Param("p", rb.FLOAT, 1.0, min=rb.exclusive(1), max=rb.inclusive(1)), "empty range"),
            (rb.Param("p", rb.FLOAT, "1"), "default"),
            (rb.Param("p", rb.FLOAT, 0.0, min=rb.exclusive(0)), "default 0.0: want > 0"),
            (rb.Param("p", rb.INT, 1, allowed=[1, 1.5]), "allowed value 1.5"),
        ]
        for p, want in bad:
            with self.subTest(p=p):
                with self.assertRaises(ParamError) as cm:
                    p.validate()
                self.assertIn(want, str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            rb.Plugin("x", "1", params=[rb.Param("a", rb.INT, 1), rb.Param("a", rb.INT, 2)], new=object).validate()
        self.assertIn("duplicate parameter 'a'", str(cm.exception))
        with self.assertRaises(ValueError):
            rb.Plugin("x", "1").validate()  # neither new nor new_batch


class ResolveTest(unittest.TestCase):
    decl = [rb.Param("c", rb.FLOAT, 0.0, min=rb.inclusive(0)), rb.Param("n", rb.INT, 3),
            rb.Param("mode", rb.STRING, "a", allowed=["a", "b"])]

    def test_defaults_and_coercion(self):
        self.assertEqual(resolve(self.decl, {}), {"c": 0.0, "n": 3, "mode": "a"})
        got = resolve(self.decl, {"c": 2, "n": 5.0})
        self.assertEqual(got, {"c": 2.0, "n": 5, "mode": "a"})
        self.assertIs(type(got["c"]), float)
        self.assertIs(type(got["n"]), int)

    def test_every_error_at_once(self):
        with self.assertRaises(ParamError) as cm:
            resolve(self.decl, {"c": -1.0, "n": 1.5, "zz": 1, "mode": "c"})
        msg = str(cm.exception)
        # In name order, each naming the parameter, the value and the want.
        self.assertEqual(msg, "parameter 'c' = -1.0: want >= 0; parameter 'mode' = 'c': want one of \"a\", \"b\"; "
                              "parameter 'n': want int, got float 1.5; unknown parameter 'zz' (known: ['c', 'n', 'mode'])")


if __name__ == "__main__":
    unittest.main()
