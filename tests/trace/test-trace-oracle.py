#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The architecture walk against the real code: torchvision's own models,
traced on the CPU by data/probe/headroom_trace_torch.py, and the walk's
saved-activation bytes (headroom-cli estimate --json, "walk_saved") for
the same model, micro-batch and input size must agree within ±5%, at
three micro-batches and two input sizes per model, with the frozen stages
and the frozen BatchNorm torchvision's detectors run with.

Every trace also goes through the trace CSV and the importer: the file
is written as the script writes it, read by `headroom-cli estimate
--measurements`, whose trace_ratio must be the ratio computed here.

    test-trace-oracle.py HEADROOM_CLI TRACER [--suite ci|bench] [MODEL...]

Exits 77 (skipped) when PyTorch and torchvision cannot be imported, but
fails when CI=true (CI installs python3-torch and python3-torchvision).
"""

import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

TOLERANCE = 0.05


def reexec_with_torch():
    """meson's python3 may be another interpreter than Debian's, which has
    python3-torch: run under /usr/bin/python3 when this one lacks torch."""
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system) \
            and os.environ.get("HEADROOM_ORACLE_REEXEC") is None:
        os.environ["HEADROOM_ORACLE_REEXEC"] = "1"
        os.execv(system, [system] + sys.argv)
    message = "PyTorch and torchvision are not importable (apt-get install python3-torch " \
              "python3-torchvision)"
    if os.environ.get("CI") == "true":
        sys.exit("FAIL: " + message + ", and CI must run this test")
    print("SKIP: " + message)
    sys.exit(77)


reexec_with_torch()

import torch  # noqa: E402
import torchvision  # noqa: E402


def classifier(name, catalog_id, sizes=(48, 64), batches=(1, 2, 3)):
    def build():
        return getattr(torchvision.models, name)(weights=None)

    def batch(b, size):
        return (torch.randn(b, 3, size, size), torch.randint(0, 1000, (b,)))

    def loss(model, data):
        return torch.nn.functional.cross_entropy(model(data[0]), data[1])
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {}}


def vit_classifier(name, catalog_id, sizes=(48, 64), batches=(1, 2, 3)):
    """torchvision's VisionTransformer, built for each input size (its
    position embedding has one row per patch: image_size is a
    constructor argument).  PyTorch 1.13's nn.MultiheadAttention runs the
    math path on the CPU (torch/nn/functional.py
    multi_head_attention_forward: bmm, softmax, bmm): the scenario's
    attention is "eager"."""
    case = classifier(name, catalog_id, sizes, batches)

    def build_for(size):
        return getattr(torchvision.models, name)(weights=None, image_size=size)
    del case["build"]
    case["build_for"] = build_for
    case["scenario"] = {"attention": "eager"}
    return case


def video_classifier(name, catalog_id, sizes=(32, 48), batches=(1, 2, 3), frames=4):
    """torchvision's video ResNets (torchvision.models.video) on clips of
    @frames frames, cross-entropy over Kinetics' 400 classes"""
    def build():
        return getattr(torchvision.models.video, name)(weights=None)

    def batch(b, size):
        return (torch.randn(b, 3, frames, size, size), torch.randint(0, 400, (b,)))

    def loss(model, data):
        return torch.nn.functional.cross_entropy(model(data[0]), data[1])
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {"frames": frames}}


