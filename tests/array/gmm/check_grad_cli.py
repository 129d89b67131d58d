#!/usr/bin/env python3
"""CLI end-to-end check of the GMM gradient:

    to_json gmm FILE > ARGS.json; rml grad reference/adbench/gmm.rml --fun gmm_objective --at ARGS.json

On gmm/test.txt the value and the (alphas, means, icf) gradient must match ADBench's
golden values (test/cpp/modules/common/GmmTests.cpp, microsoft/ADBench commit 6c252509)
with rho <= 1e-8. On gmm/1k/gmm_d2_K5.txt, <gradient, v> must match central differences
of the CLI's value along three fixed directions v (rho <= 1e-6).
Usage: check_grad_cli.py RML SOURCE_DIR. Exit 0 pass, 1 fail (a missing data file fails).
Data: $RML_ADBENCH_DIR, else SOURCE_DIR/data/adbench, in the repository (as gmm_data.cpp).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

GOLDEN_VALUE = 8.07380408004975791
GOLDEN_GRADIENT = [
    1.08662855508652456e-01, -7.41270039523898472e-01, 6.32607184015246071e-01, 1.11692576532787013e+00,
    1.63333013551455269e-01, -2.19989824071193142e-02, 2.27778292254236098e-01, 1.20963025612832187e+00,
    -6.06375920733956339e-02, 2.58529994051162237e+00, 1.12632694524213789e-01, 3.85744309849611777e-01,
    7.35180573182305508e-02, 5.41836362715595232e+00, -3.21494409677446469e-01, 1.71892309775004937e+00,
    8.60091090790866875e-01, -9.94640930466322848e-01]
PARAMS = ("alphas", "means", "icf")


def rho(x, y):
    return abs(x - y) / max(1.0, abs(x) + abs(y))


def flat(v):
    return [e for row in v for e in flat(row)] if isinstance(v, list) else [v]


def unflat(values, like):
    """values (an iterator) shaped like the nested list `like`"""
    return [unflat(values, e) for e in like] if isinstance(like, list) else next(values)


class Cli:
    def __init__(self, rml, source, tmp):
        self.rml, self.source, self.tmp = rml, source, tmp
        self.to_json = os.path.join(source, "benchmarks", "adbench", "to_json")
        self.gmm = os.path.join(source, "reference", "adbench", "gmm.rml")

    def args(self, data_file):
        out = subprocess.run([self.to_json, "gmm", data_file], capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    def grad(self, args):
        path = os.path.join(self.tmp, "args.json")
        with open(path, "w") as f:
            json.dump(args, f)
        out = subprocess.run([self.rml, "grad", self.gmm, "--fun", "gmm_objective", "--at", path],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"rml grad exit {out.returncode}: {out.stderr}")
        return json.loads(out.stdout)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    rml, source = argv[1], argv[2]
    data = os.environ.get("RML_ADBENCH_DIR") or os.path.join(source, "data", "adbench")
    test_txt, d2k5 = os.path.join(data, "gmm", "test.txt"), os.path.join(data, "gmm", "1k", "gmm_d2_K5.txt")
    if not (os.path.exists(test_txt) and os.path.exists(d2k5)):
        print(f"FAIL: ADBench data missing: {test_txt} or {d2k5}", file=sys.stderr)
        return 1
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cli = Cli(rml, source, tmp)
        # test.txt against ADBench's golden value and gradient
        r = cli.grad(cli.args(test_txt))
        if set(r["gradient"]) != {"alphas", "means", "icf", "x", "wishart_gamma"}:
            failures.append(f"gradient keys {sorted(r['gradient'])}")
        if rho(r["value"], GOLDEN_VALUE) > 1e-8:
            failures.append(f"test.txt value {r['value']!r} vs {GOLDEN_VALUE!r}")
        g = [e for p in PARAMS for e in flat(r["gradient"][p])]
        worst = max(rho(a, b) for a, b in zip(g, GOLDEN_GRADIENT)) if len(g) == len(GOLDEN_GRADIENT) else math.inf
        print(f"test.txt: value {r['value']!r}, gradient max rho vs ADBench golden {worst:.3g}")
        if not worst <= 1e-8:
            failures.append(f"test.txt gradient: {len(g)} entries, max rho {worst}")
        # gmm_d2_K5: directional central differences of the CLI's value
        args = cli.args(d2k5)
        r = cli.grad(args)
        g = [e for p in PARAMS for e in flat(r["gradient"][p])]
        p0 = [e for p in PARAMS for e in flat(args[p])]
        h = (2.0 ** -52) ** (1.0 / 3.0)
        for d in range(3):
            v = [math.sin(1.0 + 7.0 * j + 3.0 * d) for j in range(len(p0))]
            vals = []
            for s in (h, -h):
                moved = dict(args)
                it = iter([a + s * b for a, b in zip(p0, v)])
                for p in PARAMS:
                    moved[p] = unflat(it, args[p])
                vals.append(cli.grad(moved)["value"])
            fd, gv = (vals[0] - vals[1]) / (2 * h), sum(a * b for a, b in zip(g, v))
            print(f"gmm_d2_K5 direction {d}: <grad, v> = {gv!r}, central difference {fd!r}, rho {rho(gv, fd):.3g}")
            if not rho(gv, fd) <= 1e-6:
                failures.append(f"gmm_d2_K5 direction {d}: rho {rho(gv, fd)}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
