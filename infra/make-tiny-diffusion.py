#!/usr/bin/env python3
"""Writes a tiny random-weight image-to-image diffusion model in the ONNX export
layout of diffusers / optimum (`optimum-cli export onnx`), for the tests of
render-node's ONNX refinement stage (docs/rendering.md, "ONNX refinement"):

    OUTDIR/model_index.json
    OUTDIR/scheduler/scheduler_config.json
    OUTDIR/tokenizer/{vocab.json,merges.txt,tokenizer_config.json,special_tokens_map.json}
    OUTDIR/text_encoder/{model.onnx,config.json}
    OUTDIR/unet/{model.onnx,config.json}
    OUTDIR/vae_encoder/{model.onnx,config.json}
    OUTDIR/vae_decoder/{model.onnx,config.json}

Input and output names, element types and ranks are those of a real export
(text encoder: int32 `input_ids` -> `last_hidden_state`, `pooler_output`;
unet: `sample`, `timestep`, `encoder_hidden_states` -> `out_sample`; VAE
encoder: `sample` -> `latent_parameters` (mean and log-variance); VAE
decoder: `latent_sample` -> `sample`), but every network is one or two
layers with random weights: a few kilobytes, milliseconds to run. The VAE is
close to an 8x8 patch average and its inverse, so the pipeline's output still
looks like its input. `--control` adds a ControlNet-style `controlnet_cond`
image input (the renderer's depth map) to the unet.

Usage: make-tiny-diffusion.py OUTDIR [--control] [--scheduler euler|lcm] [--seed N]
Needs: pip install onnx==1.23.2 numpy==2.4.6
"""

import argparse
import json
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # pragma: no cover - the message is the point
    sys.exit(
        f"make-tiny-diffusion: {e}. Install the generator's packages with: "
        "pip install onnx==1.23.2 numpy==2.4.6"
    )

OPSET = 17
IR_VERSION = 8  # readable by every ONNX Runtime since 1.10
MAX_LEN = 77
HIDDEN = 8
LATENT_C = 4
LATENT = 16  # latent side; the image side is LATENT * 8
SCALE = 8
IMAGE = LATENT * SCALE
SCALING_FACTOR = 0.18215
WORDS = (
    "studio product photo of a an the car vehicle white black gray silver blue red green "
    "brown beige tan orange yellow gold burgundy purple front side rear three quarter view "
    "from right left toyota camry sedan coupe suv pickup van truck bus motorcycle clean "
    "background soft light cartoon drawing text watermark logo blurry"
).split()


def byte_alphabet():
    """GPT-2 / CLIP byte-level alphabet: every byte gets a printable character."""
    keep = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("\xa1"), ord("\xac") + 1))
        + list(range(ord("\xae"), ord("\xff") + 1))
    )
    chars = {}
    extra = 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def write_tokenizer(out):
    alphabet = byte_alphabet()
    vocab = {}
    for c in alphabet:
        vocab[c] = len(vocab)
    for c in alphabet:
        vocab[c + "</w>"] = len(vocab)
    merges = []
    for word in WORDS:
        parts = list(word[:-1]) + [word[-1] + "</w>"]
        while len(parts) > 1:
            pair = (parts[0], parts[1])
            merged = parts[0] + parts[1]
            if pair not in merges:
                merges.append(pair)
            if merged not in vocab:
                vocab[merged] = len(vocab)
            parts = [merged] + parts[2:]
    bos, eos = "<|startoftext|>", "<|endoftext|>"
    vocab[bos] = len(vocab)
    vocab[eos] = len(vocab)
    d = os.path.join(out, "tokenizer")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
    special = {"bos_token": bos, "eos_token": eos, "pad_token": eos, "unk_token": eos}
    write_json(os.path.join(d, "special_tokens_map.json"), special)
    write_json(
        os.path.join(d, "tokenizer_config.json"),
        dict(special, model_max_length=MAX_LEN, do_lower_case=True, tokenizer_class="CLIPTokenizer"),
    )
    return len(vocab)


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")