def detector(kind, catalog_id, sizes=((128, 128), (160, 128)), batches=(1, 2, 3), boxes=3):
    """torchvision's detectors as their pretrained weights run them:
    FrozenBatchNorm2d and trainable_backbone_layers=3 (the stem and layer1
    frozen), built here without weights (torchvision/models/detection/
    faster_rcnn.py fasterrcnn_resnet50_fpn: is_trained -> norm_layer
    FrozenBatchNorm2d, _validate_trainable_layers(..., 5, 3))."""
    from torchvision.models.detection import FasterRCNN, FCOS, KeypointRCNN, MaskRCNN, RetinaNet
    from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7
    from torchvision.ops.misc import FrozenBatchNorm2d

    sampled = {}

    def build_for(size):
        w, h = size
        body = torchvision.models.resnet50(weights=None, norm_layer=FrozenBatchNorm2d)
        kw = dict(min_size=min(w, h), max_size=max(w, h))
        if kind in ("retinanet", "fcos"):
            backbone = _resnet_fpn_extractor(body, 3, returned_layers=[2, 3, 4],
                                             extra_blocks=LastLevelP6P7(256, 256))
            return (RetinaNet if kind == "retinanet" else FCOS)(backbone, 91, **kw)
        backbone = _resnet_fpn_extractor(body, 3)
        if kind == "keypoint-rcnn":
            model = KeypointRCNN(backbone, 2, **kw)
        else:
            model = (MaskRCNN if kind == "mask-rcnn" else FasterRCNN)(backbone, 91, **kw)

        # the RoIs the box and mask heads see depend on the proposals of
        # random weights: counted here, handed to the walk ("rois",
        # "mask_rois" per image)
        def box_hook(module, args, output):
            sampled["rois"] = output.shape[0]

        def mask_hook(module, args, output):
            sampled["mask_rois"] = output.shape[0]
        model.roi_heads.box_roi_pool.register_forward_hook(box_hook)
        if kind == "mask-rcnn":
            model.roi_heads.mask_roi_pool.register_forward_hook(mask_hook)
        if kind == "keypoint-rcnn":
            # the keypoint head's RoIs stand where the mask head's do
            model.roi_heads.keypoint_roi_pool.register_forward_hook(mask_hook)
        return model

    def batch(b, size):
        w, h = size
        targets = []
        for i in range(b):
            box = torch.tensor([[4.0 + 8 * k, 6.0 + 5 * k, w / 2 + 10 * k, h / 2 + 7 * k]
                                for k in range(boxes)])
            target = {"boxes": box, "labels": torch.arange(1, boxes + 1)}
            if kind == "keypoint-rcnn":
                # one class (person); 17 keypoints inside each box, visible
                target["labels"] = torch.ones(boxes, dtype=torch.int64)
                kx = box[:, None, 0] + (box[:, None, 2] - box[:, None, 0]) * torch.linspace(0.1, 0.9, 17)
                ky = box[:, None, 1] + (box[:, None, 3] - box[:, None, 1]) * torch.linspace(0.9, 0.1, 17)
                target["keypoints"] = torch.stack([kx, ky, torch.ones_like(kx)], dim=2)
            if kind == "mask-rcnn":
                target["masks"] = torch.zeros(boxes, h, w, dtype=torch.uint8)
            targets.append(target)
        return ([torch.rand(3, h, w) for _ in range(b)], targets)

    def loss(model, data):
        return sum(model(data[0], data[1]).values())
    # torchvision's num_classes counts the background: the two-stage heads
    # softmax over it (the walk's "classes" + 1), the dense heads' sigmoid
    # outputs include its unused column (91 for COCO)
    classes = 91 if kind in ("retinanet", "fcos") else 1 if kind == "keypoint-rcnn" else 90
    return {"id": catalog_id, "build_for": build_for, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "sampled": sampled,
            "arch": {"bn": "frozen", "classes": classes},
            "scenario": {"max_objects": boxes, "detection_framework": "torchvision"}}


def segmenter(name, catalog_id, sizes=(64, 96), batches=(2, 3, 4), aux=True):
    """torchvision's FCN and DeepLabV3 as its reference script trains them
    (references/segmentation/train.py: --aux-loss, cross-entropy of "out"
    plus 0.5 times that of "aux", ignore_index 255); DeepLabV3's image
    pooling runs BatchNorm on one value per channel and sample, so the
    batches start at 2.  LRASPP has no auxiliary head (aux False)."""
    def build():
        kw = {"aux_loss": True} if aux else {}
        return getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, num_classes=21, **kw)

    def batch(b, size):
        return (torch.randn(b, 3, size, size), torch.randint(0, 21, (b, size, size)))

    def loss(model, data):
        out = model(data[0])
        ce = torch.nn.functional.cross_entropy
        if "aux" not in out:
            return ce(out["out"], data[1], ignore_index=255)
        return ce(out["out"], data[1], ignore_index=255) + \
            0.5 * ce(out["aux"], data[1], ignore_index=255)
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {}}


