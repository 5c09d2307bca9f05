#!/usr/bin/env python3
"""Every GPU check of one lease, in one prepared run: emulators against the GPU, rewrites against
the original on the GPU, and the time of every variant (issues 15, 16, 17).

    h100_checks.py CASES --out OUT [--runs 100] [--warmup 10] [--case-timeout 120] [--only SUB]
        [--save-outputs]
    h100_checks.py one CASE_DIR --out FILE.json [--runs N] [--warmup N]
    h100_checks.py selftest

CASES holds case folders (any depth) made by bench/gpu/prepare.sh on a machine without a GPU;
each has a case.json:

    {"name": "...", "kernel": "...", "group": "tune" | "crosscheck" | "demote",
     "variants": {"ptxas": "ptxas.cubin", "demote": "demote.cubin", "ptx-jit": "code.ptx", ...},
     "reference": "ptxas",                 # the variant the others must equal, byte for byte
     "spec": "spec.json",                  # launch spec (the emulator's format and generator)
     "emu": {"sass": "emu-sass", "ptx": "emu-ptx"},   # arg<N>.bin written by `warpsmith emulate`
     "time_spec": "time.json",             # optional: a larger launch for timing only
     "timed": true}

For every case, in a child process of its own (a kernel that faults poisons the CUDA context; a
hang is cut at --case-timeout), every variant is loaded with the CUDA driver (libcuda through
ctypes, as crosscheck.py does), launched on the spec's inputs (crosscheck.py's generator: the
emulator's bytes) and every buffer read back:
- `emu`: the reference's buffers against each emulator's, exactly, and the largest float
  difference in units in the last place where they differ;
- `variants`: each variant's buffers against the reference's, exactly (`ptx-jit`, the driver's
  JIT of the PTX, is another ptxas release: a difference there is recorded, not a failure; its
  buffers are also compared with the PTX emulator's as `emu.ptx-vs-jit`);
- `timed`: each variant that equals the reference is timed on the time spec (the spec itself when
  none: same inputs): after a warm-up (the first variant for at least 200 ms, so the clock has
  left idle; every variant for `--warmup` launches), five rounds each launch every variant in turn
  `--runs`/5 times between CUDA events; the median of its launches in µs (and each round's, so a
  drift shows). The reference is timed once more at the end (`us_again`), so the table shows the
  run-to-run spread. (Until 30 Nov 2026 each variant was timed in one block, the reference first,
  the GPU's clock still ramping: a first-timed reference could read up to 13 % slow.)
A time spec with "numpy": true gets its inputs from numpy's generator (seeded; same bytes for
every variant), since pure-Python generation of tens of millions of elements takes too long.

Writes OUT/<case>.json per case and OUT/summary.json, prints one line per case. Exit status 0
when every case ran and nothing differed, 1 otherwise, 2 without a GPU. Nothing is faked: a case
that did not run says why.
"""

import argparse
import ctypes
import hashlib
import json
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crosscheck  # noqa: E402


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


# ---- inputs -------------------------------------------------------------------------------------

def numpy_buffer(b, index):
    """Seeded numpy bytes for a buffer description (timing launches only)."""
    import numpy as np
    ty, n = b["type"], int(b["len"])
    rng = np.random.default_rng(int(b.get("seed", index + 1)))
    if b.get("init") == "zero":
        return bytes(crosscheck.SIZES[ty] * n)
    lo, hi = b.get("range", [-1, 1])
    if ty in ("f16", "f32", "f64"):
        dt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[ty]
        return rng.uniform(lo, hi, n).astype(dt).tobytes()
    if ty == "bf16":
        f = rng.uniform(lo, hi, n).astype(np.float32).view(np.uint32)
        return (f >> 16).astype(np.uint16).tobytes()
    dt = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[crosscheck.SIZES[ty]]
    if "range" in b:
        return rng.integers(lo, hi, n).astype(dt).tobytes()
    return rng.integers(0, 2 ** (8 * crosscheck.SIZES[ty]), n, dtype=np.uint64).astype(dt).tobytes()