def init(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def save(out, component, graph, config):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    model.producer_name = "vis make-tiny-diffusion"
    onnx.checker.check_model(model)
    d = os.path.join(out, component)
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    write_json(os.path.join(d, "config.json"), config)


def text_encoder(out, rng, vocab_size):
    emb = rng.normal(0.0, 1.0, (vocab_size, HIDDEN))
    pos = rng.normal(0.0, 0.1, (MAX_LEN, HIDDEN))
    w = rng.normal(0.0, 0.5, (HIDDEN, HIDDEN))
    nodes = [
        helper.make_node("Gather", ["emb", "input_ids"], ["tok"], axis=0),
        helper.make_node("Add", ["tok", "pos"], ["x"]),
        helper.make_node("MatMul", ["x", "w"], ["xw"]),
        helper.make_node("Tanh", ["xw"], ["last_hidden_state"]),
        helper.make_node("ReduceMean", ["last_hidden_state"], ["pooler_output"], axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "text_encoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT32, ["batch_size", "sequence_length"])],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch_size", "sequence_length", HIDDEN]
            ),
            helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT, ["batch_size", HIDDEN]),
        ],
        [init("emb", emb), init("pos", pos), init("w", w)],
    )
    save(out, "text_encoder", graph, {"hidden_size": HIDDEN, "max_position_embeddings": MAX_LEN})


def unet(out, rng, control):
    # Optimum exports an int64 timestep; the control variant takes a float one,
    # as some exports do, so both paths are exercised.
    t_type = TensorProto.FLOAT if control else TensorProto.INT64
    inits = [
        init("w1", rng.normal(0.0, 0.3, (8, LATENT_C, 3, 3))),
        init("b1", rng.normal(0.0, 0.1, (8,))),
        init("wt", rng.normal(0.0, 1.0, (1, 8, 1, 1))),
        init("wc", rng.normal(0.0, 0.5, (HIDDEN, 8))),
        init("w2", rng.normal(0.0, 0.1, (LATENT_C, 8, 3, 3))),
        numpy_helper.from_array(np.array([1, 2, 3], dtype=np.int64), "axes_t"),
        numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "axes_c"),
        init("thousand", np.array(1000.0)),
    ]
    nodes = [
        helper.make_node("Conv", ["sample", "w1", "b1"], ["h0"], pads=[1, 1, 1, 1]),
        helper.make_node("Cast", ["timestep"], ["tf"], to=TensorProto.FLOAT),
        helper.make_node("Div", ["tf", "thousand"], ["tn"]),
        helper.make_node("Unsqueeze", ["tn", "axes_t"], ["t4"]),
        helper.make_node("Mul", ["t4", "wt"], ["temb"]),
        helper.make_node("ReduceMean", ["encoder_hidden_states"], ["ctx"], axes=[1], keepdims=0),
        helper.make_node("MatMul", ["ctx", "wc"], ["cw"]),
        helper.make_node("Unsqueeze", ["cw", "axes_c"], ["c4"]),
        helper.make_node("Add", ["h0", "temb"], ["h1"]),
        helper.make_node("Add", ["h1", "c4"], ["h2"]),
    ]
    inputs = [
        helper.make_tensor_value_info("sample", TensorProto.FLOAT, ["batch_size", LATENT_C, "height", "width"]),
        helper.make_tensor_value_info("timestep", t_type, ["steps"]),
        helper.make_tensor_value_info(
            "encoder_hidden_states", TensorProto.FLOAT, ["batch_size", "sequence_length", HIDDEN]
        ),
    ]
    last = "h2"
    if control:
        inits.append(init("wk", rng.normal(0.0, 0.5, (8, 3, SCALE, SCALE)) / SCALE))
        nodes.append(helper.make_node("Conv", ["controlnet_cond", "wk"], ["k"], strides=[SCALE, SCALE]))
        nodes.append(helper.make_node("Add", ["h2", "k"], ["h3"]))
        inputs.append(
            helper.make_tensor_value_info(
                "controlnet_cond", TensorProto.FLOAT, ["batch_size", 3, "image_height", "image_width"]
            )
        )
        last = "h3"
    nodes += [
        helper.make_node("Sigmoid", [last], ["sig"]),
        helper.make_node("Mul", [last, "sig"], ["act"]),
        helper.make_node("Conv", ["act", "w2"], ["out_sample"], pads=[1, 1, 1, 1]),
    ]
    graph = helper.make_graph(
        nodes,
        "unet",
        inputs,
        [helper.make_tensor_value_info("out_sample", TensorProto.FLOAT, ["batch_size", LATENT_C, "height", "width"])],
        inits,
    )
    save(
        out,
        "unet",
        graph,
        {"sample_size": LATENT, "in_channels": LATENT_C, "out_channels": LATENT_C, "cross_attention_dim": HIDDEN},
    )


