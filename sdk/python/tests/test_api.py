"""The Python SDK's public names, pinned as the Go SDK's are (sdk/api_test.go).

Every public name of the regretbench module (dir() without the _ names and
the submodules, which dir() lists once something imported them) is listed
in sdk/python/api.txt with its kind, so that a name added to, or dropped
from, what plugin authors import is a reviewed change of that file.
REGRETBENCH_UPDATE_API=1 rewrites it.
"""

import inspect
import os
import types
import unittest

import helpers
import regretbench as rb

API = os.path.join(helpers.PKG, "api.txt")


def kind(v):
    if inspect.isclass(v):
        return "class"
    if callable(v):
        return "func"
    return "const"


def public():
    """The module's public names as api.txt lists them: "kind name", sorted."""
    return sorted("%s %s" % (kind(getattr(rb, n)), n) for n in dir(rb)
                  if not n.startswith("_") and not isinstance(getattr(rb, n), types.ModuleType))


class TestAPI(unittest.TestCase):
    def test_public_names(self):
        got = "\n".join(public()) + "\n"
        if os.environ.get("REGRETBENCH_UPDATE_API"):
            with open(API, "w") as f:
                f.write(got)
        with open(API) as f:
            want = f.read()
        self.assertEqual(got, want, "regretbench's public names differ from %s "
                         "(REGRETBENCH_UPDATE_API=1 to accept)" % API)

    def test_all(self):
        # __all__ (what `from regretbench import *` gives) is every public
        # name.
        names = {line.split()[1] for line in public()}
        self.assertEqual(set(rb.__all__), names)

    def test_no_param_rules(self):
        # The rules that check values are the SDK's, not a policy's.
        for n in ("coerce", "resolve", "validate_params"):
            self.assertFalse(hasattr(rb, n), n)


if __name__ == "__main__":
    unittest.main()
