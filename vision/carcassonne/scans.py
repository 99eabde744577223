"""Scans of real tile art (not part of the project), for training and measuring only.

The scans live outside the repository (``../shared/reference/carcassonne/scans``
next to the checkout, or the folder named by ``RINGSIDE_CARCASSONNE_SCANS``),
named by JCloisterZone id in catalog orientation; `JCZ_LETTER` maps the ids to
the catalog letters (the table of the rules decisions, section 5.4.1).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import cv2
from numpy.typing import NDArray

__all__ = ["EDITIONS", "JCZ_LETTER", "available", "load_edition", "scans_root"]

#: JCloisterZone base-game ids -> catalog letters.
JCZ_LETTER: dict[str, str] = {
    "LR": "A", "L": "B", "Cccc+": "C", "RCr": "D", "C": "E", "CFc+": "F", "CFc.1": "G", "CFC.2": "H",
    "CC.2": "I", "CRr": "J", "RrC": "K", "CRRR": "L", "Cc+": "M", "Cc.1": "N", "CcRr+": "O", "CcRr": "P",
    "Ccc+": "Q", "Ccc": "R", "CccR+": "S", "CccR": "T", "RFr": "U", "Rr": "V", "RRR": "W", "RRRR": "X",
}
#: Edition name -> folder under the scans root.
EDITIONS: dict[str, str] = {"classic": "classic-c1/BA", "newart": "newart-c2/BA"}


def scans_root() -> Path:
    """Where the reference scans are looked for."""
    env = os.environ.get("RINGSIDE_CARCASSONNE_SCANS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "reference" / "carcassonne" / "scans"


def load_edition(edition: str, size: int = 96) -> dict[str, list[NDArray[Any]]]:
    """Letter -> the scans of that letter (BGR, ``size`` square, catalog orientation); empty when absent."""
    folder = scans_root() / EDITIONS[edition]
    out: dict[str, list[NDArray[Any]]] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.jpg")):
        jcz = path.stem.split("@")[0]
        letter = JCZ_LETTER.get(jcz)
        img = cv2.imread(str(path))
        if letter is None or img is None:
            continue
        out.setdefault(letter, []).append(cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA))
    return out


def available() -> bool:
    """Whether both editions' scans are present."""
    return all((scans_root() / f).is_dir() for f in EDITIONS.values())


