"""Writes golden fixtures for the tensor tests (read by testing::load_golden).

Each line is `name|dim0,dim1,...|v0 v1 ...`, values as float64 printed to 9
significant digits (nan and inf spelled so std::stod reads them).
"""
import os


def write_golden(filename, cases):
    """Writes {name: tensor} to tensor/testdata/<filename>."""
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensor", "testdata",
                       filename)
    with open(out, "w") as f:
        for name, t in cases.items():
            shape = ",".join(str(s) for s in t.shape)
            vals = " ".join("%.9g" % v for v in t.double().flatten().tolist())
            f.write("%s|%s|%s\n" % (name, shape, vals))
