"""Train the Big Top component classifier and export it as one ONNX file.

``python -m vision.bigtop.train`` (or ``ringside train bigtop``) renders synthetic
tables, harvests labelled crops through the real detection stages
(`vision.bigtop.dataset`), trains a small CNN with torch on the CPU, exports
``<out>.onnx`` (opset 17, dynamic batch), ``<out>.labels.txt`` and a model
card ``<out>.md``. Faces come from the renderer, or from ``--faces DIR`` with
one folder of images per label. Needs the ``train`` extra (torch, onnx).
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop.dataset import CropSet, folder_faces, harvest
from vision.bigtop.faces import printed_faces
from vision.bigtop.labels import LABELS, NONE
from vision.bigtop.layout import CARD_FACE_VERSION
from vision.bigtop.scene import TRAIN_SETTINGS

if TYPE_CHECKING:
    import torch

__all__ = ["TrainOptions", "augment", "build_model", "main", "train"]

#: scene seeds for training are ``seed * SEED_STRIDE + k``; benchmarks use seeds >= 900_000_000
SEED_STRIDE = 1_000_000
#: "none" is drawn this many times as often as each component label
NONE_WEIGHT = 6.0
#: foreign cards (plain coloured fields with a few shapes: no component) on a dense training table, at most
STRANGERS = 8
#: share of dense random-label tables; the rest are mid-hand Big Top tables, whose tableau piles and
#: chart spaces also give crops fitted where the layout puts them (`vision.bigtop.places.fit_card`)
TRAINING_MIX = 0.6
#: every this many-th training table shows its cards as card face print version 1 (one numeral, at the top): the
#: rest as `CARD_FACE_VERSION` prints them, so the model reads both prints
OLD_FACES_EVERY = 4
#: added to a crop's spread before standardising (input scaled to -1..1): keeps flat crops flat
STANDARDISE_FLOOR = 0.05


@dataclass(frozen=True, slots=True)
class TrainOptions:
    """The training recipe; the defaults produced the shipped model."""

    out: Path = Path("models/bigtop_components.onnx")
    scenes: int = 1000
    val_scenes: int = 24
    epochs: int = 10
    batch: int = 128
    lr: float = 3e-3
    width: int = 20
    seed: int = 1
    workers: int = 2
    threads: int = 2
    faces: Path | None = None
    quiet: bool = False
    #: optional .npz keeping the rendered crops, so a rerun of the same recipe skips rendering
    cache: Path | None = None
    #: torch device the network trains on ("cpu", or "cuda" where one is present)
    device: str = "cpu"


def augment(crops: NDArray[Any], rng: np.random.Generator) -> NDArray[Any]:
    """Crop-level augmentation on top of the scene's camera effects (numpy/OpenCV only).

    Harsher than the scene renderer's camera, and separate code from the benchmarks' camera
    (`vision.camera_model`): a small perspective warp (the face field fitted a little off),
    a half turn, defocus and motion blur, a soft shadow edge or a saturating glare patch,
    partial occlusion by a hand or sleeve entering from an edge, white-balance and colour
    gains, brightness (down to a deep shadow), contrast, gamma, sensor noise and JPEG.
    """
    n, h, w, _ = crops.shape
    x = crops.astype(np.float32)
    for i in range(n):
        if rng.random() < 0.35:
            src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
            dst = src + rng.uniform(-2.5, 2.5, src.shape).astype(np.float32)
            m = cv2.getPerspectiveTransform(src, dst)
            x[i] = cv2.warpPerspective(x[i], m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.5:
            x[i] = x[i, ::-1, ::-1]
        if rng.random() < 0.4:
            x[i] = cv2.GaussianBlur(x[i], (0, 0), float(rng.uniform(0.3, 2.0)))
        if rng.random() < 0.2:
            _motion_blur(x[i], rng)
        r = rng.random()
        if r < 0.12:
            _shadow_edge(x[i], rng)
        elif r < 0.32:
            _glare(x[i], rng)
        if rng.random() < 0.18:
            _occlude(x[i], rng)
    warm = rng.uniform(-0.15, 0.35, (n, 1, 1, 1)).astype(np.float32)
    gains = rng.uniform(0.82, 1.18, (n, 1, 1, 3)).astype(np.float32)
    gains *= np.concatenate([1 - warm, np.ones_like(warm), 1 + 0.8 * warm], axis=3)
    # log-uniform, so dim light is as common as bright light
    bright = np.exp(rng.uniform(np.log(0.25), np.log(1.3), (n, 1, 1, 1))).astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.6, 1.2, (n, 1, 1, 1)).astype(np.float32)
    x = (x - mean) * contrast + mean
    x = np.clip(x * gains * bright, 0, 255)
    gamma = rng.uniform(0.75, 1.4, (n, 1, 1, 1)).astype(np.float32)
    x = 255.0 * (x / 255.0) ** gamma
    x += rng.normal(0, 1, x.shape).astype(np.float32) * rng.uniform(0, 10, (n, 1, 1, 1)).astype(np.float32)
    x = np.clip(x, 0, 255)
    for i in np.flatnonzero(rng.random(n) < 0.3).tolist():
        q = int(rng.integers(25, 81))
        ok, buf = cv2.imencode(".jpg", x[i].astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, q])
        back = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if back is not None:
            x[i] = back.astype(np.float32)
    out: NDArray[Any] = x.transpose(0, 3, 1, 2).copy()
    return out


def _motion_blur(img: NDArray[Any], rng: np.random.Generator) -> None:
    """Smear the crop along a straight line (the camera or the card moved)."""
    length = float(rng.uniform(2.0, 6.0))
    a = float(rng.uniform(0, np.pi))
    k = int(np.ceil(length)) | 1
    kernel = np.zeros((k, k), np.float32)
    c = k // 2
    dx, dy = 0.5 * length * np.cos(a), 0.5 * length * np.sin(a)
    cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1)
    kernel /= max(float(kernel.sum()), 1e-6)
    img[:] = cv2.filter2D(img, -1, kernel, borderType=cv2.BORDER_REPLICATE)


def _shadow_edge(img: NDArray[Any], rng: np.random.Generator) -> None:
    """Darken the crop beyond a soft straight edge (a shadow cast across it)."""
    h, w = img.shape[:2]
    a = float(rng.uniform(0, 2 * np.pi))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = (xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a) - float(rng.uniform(-0.3, 0.3)) * h
    soft = float(rng.uniform(1.0, 6.0))
    side = 1.0 / (1.0 + np.exp(-d / soft))
    img *= (1.0 - float(rng.uniform(0.3, 0.6)) * side)[:, :, None]


def _glare(img: NDArray[Any], rng: np.random.Generator) -> None:
    """Add a soft bright reflection somewhere on the crop."""
    h, w = img.shape[:2]
    spot: NDArray[Any] = np.zeros((h, w), np.float32)
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    cv2.ellipse(spot, c, (int(rng.uniform(3, w * 0.6)), int(rng.uniform(3, h * 0.4))), float(rng.uniform(0, 180)),
                0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(2.0, 7.0)))
    img += (255.0 * float(rng.uniform(0.2, 1.0)) * spot)[:, :, None]
    np.clip(img, 0, 255, out=img)


def _occlude(img: NDArray[Any], rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    colour = rng.uniform(40, 220, 3) if rng.random() < 0.5 else np.array([120, 150, 200]) * rng.uniform(0.6, 1.1)
    depth = float(rng.uniform(0.08, 0.22))
    side = int(rng.integers(4))
    mask = np.zeros((h, w), np.uint8)
    if side == 0:
        cv2.ellipse(mask, (int(rng.uniform(0, w)), 0), (int(w * 0.4), int(h * depth)), 0, 0, 360, 1, -1)
    elif side == 1:
        cv2.ellipse(mask, (int(rng.uniform(0, w)), h), (int(w * 0.4), int(h * depth)), 0, 0, 360, 1, -1)
    elif side == 2:
        cv2.ellipse(mask, (0, int(rng.uniform(0, h))), (int(w * depth * 1.4), int(h * 0.3)), 0, 0, 360, 1, -1)
    else:
        cv2.ellipse(mask, (w, int(rng.uniform(0, h))), (int(w * depth * 1.4), int(h * 0.3)), 0, 0, 360, 1, -1)
    img[mask > 0] = colour.astype(np.float32)


def build_model(n_labels: int, width: int = 24) -> torch.nn.Module:
    """A small all-convolutional network for ``(N, 3, 56, 40)`` crops (about 0.2 ms per crop).

    Each crop is first standardised (its own mean and spread over all channels), so a
    face in deep shadow or under glare looks like the same face in good light; the
    channels keep their ratios, which carry the suit colours.
    """
    from torch import nn

    class Standardise(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            spread = (x - mean).square().mean(dim=(1, 2, 3), keepdim=True).sqrt()
            return (x - mean) / (spread + STANDARDISE_FLOOR)

    def block(i: int, o: int, stride: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    w = width
    return nn.Sequential(
        Standardise(),
        *block(3, w, 2), *block(w, 2 * w, 2), *block(2 * w, 2 * w, 1),
        *block(2 * w, 4 * w, 2), *block(4 * w, 4 * w, 1),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.15), nn.Linear(4 * w, n_labels),
    )


def _wrap_for_export(net: torch.nn.Module) -> torch.nn.Module:
    import torch
    from torch import nn

    class Exported(nn.Module):
        def __init__(self, inner: nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, crops: torch.Tensor) -> torch.Tensor:
            return torch.softmax(self.inner(crops / 127.5 - 1.0), dim=1)

    return Exported(net).eval()


def _harvest_job(args: tuple[int, int, str | None]) -> CropSet:
    seed, n, faces_dir = args
    cv2.setNumThreads(1)
    if faces_dir:
        return harvest(seed, n, TRAIN_SETTINGS, faces=folder_faces(Path(faces_dir)), strangers=STRANGERS,
                       training_mix=TRAINING_MIX)
    # table by table (each table's randomness comes from its own seed alone), old prints on every `OLD_FACES_EVERY`-th
    parts = [harvest(seed + k, 1, TRAIN_SETTINGS, faces=printed_faces(face_print(seed + k)), strangers=STRANGERS,
                     training_mix=TRAINING_MIX) for k in range(n)]
    return CropSet(np.concatenate([p.crops for p in parts]), np.concatenate([p.labels for p in parts]))


def face_print(scene_seed: int) -> int:
    """The card face print the training table of ``scene_seed`` shows: 1 on every `OLD_FACES_EVERY`-th, else
    `CARD_FACE_VERSION`."""
    return 1 if scene_seed % OLD_FACES_EVERY == 0 else CARD_FACE_VERSION


def _make_data(first_seed: int, scenes: int, workers: int, faces: Path | None) -> CropSet:
    chunk = max(1, min(20, scenes // max(1, workers * 4) or 1))
    jobs = [(first_seed + k, min(chunk, scenes - k), str(faces) if faces else None) for k in range(0, scenes, chunk)]
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_harvest_job, jobs)
    else:
        parts = [_harvest_job(j) for j in jobs]
    return CropSet(np.concatenate([p.crops for p in parts]), np.concatenate([p.labels for p in parts]))


def _bar(prefix: str, done: int, total: int, extra: str, quiet: bool) -> None:
    if quiet:
        return
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r{prefix} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {extra}   ")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def train(opts: TrainOptions) -> dict[str, Any]:
    """Run the whole recipe; returns the figures written to the model card."""
    import torch
    from torch import nn

    t0 = time.time()
    torch.manual_seed(opts.seed)
    torch.set_num_threads(opts.threads)
    rng = np.random.default_rng(opts.seed)
    base = opts.seed * SEED_STRIDE
    if not opts.quiet:
        print(f"rendering {opts.scenes} training + {opts.val_scenes} validation scenes ...", file=sys.stderr)
    if opts.cache is not None and opts.cache.is_file():
        with np.load(opts.cache) as z:
            data, val = CropSet(z["crops"], z["labels"]), CropSet(z["val_crops"], z["val_labels"])
    else:
        data = _make_data(base, opts.scenes, opts.workers, opts.faces)
        val = _make_data(base + SEED_STRIDE // 2, opts.val_scenes, opts.workers, opts.faces)
        if opts.cache is not None:
            np.savez(opts.cache, crops=data.crops, labels=data.labels, val_crops=val.crops, val_labels=val.labels)
    t_data = time.time() - t0
    # class-balanced sampling: draw a class present in the data, then one of its crops; "none"
    # covers everything that is no component (clutter, foreign cards, artwork) and is drawn more
    order = np.argsort(data.labels, kind="stable")
    counts = np.bincount(data.labels, minlength=len(LABELS))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    present = np.nonzero(counts)[0]
    weights = np.where(present == LABELS.index(NONE), NONE_WEIGHT, 1.0)
    weights /= weights.sum()
    net = build_model(len(LABELS), opts.width).to(opts.device)
    steps_per_epoch = max(1, len(data.labels) // opts.batch)
    opt = torch.optim.AdamW(net.parameters(), lr=opts.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=opts.lr, total_steps=opts.epochs * steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss()
    history: list[tuple[int, float, float]] = []
    for epoch in range(opts.epochs):
        net.train()
        total_loss, correct, seen = 0.0, 0, 0
        batches = [order[starts[c] + (rng.random(opts.batch) * counts[c]).astype(np.int64)]
                   for c in (present[rng.choice(len(present), opts.batch, p=weights)] for _ in range(steps_per_epoch))]
        seeds = rng.integers(0, 2**63 - 1, steps_per_epoch)
        for step, (xa, ya) in enumerate(_augmented(data, batches, seeds, opts.workers)):
            xb = (torch.from_numpy(xa) / 127.5 - 1.0).to(opts.device)
            yb = torch.from_numpy(ya).to(opts.device)
            opt.zero_grad()
            out = net(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            opt.step()
            sched.step()
            total_loss += float(loss.detach()) * len(yb)
            correct += int((out.argmax(1) == yb).sum())
            seen += len(yb)
            if step % 10 == 0 or step == steps_per_epoch - 1:
                _bar(f"epoch {epoch + 1}/{opts.epochs}", step + 1, steps_per_epoch,
                     f"loss {total_loss / seen:.4f} acc {correct / seen:.4f} {time.time() - t0:.0f}s", opts.quiet)
        val_acc = _evaluate(net, val, opts.device)
        history.append((epoch + 1, total_loss / seen, val_acc))
        if not opts.quiet:
            print(f"  validation accuracy {val_acc:.4f}", file=sys.stderr)
    export(net.cpu(), opts.out)
    figures = {
        "train_crops": int(len(data.labels)),
        "val_crops": int(len(val.labels)),
        "val_accuracy": history[-1][2] if history else float("nan"),
        "history": history,
        "data_seconds": t_data,
        "total_seconds": time.time() - t0,
        "params": int(sum(p.numel() for p in net.parameters())),
        "model_bytes": opts.out.stat().st_size,
    }
    write_card(opts, figures)
    return figures


class _Batches:  # torch's Dataset protocol (len and getitem), without importing torch here
    """Augmented training batches by step (a torch map-style dataset, so worker processes can make them)."""

    def __init__(self, data: CropSet, batches: list[NDArray[Any]], seeds: NDArray[Any]) -> None:
        self.data, self.batches, self.seeds = data, batches, seeds

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, k: int) -> tuple[NDArray[Any], NDArray[Any]]:
        cv2.setNumThreads(1)
        idx = self.batches[k]
        return augment(self.data.crops[idx], np.random.default_rng(int(self.seeds[k]))), self.data.labels[idx]


def _augmented(data: CropSet, batches: list[NDArray[Any]], seeds: NDArray[Any],
               workers: int) -> Any:
    """The epoch's augmented batches in order, made by ``workers`` processes (none when 1)."""
    ds = _Batches(data, batches, seeds)
    if workers <= 1:
        return (ds[k] for k in range(len(ds)))
    from torch.utils.data import DataLoader

    return DataLoader(cast(Any, ds), batch_size=None, shuffle=False, num_workers=workers, prefetch_factor=4,
                      collate_fn=lambda b: b)