# Input kinds that are device buffers: read back after the launch and compared.
BUFFERS = ("buf", "tmap")


def tensor_elements(t):
    """Elements a tensor map's tensor spans (the emulators' `TensorMap::extent_bytes`)."""
    es = crosscheck.SIZES[t["type"]]
    dims = [int(d) for d in t["dims"]]
    if t.get("strides") is None:
        n = 1
        for d in dims:
            n *= d
        return n
    span = dims[0] * es + sum((d - 1) * int(st) for d, st in zip(dims[1:], t["strides"]))
    return -(-span // es)


def spec_inputs(spec, fast):
    """[(kind, bytes)] per argument: ("buf", data) or ("val", blob)."""
    out = []
    for i, a in enumerate(spec["args"]):
        if "buffer" in a:
            data = numpy_buffer(a["buffer"], i) if fast else crosscheck.buffer_bytes(a["buffer"], i)
            out.append(("buf", data, a["buffer"]["type"]))
        elif "tensor_map" in a:
            # The tensor behind the map is a buffer like any other (the emulators write it out
            # as arg<i>); Gpu.prepare passes the map's 128 bytes instead of a pointer.
            t = a["tensor_map"]
            b = {k: t[k] for k in ("type", "init", "seed", "range") if k in t}
            b["len"] = tensor_elements(t)
            data = numpy_buffer(b, i) if fast else crosscheck.buffer_bytes(b, i)
            out.append(("tmap", data, t["type"]))
        elif "scalar" in a:
            out.append(("val", crosscheck.scalar_bytes(a["scalar"]), a["scalar"]["type"]))
        else:
            out.append(("val", crosscheck.buffer_bytes(a["byval"], i), None))
    return out


# ---- one case (child process) ------------------------------------------------------------------

class Gpu:
    def __init__(self):
        self.cuda = crosscheck.Cuda()
        self.lib = self.cuda.lib

    def load(self, path, kernel, module_vars=()):
        """The kernel's function, its module's variables set to `module_vars`
        (`crosscheck.globals_bytes` of the spec) once: the launches that follow see them as the
        emulators do, provided the kernel does not write them (a written `.global` would carry
        over from one launch to the next)."""
        data = open(path, "rb").read()
        if not data.startswith(b"\x7fELF"):
            data += b"\0"
        mod = ctypes.c_void_p()
        self.cuda.check(self.lib.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(data)), "cuModuleLoadData")
        for name, data in module_vars:
            self.cuda.set_global(mod, name, data)
        return self.cuda.function(mod, kernel)

    def prepare(self, f, spec, inputs):
        """Device buffers with `inputs`; the parameter array; the buffers."""
        blobs, bufs = [], []
        for i, (kind, data, _ty) in enumerate(inputs):
            if kind in BUFFERS:
                p = self.cuda.alloc(data)
                bufs.append((p, len(data)))
                if kind == "tmap":
                    blobs.append(self.cuda.encode_tensor_map(p.value, spec["args"][i]["tensor_map"]))
                else:
                    blobs.append(struct.pack("<Q", p.value))
            else:
                blobs.append(data)
        holders = [ctypes.create_string_buffer(b, len(b)) for b in blobs]
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(h, ctypes.c_void_p) for h in holders])
        smem = int(spec.get("dynamic_smem", 0))
        if smem:
            self.cuda.check(self.lib.cuFuncSetAttribute(f, 8, ctypes.c_int(smem)),
                            "cuFuncSetAttribute(max dynamic shared memory %d)" % smem)
        return (holders, params), bufs

    def launch(self, f, spec, params):
        self.cuda.check(self.lib.cuLaunchKernel(
            f, *crosscheck.dims(spec["grid"]), *crosscheck.dims(spec["block"]),
            ctypes.c_uint(int(spec.get("dynamic_smem", 0))), None, params[1], None), "cuLaunchKernel")

    def run(self, f, spec, inputs):
        params, bufs = self.prepare(f, spec, inputs)
        self.launch(f, spec, params)
        self.cuda.check(self.lib.cuCtxSynchronize(), "kernel execution")
        out = [self.cuda.read(p, n) for p, n in bufs]
        for p, _ in bufs:
            self.lib.cuMemFree_v2(p)
        return out

    def timer(self, f, spec, inputs):
        """A Timer: the launch's buffers set up once, samples taken on demand."""
        params, bufs = self.prepare(f, spec, inputs)
        return Timer(self, f, spec, params, bufs)