# The catalog's torchvision classifiers, at small inputs so that the whole
# test stays near three minutes on two cores.
CI_MODELS = [
    classifier("resnet18", "resnet-18"),
    classifier("resnet34", "resnet-34"),
    classifier("resnet50", "resnet-50"),
    classifier("resnet101", "resnet-101"),
    classifier("resnext50_32x4d", "resnext-50-32x4d"),
    classifier("resnext101_32x8d", "resnext-101-32x8d"),
    classifier("resnext101_64x4d", "resnext-101-64x4d"),
    classifier("convnext_tiny", "convnext-tiny"),
    classifier("convnext_small", "convnext-small"),
    classifier("convnext_base", "convnext-base"),
    classifier("efficientnet_b0", "efficientnet-b0"),
    classifier("efficientnet_b1", "efficientnet-b1"),
    classifier("efficientnet_b2", "efficientnet-b2"),
    classifier("efficientnet_b3", "efficientnet-b3"),
    classifier("regnet_y_400mf", "regnety-400mf"),
    classifier("regnet_y_800mf", "regnety-800mf"),
    classifier("regnet_y_1_6gf", "regnety-1.6gf"),
    classifier("regnet_y_3_2gf", "regnety-3.2gf"),
    classifier("regnet_y_8gf", "regnety-8gf"),
    classifier("resnet152", "resnet-152"),
    segmenter("fcn_resnet50", "fcn-resnet50"),
    segmenter("deeplabv3_resnet50", "deeplabv3-resnet50"),
    classifier("mobilenet_v2", "mobilenet-v2"),
    classifier("mobilenet_v3_large", "mobilenet-v3-large"),
    classifier("mobilenet_v3_small", "mobilenet-v3-small"),
    segmenter("lraspp_mobilenet_v3_large", "lraspp-mobilenet-v3-large", sizes=(64, 96),
              batches=(1, 2, 3), aux=False),
    video_classifier("r3d_18", "r3d-18"),
    video_classifier("mc3_18", "mc3-18"),
    video_classifier("r2plus1d_18", "r2plus1d-18"),
    vit_classifier("vit_b_16", "vit-b-16", sizes=(32, 48)),
    # Swin at 32 and 64 px: the 8 x 8 and 16 x 16 patch maps padded to
    # whole 7 x 7 windows (shifted where a stage has more than one), the
    # later stages one window each, which at micro-batch 1 the attention's
    # matmuls read as views
    classifier("swin_t", "swin-t", sizes=(32, 64)),
]

# Slower traces: `meson test --benchmark` (meson's benchmark()).  The
# detectors run with "detection_framework": "torchvision", whose focal
# loss is torchvision.ops.sigmoid_focal_loss in Python (eight tensors of
# anchors x classes saved, 8.6 MB of RetinaNet's 20 MB at 128 px); with
# the walk's mmcv-style fused loss RetinaNet came out at -38% and FCOS at
# -6.5%.
BENCH_MODELS = [
    classifier("convnext_large", "convnext-large"),
    vit_classifier("vit_b_32", "vit-b-32", sizes=(64, 96)),
    vit_classifier("vit_l_16", "vit-l-16"),
    classifier("swin_s", "swin-s", sizes=(64, 96)),
    classifier("swin_b", "swin-b", sizes=(64, 96)),
    classifier("efficientnet_b4", "efficientnet-b4"),
    classifier("regnet_y_16gf", "regnety-16gf"),
    segmenter("fcn_resnet101", "fcn-resnet101"),
    segmenter("deeplabv3_resnet101", "deeplabv3-resnet101"),
    detector("faster-rcnn", "faster-rcnn-r50-fpn"),
    detector("mask-rcnn", "mask-rcnn-r50-fpn"),
    detector("retinanet", "retinanet-r50-fpn"),
    detector("fcos", "fcos-r50-fpn"),
    detector("keypoint-rcnn", "keypoint-rcnn-r50-fpn"),
]