def _evaluate(net: torch.nn.Module, data: CropSet, device: str = "cpu") -> float:
    import torch

    if len(data.labels) == 0:
        return float("nan")
    net.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(data.labels), 512):
            xb = torch.from_numpy(data.crops[i:i + 512].transpose(0, 3, 1, 2).astype(np.float32)) / 127.5 - 1.0
            correct += int((net(xb.to(device)).argmax(1).cpu().numpy() == data.labels[i:i + 512]).sum())
    return correct / len(data.labels)


def export(net: torch.nn.Module, out: Path) -> None:
    """Write ``out`` (one ONNX file, opset 17, dynamic batch) and ``out.labels.txt``."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    w, h = DEFAULT_CONFIG.crop_size
    model = _wrap_for_export(net.eval())
    dummy = torch.zeros(2, 3, h, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (dummy,), str(out), input_names=["crops"], output_names=["probs"],
                          dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}}, opset_version=17, dynamo=False)
    out.with_suffix(".labels.txt").write_text("\n".join(LABELS) + "\n", encoding="utf-8")


def write_card(opts: TrainOptions, fig: dict[str, Any]) -> None:
    """Write the model card ``<out>.md`` with the data, recipe and training figures."""
    rows = "\n".join(f"| {e} | {loss:.4f} | {acc:.4f} |" for e, loss, acc in fig["history"])
    ts = TRAIN_SETTINGS
    faces = (f"images from `{opts.faces}` (renderer for missing labels)" if opts.faces else
             f"the renderer (`vision.bigtop.faces`), cards as card face print {CARD_FACE_VERSION} draws them, on every "
             f"{OLD_FACES_EVERY}th table as print 1 (one numeral, at the top)")
    text = f"""# Big Top component classifier

