"""The deep hypothesis profile scales every test's time limit (tests/conftest.py's
`pytest_collection_modifyitems`): checked in a pytest of its own, run on probe tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from depth import DEEP, QUICK

pytest_plugins = ["pytester"]
# Each test starts a pytest that imports the server and hypothesis: a minute on a loaded machine.
pytestmark = pytest.mark.timeout(300)

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

# The probes print the time limit pytest-timeout will apply to them (None: none of their own).
PROBES = """
import pytest

def test_ini(request):
    marker = request.node.get_closest_marker("timeout")
    print("LIMIT ini", marker.args[0] if marker else None)

@pytest.mark.timeout(30)
def test_own(request):
    print("LIMIT own", request.node.get_closest_marker("timeout").args[0])
"""


def limits(result: pytest.RunResult) -> dict[str, str]:
    # -s prints them within pytest's progress line ("test_probes.py LIMIT ini 120.0", ".LIMIT own …")
    found = (m for line in result.outlines for m in re.finditer(r"LIMIT (\w+) (\S+)", line))
    return {m[1]: m[2] for m in found}


@pytest.fixture
def probes(pytester: pytest.Pytester) -> pytest.Pytester:
    # The probes' conftest takes the project's hook (and, with it, its hypothesis profiles).
    pytester.makeconftest(
        f"""
import importlib.util, sys
# As in the suite's own run (from the project's root): the project first, then the tests'
# helpers (depth, waiting); tests/server must not pass for the server package.
sys.path[:0] = [{str(CONFTEST.parent.parent)!r}]
sys.path.append({str(CONFTEST.parent)!r})
spec = importlib.util.spec_from_file_location("solrace_tests_conftest", {str(CONFTEST)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
pytest_collection_modifyitems = module.pytest_collection_modifyitems
"""
    )
    pytester.makeini("[pytest]\ntimeout = 120\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_probes=PROBES)
    return pytester


def test_the_default_profile_keeps_the_limits(probes: pytest.Pytester) -> None:
    result = probes.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert limits(result) == {"ini": "None", "own": "30"}


def test_the_deep_profile_scales_the_ini_limit_and_a_tests_own(probes: pytest.Pytester) -> None:
    result = probes.runpytest_subprocess("-s", "-p", "no:cacheprovider", "--hypothesis-profile=deep")
    result.assert_outcomes(passed=2)
    scale = DEEP // QUICK
    assert limits(result) == {"ini": str(120.0 * scale), "own": str(30.0 * scale)}