def load_tracer(path):
    spec = importlib.util.spec_from_file_location("headroom_trace_torch", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def catalog_entry(cli, model_id):
    out = subprocess.run([cli, "models", "--json"], capture_output=True, text=True, check=True)
    entries = json.loads(out.stdout)
    entries = entries.get("entries", entries) if isinstance(entries, dict) else entries
    for entry in entries:
        if entry.get("id") == model_id:
            return entry
    return None


def scenario_for(case, model, b, size):
    width, height = (size, size) if isinstance(size, int) else size
    s = {"headroom_scenario": 1, "model": model, "task": "train", "method": "full",
         "compute": "fp32", "optimizer": "sgd", "micro_batch": b,
         "image_size": [width, height] if width != height else width}
    s.update(case["scenario"])
    return s


def walked(cli, scenario, tmp, measurements=None):
    path = os.path.join(tmp, "scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    args = [cli, "estimate", path, "--json"]
    if measurements:
        args += ["--measurements", measurements]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"headroom-cli estimate: {out.stderr.strip()}")
    return json.loads(out.stdout)


def inline_model(cli, case, cache):
    """The catalog's entry, or for a detector the catalog's entry as
    torchvision configures it (frozen BatchNorm, the RoIs sampled)."""
    if case["id"] not in cache:
        cache[case["id"]] = catalog_entry(cli, case["id"])
    entry = cache[case["id"]]
    if not case["arch"] and not case.get("sampled"):
        return case["id"]
    if entry is None or "components" not in entry:
        raise RuntimeError(f"{case['id']}: models --json gives no components to configure")
    entry = copy.deepcopy(entry)
    entry["id"] = "torchvision-" + case["id"]
    arch = entry["components"][0]["arch"]
    arch.update(case["arch"])
    for key, value in case.get("sampled", {}).items():
        arch[key] = max(1, int(round(value)))
    return entry


def run_case(cli, tracer, case, tmp, cache):
    failures = []
    started = time.time()
    model = None
    rows = []
    for size in case["sizes"]:
        if "build_for" in case:
            torch.manual_seed(0)
            model = case["build_for"](size)
        elif model is None:
            torch.manual_seed(0)
            model = case["build"]()
        model.train()
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
        for b in case["batches"]:
            torch.manual_seed(b)
            data = case["batch"](b, size)
            result = tracer.trace_step(torch, model, optimizer, data, case["loss"],
                                       backward=False)
            sampled = dict(case.get("sampled", {}))
            if "rois" in sampled:
                sampled["rois"] = sampled["rois"] / b
            if "mask_rois" in sampled:
                sampled["mask_rois"] = sampled["mask_rois"] / b
            rows.append((b, size, result, sampled))

    path = os.path.join(tmp, case["id"] + ".trace.csv")
    with open(path, "w") as out:
        tracer.write_header(out, {"framework": "torch", "model": case["id"],
                                  "precision": "fp32", "provenance": "traced on CPU"})
        for b, size, result, _ in rows:
            if isinstance(size, int):
                tracer.write_rows(out, b, size, result)

    worst = 0.0
    for b, size, result, sampled in rows:
        if "sampled" in case:
            case["sampled"].clear()
            case["sampled"].update(sampled)
        model_json = inline_model(cli, case, cache)
        est = walked(cli, scenario_for(case, model_json, b, size), tmp)
        walk, traced = est["walk_saved"], result["saved"]
        error = walk / traced - 1 if traced else float("inf")
        worst = max(worst, abs(error))
        label = f"{case['id']} b={b} size={size}"
        if abs(error) > TOLERANCE:
            failures.append(f"{label}: walk {walk} bytes, traced {traced} ({100 * error:+.1f}%);"
                            f" traced per module {result['modules']}")

    # the importer: the trace file read back, its ratio to the walk
    square = [r for r in rows if isinstance(r[1], int)]
    if square:
        b, size = square[0][0], square[0][1]
        model_json = inline_model(cli, case, cache)
        est = walked(cli, scenario_for(case, model_json, b, size), tmp, measurements=path)
        ratios = [m.get("trace_ratio") for m in est["measurements"] if m.get("traced_on_cpu")]
        tw = ww = 0.0
        for b2, size2, result, _ in square:
            w = walked(cli, scenario_for(case, model_json, b2, size2), tmp)["walk_saved"]
            tw += result["saved"] * w
            ww += w * w
        expected = tw / ww
        if len(ratios) != 1 or ratios[0] is None or abs(ratios[0] / expected - 1) > 1e-6:
            failures.append(f"{case['id']}: estimate --measurements TRACE gives trace_ratio "
                            f"{ratios}, the rows give {expected:.6f}")
    print(f"# {case['id']}: {len(rows)} traced steps, the walk within {100 * worst:.1f}% "
          f"({time.time() - started:.1f} s)", flush=True)
    return failures


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    cli, tracer_path = args[0], args[1]
    suite = "ci"
    names = []
    rest = args[2:]
    while rest:
        arg = rest.pop(0)
        if arg == "--suite":
            suite = rest.pop(0)
        else:
            names.append(arg)
    cases = CI_MODELS if suite == "ci" else BENCH_MODELS
    if names:
        cases = [c for c in CI_MODELS + BENCH_MODELS if c["id"] in names]
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    tracer = load_tracer(tracer_path)
    failures = []
    cache = {}
    print(f"1..{len(cases)}")
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases, 1):
            try:
                problems = run_case(cli, tracer, case, tmp, cache)
            except Exception as error:  # noqa: BLE001 - reported as the case's failure
                problems = [f"{case['id']}: {type(error).__name__}: {error}"]
            print(("not ok" if problems else "ok") + f" {i} {case['id']}", flush=True)
            for p in problems:
                print("#   " + p, flush=True)
            failures += problems
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
