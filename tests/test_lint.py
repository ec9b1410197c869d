"""The code base stays ruff-clean (lint and format), as configured in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ruff")
    cmd = [exe] if exe else [sys.executable, "-m", "ruff"]
    return subprocess.run([*cmd, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_check_is_clean():
    if not shutil.which("ruff"):
        pytest.importorskip("ruff")
    result = _ruff("check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    if not shutil.which("ruff"):
        pytest.importorskip("ruff")
    result = _ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
