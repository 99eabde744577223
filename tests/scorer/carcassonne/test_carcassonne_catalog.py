"""The tile catalog: counts, internal consistency, and agreement with JCloisterZone."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scorer.carcassonne.catalog import (
    BASE_TILES,
    BIG_TOP_TILES,
    CATALOG,
    HALVES,
    SIDES,
    Edge,
    Kind,
    Special,
    box,
    rotated,
)

REFERENCE = Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "carcassonne" / "jcz"

#: Letter <-> JCZ id, from DECISIONS.md §5.4.1.
JCZ_BASE = {
    "A": "BA/LR", "B": "BA/L", "C": "BA/Cccc+", "D": "BA/RCr", "E": "BA/C", "F": "BA/CFc+",
    "G": "BA/CFc.1", "H": "BA/CFC.2", "I": "BA/CC.2", "J": "BA/CRr", "K": "BA/RrC", "L": "BA/CRRR",
    "M": "BA/Cc+", "N": "BA/Cc.1", "O": "BA/CcRr+", "P": "BA/CcRr", "Q": "BA/Ccc+", "R": "BA/Ccc",
    "S": "BA/CccR+", "T": "BA/CccR", "U": "BA/RFr", "V": "BA/Rr", "W": "BA/RRR", "X": "BA/RRRR",
}  # fmt: skip


def _jcz_id(name: str) -> str:
    if name in JCZ_BASE:
        return JCZ_BASE[name]
    return "BT/" + name.replace(".acrobats", ".ac").replace(".circus", ".bt")


def test_base_box_has_72_tiles_in_24_types() -> None:
    counts = {n: CATALOG[n].count for n in BASE_TILES}
    assert len(counts) == 24 and sum(counts.values()) == 72
    assert "A2 B4 C1 D4 E5 F2 G1 H3 I2 J3 K3 L3 M2 N3 O2 P3 Q1 R3 S2 T1 U8 V9 W4 X1".split() == [
        f"{n}{c}" for n, c in counts.items()
    ]


def test_big_top_has_12_circus_and_8_acrobat_tiles() -> None:
    circus = sum(CATALOG[n].count for n in BIG_TOP_TILES if CATALOG[n].special is Special.CIRCUS)
    acrobats = sum(CATALOG[n].count for n in BIG_TOP_TILES if CATALOG[n].special is Special.ACROBATS)
    assert (circus, acrobats) == (12, 8)
    assert sum(box(True).values()) == 92 and sum(box(False).values()) == 72


def test_ten_pennants_and_none_in_the_expansion() -> None:
    pennant_tiles = sum(
        CATALOG[n].count for n in CATALOG if any(s.pennants for s in CATALOG[n].segments)
    )
    assert pennant_tiles == 10
    assert not any(s.pennants for n in BIG_TOP_TILES for s in CATALOG[n].segments)


@pytest.mark.parametrize("name", list(CATALOG))
def test_expansion_names_spell_their_edges(name: str) -> None:
    if name in BIG_TOP_TILES:
        letters = {Edge.CITY: "c", Edge.ROAD: "r", Edge.FIELD: "f"}
        assert "".join(letters[e] for e in rotated(name, 0).edges) == name.split(".")[0]


@pytest.mark.parametrize("name", list(CATALOG))
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_every_rotation_covers_each_edge_once(name: str, rotation: int) -> None:
    view = rotated(name, rotation)
    for side in range(4):
        halves = (view.half_seg[2 * side], view.half_seg[2 * side + 1])
        if view.edges[side] is Edge.CITY:
            assert halves == (-1, -1), f"{name} {SIDES[side]}: a city edge holds no field"
        else:
            assert -1 not in halves, f"{name} {SIDES[side]}: both halves belong to fields"
    turned = rotated(name, (rotation + 90) % 360)
    assert turned.edges == (view.edges[3], view.edges[0], view.edges[1], view.edges[2])


def _ours(name: str) -> dict[str, object]:
    segs = CATALOG[name].segments
    cities = [s for s in segs if s.kind is Kind.CITY]
    return {
        "roads": sorted(sorted(SIDES[x] for x in s.sides) for s in segs if s.kind is Kind.ROAD),
        "cities": sorted((sorted(SIDES[x] for x in s.sides), s.pennants) for s in cities),
        "fields": sorted(
            (
                sorted(HALVES[h] for h in s.halves),
                sorted(sorted(SIDES[x] for x in segs[c].sides) for c in s.cities),
            )
            for s in segs
            if s.kind is Kind.FIELD
        ),
        "monastery": any(s.kind is Kind.MONASTERY for s in segs),
        "special": CATALOG[name].special.value,
    }


def _theirs(tile: ET.Element) -> dict[str, object]:
    cities = [(sorted(c.text.split()), int(c.get("pennants", "0"))) for c in tile.findall("city")]  # type: ignore[union-attr]

    def city_of(side: str) -> list[str]:
        return next(sides for sides, _ in cities if side in sides)

    special = "circus" if tile.find("circus") is not None else "acrobats" if tile.find("acrobats") is not None else "none"
    return {
        "roads": sorted(sorted(r.text.split()) for r in tile.findall("road")),  # type: ignore[union-attr]
        "cities": sorted(cities),
        "fields": sorted(
            (sorted(f.text.split()), sorted(city_of(s) for s in f.get("city", "").split()))  # type: ignore[union-attr]
            for f in tile.findall("field")
        ),
        "monastery": tile.find("monastery") is not None,
        "special": special,
    }


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="JCloisterZone reference files not present")
def test_catalog_matches_jcloisterzone() -> None:
    tiles: dict[str, ET.Element] = {}
    counts: dict[str, int] = {}
    for file, tile_set in (("basic.xml", "basic:1"), ("under_the_big_top.xml", "under-the-big-top:1")):
        root = ET.parse(REFERENCE / file).getroot()
        for tile in root.iter("tile"):
            if tile.get("id"):
                tiles[tile.get("id", "")] = tile
        for ref in root.iter("tile-set"):
            if ref.get("id") == tile_set:
                for r in ref.findall("ref"):
                    counts[r.get("tile", "")] = int(r.get("count", "0"))
    assert sorted(_jcz_id(n) for n in CATALOG) == sorted(counts)
    for name in CATALOG:
        jid = _jcz_id(name)
        assert CATALOG[name].count == counts[jid], name
        assert _ours(name) == _theirs(tiles[jid]), name
