"""mtlib's public face: every everyday name resolves, and importing a small module loads no more
than it needs (PEP 562 lazy names)."""

import subprocess
import sys

import pytest

import mtlib


@pytest.mark.parametrize("name", sorted(mtlib._EXPORTS))  # noqa: SLF001 (the table itself is what is tested)
def test_every_public_name_resolves_to_its_module(name):
    value = getattr(mtlib, name)
    assert getattr(value, "__module__", mtlib._EXPORTS[name]).startswith("mtlib")
    assert name in dir(mtlib) and name in mtlib.__all__


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'mtlib' has no attribute 'nope'"):
        mtlib.nope  # noqa: B018


def test_importing_the_paths_module_loads_no_pandas_scipy_or_torch():
    code = "import sys, mtlib.paths, mtlib; print(sorted(m for m in ('pandas', 'scipy', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"