class Timer:
    """One variant on one launch: its buffers stay allocated while the rounds run."""

    def __init__(self, gpu, f, spec, params, bufs):
        self.gpu, self.f, self.spec, self.params, self.bufs = gpu, f, spec, params, bufs
        self.ev = [ctypes.c_void_p(), ctypes.c_void_p()]
        for e in self.ev:
            gpu.cuda.check(gpu.lib.cuEventCreate(ctypes.byref(e), 0), "cuEventCreate")

    def warm(self, launches, min_ms):
        """`launches` launches, and more until `min_ms` of wall time has passed (the clock ramps up
        from idle over milliseconds; a few launches of a 10 µs kernel do not get it there)."""
        start = time.monotonic()
        n = 0
        while n < launches or (time.monotonic() - start) * 1000.0 < min_ms:
            self.gpu.launch(self.f, self.spec, self.params)
            n += 1
            if n % 64 == 0:
                self.gpu.cuda.check(self.gpu.lib.cuCtxSynchronize(), "warm-up")
        self.gpu.cuda.check(self.gpu.lib.cuCtxSynchronize(), "warm-up")

    def sample(self, runs):
        """`runs` launches, each between two CUDA events: their times in µs."""
        lib = self.gpu.lib
        ts = []
        for _ in range(runs):
            lib.cuEventRecord(self.ev[0], None)
            self.gpu.launch(self.f, self.spec, self.params)
            lib.cuEventRecord(self.ev[1], None)
            self.gpu.cuda.check(lib.cuEventSynchronize(self.ev[1]), "kernel execution")
            ms = ctypes.c_float()
            lib.cuEventElapsedTime(ctypes.byref(ms), self.ev[0], self.ev[1])
            ts.append(ms.value * 1000.0)
        return ts

    def free(self):
        for p, _ in self.bufs:
            self.gpu.lib.cuMemFree_v2(p)
        for e in self.ev:
            self.gpu.lib.cuEventDestroy_v2(e)


# Timing: the first variant is warmed for at least WARM_MS, every variant for --warmup launches;
# then ROUNDS rounds, each timing every variant for runs / ROUNDS launches in turn, so a drift of
# the clock or the temperature during the case falls on every variant alike; then the reference
# alone once more (its `us_again`: the run-to-run spread next to the differences).
WARM_MS = 200
ROUNDS = 5


def variant_spec(c, v, spec):
    """The launch of variant `v`: `spec`, with the variant's own dynamic shared size where
    case.json's `dynamic_smem` gives one (`demote --grow-dynamic` grows it)."""
    grown = c.get("dynamic_smem", {}).get(v)
    return spec if grown is None else dict(spec, dynamic_smem=grown)


