import filecmp
import os
import sys
import tempfile
import unittest

import helpers

sys.path.insert(0, helpers.PKG)
import gen_stubs  # noqa: E402


class StubsTest(unittest.TestCase):
    def test_committed_stubs_are_current(self):
        lack = gen_stubs.missing_tools()
        if lack:
            self.skipTest("cannot regenerate the stubs to compare: missing " + lack)
        with tempfile.TemporaryDirectory() as tmp:
            gen_stubs.generate(tmp)
            made = sorted(f for f in os.listdir(tmp) if f.endswith(".py"))
            committed = sorted(f for f in os.listdir(gen_stubs.OUT) if f.endswith(".py") and f != "__init__.py")
            self.assertEqual(made, committed)
            _, mismatch, errors = filecmp.cmpfiles(tmp, gen_stubs.OUT, made, shallow=False)
            self.assertEqual(mismatch + errors, [],
                             "stubs out of date with sdk/proto: run `make python-stubs` and commit %s" % gen_stubs.OUT)


if __name__ == "__main__":
    unittest.main()
