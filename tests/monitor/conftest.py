"""The monitor's tests read the contract's cases (tests/test_contract.py) from the directory
above."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