def time_variants(gpu, funcs, names, spec, inputs, warmup, runs, c=None):
    """{variant: (median µs over its rounds, per-round medians)}; the reference's again."""
    timers = {v: gpu.timer(funcs[v], variant_spec(c or {}, v, spec), inputs) for v in names}
    try:
        for i, v in enumerate(names):
            timers[v].warm(warmup, WARM_MS if i == 0 else 0)
        per_round = max(1, runs // ROUNDS)
        samples = {v: [] for v in names}
        rounds = {v: [] for v in names}
        for _ in range(ROUNDS):
            for v in names:
                ts = timers[v].sample(per_round)
                samples[v] += ts
                rounds[v].append(round(median(ts), 3))
        again = median(timers[names[0]].sample(per_round))
    finally:
        for t in timers.values():
            t.free()
    return {v: (median(samples[v]), rounds[v]) for v in names}, again


def buffer_types(inputs):
    return [ty for kind, _d, ty in inputs if kind in BUFFERS]


def diff_buffers(a, b, types):
    """None when equal, else a short description (first element, count, worst ulp for floats)."""
    if a == b:
        return None
    for j, (x, y, ty) in enumerate(zip(a, b, types)):
        if x == y:
            continue
        es = crosscheck.SIZES[ty]
        if len(x) != len(y):
            return "buffer %d: %d vs %d bytes" % (j, len(x), len(y))
        count, first, worst = 0, None, 0
        for k in range(len(x) // es):
            u = int.from_bytes(x[k * es:(k + 1) * es], "little")
            v = int.from_bytes(y[k * es:(k + 1) * es], "little")
            if u != v:
                count += 1
                if first is None:
                    first = (k, u, v)
                if ty in crosscheck.FLOATS:
                    worst = max(worst, crosscheck.ulp_distance(ty, u, v))
        msg = "buffer %d: %d of %d elements differ, first [%d] %#x vs %#x" % (
            j, count, len(x) // es, first[0], first[1], first[2])
        if ty in crosscheck.FLOATS:
            msg += ", worst %d ulp" % worst
        return msg
    return "buffer count differs"


JIT = "ptx-jit"


def emu_diff(out, d, sub, inputs, types):
    """None when the GPU's buffers equal an emulator's (its arg<N>.bin, or their SHA-256
    digests in digests.json where prepare.py kept only those), else what differs."""
    idx = [j for j, (kind, _d, _t) in enumerate(inputs) if kind in BUFFERS]
    digests = os.path.join(d, sub, "digests.json")
    if os.path.isfile(digests):
        want = json.load(open(digests))
        bad = [j for j, b in zip(idx, out) if hashlib.sha256(b).hexdigest() != want.get("arg%d.bin" % j)]
        return None if not bad else "arg %s differ (SHA-256 digests; no element detail)" % bad
    emu = [open(os.path.join(d, sub, "arg%d.bin" % j), "rb").read() for j in idx]
    return diff_buffers(out, emu, types)


def run_case(d, warmup, runs, save=None):
    c = json.load(open(os.path.join(d, "case.json")))
    res = {"name": c["name"], "group": c["group"], "kernel": c["kernel"], "variants": {}, "emu": {},
           "warmup": warmup, "runs": runs}
    for k in ("predicted_choice", "predicted_us", "arch", "model", "notes"):
        if k in c:
            res[k] = c[k]
    gpu = Gpu()
    spec = json.load(open(os.path.join(d, c["spec"])))
    inputs = spec_inputs(spec, False)
    module_vars = crosscheck.globals_bytes(spec)
    types = buffer_types(inputs)
    funcs, ref_out = {}, None
    ref = c.get("reference", "ptxas")
    order = [ref] + [v for v in c["variants"] if v != ref]
    for v in order:
        entry = res["variants"].setdefault(v, {})
        with open(os.path.join(d, c["variants"][v]), "rb") as fh:
            entry["sha256"] = hashlib.sha256(fh.read()).hexdigest()
        try:
            funcs[v] = gpu.load(os.path.join(d, c["variants"][v]), c["kernel"], module_vars)
            out = gpu.run(funcs[v], variant_spec(c, v, spec), inputs)
        except RuntimeError as e:
            entry["error"] = str(e)
            funcs.pop(v, None)
            if "execution" in str(e) or "illegal" in str(e):
                raise  # the context is gone; the parent records the case as failed
            continue
        if v == ref:
            ref_out = out
            entry["equal_to_reference"] = True
            if save:
                os.makedirs(save, exist_ok=True)
                for j, b in zip([j for j, (k, _d, _t) in enumerate(inputs) if k in BUFFERS], out):
                    with open(os.path.join(save, "arg%d.bin" % j), "wb") as fh:
                        fh.write(b)
            for name, sub in c.get("emu", {}).items():
                res["emu"][name] = emu_diff(out, d, sub, inputs, types) or "equal"
        else:
            why = diff_buffers(ref_out, out, types) if ref_out is not None else "no reference output"
            entry["equal_to_reference"] = why is None
            if why:
                entry["difference"] = why
        if v == JIT and "ptx" in c.get("emu", {}):
            res["emu"]["ptx-vs-jit"] = emu_diff(out, d, c["emu"]["ptx"], inputs, types) or "equal"
        if v == JIT and not entry["equal_to_reference"]:
            # The driver's JIT is another ptxas release: it may contract mul+add into fma
            # differently. Informational; it still gets a time on its own inputs.
            entry["equal_to_reference"] = None
    if c.get("timed", True):
        tspec, tinputs = spec, inputs
        if c.get("time_spec"):
            tspec = json.load(open(os.path.join(d, c["time_spec"])))
            tinputs = spec_inputs(tspec, bool(tspec.get("numpy")))
            ttypes = buffer_types(tinputs)
            tref = None
            for v in order:
                if v not in funcs or res["variants"][v].get("equal_to_reference") is False:
                    continue
                out = gpu.run(funcs[v], variant_spec(c, v, tspec), tinputs)
                if tref is None:
                    tref = out
                elif v != JIT:
                    why = diff_buffers(tref, out, ttypes)
                    if why:
                        res["variants"][v]["equal_to_reference"] = False
                        res["variants"][v]["difference"] = "time spec: " + why
        res["time_launch"] = {"grid": tspec["grid"], "block": tspec["block"]}
        res["timing"] = {"warm_ms": WARM_MS, "rounds": ROUNDS, "interleaved": True}
        timed = [v for v in order
                 if v in funcs and res["variants"][v].get("equal_to_reference") is not False]
        if timed:
            times, again = time_variants(gpu, funcs, timed, tspec, tinputs, warmup, runs, c)
            for v, (us, per_round) in times.items():
                res["variants"][v]["us"] = us
                res["variants"][v]["us_rounds"] = per_round
            if timed[0] == ref:
                res["variants"][ref]["us_again"] = again
    return res


# ---- the parent ---------------------------------------------------------------------------------

# The order the groups run in: the predictor's ground truth (issue 17) first, so that a run cut
# short by CHECKS_TIMEOUT loses the checks that matter least.
GROUP_ORDER = ("tune", "tune-triton", "triton", "regdem", "mma")


def find_cases(root, only):
    found = []
    for dirpath, _dirs, files in os.walk(root):
        if "case.json" in files and (not only or only in dirpath):
            found.append(dirpath)

    def key(d):
        group = os.path.relpath(d, root).split(os.sep)[0]
        return (GROUP_ORDER.index(group) if group in GROUP_ORDER else len(GROUP_ORDER), d)
    return sorted(found, key=key)


def line(r):
    if "failed" in r:
        return "%-40s FAILED: %s" % (r["name"], r["failed"][:200])
    ref = r["variants"].get("ptxas", {})
    parts = []
    for name, e in r["emu"].items():
        parts.append("emu-%s %s" % (name, "equal" if e == "equal" else "differs (%s)" % e[e.find("worst"):] if "worst" in e else "DIFFERS"))
    for v, e in r["variants"].items():
        if "error" in e:
            parts.append("%s ERROR" % v)
        elif e.get("equal_to_reference") is False:
            parts.append("%s DIFFERS" % v)
        elif "us" in e:
            parts.append("%s %.1fus" % (v, e["us"]))
    if "us_again" in ref:
        parts.append("(ptxas again %.1fus)" % ref["us_again"])
    return "%-40s %s" % (r["name"], "; ".join(parts))


def cmd_all(a):
    try:
        crosscheck.Cuda()
    except RuntimeError as e:
        print("h100_checks: %s; nothing was run" % e, file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    results, bad = [], 0
    for d in find_cases(a.cases, a.only):
        name = os.path.relpath(d, a.cases).replace(os.sep, "__")
        out = os.path.join(a.out, name + ".json")
        cmd = [sys.executable, os.path.abspath(__file__), "one", d, "--out", out,
               "--runs", str(a.runs), "--warmup", str(a.warmup)]
        if a.save_outputs:
            cmd += ["--save-outputs", os.path.join(a.out, name + ".outs")]
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.case_timeout)
            ok = p.returncode == 0 and os.path.isfile(out)
            r = json.load(open(out)) if ok else {"name": name, "failed": (p.stderr or p.stdout).strip()[-600:]}
        except subprocess.TimeoutExpired:
            r = {"name": name, "failed": "timed out after %d s" % a.case_timeout}
        r["name"] = name
        r["seconds"] = round(time.time() - t0, 1)
        bad += "failed" in r or any(e.get("equal_to_reference") is False or "error" in e
                                    for e in r.get("variants", {}).values()) \
            or r.get("emu", {}).get("sass", "equal") != "equal"
        results.append(r)
        print(line(r), flush=True)
        # After every case: a run stopped early (h100_run.sh's CHECKS_TIMEOUT) keeps what it did.
        with open(os.path.join(a.out, "summary.json.tmp"), "w") as fh:
            json.dump({"cases": results}, fh, indent=1)
        os.replace(os.path.join(a.out, "summary.json.tmp"), os.path.join(a.out, "summary.json"))
    print("%d cases, %d with a failure or a difference" % (len(results), bad))
    return 1 if bad else 0


def cmd_one(a):
    r = run_case(a.case, a.warmup, a.runs, a.save_outputs)
    with open(a.out + ".tmp", "w") as fh:
        json.dump(r, fh, indent=1)
    os.replace(a.out + ".tmp", a.out)
    return 0


def cmd_selftest():
    assert median([3, 1, 2]) == 2
    t = ["f32"]
    one = struct.pack("<f", 1.0)
    nxt = struct.pack("<I", struct.unpack("<I", one)[0] + 1)
    assert diff_buffers([one], [one], t) is None
    assert "1 ulp" in diff_buffers([one], [nxt], t)
    # A tensor map's tensor: dense, or as far as its last element with byte strides.
    assert tensor_elements({"type": "f16", "dims": [144, 256]}) == 144 * 256
    assert tensor_elements({"type": "f16", "dims": [10, 3], "strides": [32]}) == 16 * 2 + 10
    tm = spec_inputs({"args": [{"tensor_map": {"type": "f16", "dims": [8, 2], "box": [8, 1],
                                               "init": "iota"}}]}, False)
    assert tm == [("tmap", crosscheck.buffer_bytes({"type": "f16", "len": 16, "init": "iota"}, 0), "f16")]
    try:
        import numpy  # noqa: F401  (only the timing launches need it)
        assert len(numpy_buffer({"type": "bf16", "len": 4, "init": "random"}, 0)) == 8
    except ImportError:
        print("selftest: numpy absent, its generator not checked")
    print("selftest: ok")
    return 0


def main():
    if sys.argv[1:] == ["selftest"]:
        return cmd_selftest()
    if len(sys.argv) > 1 and sys.argv[1] == "one":
        ap = argparse.ArgumentParser()
        ap.add_argument("cmd")
        ap.add_argument("case")
        ap.add_argument("--out", required=True)
        ap.add_argument("--runs", type=int, default=100)
        ap.add_argument("--warmup", type=int, default=10)
        ap.add_argument("--save-outputs")
        return cmd_one(ap.parse_args())
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--case-timeout", type=int, default=120)
    ap.add_argument("--only", help="only case folders whose path contains this")
    ap.add_argument("--save-outputs", action="store_true",
                    help="also write ptxas alone's GPU buffers (spec launch) to OUT/<case>.outs/")
    return cmd_all(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
