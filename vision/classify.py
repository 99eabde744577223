"""Batched ONNX classification of canonical crops into a game's labels (the model's label file).

The model file takes ``crops``: float32 ``(N, 3, H, W)`` holding raw BGR
values 0..255 (normalisation is inside the model) and returns ``probs``:
``(N, len(labels))`` softmax probabilities. The label file lists one label per
line in output order.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import onnxruntime as ort  # type: ignore[import-untyped]
from numpy.typing import NDArray

from vision import ModelFileError

__all__ = ["NONE", "Classifier", "CropReader", "Recognition", "Verdict", "to_model_input"]

#: The label every component classifier has for "not a component" (clutter, a foreign card).
NONE = "none"



class Verdict(enum.Enum):
    """What the classifier concluded about one crop."""

    #: a component, confidently identified
    IDENTIFIED = "identified"
    #: confidently not one of the game's components (clutter, a foreign card)
    NOT_A_COMPONENT = "not_a_component"
    #: below the confidence threshold: the referee must ask
    UNSURE = "unsure"


@dataclass(frozen=True, slots=True)
class Recognition:
    """The classifier's answer for one crop.

    ``label`` is meaningful only when ``verdict`` is IDENTIFIED; ``best`` is
    the most probable label whatever the verdict (for annotation and logs).
    """

    verdict: Verdict
    best: str
    confidence: float

    @property
    def label(self) -> str | None:
        """The identified label, or ``None`` when not identified."""
        return self.best if self.verdict is Verdict.IDENTIFIED else None


def to_model_input(crops: NDArray[Any]) -> NDArray[Any]:
    """``(N, H, W, 3)`` uint8 BGR crops -> ``(N, 3, H, W)`` float32 model input."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)


class CropReader(Protocol):
    """What a recogniser needs of its classifier: a `Classifier`, or an enrolled deck (`vision.enroll.Deck`)."""

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        """One `Recognition` per ``(N, H, W, 3)`` crop."""
        ...


class Classifier:
    """An onnxruntime session over one model file and its label file.

    :raises ModelFileError: when the model or label file is missing or unreadable.
    """

    def __init__(self, model: Path | str, threads: int = 1) -> None:
        path = Path(model)
        labels_path = path.with_suffix(".labels.txt")
        if not path.is_file():
            raise ModelFileError(f"model file not found: {path}")
        if not labels_path.is_file():
            raise ModelFileError(f"label file not found: {labels_path}")
        self.labels: tuple[str, ...] = tuple(
            line.strip() for line in labels_path.read_text(encoding="utf-8").splitlines() if line.strip()
        )
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelFileError(f"cannot load model {path}: {exc}") from None
        out = self.session.get_outputs()[0]
        if out.shape[-1] != len(self.labels):
            raise ModelFileError(f"{labels_path} lists {len(self.labels)} labels but the model has {out.shape[-1]}")
        self.input_name: str = self.session.get_inputs()[0].name

    def probabilities(self, crops: NDArray[Any]) -> NDArray[Any]:
        """Softmax probabilities for a batch of ``(N, H, W, 3)`` crops, in one session run."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32)
        probs: NDArray[Any] = self.session.run(None, {self.input_name: to_model_input(crops)})[0]
        return probs

    def prepare(self, crops: int = 64) -> None:
        """Run the model once on ``crops`` blank crops, so that the first frame read does not pay for what
        onnxruntime sets up on its first runs (memory, packed weights); the answers of later runs are the same."""
        shape = self.session.get_inputs()[0].shape
        h, w = (int(d) if isinstance(d, int) else 0 for d in shape[2:4])
        if h > 0 and w > 0:
            self.probabilities(np.zeros((crops, h, w, 3), np.uint8))

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        """One `Recognition` per crop; below ``threshold`` the verdict is UNSURE."""
        probs = self.probabilities(crops)
        out: list[Recognition] = []
        ks = np.argmax(probs, axis=1) if len(probs) else np.zeros(0, np.int64)
        for k, conf in zip(ks.tolist(), probs[np.arange(len(probs)), ks].tolist()):
            best = self.labels[k]
            if conf < threshold:
                verdict = Verdict.UNSURE
            elif best == NONE:
                verdict = Verdict.NOT_A_COMPONENT
            else:
                verdict = Verdict.IDENTIFIED
            out.append(Recognition(verdict, best, conf))
        return out