`{opts.out.name}`: {len(LABELS)} labels (`{opts.out.with_suffix('.labels.txt').name}`): the 52 cards
(`animals-D6` notation), `back`, `token-10/7/5/3`, `token-back`, `none` (not a component).
Input `crops`: float32 (N, 3, 56, 40), raw BGR 0..255, the face field inside the frame line
warped from the camera frame by `vision.detect.warp_crops`. Output `probs`: softmax (N, {len(LABELS)}). ONNX opset 17,
dynamic batch, {fig['model_bytes'] / 1024:.0f} KiB, {fig['params']:,} parameters.

## Data
- Faces: {faces}. Synthetic tables by `vision.bigtop.scene` with `TRAIN_SETTINGS` (tilt {ts.tilt_deg[0]:g}-{ts.tilt_deg[1]:g}
  degrees, yaw, brightness {ts.brightness[0]:g}-{ts.brightness[1]:g}, warmth {ts.warmth[0]:g}-{ts.warmth[1]:g},
  gamma, shadows, glare, defocus, noise, JPEG {ts.jpeg_quality[0]}-{ts.jpeg_quality[1]}, up to {ts.hands[1]} hand(s)
  and {ts.clutter[1]} clutter objects), {TRAINING_MIX:.0%} dense random-label tables, the rest mid-hand Big Top tables.
