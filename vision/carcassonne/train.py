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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from vision.carcassonne.dataset import CROP, build_bank, make_crops
from vision.carcassonne.labels import TILE_LABELS, label, parse_label

if TYPE_CHECKING:
    import torch

__all__ = ["DEFAULT_SOURCES", "build_model", "main", "turn_table"]

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


def train(sources: list[str], samples: int, epochs: int, out: Path, seed: int, threads: int, quiet: bool = False,
          figures: float = 0.0) -> dict[str, Any]:
    """Train, export ``out`` (+ ``.labels.txt``) and return the figures; ``figures`` of the tiles carry figures."""
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    bank = build_bank(sources, variants=6, seed=seed)
    x, y, e = make_crops(bank, samples, rng, figure_share=figures)
    t_data = time.time() - t0
    turns = torch.from_numpy(turn_table())
    net = build_model(len(TILE_LABELS))
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 128
    steps = epochs * (samples // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    ce = nn.CrossEntropyLoss()
    ce_edge = nn.CrossEntropyLoss(ignore_index=-1)
    xt = torch.from_numpy(x).permute(0, 3, 1, 2).float()
    yt = torch.from_numpy(y)
    et = torch.from_numpy(e)
    net.train()
    t1 = time.time()
    for ep in range(epochs):
        perm = torch.randperm(samples)
        total = 0.0
        for b in range(samples // batch):
            idx = perm[b * batch:(b + 1) * batch]
            xb, yb, eb = xt[idx], yt[idx], et[idx]
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
            sched.step()
            total += float(loss.detach())
        if not quiet:
            print(f"epoch {ep + 1}/{epochs}: loss {total / max(1, samples // batch):.3f} ({time.time() - t1:.0f} s)", flush=True)
    export(net, out)
    return {"samples": samples, "epochs": epochs, "sources": sources, "data_s": t_data, "train_s": time.time() - t1,
            "params": sum(p.numel() for p in net.parameters())}


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
    args = p.parse_args(argv)
    fig = train(args.sources.split(","), args.samples, args.epochs, args.out, args.seed, args.threads,
                figures=args.figures)
    print(fig)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