def vae(out, rng):
    vae_config = {
        "block_out_channels": [4, 4, 4, 4],
        "latent_channels": LATENT_C,
        "scaling_factor": SCALING_FACTOR,
        "sample_size": IMAGE,
    }
    # Encoder: mean channels 0-2 average their RGB channel over an 8x8 patch,
    # channel 3 the luminance; log-variance channels are noise.
    enc = rng.normal(0.0, 0.002, (2 * LATENT_C, 3, SCALE, SCALE))
    for c in range(3):
        enc[c, c] += 1.0 / (SCALE * SCALE)
        enc[3, c] += 1.0 / (3 * SCALE * SCALE)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["sample", "w"], ["latent_parameters"], strides=[SCALE, SCALE])],
        "vae_encoder",
        [helper.make_tensor_value_info("sample", TensorProto.FLOAT, ["batch_size", 3, "height", "width"])],
        [
            helper.make_tensor_value_info(
                "latent_parameters", TensorProto.FLOAT, ["batch_size", 2 * LATENT_C, "height_latent", "width_latent"]
            )
        ],
        [init("w", enc)],
    )
    save(out, "vae_encoder", graph, vae_config)
    # Decoder: the inverse, spreading each latent back over its patch.
    dec = rng.normal(0.0, 0.02, (LATENT_C, 3, SCALE, SCALE))
    for c in range(3):
        dec[c, c] += 1.0
    graph = helper.make_graph(
        [helper.make_node("ConvTranspose", ["latent_sample", "w"], ["sample"], strides=[SCALE, SCALE])],
        "vae_decoder",
        [
            helper.make_tensor_value_info(
                "latent_sample", TensorProto.FLOAT, ["batch_size", LATENT_C, "latent_height", "latent_width"]
            )
        ],
        [helper.make_tensor_value_info("sample", TensorProto.FLOAT, ["batch_size", 3, "height", "width"])],
        [init("w", dec)],
    )
    save(out, "vae_decoder", graph, vae_config)


def scheduler(out, kind):
    config = {
        "num_train_timesteps": 1000,
        "beta_start": 0.00085,
        "beta_end": 0.012,
        "beta_schedule": "scaled_linear",
        "prediction_type": "epsilon",
        "steps_offset": 1,
    }
    if kind == "lcm":
        config.update(_class_name="LCMScheduler", original_inference_steps=50, timestep_scaling=10.0)
    else:
        config.update(
            _class_name="EulerDiscreteScheduler",
            timestep_spacing="leading",
            interpolation_type="linear",
            use_karras_sigmas=False,
        )
    write_json(os.path.join(out, "scheduler", "scheduler_config.json"), config)
    return config["_class_name"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--control", action="store_true", help="add a controlnet_cond input to the unet")
    ap.add_argument("--scheduler", choices=["euler", "lcm"], default="euler")
    ap.add_argument("--seed", type=int, default=0, help="weights seed")
    args = ap.parse_args()
    out = args.outdir
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    vocab_size = write_tokenizer(out)
    text_encoder(out, rng, vocab_size)
    unet(out, rng, args.control)
    vae(out, rng)
    sched = scheduler(out, args.scheduler)
    write_json(
        os.path.join(out, "model_index.json"),
        {
            "_class_name": "StableDiffusionImg2ImgPipeline",
            "_diffusers_version": "0.35.1",
            "_name_or_path": f"vis-tiny-diffusion (seed {args.seed}, control {args.control})",
            "feature_extractor": [None, None],
            "requires_safety_checker": False,
            "safety_checker": [None, None],
            "scheduler": ["diffusers", sched],
            "text_encoder": ["transformers", "CLIPTextModel"],
            "tokenizer": ["transformers", "CLIPTokenizer"],
            "unet": ["diffusers", "UNet2DConditionModel"],
            "vae": ["diffusers", "AutoencoderKL"],
        },
    )
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print(f"make-tiny-diffusion: wrote {out} ({total // 1024} KB, {IMAGE}px, scheduler {sched}, control {args.control})")


if __name__ == "__main__":
    main()
