"""Writes golden fixtures for the tests (read by testing::load_golden).

Each line is `name|dim0,dim1,...|v0 v1 ...`, values as float64 printed to 9
significant digits by default (nan and inf spelled so std::stod reads them);
17 digits round-trip float64 exactly.
"""
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def write_golden(filename, cases, directory="tensor/testdata", digits=9):
    """Writes {name: tensor} to <directory>/<filename>, `directory` relative to the
    repository root (created if missing)."""
    out_dir = os.path.join(ROOT, directory)
    os.makedirs(out_dir, exist_ok=True)
    fmt = "%%.%dg" % digits
    with open(os.path.join(out_dir, filename), "w") as f:
        for name, t in cases.items():
            shape = ",".join(str(s) for s in t.shape)
            vals = " ".join(fmt % v for v in t.double().flatten().tolist())
            f.write("%s|%s|%s\n" % (name, shape, vals))