- Crops are harvested through the real pipeline (markers, homography, rectification, detection by
  frame holes and frame lines, crops warped from the camera frame), labelled by ground truth; each
  detection also gives one crop with corners jittered by up to 1.5 px. `none`: detections that are
  no component, foreign cards (up to {STRANGERS} more per dense table), random crops away from components,
  and token-sized crops of card artwork (a quarter of the cards). On the Big Top tables every tableau
  pile and chart space also gives a crop fitted where the layout puts it (`vision.bigtop.places.fit_card`,
  as the pipeline reads places no detection identified): the card there, or `none` when the place is
  empty or its card more than 60% hidden.
- Scene seeds {opts.seed * SEED_STRIDE} .. {opts.seed * SEED_STRIDE + opts.scenes - 1} (training),
  {opts.seed * SEED_STRIDE + SEED_STRIDE // 2} .. (+{opts.val_scenes}) (validation).
  Benchmarks use seeds from 900,000,000 and the harder `HARD_SETTINGS`: never seen in training.
- {fig['train_crops']:,} training crops, {fig['val_crops']:,} validation crops.

## Recipe
Per-crop standardisation (mean and spread over all channels, floor {STANDARDISE_FLOOR:g}), Conv-BN-ReLU x5
(width {opts.width}, strides 2,2,1,2,1), global average pool, dropout 0.15, linear.
AdamW (lr {opts.lr}, weight decay 1e-4), one-cycle schedule, {opts.epochs} epochs x batch {opts.batch},
class-balanced sampling (`none` drawn {NONE_WEIGHT:g}x as often), online augmentation in numpy/OpenCV
(`vision.bigtop.train.augment`, separate code from the benchmarks' `vision.camera_model`: perspective
warp up to 2.5 px per corner, half turn, defocus up to sigma 2, motion blur 2-6 px, shadow edge or
saturating glare patch, hand/sleeve occlusion, white-balance and colour gains, brightness 0.25-1.3
log-uniform, contrast 0.6-1.2, gamma 0.75-1.4, noise up to sigma 10, JPEG quality 25-80).
torch {_torch_version()}, device {opts.device}, {opts.workers} worker processes.

| epoch | train loss | validation accuracy |
| --- | --- | --- |
{rows}

Training took {fig['total_seconds'] / 60:.1f} minutes in all ({fig['data_seconds'] / 60:.1f} rendering data) on
{platform.machine()} with {multiprocessing.cpu_count()} cores (the machine was shared with other work while it ran).

## Reproduce
```
pip install -e .[train]
python -m vision.bigtop.train --out {opts.out} --scenes {opts.scenes} --val-scenes {opts.val_scenes} \\
    --epochs {opts.epochs} --batch {opts.batch} --width {opts.width} --seed {opts.seed} --workers {opts.workers} \\
    --device {opts.device}
```

## Benchmarks
<!-- benchmarks: filled from benchmarks/bench_vision*.py -->
"""
    opts.out.with_suffix(".md").write_text(text, encoding="utf-8")


def _torch_version() -> str:
    import torch

    return str(torch.__version__)


def parser(prog: str = "python -m vision.bigtop.train") -> argparse.ArgumentParser:
    """Command-line options of the training entry point."""
    d = TrainOptions()
    p = argparse.ArgumentParser(prog=prog, description="Train the Big Top component classifier (CPU).")
    p.add_argument("game", nargs="?", default="bigtop", choices=["bigtop"], help="game (only bigtop)")
    p.add_argument("--out", type=Path, default=d.out, help="ONNX file to write (labels and card beside it)")
    p.add_argument("--scenes", type=int, default=d.scenes, help="training scenes to render")
    p.add_argument("--val-scenes", type=int, default=d.val_scenes, help="validation scenes")
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--batch", type=int, default=d.batch)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--width", type=int, default=d.width, help="network width")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--workers", type=int, default=d.workers, help="processes rendering scenes")
    p.add_argument("--threads", type=int, default=d.threads, help="torch threads")
    p.add_argument("--faces", type=Path, default=None, help="folder with one sub-folder of face images per label")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--cache", type=Path, default=None, help=".npz to keep / reuse the rendered crops")
    p.add_argument("--device", default=d.device, help="torch device to train on: cpu (default) or cuda")
    return p


def main(argv: list[str] | None = None, prog: str = "python -m vision.bigtop.train") -> int:
    """Entry point; returns the exit status."""
    args = parser(prog).parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print(f"{prog}: training needs torch: pip install 'ringside[train]' (torch==2.13.0, onnx)",
              file=sys.stderr)
        return 2
    if args.faces is not None and not args.faces.is_dir():
        print(f"{prog}: face folder not found: {args.faces}", file=sys.stderr)
        return 2
    opts = TrainOptions(out=args.out, scenes=args.scenes, val_scenes=args.val_scenes, epochs=args.epochs,
                        batch=args.batch, lr=args.lr, width=args.width, seed=args.seed, workers=args.workers,
                        threads=args.threads, faces=args.faces, quiet=args.quiet, cache=args.cache,
                        device=args.device)
    fig = train(opts)
    print(f"wrote {opts.out} ({fig['model_bytes'] / 1024:.0f} KiB): validation accuracy {fig['val_accuracy']:.4f}, "
          f"{fig['total_seconds'] / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
