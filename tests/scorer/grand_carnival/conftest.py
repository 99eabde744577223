"""Make the position helpers in this folder importable by the Grand Carnival tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
