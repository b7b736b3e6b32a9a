#!/usr/bin/env bash
# Creates the bench-only virtual environment with the peer detectors of the loop benchmark
# (OpenHands' StuckDetector from openhands-sdk, agent-watchdog), pinned, from PyPI.
# openhands-sdk needs Python >= 3.12; PYTHON312 overrides where that interpreter is.
# The venv lives in bench/loops/.peers-venv (ignored by git); LOOPBENCH_VENV overrides it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${LOOPBENCH_VENV:-$here/.peers-venv}"
py="${PYTHON312:-}"
if [[ -z "$py" ]]; then
    for cand in python3.13 python3.12 /root/.pyenv/versions/3.12.1/bin/python; do
        if command -v "$cand" >/dev/null 2>&1 &&
            "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
            py="$cand"
            break
        fi
    done
fi
if [[ -z "$py" ]]; then
    echo "setup-peers.sh: no Python >= 3.12 found (set PYTHON312)" >&2
    exit 1
fi
if [[ ! -x "$venv/bin/python" ]]; then
    "$py" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/peers-requirements.txt"
echo "$venv/bin/python"
