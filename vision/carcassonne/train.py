"""Train the Carcassonne tile classifier and export it as one ONNX file.

``python -m vision.carcassonne.train --out models/carcassonne_tiles.onnx`` builds a
tile bank (render styles and, where present, scanned editions; ``--sources``
chooses, so an edition can be held out), cuts augmented crops
(`vision.carcassonne.dataset`), trains a small CNN with two heads on the CPU
(the (type, rotation) class and the city/road/field class of each side) and
exports ``crops`` (N, 3, 48, 48 raw BGR) -> ``probs`` (N, classes) and
``edges`` (N, 4, 3). Needs the ``train`` extra (torch, onnx).
"""

from __future__ import annotations

import argparse
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from vision.carcassonne.dataset import CROP, TileBank, build_bank, make_crops
from vision.carcassonne.labels import TILE_LABELS, label, parse_label

if TYPE_CHECKING:
    import torch

__all__ = ["DEFAULT_SOURCES", "SOURCE_WEIGHTS", "build_model", "main", "make_pool", "pool_sizes", "turn_table"]

DEFAULT_SOURCES = ("classic", "newart", "bright", "flat", "scan:classic", "scan:newart")


def turn_table() -> NDArray[Any]:
    """``table[k, c]``: the class of class ``c`` after the crop is turned clockwise ``k`` quarters."""
    out = np.zeros((4, len(TILE_LABELS)), np.int64)
    index = {lab: i for i, lab in enumerate(TILE_LABELS)}
    for c, lab in enumerate(TILE_LABELS):
        parsed = parse_label(lab)
        for k in range(4):
            out[k, c] = c if parsed is None else index[label(parsed[0], (parsed[1] + 90 * k) % 360)]
    return out


