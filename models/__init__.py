"""The shipped ONNX models, their label files and model cards.

They travel inside the wheel (a non-editable ``pip install .`` has them) and
are found through `importlib.resources`, never through a path relative to
the source checkout.

>>> path("bigtop_components.onnx").name
'bigtop_components.onnx'
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["path"]


def path(name: str) -> Path:
    """The file ``name`` shipped in this package, as a file system path (onnxruntime needs one)."""
    return Path(str(files(__name__) / name))