def build_model(n_labels: int, width: int = 24) -> torch.nn.Module:
    """A small CNN on 48 x 48 crops; the last map is flattened (not pooled) so it sees where things are."""
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()

            def block(i: int, o: int, stride: int) -> list[nn.Module]:
                return [nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

            w = width
            self.body = nn.Sequential(*block(3, w, 2), *block(w, 2 * w, 1), *block(2 * w, 2 * w, 2), *block(2 * w, 4 * w, 1),
                                      *block(4 * w, 4 * w, 2), *block(4 * w, 6 * w, 2), nn.Flatten(), nn.Dropout(0.2))
            feat = 6 * w * (CROP // 16) ** 2
            self.tile = nn.Linear(feat, n_labels)
            self.edges = nn.Linear(feat, 12)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            spread = (x - mean).square().mean(dim=(1, 2, 3), keepdim=True).sqrt()
            f = self.body((x - mean) / (spread + 0.05))
            return self.tile(f), self.edges(f).view(-1, 3, 4)

    torch.manual_seed(0)
    return Net()


#: how many crops each source gives per unit of ``--per-unit`` (or share of ``--samples``)
SOURCE_WEIGHTS: dict[str, int] = {"classic": 1, "newart": 1, "bright": 1, "flat": 1, "random": 3,
                                  "scan:classic": 2, "scan:newart": 2}
#: crops cut per job when a pool is cut by several processes
CHUNK = 1000

_BANKS: dict[tuple[str, int], TileBank] = {}


def _bank(source: str, seed: int) -> TileBank:
    key = (source, seed)
    if key not in _BANKS:
        _BANKS[key] = build_bank([source], variants=24 if source == "random" else 6, seed=seed)
    return _BANKS[key]


def _chunk(job: tuple[str, int, int, int, float]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    source, seed, index, n, figures = job
    rng = np.random.default_rng([seed, zlib.crc32(source.encode()), index])
    return make_crops(_bank(source, seed), n, rng, figure_share=figures)


def make_pool(source: str, n: int, seed: int, workers: int = 1, figures: float = 0.0,
              cache: Path | None = None) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """``n`` crops whose tile and neighbours all come from ``source`` (one board is one edition), cut
    in chunks of `CHUNK` so the result does not depend on ``workers``; kept in ``cache`` if given."""
    name = f"{source.replace(':', '-')}-{n}-{seed}-f{figures:g}.npz"
    if cache is not None and (cache / name).exists():
        with np.load(cache / name) as z:
            return z["x"], z["y"], z["e"]
    jobs = [(source, seed, i, min(CHUNK, n - i * CHUNK), figures) for i in range((n + CHUNK - 1) // CHUNK)]
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_chunk, jobs)
    else:
        parts = [_chunk(j) for j in jobs]
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    e = np.concatenate([p[2] for p in parts])
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(cache / name, x=x, y=y, e=e)
    return x, y, e


def pool_sizes(sources: list[str], samples: int, per_unit: int | None = None,
               weights: dict[str, int] | None = None) -> dict[str, int]:
    """Crops per source: ``per_unit`` x its weight, or ``samples`` shared by weight; ``weights``
    overrides `SOURCE_WEIGHTS`.

    :raises KeyError: for an unknown source.
    """
    weights = {s: (weights or {}).get(s, SOURCE_WEIGHTS[s]) for s in sources}
    if per_unit is not None:
        return {s: per_unit * w for s, w in weights.items()}
    total = sum(weights.values())
    return {s: max(1, round(samples * w / total)) for s, w in weights.items()}


def _colour_mix(xb: torch.Tensor, amount: float, gen: torch.Generator) -> torch.Tensor:
    """Each crop's colours mixed by its own random 3 x 3 matrix near the identity (editions differ in palette)."""
    import torch

    n = xb.shape[0]
    m = torch.eye(3, device=xb.device) + amount * torch.randn(n, 3, 3, device=xb.device, generator=gen)
    return torch.einsum("nij,njhw->nihw", m, xb).clamp(0, 255)


def train(sources: list[str], samples: int, epochs: int, out: Path, seed: int, threads: int, quiet: bool = False,
          figures: float = 0.0, *, per_unit: int | None = None, workers: int = 1, device: str = "cpu",
          colour_mix: float = 0.0, width: int = 24, batch: int = 128, cache: Path | None = None,
          weights: dict[str, int] | None = None) -> dict[str, Any]:
    """Train, export ``out`` (+ ``.labels.txt``) and return the figures; ``figures`` of the tiles carry figures."""
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    if device.startswith("cuda"):
        torch.backends.cudnn.benchmark = True
    rng = np.random.default_rng(seed)
    t0 = time.time()
    pools = [make_pool(src, n, seed, workers, figures, cache) for src, n in pool_sizes(sources, samples, per_unit, weights).items()]
    x = np.concatenate([p[0] for p in pools])
    y = np.concatenate([p[1] for p in pools])
    e = np.concatenate([p[2] for p in pools])
    samples = len(x)
    t_data = time.time() - t0
    dev = torch.device(device)
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    turns = torch.from_numpy(turn_table()).to(dev)
    net = build_model(len(TILE_LABELS), width).to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    ce = nn.CrossEntropyLoss()
    ce_edge = nn.CrossEntropyLoss(ignore_index=-1)
    xt = torch.from_numpy(x).to(dev)
    yt = torch.from_numpy(y).to(dev)
    et = torch.from_numpy(e).to(dev)
    net.train()
    t1 = time.time()

    def step(xb: torch.Tensor, yb: torch.Tensor, eb: torch.Tensor) -> torch.Tensor:
        if colour_mix > 0:
            xb = _colour_mix(xb, colour_mix, gen)
        k = int(rng.integers(4))
        if k:
            xb = torch.rot90(xb, -k, dims=(2, 3))
            yb = turns[k][yb]
            eb = torch.roll(eb, k, dims=1)
        logits, edge_logits = net(xb)
        loss = ce(logits, yb) + 0.5 * ce_edge(edge_logits, eb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out: torch.Tensor = loss.detach()
        return out

    per_epoch = max(1, samples // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * per_epoch, pct_start=0.15)
    for ep in range(epochs):
        perm = torch.randperm(samples, device=dev, generator=gen)
        total = torch.zeros((), device=dev)
        for b in range(per_epoch):
            idx = perm[b * batch:(b + 1) * batch]
            total += step(xt[idx].permute(0, 3, 1, 2).float(), yt[idx], et[idx])
            sched.step()
        if not quiet:
            print(f"epoch {ep + 1}/{epochs}: loss {float(total) / max(1, samples // batch):.3f} ({time.time() - t1:.0f} s)",
                  flush=True)
    export(net.cpu(), out)
    return {"samples": samples, "epochs": epochs, "sources": sources, "data_s": t_data, "train_s": time.time() - t1,
            "params": sum(p.numel() for p in net.parameters()), "colour_mix": colour_mix, "width": width,
            "figures": figures}


def export(net: torch.nn.Module, out: Path) -> None:
    """Write ``out`` (ONNX opset 17, dynamic batch) and ``out.labels.txt``."""
    import torch
    from torch import nn

    class Exported(nn.Module):
        def __init__(self, inner: nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            logits, edges = self.inner(crops)
            return torch.softmax(logits, dim=1), torch.softmax(edges, dim=1).transpose(1, 2)

    model = Exported(net).eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, CROP, CROP)
    torch.onnx.export(model, (dummy,), str(out), input_names=["crops"], output_names=["probs", "edges"],
                      dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}, "edges": {0: "n"}}, opset_version=17, dynamo=False)
    out.with_suffix(".labels.txt").write_text("\n".join(TILE_LABELS) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command line: train and export one model."""
    p = argparse.ArgumentParser(prog="python -m vision.carcassonne.train", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("models/carcassonne_tiles.onnx"))
    p.add_argument("--sources", default=",".join(DEFAULT_SOURCES),
                   help="comma list of render styles and scan editions (scan:classic, scan:newart)")
    p.add_argument("--samples", type=int, default=40000)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--figures", type=float, default=0.0, help="share of the tiles drawn with meeples on them")
    p.add_argument("--per-unit", type=int, default=None,
                   help="crops per unit of source weight (overrides --samples; keeps pools the same across source sets)")
    p.add_argument("--workers", type=int, default=1, help="processes cutting crops")
    p.add_argument("--device", default="cpu", help="torch device to train on (cpu, cuda)")
    p.add_argument("--colour-mix", type=float, default=0.0, help="spread of each crop's random colour-mixing matrix")
    p.add_argument("--width", type=int, default=24, help="network width (first layer's channels)")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--cache", type=Path, default=None, help="folder keeping cut crop pools for later runs")
    p.add_argument("--weights", default="", help="source weights instead of the defaults, e.g. random=6,flat=1")
    p.add_argument("--pools-only", action="store_true", help="cut (and cache) the crop pools, train nothing")
    args = p.parse_args(argv)
    try:
        weights = {k: int(v) for k, v in (w.split("=") for w in args.weights.split(",") if w)}
    except ValueError:
        p.error(f"--weights: expected SOURCE=N,..., got {args.weights!r}")
    if args.pools_only:
        for src, n in pool_sizes(args.sources.split(","), args.samples, args.per_unit, weights).items():
            t0 = time.time()
            x, _, _ = make_pool(src, n, args.seed, args.workers, args.figures, args.cache)
            print(f"{src}: {len(x)} crops in {time.time() - t0:.0f} s", flush=True)
        return 0
    fig = train(args.sources.split(","), args.samples, args.epochs, args.out, args.seed, args.threads,
                figures=args.figures, per_unit=args.per_unit, workers=args.workers, device=args.device,
                colour_mix=args.colour_mix, width=args.width, batch=args.batch, cache=args.cache, weights=weights)
    print(fig)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

